// One way for MPI return codes to travel: every MPI call the executor makes goes through REDUX_MPI(call),
// which returns the code from the enclosing function when it is not MPI_SUCCESS. Callers that posted requests
// finish them on the way out (Execution::abandon, exec/execution.hpp) before the code reaches the user's error
// handler.
#pragma once

#include <mpi.h>

#define REDUX_MPI(call)                                 \
    do {                                                \
        const int redux_rc_ = (call);                   \
        if (redux_rc_ != MPI_SUCCESS) return redux_rc_; \
    } while (0)
