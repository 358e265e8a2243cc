/* Whether a request is libredux's, asked from Fortran: the program may be built without libredux (then preloaded),
 * so redux_request_info is looked up at run time (dlsym(RTLD_DEFAULT)), where both ways of loading libredux put it.
 * See request_probe.c. */
#ifndef REDUX_TESTS_INTERPOSE_REQUEST_PROBE_H
#define REDUX_TESTS_INTERPOSE_REQUEST_PROBE_H

#include <mpi.h>

/* redux_request_info on the C handle of the Fortran `request` (MPI_Request_f2c): 1 when libredux returned it, 0 for
 * any other request; -1, after a line on stderr, when libredux is not loaded. */
int redux_probe_request_is_libredux(const MPI_Fint *request);

#endif
