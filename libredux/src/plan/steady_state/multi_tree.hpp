// The multi-tree strategy: a long vector's segments dealt to weighted plain trees. See multi_tree.cpp.
#pragma once

#include "plan/planner.hpp"
#include "plan/tree.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace redux {

// Above this many ranks the strategy builds the hetero-greedy tree instead: one pricing round costs O(p^3) and the
// rounds grow with p, and a plan packs trees once for each segment count it tries, all inside the first call.
constexpr int32_t kMultiTreeMaxRanks = 16;

// Segment j goes along tree deal[j] (j < segments): each tree t gets about segments x weight[t] / sum of weights,
// spread evenly (smooth weighted round robin: every segment goes to the tree furthest behind its share; ties to
// the lowest index). Trees of weight 0 get none.
std::vector<int32_t> deal_segments(const std::vector<double>& weight, int32_t segments);

// The weighted plain trees for the request's per-rank and per-link costs (hetero_costs, required; commutative),
// with the segment count (the request's, or when it is 0 the one the forecast puts fastest) and the forecast
// fill + (m - 1) / TP in predicted_s. nullopt above kMultiTreeMaxRanks, below 2 ranks, or when no packing is
// found.
std::optional<RankTrees> multi_tree(const PlanRequest& request);

}  // namespace redux
