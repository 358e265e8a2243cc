/* Probes for the interposition tests: where a symbol resolved, and what libredux printed. Plain C without MPI,
 * so that the C and the Fortran test programs link the same code. See probe.c. */
#ifndef REDUX_TESTS_INTERPOSE_PROBE_H
#define REDUX_TESTS_INTERPOSE_PROBE_H

/* 1 when `function` lies in a shared object whose file name starts with "libredux"; otherwise 0, after
 * printing on stderr which object it lies in. `what` names it in that message. */
int redux_probe_function_in_libredux(void (*function)(void), const char *what);

/* The same for the definition the dynamic linker gives `symbol` (dlsym(RTLD_DEFAULT, symbol)), which is the one
 * a call from the program reaches. */
int redux_probe_symbol_in_libredux(const char *symbol);

/* Sends this process's stderr (file descriptor 2) to a temporary file until redux_probe_stderr_contains(). */
void redux_probe_capture_stderr(void);

/* Ends the capture, copies what was captured to the real stderr, and returns 1 when it contains `text`. */
int redux_probe_stderr_contains(const char *text);

#endif
