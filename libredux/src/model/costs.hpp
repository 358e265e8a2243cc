// The homogeneous cost model of Canon & Antoniu (RR-7898, Section 3.1).
//
// transfer_s (the paper's d): time to move one element -- the whole reduction vector -- between two ranks.
// compute_s  (the paper's c): time of one application of the operator to two elements.
// One-port: a rank takes part in at most one transfer at a time. Overlap: a rank may receive its next element
// while it reduces the current one, so k elements folded on one rank take d + (k - 1) max(d, c) + c.
//
// Time in flight (LogP's latency L; Culler et al., and Karp, Sahay, Santos & Schauser for summation): flight_s is
// the part of d during which the message is on its way and the receiver's port is free, so messages from several
// senders can be in flight together; only the rest of d, port_s() (LogP's per-message overhead and gap plus the bytes'
// time, LogGP's G), occupies the port. A transfer started at t arrives at t + d; k elements whose senders were
// ready together are folded on one rank by d + (k - 1) max(d - L, c) + c. flight_s = 0 is Canon & Antoniu's
// model exactly; 0 <= flight_s <= transfer_s. (Not PlanRequest::latency_s, the part of d that does not grow
// with the bytes, which sizes segments.)
//
// The op's cost per application (compute_call_s, a): c = a + b x elements, where a is paid by every application of
// the op whatever its length (a library's dispatch, a callback into another runtime, a device launch) and b per
// element. A fold of a fraction f of the vector costs a + (c - a) f (fold_s): a plan that applies the op in m pieces
// (segments, chunks, lanes) pays a m times. 0 <= compute_call_s <= compute_s; 0 is an op whose cost is all per
// element, the paper's c.
//
// A call's own cost (call_s): entering and leaving the call, posting and completing its requests, paid once per call
// on the critical path (from a start all ranks share: a barrier's exit skew is not in it). It is added to a plan's
// makespan when a prediction is reported; no tree, segment count or ranking of plans depends on it, so the planner
// ignores it (and at call_s = 0 every prediction is the schedule's makespan alone).
//
// Value types only: no MPI, no measurement. Calibration (a later layer) produces these numbers.
#pragma once

#include <algorithm>

namespace redux {

struct Costs {
    double transfer_s = 0.0;      // d
    double compute_s = 0.0;       // c
    double flight_s = 0.0;        // L, the part of d that does not occupy the receiver's port
    double call_s = 0.0;          // a call's own cost, once per call (above)
    double compute_call_s = 0.0;  // a, the part of c every application of the op pays (above)

    // One application of the op to `fraction` (0 < fraction <= 1) of the vector.
    double fold_s(double fraction) const {
        const double per_call_s = std::min(compute_call_s, compute_s);
        return per_call_s + (compute_s - per_call_s) * fraction;
    }

    double max_s() const { return std::max(transfer_s, compute_s); }
    double port_s() const { return transfer_s - flight_s; }
    // The pace of a rank folding elements that are all on their way: one per max(port, fold).
    double pace_s() const { return std::max(port_s(), compute_s); }
    double min_s() const { return std::min(transfer_s, compute_s); }
    double step_s() const { return transfer_s + compute_s; }  // one transfer followed by one reduction
};

}  // namespace redux
