// Trees of a fixed shape, whatever the costs: the linear pipeline (chain) and the complete binary tree, the
// shapes that pipelined (segmented) reductions use. See fixed_trees.cpp.
#pragma once

#include "model/costs.hpp"
#include "plan/tree.hpp"

namespace redux {

// parent[i] = i - 1: node n-1 sends to n-2, ..., node 1 to the sink.
Tree chain_tree(int32_t n, const Costs& costs);

// parent[i] = (i - 1) / 2: every node has at most two children, depth floor(log2 n).
Tree binary_tree(int32_t n, const Costs& costs);

}  // namespace redux
