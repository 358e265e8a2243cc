// After an error: what a call posted is finished before it returns, so that nothing it started stays behind.
// A receive is cancelled and then completed; a send is completed, not cancelled (MPI 4.0 deprecates cancelling
// sends, and a send whose receive was posted completes). Return codes are ignored: the call already fails with
// the first error. The calls are MPI_ (not PMPI_): the requests are the executor's, which profiling layers see.
#pragma once

#include <mpi.h>

namespace redux {

inline void abandon_receive(MPI_Request& request) {
    if (request == MPI_REQUEST_NULL) return;
    MPI_Cancel(&request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
}

inline void abandon_send(MPI_Request& request) {
    if (request == MPI_REQUEST_NULL) return;
    MPI_Wait(&request, MPI_STATUS_IGNORE);
}

}  // namespace redux
