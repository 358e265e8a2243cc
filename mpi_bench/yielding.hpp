// Synchronisation that waits without holding a core.
//
// The benchmark runs with more ranks than cores (8 ranks on a 2-core machine, or on the emulated cluster whose
// nodes share 2 cores). Debian 12's MPICH busy-polls in every blocking call, so a rank waiting in MPI_Barrier
// takes the core the rank doing the work needs. The barrier between timed iterations, the broadcasts of
// measured costs and verdicts, and the ping-pong used to measure d therefore start the nonblocking call and
// wait by MPI_Test with sched_yield() in between, and after a millisecond (a long wait anywhere: on the
// emulated cluster, where several ranks wait out network latencies) sleep 50 us between tests, so the ranks
// with work to do get the cores. They call PMPI_ names: nothing here is what is measured.
#pragma once

#include <mpi.h>

namespace redux_bench {

// Waits for every request in [requests, requests + n) by PMPI_Testall and sched_yield() (or sleeps).
int wait_all_yielding(int n, MPI_Request* requests);

void barrier_yielding(MPI_Comm comm);

void bcast_yielding(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);

// The logical AND of `value` over comm, on every rank.
bool all_of_yielding(bool value, MPI_Comm comm);

// The sum of `value` over comm, on every rank.
long sum_yielding(long value, MPI_Comm comm);

// The smallest `value` over comm, on every rank.
long min_yielding(long value, MPI_Comm comm);

// Element by element, the largest of every rank's values[0 .. n), into `largest` on the root.
void max_to_root_yielding(const double* values, double* largest, int n, int root, MPI_Comm comm);

// Sleeps (nanosleep, no spinning) until MPI_Wtime() reaches `until_s`: the rank leaves its core as an
// application rank that is busy elsewhere does. Returns at once when that time has passed.
void sleep_until(double until_s);

}  // namespace redux_bench
