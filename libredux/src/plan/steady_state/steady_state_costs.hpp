// The steady state of a vector cut into segments, from the costs the planner already has: the platform of the
// steady-state program (steady_state.hpp) whose partial results are segments, and what its weighted trees
// predict for the vector. See steady_state_costs.cpp.
//
// One reduction of the steady state is the reduction of one segment. Each of the `segments` segments is taken
// to hold elements / segments elements (the mean of the planner's cut, whose segments differ by at most one
// element): every partial result of the program has one size, as Section 2 of Legrand, Marchal & Robert
// assumes. A segment costs what the segmented model (segments.cpp) charges it: on a link that moves the whole
// vector in d, with latency_s of it fixed per message (clamped to d),
//     transfer  latency_s + (d - latency_s) / segments,   or d x curve(segment bytes) / curve(vector bytes) when the
//                                                         request carries the calibrated curve (segment_curve);
//     fold      c / segments.
#pragma once

#include "model/costs.hpp"
#include "model/hetero_costs.hpp"
#include "plan/planner.hpp"
#include "plan/steady_state/steady_state.hpp"
#include "plan/steady_state/weighted_trees.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace redux {

// How the costs of the whole vector scale to one of its segments (the rule above).
struct SegmentScale {
    int32_t segments = 1;    // >= 1
    double latency_s = 0;    // the part of every transfer time that does not shrink with the segment
    double curve_ratio = 0;  // > 0: a segment's transfer costs d x curve_ratio instead (latency_s unused)

    double transfer_s(double whole_s) const;
    double fold_call_s = 0;  // the op's cost per application (Costs::compute_call_s): every segment pays it

    double fold_s(double whole_s) const {
        const double per_call_s = std::min(fold_call_s, whole_s);
        return per_call_s + (whole_s - per_call_s) / segments;
    }
};

// The request's rule: its segment count (>= 1), latency_s and, when it has segment_curve and element_bytes,
// the curve's ratio at elements / segments elements to the whole vector (at most 1).
SegmentScale segment_scale(const PlanRequest& request);

// Participants 0..p-1 are the ranks, the target `target`, every ordered pair an edge costing
// scale.transfer_s(d_ij), every fold scale.fold_s(c_i). A message holds the sender's and the receiver's port
// for all of its time, as the program's one-port model has it: a time in flight (HeteroCosts::flight_s,
// Costs::flight_s) is not used. Any size is built (p^2 transfer times); the solvers refuse above their limits
// (steady_state_refusal).
SteadyStatePlatform steady_state_platform(const HeteroCosts& costs, int32_t target, const SegmentScale& scale);
SteadyStatePlatform steady_state_platform(int32_t ranks, const Costs& costs, int32_t target, const SegmentScale& scale);

// The platform of a plan request: its hetero_costs when it has them, otherwise `costs` on every link and rank,
// target the root, the request's segment_scale(). Refuses -- nullopt, nothing built, `error` (when given) saying
// why -- an invalid request (validate()), more than max_participants ranks (no truncation: a platform of the
// first ranks would be another reduction), a segment count of 0 (the steady state needs the count, it does not
// choose it) or above `elements` (a segment of no element), the no-overlap model (the program lets a
// participant send, receive and fold at once), or a time in flight (not in the program's model). A platform
// it returns may still be refused by the solvers (fewer than two participants, every cost zero).
std::optional<SteadyStatePlatform> steady_state_platform(const PlanRequest& request, int32_t max_participants,
                                                         std::string* error = nullptr);

// One tree alone on the platform, nothing else running.
struct TreeAlone {
    // 1 / (the busiest send port, receive port or folding of one reduction along it): the weight the tree
    // could carry alone, the optimum of the steady-state program restricted to this one tree.
    double throughput_per_s = 0;
    // One reduction from the values in place to v[0,p-1] at the target, each transfer and fold started as early
    // as its inputs and the ports allow (list scheduling, earliest start first): the pipeline's fill.
    double makespan_s = 0;
};

// Throws std::invalid_argument when reduction_tree_error(tree, ...) is not empty.
TreeAlone tree_alone(const SteadyStatePlatform& platform, const WeightedTree& tree);

// What the weighted trees predict for `segments` segments of the vector (one reduction each).
struct SteadyStateForecast {
    double throughput_per_s = 0;   // TP: the trees' weights summed
    std::vector<TreeAlone> alone;  // by tree
    int32_t best_tree = -1;        // the largest throughput alone (the first among equals); -1 without trees
    int32_t fill_tree = -1;        // the longest makespan alone
    // The time of the vector: the first segment along the fill tree, each further one 1 / TP later:
    //     time_s = fill_s + (segments - 1) / TP,   fill_s = alone[fill_tree].makespan_s.
    // The estimate of a schedule that runs every tree at its weight from the start, meant for many segments:
    // the periodic schedule of Section 4.5 needs a whole period before it runs at TP. Infinite when TP is 0.
    double fill_s = 0;
    double time_s = 0;
    // The same with the best tree alone: its makespan + (segments - 1) / its throughput.
    double best_tree_time_s = 0;
};

SteadyStateForecast forecast_steady_state(const SteadyStatePlatform& platform, const std::vector<WeightedTree>& trees,
                                          int32_t segments);

}  // namespace redux
