/* Whether a Fortran request is libredux's, for requests_check.f90 (request_probe.h). */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "request_probe.h"

#include "redux/redux.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int redux_probe_request_is_libredux(const MPI_Fint *request) {
    typedef int (*request_info_function)(MPI_Request, redux_call_info *);
    static request_info_function request_info = NULL;
    if (request_info == NULL) {
        void *symbol = dlsym(RTLD_DEFAULT, "redux_request_info");
        if (symbol == NULL) {
            fprintf(stderr, "probe: redux_request_info is not loaded: libredux is neither preloaded nor linked\n");
            return -1;
        }
        memcpy(&request_info, &symbol, sizeof request_info); /* POSIX: a function's address comes as a void * */
    }
    return request_info(MPI_Request_f2c(*request), NULL);
}
