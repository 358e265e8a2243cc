// The two costs of the model, measured in the same run as the reduction they plan for.
//
// d (transfer_s): the root ping-pongs `count` elements with every other rank in turn (one untimed exchange
// first, which also opens lazily made connections), half of each round trip is a one-way time, and d is the
// largest of the per-partner medians: the model is homogeneous, and a tree is as slow as its slowest links.
// c (compute_s): the median time of MPI_Reduce_local over `count` elements with the benchmark's op on the
// root (one untimed call first), the operand refilled before every call so values never overflow.
// Both are measured by the root and broadcast, so every rank plans with the same numbers.
#pragma once

#include "ops.hpp"

#include <mpi.h>

namespace redux_bench {

struct MeasuredCosts {
    double transfer_s = 0;  // 0 on one rank: nothing to transfer
    double compute_s = 0;
};

// Collective over comm. `samples` >= 1 timed repetitions per partner and for the op.
MeasuredCosts measure_costs(const BenchOp& op, int count, int root, int samples, MPI_Comm comm);

}  // namespace redux_bench
