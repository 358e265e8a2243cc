// The costs a key is planned with (d and c: the call's, the environment's, or calibrated) and what plan selection
// is told about the call. See planning_costs.cpp.
#pragma once

#include "api/comm_state.hpp"
#include "api/wisdom.hpp"
#include "plan/select.hpp"

#include <mpi.h>

namespace redux {

// The elements the call reduces: for MPI_Reduce_scatter_block every rank's size x recvcount.
int whole_count(const CommState& state, const PlanKey& key);

// The key's costs, into `costs`, and where they came from, into `report`: d from the call, the environment or the
// communicator's link calibration (run here on first use), c from the call, the environment, `known` (what an
// earlier job measured) or timed on ranks 0 and 1. Collective over state.comm where it calibrates or measures.
int make_costs(CommState& state, const PlanKey& key, const void* own_data, MPI_Datatype datatype, MPI_Op op,
               const ElementLayout& layout, const WisdomEntry* known, Costs& costs, PlanReport& report);

// The segment size asked for: the call's, else REDUX_SEGMENT_BYTES (-1: as the model says, 0: unsegmented).
long long segment_bytes_for(const CommState& state, const PlanKey& key);

// What plan selection needs to know about the call: placement and per-class d only when d is the library's
// own calibration (a d given by the call or the environment is one number for every link).
SelectionInput selection_input(const CommState& state, const PlanKey& key, const Costs& costs);

}  // namespace redux
