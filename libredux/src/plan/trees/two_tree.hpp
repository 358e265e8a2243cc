// The two-tree reduction of Sanders, Speck & Traeff. See two_tree.cpp.
#pragma once

#include "plan/tree.hpp"

#include <cstdint>

namespace redux {

// Two in-order binary trees over the ranks other than a collector, which receives the result of both; every
// rank is an inner node of at most one of them. Segment j of a pipelined reduction goes along tree j % 2.
// Commutative: the collector is the root. Not commutative: the collector is rank 0 when the root is, else rank
// ranks - 1, and every subtree covers an interval of ranks folded in rank order (final_transfer when the
// collector is not the root).
RankTrees two_tree(int32_t ranks, int32_t root, bool commutative);

// The in-order binary tree over positions [0, count) whose inner nodes all have the given parity (0: even
// positions, 1: odd ones): by position, its parent (-1 for its root). Exposed for the tests.
std::vector<int32_t> in_order_tree(int32_t count, int32_t inner_parity);

}  // namespace redux
