#include "yielding.hpp"

#include "mpi/yielding.hpp"

#include <sched.h>
#include <time.h>

namespace redux_bench {
namespace {

// Simulated ranks (SimGrid's SMPI): waits block and collectives are the blocking ones, as in libredux
// (libredux/src/mpi/yielding.hpp says why).
using redux::kSimulatedRanks;

// Waits longer than this are long on any machine: from then on, the waiting rank sleeps between polls.
constexpr double kSpinBeforeSleepS = 1e-3;
constexpr long kSleepNs = 50000;

}  // namespace

int wait_all_yielding(int n, MPI_Request* requests) {
    if (kSimulatedRanks) return PMPI_Waitall(n, requests, MPI_STATUSES_IGNORE);
    int done = 0;
    const double start_s = MPI_Wtime();
    while (true) {
        const int rc = PMPI_Testall(n, requests, &done, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS || done) return rc;
        if (MPI_Wtime() - start_s < kSpinBeforeSleepS) {
            sched_yield();
        } else {
            const timespec pause{0, kSleepNs};
            nanosleep(&pause, nullptr);
        }
    }
}

void barrier_yielding(MPI_Comm comm) {
    if (kSimulatedRanks) {
        PMPI_Barrier(comm);
        return;
    }
    MPI_Request request = MPI_REQUEST_NULL;
    PMPI_Ibarrier(comm, &request);
    wait_all_yielding(1, &request);
}

void bcast_yielding(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
    if (kSimulatedRanks) {
        PMPI_Bcast(buffer, count, datatype, root, comm);
        return;
    }
    MPI_Request request = MPI_REQUEST_NULL;
    PMPI_Ibcast(buffer, count, datatype, root, comm, &request);
    wait_all_yielding(1, &request);
}

namespace {

template <class T>
T allreduce_yielding(T in, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
    T out{};
    if (kSimulatedRanks) {
        PMPI_Allreduce(&in, &out, 1, type, op, comm);
        return out;
    }
    MPI_Request request = MPI_REQUEST_NULL;
    PMPI_Iallreduce(&in, &out, 1, type, op, comm, &request);
    wait_all_yielding(1, &request);
    return out;
}

}  // namespace

bool all_of_yielding(bool value, MPI_Comm comm) {
    return allreduce_yielding<int>(value ? 1 : 0, MPI_INT, MPI_LAND, comm) != 0;
}

long sum_yielding(long value, MPI_Comm comm) { return allreduce_yielding<long>(value, MPI_LONG, MPI_SUM, comm); }

long min_yielding(long value, MPI_Comm comm) { return allreduce_yielding<long>(value, MPI_LONG, MPI_MIN, comm); }

void max_to_root_yielding(const double* values, double* largest, int n, int root, MPI_Comm comm) {
    if (kSimulatedRanks) {
        PMPI_Reduce(values, largest, n, MPI_DOUBLE, MPI_MAX, root, comm);
        return;
    }
    MPI_Request request = MPI_REQUEST_NULL;
    PMPI_Ireduce(values, largest, n, MPI_DOUBLE, MPI_MAX, root, comm, &request);
    wait_all_yielding(1, &request);
}

// Under SMPI nanosleep is simulated (smpi_helpers.h), so the simulated ranks sleep the exact simulated time.
void sleep_until(double until_s) {
    for (double left_s = until_s - MPI_Wtime(); left_s > 0; left_s = until_s - MPI_Wtime()) {
        const auto whole_s = static_cast<time_t>(left_s);
        const timespec pause{whole_s, static_cast<long>((left_s - static_cast<double>(whole_s)) * 1e9) + 1};
        nanosleep(&pause, nullptr);
    }
}

}  // namespace redux_bench
