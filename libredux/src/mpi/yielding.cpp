// Nonblocking collectives completed by a yielding MPI_Test loop (yielding.hpp says why).
#include "mpi/yielding.hpp"

#include "mpi/mpi_check.hpp"
#include "mpi/tags.hpp"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace redux {

namespace {

using TestCall = int (*)(MPI_Request*, int*, MPI_Status*);
using WaitCall = int (*)(MPI_Request*, MPI_Status*);

int wait_with(TestCall test, WaitCall wait, MPI_Request& request) {
    if constexpr (kBlockingWaits) return wait(&request, MPI_STATUS_IGNORE);
    for (int polls = 0;;) {
        int done = 0;
        REDUX_MPI(test(&request, &done, MPI_STATUS_IGNORE));
        if (done) return MPI_SUCCESS;
        if (polls < kPollsBeforeYield) {
            ++polls;
        } else {
            sched_yield();
        }
    }
}

// A collective cannot be cancelled: when a test fails, the collective is finished by PMPI_Wait before its
// buffers (on the caller's stack) go away.
int wait_internal(MPI_Request& request) {
    const int rc = wait_with(PMPI_Test, PMPI_Wait, request);
    if (rc != MPI_SUCCESS && request != MPI_REQUEST_NULL) PMPI_Wait(&request, MPI_STATUS_IGNORE);
    return rc;
}

}  // namespace

int wait_yielding(MPI_Request& request) { return wait_with(MPI_Test, MPI_Wait, request); }

int wait_any_yielding(int count, MPI_Request* requests, int& index, MPI_Status& status, double deadline_s) {
    if constexpr (kBlockingWaits) return MPI_Waitany(count, requests, &index, &status);
    const bool timed = std::isfinite(deadline_s);
    for (int polls = 0;;) {
        int done = 0;
        REDUX_MPI(MPI_Testany(count, requests, &index, &done, &status));
        if (done) return MPI_SUCCESS;
        if (timed && MPI_Wtime() >= deadline_s) {
            index = MPI_UNDEFINED;
            return MPI_SUCCESS;
        }
        if (polls < kPollsBeforeYield) {
            ++polls;
        } else {
            sched_yield();
        }
    }
}

int send_yielding(const void* buffer, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    if constexpr (kBlockingWaits) return PMPI_Send(buffer, count, datatype, dest, tag, comm);
    MPI_Request request = MPI_REQUEST_NULL;
    REDUX_MPI(PMPI_Isend(buffer, count, datatype, dest, tag, comm, &request));
    return wait_internal(request);
}

int recv_yielding(void* buffer, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm) {
    if constexpr (kBlockingWaits) return PMPI_Recv(buffer, count, datatype, source, tag, comm, MPI_STATUS_IGNORE);
    MPI_Request request = MPI_REQUEST_NULL;
    REDUX_MPI(PMPI_Irecv(buffer, count, datatype, source, tag, comm, &request));
    return wait_internal(request);
}

int bcast_yielding(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
    if constexpr (kBlockingWaits) return PMPI_Bcast(buffer, count, datatype, root, comm);
    MPI_Request request = MPI_REQUEST_NULL;
    REDUX_MPI(PMPI_Ibcast(buffer, count, datatype, root, comm, &request));
    return wait_internal(request);
}

int allreduce_yielding(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    if constexpr (kBlockingWaits) return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    MPI_Request request = MPI_REQUEST_NULL;
    REDUX_MPI(PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, &request));
    return wait_internal(request);
}

int allgather_yielding(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm) {
    if constexpr (kBlockingWaits) {
        return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    }
    MPI_Request request = MPI_REQUEST_NULL;
    REDUX_MPI(PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &request));
    return wait_internal(request);
}

int barrier_yielding(MPI_Comm comm) {
    if constexpr (kBlockingWaits) return PMPI_Barrier(comm);
    MPI_Request request = MPI_REQUEST_NULL;
    REDUX_MPI(PMPI_Ibarrier(comm, &request));
    return wait_internal(request);
}

int start_together_yielding(MPI_Comm comm, int root, double& start_s, const double* mine, double* largest, int count) {
    if (count < 0 || count > kStartValues) return MPI_ERR_COUNT;
    int rank = 0, size = 0;
    REDUX_MPI(PMPI_Comm_rank(comm, &rank));
    REDUX_MPI(PMPI_Comm_size(comm, &size));
    if (rank != root) {
        MPI_Request came = MPI_REQUEST_NULL, go = MPI_REQUEST_NULL;
        REDUX_MPI(PMPI_Irecv(largest, count, MPI_DOUBLE, root, tags::kStart, comm, &go));
        REDUX_MPI(PMPI_Isend(mine, count, MPI_DOUBLE, root, tags::kStart, comm, &came));
        REDUX_MPI(wait_internal(go));
        start_s = MPI_Wtime();
        return wait_internal(came);
    }
    std::copy(mine, mine + count, largest);
    for (int other = 0; other < size; ++other) {  // hear from everyone, in any order: each has come or will
        if (other == root) continue;
        double theirs[kStartValues] = {};
        MPI_Request came = MPI_REQUEST_NULL;
        REDUX_MPI(PMPI_Irecv(theirs, count, MPI_DOUBLE, other, tags::kStart, comm, &came));
        REDUX_MPI(wait_internal(came));
        for (int i = 0; i < count; ++i) largest[i] = std::max(largest[i], theirs[i]);
    }
    start_s = MPI_Wtime();
    for (int other = 0; other < size; ++other) {  // then let everyone go at once
        if (other == root) continue;
        // A few doubles go out eagerly: the wait returns at once, and `largest` stays put until it does.
        MPI_Request go = MPI_REQUEST_NULL;
        REDUX_MPI(PMPI_Isend(largest, count, MPI_DOUBLE, other, tags::kStart, comm, &go));
        REDUX_MPI(wait_internal(go));
    }
    return MPI_SUCCESS;
}

int comm_dup_yielding(MPI_Comm comm, MPI_Comm* newcomm) { return comm_dups_yielding(comm, newcomm, 1); }

// The duplicates started together: their agreements on a context id run at once, so `count` of them take about the
// time of one on a network with long latencies.
int comm_dups_yielding(MPI_Comm comm, MPI_Comm* newcomms, int count) {
    for (int i = 0; i < count; ++i) newcomms[i] = MPI_COMM_NULL;
    if constexpr (kBlockingWaits) {  // SMPI 3.32 has no MPI_Comm_idup
        for (int i = 0; i < count; ++i) REDUX_MPI(PMPI_Comm_dup(comm, &newcomms[i]));
        return MPI_SUCCESS;
    }
    std::vector<MPI_Request> requests(static_cast<size_t>(count), MPI_REQUEST_NULL);
    int rc = MPI_SUCCESS;
    int started = 0;
    for (; started < count && rc == MPI_SUCCESS; ++started) {
        rc = PMPI_Comm_idup(comm, &newcomms[started], &requests[static_cast<size_t>(started)]);
    }
    for (int i = 0; i < started; ++i) {
        const int done = wait_internal(requests[static_cast<size_t>(i)]);
        if (rc == MPI_SUCCESS) rc = done;
    }
    return rc;
}

}  // namespace redux
