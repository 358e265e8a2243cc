// Renders redux-plan --steady-state's result for people (text) and programs (JSON): the throughput of a series of
// reductions of one segment each, the weighted trees that reach it, the best tree alone and the time predicted
// for the vector (plan/steady_state/steady_state_costs.hpp).
#pragma once

#include "plan/planner.hpp"
#include "plan/steady_state/steady_state.hpp"
#include "plan/steady_state/steady_state_costs.hpp"
#include "plan/steady_state/weighted_trees.hpp"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace redux::tools {

struct SteadyStateReport {
    PlanRequest request;        // ranks, costs (their means with a cost file), root, elements, latency, segments
    int64_t element_bytes = 0;  // bytes of one element; 0: not given (no bytes per second)
    std::string solver;         // "packing" (pack_reduction_trees) or "lp" (solve_steady_state, decompose_into_trees)
    SteadyStatePlatform platform;     // the costs of one segment
    double throughput_per_s = 0;      // TP, the solver's: reductions of one segment per second
    std::vector<WeightedTree> trees;  // heaviest first
    SteadyStateForecast forecast;     // of `trees`
    double upper_bound_per_s = 0;     // no flow does better: the packing's last bound; the program's optimum itself
    int32_t rounds = 0;               // master programs the packing solved (0 for lp)
    int64_t lp_rows = 0;              // the (last) program solved
    int64_t lp_columns = 0;
    double solve_s = 0;
};

// One JSON object: ranks, root, commutative, heterogeneous, d, c (their means with heterogeneous costs),
// elements, latency, segments, element_bytes (null when not given), segment_elements, segment_transfer (p x p,
// null on the diagonal) and segment_fold (by rank), the costs of one segment; solver, rounds, lp_rows,
// lp_columns, solve_time; throughput (TP, segments reduced per second), elements_per_second, bytes_per_second
// (null without element_bytes), upper_bound; trees, heaviest first, each {weight, alone_throughput,
// alone_makespan, transfers: [{value: [first, last], from, to}], folds: [{node, left: [k, l], right: [l+1, m]}]};
// best_tree (an index into trees), best_tree_throughput, best_tree_time; fill_tree, fill and predicted_time. Times
// in seconds, rates per second.
void write_steady_state_json(std::ostream& out, const SteadyStateReport& report);

// The same for people: the request, one segment's costs, the solver, TP, every tree (transfers and folds on one
// line each) with its weight and what it does alone, the best tree alone and the predicted time.
void write_steady_state_text(std::ostream& out, const SteadyStateReport& report);

}  // namespace redux::tools
