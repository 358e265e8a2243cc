// Planning an MPI_Reduce: the tree plan selection chooses and, under auto, the contenders measured against the
// MPI library's own reduce. See plan_reduce.cpp.
#pragma once

#include "api/comm_state.hpp"

namespace redux {

// MPI_Reduce: the tree selection chose, and under auto its runners-up.
int plan_reduce(CommState& state, const PlanKey& key, const Costs& costs, CachedPlan& cached);

}  // namespace redux
