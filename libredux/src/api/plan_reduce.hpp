// Planning an MPI_Reduce: the tree plan selection chooses and, under auto, the contenders measured against the
// MPI library's own reduce. See plan_reduce.cpp.
#pragma once

#include "api/comm_state.hpp"

namespace redux {

// MPI_Reduce: the tree selection chose, and under auto its runners-up.
int plan_reduce(CommState& state, const PlanKey& key, const Costs& costs, CachedPlan& cached);

// The tree for ranks late by `lateness_s` (by rank, seconds after the first; empty: all together) of a reduce to `root`
// (plan/trees/arrival_tree.hpp), as this rank runs it: a static tree with the pairs tree-dyn would make, made before
// the call. Its prediction is the root's time from its own arrival to the result.
PlannedTree arrival_planned_tree(const CommState& state, int root, const Costs& costs, bool commutative,
                                 const std::vector<double>& lateness_s);

// A key's arrival contender (AutoSelect::arrival_tree: MPI_Reduce's arrival tree, MPI_Allreduce's late-rank) made
// again for ranks late by `lateness_s` (by rank, seconds after the first), which it keeps (PlannedTree::lateness_s):
// the arrival tree for them, or late-rank for the latest of them.
void remake_for_arrivals(PlannedTree& tree, const CommState& state, int root, const Costs& costs, bool commutative,
                         const std::vector<double>& lateness_s);

}  // namespace redux
