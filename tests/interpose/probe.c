/* Probes for the interposition tests (probe.h).
 *
 * Where a symbol resolved: dladdr() names the shared object that contains an address. For a function the
 * program calls, the address it takes of that function (or dlsym(RTLD_DEFAULT), which searches the objects
 * in the same order as the dynamic linker does for the program's own calls) is the definition its calls
 * reach; interposition works when that object is libredux, whether it got there by LD_PRELOAD or by being
 * linked before the MPI library.
 *
 * What libredux printed: with REDUX_VERBOSE=1, rank 0 prints "libredux: new plan ..." on stderr when it plans a
 * reduction, so a test can show that a call was not only routed to libredux but reduced on a libredux tree.
 * The capture redirects file descriptor 2 to a temporary file and back, and echoes what it caught.
 */
#define _GNU_SOURCE
#include "probe.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int in_libredux(const void *address, const char *what) {
    Dl_info info;
    if (address == NULL || dladdr(address, &info) == 0 || info.dli_fname == NULL) {
        fprintf(stderr, "probe: %s: no shared object contains it\n", what);
        return 0;
    }
    const char *slash = strrchr(info.dli_fname, '/');
    const char *base = slash != NULL ? slash + 1 : info.dli_fname;
    if (strncmp(base, "libredux", strlen("libredux")) == 0) return 1;
    fprintf(stderr, "probe: %s resolves to %s, not to libredux\n", what,
            info.dli_fname[0] != '\0' ? info.dli_fname : "the program itself");
    return 0;
}

int redux_probe_function_in_libredux(void (*function)(void), const char *what) {
    union {
        void (*function)(void);
        void *object;
    } address; /* POSIX guarantees the conversion dladdr needs; ISO C does not spell it */
    address.function = function;
    return in_libredux(address.object, what);
}

int redux_probe_symbol_in_libredux(const char *symbol) { return in_libredux(dlsym(RTLD_DEFAULT, symbol), symbol); }

static FILE *g_capture = NULL;
static int g_saved_stderr = -1;

void redux_probe_capture_stderr(void) {
    fflush(stderr);
    g_capture = tmpfile();
    g_saved_stderr = dup(STDERR_FILENO);
    if (g_capture == NULL || g_saved_stderr < 0 || dup2(fileno(g_capture), STDERR_FILENO) < 0) {
        perror("probe: cannot capture stderr");
    }
}

int redux_probe_stderr_contains(const char *text) {
    if (g_capture == NULL || g_saved_stderr < 0) return 0;
    fflush(stderr);
    dup2(g_saved_stderr, STDERR_FILENO);
    close(g_saved_stderr);
    g_saved_stderr = -1;

    char captured[8192];
    rewind(g_capture);
    const size_t length = fread(captured, 1, sizeof captured - 1, g_capture);
    captured[length] = '\0';
    fclose(g_capture);
    g_capture = NULL;
    fputs(captured, stderr);
    return strstr(captured, text) != NULL;
}
