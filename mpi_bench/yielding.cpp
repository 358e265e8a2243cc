#include "yielding.hpp"

#include <sched.h>
#include <time.h>

namespace redux_bench {
namespace {

// Waits longer than this are long on any machine: from then on, the waiting rank sleeps between polls.
constexpr double kSpinBeforeSleepS = 1e-3;
constexpr long kSleepNs = 50000;

}  // namespace

int wait_all_yielding(int n, MPI_Request* requests) {
#ifdef SMPI_H  // simulated ranks: polling would stop simulated time (libredux/src/mpi/yielding.hpp)
    return PMPI_Waitall(n, requests, MPI_STATUSES_IGNORE);
#endif
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
    MPI_Request request = MPI_REQUEST_NULL;
    PMPI_Ibarrier(comm, &request);
    wait_all_yielding(1, &request);
}

void bcast_yielding(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
    MPI_Request request = MPI_REQUEST_NULL;
    PMPI_Ibcast(buffer, count, datatype, root, comm, &request);
    wait_all_yielding(1, &request);
}

bool all_of_yielding(bool value, MPI_Comm comm) {
    int in = value ? 1 : 0, out = 0;
    MPI_Request request = MPI_REQUEST_NULL;
    PMPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_LAND, comm, &request);
    wait_all_yielding(1, &request);
    return out != 0;
}

}  // namespace redux_bench
