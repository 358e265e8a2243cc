// From a call's key to its cached plan: costs (the call's, the environment's, or calibrated), the strategy,
// the per-rank program, the decision log. See planning.cpp; a key's first calls, before it is planned, are
// first_calls.hpp's.
#pragma once

#include "api/comm_state.hpp"
#include "api/wisdom.hpp"

#include <mpi.h>

namespace redux {

// The cached plan for `key`, made on first use: collective over state.comm then (every rank makes the same
// calls, so every rank takes the same steps). `own_data` is this rank's input, for timing `op` on it.
// Under auto, `wisdom` says what an earlier job decided for the key (api/wisdom.hpp): the plan is made with the op's
// cost it kept, and starts from its decision.
int plan_for(CommState& state, const PlanKey& key, const void* own_data, MPI_Datatype datatype, MPI_Op op,
             const ElementLayout& layout, const KeyWisdom& wisdom, CachedPlan*& plan);

// On rank 0: with REDUX_VERBOSE, plan.report in words on stderr ("libredux: <what> ..."); when `to_file`, as a
// JSON line to REDUX_REPORT (event = what).
void log_plan(const CommState& state, const CachedPlan& plan, const char* what, bool to_file);

}  // namespace redux
