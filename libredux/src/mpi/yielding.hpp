// Collectives that wait without holding a core: each is the nonblocking form (MPI_Ibcast, MPI_Iallreduce,
// ...) completed by MPI_Test in a loop that calls sched_yield() after a few polls.
//
// Why: libredux's own agreements (settings, plan hashes, auto's timings, calibration) are small collectives on
// its private communicator. MPICH 4.0.2's blocking collectives busy-poll without yielding, so with more ranks
// than cores every rank that waits keeps the core the rank it waits for needs, and each such collective costs
// scheduler time slices instead of microseconds (MPI_Comm_dup likewise, hence comm_dup_yielding). With one rank
// per core the loop costs a few polls.
// The collectives call PMPI_ directly (libredux's own bookkeeping, not the application's communication:
// profiling layers, and the tests' request counter, see none of it); wait_yielding, for the executor's
// point-to-point requests, completes them through MPI_Test. Return codes are those of the MPI calls; nothing
// here throws.
#pragma once

#include <mpi.h>

#include <limits>

namespace redux {

// Polls before each sched_yield(): enough that a request finishing within a microsecond or so is not delayed
// by a trip through the scheduler.
constexpr int kPollsBeforeYield = 200;

// Under SimGrid's SMPI (smpicxx defines SMPI_H) every rank is simulated in one process and simulated time
// advances only when every rank is blocked: a polling loop would spin forever at one instant, or, with SMPI's
// time injected per MPI_Test, pay that time on every poll. There the waits block (MPI_Wait, MPI_Waitany); no
// core is shared, so the reason for polling does not apply. The collectives are the blocking ones there too:
// SMPI's nonblocking collectives are linear (every rank to every rank), too slow to simulate at scale.
#ifdef SMPI_H
constexpr bool kSimulatedRanks = true;
#else
constexpr bool kSimulatedRanks = false;
#endif
constexpr bool kBlockingWaits = kSimulatedRanks;

// MPI_Test(&request, &done, MPI_STATUS_IGNORE), where a null request is done: SimGrid 3.32's MPI_Test leaves
// the flag unset for one when the status is ignored.
inline int test_request(MPI_Request& request, int& done) {
    if (request == MPI_REQUEST_NULL) {
        done = 1;
        return MPI_SUCCESS;
    }
    return MPI_Test(&request, &done, MPI_STATUS_IGNORE);
}

// Completes `request` (started by the caller) through MPI_Test.
int wait_yielding(MPI_Request& request);
// Completes one of `count` requests (null ones are skipped) through MPI_Testany: `index` is its place and `status`
// its status; MPI_UNDEFINED when every request is null, or when MPI_Wtime() reaches a finite `deadline_s` first.
// Under SMPI (kBlockingWaits) it waits past the deadline: simulated time does not pass while a rank polls.
int wait_any_yielding(int count, MPI_Request* requests, int& index, MPI_Status& status,
                      double deadline_s = std::numeric_limits<double>::infinity());

// libredux's own point-to-point bookkeeping (the op's calibration sample): PMPI_Isend / PMPI_Irecv completed through
// PMPI_Test, unseen by profiling layers, like the collectives here.
int send_yielding(const void* buffer, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int recv_yielding(void* buffer, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm);

int bcast_yielding(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int allreduce_yielding(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int allgather_yielding(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm);
int barrier_yielding(MPI_Comm comm);

// A barrier whose ranks leave as nearly together as the links allow, for timing a collective on a network
// with long latencies: every rank tells `root` that it has come, and once all have, the root releases them
// all at once (one message each, point to point, tag tags::kStart). A tree-shaped barrier lets the ranks go one
// level after another, a latency apart, and a reduction then starts from that skew. start_s: this rank's
// MPI_Wtime() when it was let go (the root's as it sends the releases). O(size) messages at the root, of
// `count` doubles (at most kStartValues) each: every rank's `mine` goes to the root with its arrival, and
// `largest`, the largest of each value over the ranks, comes back to every rank with its release (an agreement
// at no extra message). Auto's trial starts send three values and one per rank of up to 64 (api/run_plan.cpp).
constexpr int kStartValues = 3 + 64;
int start_together_yielding(MPI_Comm comm, int root, double& start_s, const double* mine, double* largest, int count);
int comm_dup_yielding(MPI_Comm comm, MPI_Comm* newcomm);
// `count` duplicates of `comm`, into newcomms[0 .. count); on error some may have been made (the others null).
int comm_dups_yielding(MPI_Comm comm, MPI_Comm* newcomms, int count);

}  // namespace redux
