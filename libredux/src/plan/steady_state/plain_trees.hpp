// The steady state over plain reduction trees, the ones the executor runs: see plain_trees.cpp.
#pragma once

#include "plan/steady_state/steady_state.hpp"
#include "plan/steady_state/tree_packing.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace redux {

// A plain tree: every participant but the target sends its own value, with its children's folded in, once to
// parent[i] (-1 for the target); each received partial result is folded once at its receiver. The fold order is
// free (commutative operators). per_s: reductions per second along it.
struct PlainTree {
    std::vector<int32_t> parent;
    double per_s = 0;
};

// What a transfer u -> v of time t keeps busy.
//   one_port      u's send port and v's receive port for t (Legrand, Marchal & Robert's model): a rank sends to
//                 one peer at a time, receives from one at a time.
//   shared_links  u's own link out for u's fastest transfer time (its link's share of t), v's own link in for
//                 v's fastest, and the path u -> v for t: several transfers share a rank's link as flows share a
//                 NIC under TCP, each no faster than its path (SimGrid's flow model; the emulated cluster's shaped
//                 node links). A star of node links gives the same as one_port where every transfer runs at its
//                 own ends' speed; they differ where a path is slower than both ends.
enum class PortModel { one_port, shared_links };

struct PlainTreePacking {
    std::vector<PlainTree> trees;  // with a non-zero weight, at most 3p
    double throughput_per_s = 0;   // TP over plain trees: the weights summed
    double upper_bound_per_s = 0;  // no weighting of plain trees does better
    int32_t rounds = 0;            // master programs solved
    double solve_s = 0;
};

// The best weighting of plain trees on `platform` (the master program of column_generation.hpp over plain trees,
// priced by a minimum arborescence). Its TP may be below that of pack_reduction_trees, which may also forward
// values and fold two received ones, or above it: that program folds adjacent partial results only (any
// operator), a plain tree here folds in any order (commutative operators). Same refusals and options as
// pack_reduction_trees.
std::optional<PlainTreePacking> pack_plain_trees(const SteadyStatePlatform& platform,
                                                 const TreePackingOptions& options = {}, std::string* error = nullptr,
                                                 PortModel model = PortModel::one_port);

// One plain tree alone: 1 / its busiest resource (send port, receive port, folding, path) per reduction (infinite when
// it keeps nothing busy, 0 when it uses a missing edge).
double plain_tree_throughput(const SteadyStatePlatform& platform, const std::vector<int32_t>& parent,
                             PortModel model = PortModel::one_port);

// One reduction along a plain tree alone, from the values in place to the result at the target: each rank
// receives its children's partial results one at a time in the order they are ready (one receive port) and folds
// each on arrival, in turn (one reducer); a rank sends once. The pipeline's fill in the multi-tree forecast.
double plain_tree_makespan(const SteadyStatePlatform& platform, const std::vector<int32_t>& parent);

// The minimum-cost in-tree towards `root` over nodes 0..k-1: cost[u * k + v] is the cost of v as u's parent
// (infinite: not allowed). parent by node, -1 for the root; empty when some node cannot reach the root.
// Chu-Liu/Edmonds, O(k^3). Exposed for the tests.
std::vector<int32_t> minimum_in_tree(int32_t k, int32_t root, const std::vector<double>& cost);

}  // namespace redux
