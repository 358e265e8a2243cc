// The two-level tree: a tree inside each node, then a tree across the node leaders. See two_level.cpp.
#pragma once

#include "model/hetero_costs.hpp"
#include "plan/tree.hpp"

#include <cstdint>
#include <vector>

namespace redux {

// node_of[r]: the node of rank r (any integer ids). The root leads its node; every other node is led by its
// lowest rank. Throws std::invalid_argument if node_of and costs disagree on the number of ranks.
RankTree two_level_tree(const HeteroCosts& costs, const std::vector<int32_t>& node_of, int32_t root);

}  // namespace redux
