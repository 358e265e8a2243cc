// Planning an MPI_Allreduce or an MPI_Reduce_scatter_block: the trees and algorithms a key may run. See
// plan_family.cpp.
#pragma once

#include "api/comm_state.hpp"

namespace redux {

// MPI_Allreduce and MPI_Reduce_scatter_block: the trees and algorithms `key` may run, predicted and ranked
// (plan/family.hpp). A tree strategy asked for: its tree; a family algorithm asked for: it (recursive doubling
// does not apply to a reduce-scatter-block: recursive halving instead); auto: the model's tree, recursive
// halving and (allreduce) recursive doubling, fastest predicted first, measured against the library's own.
void plan_family(const CommState& state, const PlanKey& key, const Costs& costs, CachedPlan& cached);

}  // namespace redux
