#include "start_clock.hpp"

#include "yielding.hpp"

#include "util/host_clock.hpp"

#include <sched.h>
#include <time.h>

#include <algorithm>
#include <vector>

namespace redux_bench {
namespace {

using redux::host_clock_s;

constexpr int kOffsetSamples = 20;
constexpr int kMarginSamples = 10;
constexpr int kClockTag = 7002;
constexpr double kSpinLast_s = 20e-6;  // next_start spins, without yielding, through the last of its wait

void send_yielding(const double* values, int count, int to, MPI_Comm comm) {
    MPI_Request request = MPI_REQUEST_NULL;
    PMPI_Isend(values, count, MPI_DOUBLE, to, kClockTag, comm, &request);
    wait_all_yielding(1, &request);
}

void recv_yielding(double* values, int count, int from, MPI_Comm comm) {
    MPI_Request request = MPI_REQUEST_NULL;
    PMPI_Irecv(values, count, MPI_DOUBLE, from, kClockTag, comm, &request);
    wait_all_yielding(1, &request);
}

// Where every rank of comm runs on one host (MPI_COMM_TYPE_SHARED), the number of CPUs they may run on together (the
// union of their affinity masks, which a cpuset cgroup narrows; 0 if unknown); -1 where they do not. Collective. Never
// under SMPI, whose MPI_Wtime is simulated time and has nothing to do with the host's clock.
int one_host_cpus(MPI_Comm comm) {
#ifdef SMPI_H
    (void)comm;
    return -1;
#else
    int size = 0, host_size = 0;
    MPI_Comm host = MPI_COMM_NULL;
    MPI_Comm_size(comm, &size);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
    MPI_Comm_size(host, &host_size);
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) CPU_ZERO(&allowed);
    MPI_Request request = MPI_REQUEST_NULL;
    PMPI_Iallreduce(MPI_IN_PLACE, &allowed, static_cast<int>(sizeof allowed), MPI_BYTE, MPI_BOR, host, &request);
    wait_all_yielding(1, &request);
    MPI_Comm_free(&host);
    return all_of_yielding(host_size == size, comm) ? CPU_COUNT(&allowed) : -1;
#endif
}

// MPI_Wtime less the host's CLOCK_MONOTONIC: the same for every process of a host at one instant, up to the MPI
// library's origin of MPI_Wtime (Open MPI's is per process). One pair of reads is not enough: the first read of a
// cold clock can take as long as a small reduce, and an offset off by that much moves every timed call of a job by
// as much. Of kOffsetSamples reads of MPI_Wtime, each between two reads of the host clock, the one with the shortest
// bracket.
double wtime_less_host_clock() {
    double best_bracket_s = 1e300, offset_s = 0;
    for (int s = 0; s < kOffsetSamples; ++s) {
        const double before_s = host_clock_s();
        const double wtime_s = MPI_Wtime();
        const double after_s = host_clock_s();
        if (after_s - before_s < best_bracket_s) {
            best_bracket_s = after_s - before_s;
            offset_s = wtime_s - (before_s + after_s) / 2;
        }
    }
    return offset_s;
}

}  // namespace

StartClock::StartClock(int root, MPI_Comm comm) : root_(root), comm_(comm) {
    int size = 0;
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size);

    // Offsets. On one host, exact: every process reads the host's clock, and MPI_Wtime differs from it by its
    // origin only (a ping-pong's estimate is off by as much as a reduce's latency there). Between hosts the root
    // asks each rank for its clock; the reply that came back fastest is the best estimate.
    const int host_cpus = one_host_cpus(comm_);
    const bool one_host = host_cpus >= 0;
    spin_ = one_host && size <= host_cpus;
    if (one_host) {
        const double mine_s = wtime_less_host_clock();
        double root_s = mine_s;
        bcast_yielding(&root_s, 1, MPI_DOUBLE, root_, comm_);
        offset_s_ = mine_s - root_s;
    }
    for (int partner = 0; partner < size && !one_host; ++partner) {
        if (partner == root_ || (rank_ != root_ && rank_ != partner)) continue;
        if (rank_ == root_) {
            double best_rtt_s = 1e300, offset_s = 0;
            for (int s = 0; s < kOffsetSamples; ++s) {
                double t = 0, remote = 0;
                const double sent = MPI_Wtime();
                send_yielding(&t, 1, partner, comm_);
                recv_yielding(&remote, 1, partner, comm_);
                const double received = MPI_Wtime();
                if (received - sent < best_rtt_s) {
                    best_rtt_s = received - sent;
                    offset_s = remote - (sent + received) / 2;
                }
            }
            send_yielding(&offset_s, 1, partner, comm_);
        } else {
            for (int s = 0; s < kOffsetSamples; ++s) {
                double t = 0;
                recv_yielding(&t, 1, root_, comm_);
                t = MPI_Wtime();
                send_yielding(&t, 1, root_, comm_);
            }
            recv_yielding(&offset_s_, 1, root_, comm_);
        }
    }

    // Margin: a broadcast from the root and a reduction back, the slowest of a few, doubled.
    double slowest_s = 0;
    for (int s = 0; s < kMarginSamples; ++s) {
        barrier_yielding(comm_);
        const double t0 = MPI_Wtime();
        double token = t0;
        bcast_yielding(&token, 1, MPI_DOUBLE, root_, comm_);
        all_of_yielding(true, comm_);
        slowest_s = std::max(slowest_s, MPI_Wtime() - t0);
    }
    margin_s_ = 2 * slowest_s + 50e-6;
    bcast_yielding(&margin_s_, 1, MPI_DOUBLE, root_, comm_);
}

double StartClock::next_start() {
    barrier_yielding(comm_);
    double start_s = rank_ == root_ ? MPI_Wtime() + margin_s_ : 0;  // on the root's clock
    bcast_yielding(&start_s, 1, MPI_DOUBLE, root_, comm_);
    const double local_start_s = start_s + offset_s_;
    if (MPI_Wtime() > local_start_s) ++late_;
    // With a core for every rank of one host, spin: a program's ranks between its calls compute, they do not sleep,
    // and a small reduce right after a sleep or a yield runs several times slower than after a spin. Else sleep
    // through most of the wait (other ranks may need the cores), yield through the last 200 us but the last
    // kSpinLast_s, and spin through those: a rank that waits in sched_yield leaves up to one system call after the
    // start time, and the call is timed from the start time.
    while (true) {
        const double left_s = local_start_s - MPI_Wtime();
        if (left_s <= 0) break;
        if (spin_) continue;
#ifdef SMPI_H  // simulated ranks: sleep the exact time (smpi_helpers.h makes nanosleep simulated; a spin would
               // hold simulated time still)
        sleep_until(local_start_s);
        continue;
#endif
        if (left_s > 300e-6) {
            const timespec pause{0, static_cast<long>(std::min(left_s - 200e-6, 0.5) * 1e9)};
            nanosleep(&pause, nullptr);
        } else if (left_s > kSpinLast_s) {
            sched_yield();
        }
    }
    return local_start_s;
}

long StartClock::take_late_count() {
    const long total = sum_yielding(late_, comm_);
    late_ = 0;
    return total;
}

}  // namespace redux_bench
