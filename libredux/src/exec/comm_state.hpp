// What libredux keeps per communicator: a private duplicate for its own traffic and the plans it has made,
// attached to the user's communicator with an attribute keyval and freed with it. See comm_state.cpp.
#pragma once

#include "exec/element_buffer.hpp"
#include "exec/executor.hpp"
#include "plan/planner.hpp"

#include <mpi.h>

#include <deque>
#include <map>
#include <memory>
#include <tuple>

namespace redux {

// Everything a plan depends on, none of it a handle that MPI may reuse after a free.
struct PlanKey {
    int root = 0;
    int count = 0;
    MPI_Aint extent = 0, true_lb = 0, true_extent = 0;
    int type_size = 0;
    bool commutative = true;
    Strategy strategy = Strategy::optimal;
    double transfer_s = -1, compute_s = -1;  // the call's own costs (redux_options); < 0: the library's

    auto tie() const {
        return std::tie(root, count, extent, true_lb, true_extent, type_size, commutative, strategy, transfer_s,
                        compute_s);
    }
    bool operator<(const PlanKey& o) const { return tie() < o.tie(); }
    bool operator==(const PlanKey& o) const { return tie() == o.tie(); }
};

struct CachedPlan {
    Costs costs;             // what the plan was made with
    double predicted_s = 0;  // its predicted makespan
    RankProgram program;
    Workspace workspace;
};

struct CommState {
    MPI_Comm comm = MPI_COMM_NULL;  // private duplicate, errors returned
    int rank = 0;
    int size = 1;
    std::map<PlanKey, std::unique_ptr<CachedPlan>> plans;
    std::deque<PlanKey> plan_order;  // oldest first, for eviction
    PlanKey last_key;                // the plan of the previous call: repeated calls skip the map
    CachedPlan* last_plan = nullptr;
};

constexpr size_t kMaxCachedPlans = 64;  // per communicator; the oldest plan goes first

// The state of `user_comm` if libredux has made one, else null. Cheap: one attribute lookup.
CommState* find_comm_state(MPI_Comm user_comm);

// Makes the state of `user_comm`: collective over user_comm (it duplicates it).
int create_comm_state(MPI_Comm user_comm, CommState*& state);

}  // namespace redux
