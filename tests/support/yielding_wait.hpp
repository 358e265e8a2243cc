// The tests' own synchronisation, waiting without holding a core.
//
// Debian 12's MPICH (ch4:ucx) busy-polls inside every blocking call and never yields, so with 8 ranks on 2
// cores a blocking barrier or reduction in a test costs whole kernel time slices per message
// (cmake/ReduxTesting.cmake has the numbers). These helpers start the nonblocking collective and wait by
// PMPI_Test with sched_yield() in between. They call PMPI_ directly, so request_counter.hpp counts none of them.
#pragma once

#include <mpi.h>

#include <cstdint>

namespace redux_test {

// Waits for `request` by PMPI_Test and sched_yield(); returns PMPI_Test's error code, if any.
int wait_yielding(MPI_Request& request);

void barrier(MPI_Comm comm);

// True on every rank when `value` is true on every rank of comm.
bool all_of(bool value, MPI_Comm comm);

// The largest `value` over comm, on every rank.
int64_t max_of(int64_t value, MPI_Comm comm);

// PMPI_Reduce's result for the same arguments: PMPI_Ireduce waited for by wait_yielding under MPICH,
// PMPI_Reduce itself under Open MPI (see the .cpp).
int reference_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                     MPI_Comm comm);

}  // namespace redux_test
