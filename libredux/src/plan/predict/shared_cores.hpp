// Ranks that share cores: a floor under a plan's predicted time. See shared_cores.cpp.
#pragma once

#include "model/link_costs.hpp"

#include <vector>

namespace redux {

struct Plan;

// The least time the plan's transfers and folds between ranks of one node take on the node's hardware threads,
// over the nodes that run more ranks than they have threads (RankPlace::node_cpus); 0 where none does, or where
// `place` (by rank) is empty or does not say how many threads a node has.
double shared_cores_floor_s(const Plan& plan, const std::vector<RankPlace>& place);

}  // namespace redux
