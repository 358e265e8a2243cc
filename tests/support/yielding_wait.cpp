#include "yielding_wait.hpp"

#include <sched.h>

#include <cstring>

namespace redux_test {

int wait_yielding(MPI_Request& request) {
    int done = 0;
    while (true) {
        const int rc = PMPI_Test(&request, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || done) return rc;
        sched_yield();
    }
}

void barrier(MPI_Comm comm) {
    MPI_Request request = MPI_REQUEST_NULL;
    PMPI_Ibarrier(comm, &request);
    wait_yielding(request);
}

bool all_of(bool value, MPI_Comm comm) {
    int in = value ? 1 : 0, out = 0;
    MPI_Request request = MPI_REQUEST_NULL;
    PMPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_LAND, comm, &request);
    wait_yielding(request);
    return out != 0;
}

int64_t max_of(int64_t value, MPI_Comm comm) {
    int64_t out = 0;
    MPI_Request request = MPI_REQUEST_NULL;
    PMPI_Iallreduce(&value, &out, 1, MPI_INT64_T, MPI_MAX, comm, &request);
    wait_yielding(request);
    return out;
}

int reference_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                     MPI_Comm comm) {
    // Open MPI: blocking, which yields there (mpi_yield_when_idle); its MPI_Ireduce (libnbc, 4.1) corrupts the
    // heap with datatypes whose true lower bound is negative.
    static const bool open_mpi = [] {
        char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
        int length = 0;
        MPI_Get_library_version(version, &length);
        return std::strstr(version, "Open MPI") != nullptr;
    }();  // (not reduce_check.hpp's mpi_library_is: this file stays free of gtest)
    if (open_mpi) return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    MPI_Request request = MPI_REQUEST_NULL;
    const int rc = PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, &request);
    if (rc != MPI_SUCCESS) return rc;
    return wait_yielding(request);
}

}  // namespace redux_test
