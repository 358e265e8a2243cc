// The homogeneous cost model of Canon & Antoniu (RR-7898, Section 3.1).
//
// transfer_s (the paper's d): time to move one element -- the whole reduction vector -- between two ranks.
// compute_s  (the paper's c): time of one application of the operator to two elements.
// One-port: a rank takes part in at most one transfer at a time. Overlap: a rank may receive its next element
// while it reduces the current one, so k elements folded on one rank take d + (k - 1) max(d, c) + c.
//
// Value types only: no MPI, no measurement. Calibration (a later layer) produces these numbers.
#pragma once

#include <algorithm>

namespace redux {

struct Costs {
    double transfer_s = 0.0;  // d
    double compute_s = 0.0;   // c

    double max_s() const { return std::max(transfer_s, compute_s); }
    double min_s() const { return std::min(transfer_s, compute_s); }
    double step_s() const { return transfer_s + compute_s; }  // one transfer followed by one reduction
};

}  // namespace redux
