// Running a call that route() sent to a plan (route.hpp): the plan's tree, or under auto whichever of its trees
// and the MPI library's own reduce its AutoSelect says. See run_plan.cpp.
#pragma once

#include "api/route.hpp"
#include "exec/call.hpp"
#include "exec/execution.hpp"
#include "redux/redux.h"

namespace redux {

// Runs `call` as `route` says (route.state not null), filling `info` when not null. Returns the first MPI error,
// which the caller reports; may throw (bad_alloc, the planner's logic_error, ...): the caller guards it.
int run_plan(const ReduceCall& call, const Route& route, redux_call_info* info);

// `call` as the executor runs it on `state`'s private communicator with `route`'s plan.
ExecCall exec_call(const ReduceCall& call, const CommState& state, const PlanRoute& route);

// What the executor runs for `tree` of a key's plan, with the key's knobs and op_piece_bytes; refers to `tree`.
ExecPlan exec_plan(const PlannedTree& tree, const ExecKnobs& knobs, int64_t op_piece_bytes);

}  // namespace redux
