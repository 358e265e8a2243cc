// --sync window: every rank starts an iteration at the same agreed time instead of as it leaves a barrier.
//
// With a barrier (the OSU convention, the default), ranks leave at different times: the root, which entered
// last (it finished the previous reduce last), leaves almost at once, and the others up to a few one-way
// latencies later, when its message reaches them. On a fast machine this skew is noise; on a network with
// millisecond latencies it adds several of them to every measured latency, whatever the algorithm, and the
// measurement no longer compares with a model in which every rank starts at time 0.
//
// The window method (as in SKaMPI and ReproMPI): each rank's clock offset to the root's is estimated once
// by ping-pong (the exchange with the smallest round trip of kOffsetSamples, halfway point), or, when every
// rank runs on one host, read exactly off the host's clock (start_clock.cpp); then, for
// every iteration, after a barrier the root broadcasts a start time `margin_s` ahead, every rank waits
// until that time on its own clock, and the root times from that start to its completion. `margin_s` is
// twice the slowest of a few broadcast-and-reduce round trips measured once, which covers the barrier's
// skew and the broadcast. A rank that gets the start time too late counts the iteration as late. Ranks of one
// host with a core each wait by spinning; others sleep and yield first (start_clock.cpp says why).
#pragma once

#include <mpi.h>

namespace redux_bench {

class StartClock {
public:
    // Collective over comm.
    StartClock(int root, MPI_Comm comm);

    // Collective: waits until the next agreed start and returns it, on this rank's clock (MPI_Wtime).
    double next_start();

    // Collective: how many next_start() calls, summed over ranks, began late since the last call.
    long take_late_count();

    double margin_s() const { return margin_s_; }

private:
    int root_;
    MPI_Comm comm_;
    int rank_ = 0;
    double offset_s_ = 0;  // this rank's MPI_Wtime minus the root's
    double margin_s_ = 0;
    long late_ = 0;
    bool spin_ = false;  // every rank on one host, a core each: wait by spinning
};

}  // namespace redux_bench
