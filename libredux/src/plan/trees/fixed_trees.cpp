// Fixed-shape trees for pipelined reductions: the linear pipeline and the complete binary tree, as in the
// encyclopedia entry "Reduce (parallel pattern)" (sections on the pipelined algorithm and on pipelined trees).
//
// Neither looks at the costs: their worth shows when the vector is cut into segments (segments.cpp). Unsegmented,
// Algorithm 1 of Canon & Antoniu is optimal and these trees only lose: the chain takes (n - 1)(d + c). Cut into m
// segments, every rank works on a different segment at once, so the chain takes about (n - 1 + m - 1) segment
// transfers when folds are free: the fill of the pipeline, n - 1 hops of one segment, then one segment per step.
// Its depth n - 1 makes the fill expensive for many ranks; the binary tree cuts the depth to floor(log2 n) at
// the price of two receives per segment on every inner rank, about (h + 2m) segment transfers (the entry's
// pipelined tree is a Fibonacci tree, whose depth log_phi n is 44 % larger, with two children per inner rank
// too; Open MPI's tuned reduce offers both shapes, as its segmented "pipeline" and "binary" algorithms).
//
// chain:  parent[i] = i - 1. Node n - 1 is the leaf that starts the pipeline; the sink, node 0, folds the
//         segments of node 1 only.
// binary: parent[i] = (i - 1) / 2, the heap numbering: node i has children 2i + 1 and 2i + 2.
// Both satisfy parent[i] < i, so the layout (layout.cpp) and Proposition 3 (schedule.cpp) take them as they take
// the greedy trees: contiguous rank intervals for non-commutative operators, the sink on the root otherwise.
// builder_makespan_s is Proposition 3's length, unsegmented. Theta(n).
#include "plan/trees/fixed_trees.hpp"

#include "plan/predict/schedule.hpp"

#include <stdexcept>
#include <string>

namespace redux {
namespace {

template <typename ParentOf>
Tree fixed_tree(const char* name, int32_t n, const Costs& costs, ParentOf parent_of) {
    if (n < 1) throw std::invalid_argument(std::string(name) + ": n must be >= 1");
    Tree tree;
    tree.parent.assign(static_cast<size_t>(n), -1);
    for (int32_t i = 1; i < n; ++i) tree.parent[i] = parent_of(i);
    tree.builder_makespan_s = earliest_schedule(tree, costs).makespan_s;
    return tree;
}

}  // namespace

Tree chain_tree(int32_t n, const Costs& costs) {
    return fixed_tree("chain_tree", n, costs, [](int32_t i) { return i - 1; });
}

Tree binary_tree(int32_t n, const Costs& costs) {
    return fixed_tree("binary_tree", n, costs, [](int32_t i) { return (i - 1) / 2; });
}

}  // namespace redux
