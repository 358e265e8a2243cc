// route(): the MPI library's own reduce or a plan, for one call. Its questions, cheapest first:
//   1. Under another MPI library than the one libredux was built for (api/mpi_identity.h), or outside
//      MPI_Init .. MPI_Finalize: the library's own, before any handle is touched.
//   2. Options that are not valid (an unknown algorithm, a cost that is not finite, a strategy that needs a limit
//      without one): MPI_ERR_ARG.
//   3. Native asked for by the call, or by the communicator's agreed configuration: the library's own. On a
//      communicator with a state, the times of the nonblocking calls auto weighed there since its last blocking
//      reduction are agreed first (nonblocking_auto.hpp), and the nonblocking calls kept there are planned
//      (pending_calls.hpp), collectively. MPI_Barrier makes the same agreements (agree_at_barrier).
//   4. A call that repeats a recent one on this communicator (RecentCalls, comm_state.hpp): that call's plan,
//      once its buffers are judged again.
//   5. Arguments that are wrong or that MPI_Reduce itself must judge (a null communicator, a bad root,
//      count < 0, null handles, MPI_IN_PLACE where it is not allowed, a predefined op on a type it is not
//      defined for): the library's own, before any message is sent, so the user gets the library's own error
//      class. Intercommunicators, one-rank communicators and count 0 too: there is nothing to plan.
//   6. The first other call on a communicator makes its state, collectively: a private duplicate and the
//      settings every rank agrees on (rank 0's; comm_state.cpp), which can still say native.
//   7. Everything else: the plan for the call's key (collective, root, count, type layout, commutativity,
//      strategy, the call's costs), made and cached on first use (planning.cpp); under auto, after the key's
//      first calls, which go to the library's own (native_before_planning, first_calls.cpp), the last of them with
//      the key planned while the library's collective runs (the caller asks route() again for it), unless the
//      wisdom file holds the key's decision (wisdom.hpp): then at once, starting from it.
// MPI_Allreduce and MPI_Reduce_scatter_block take the same steps with root 0, their own buffer rules
// (misplaced_buffers) and, for the latter, a whole vector (size x recvcount) that must fit an int.
#include "api/route.hpp"

#include "api/first_calls.hpp"
#include "api/mpi_identity.h"
#include "api/nonblocking_auto.hpp"
#include "api/pending_calls.hpp"
#include "api/planning.hpp"
#include "api/wisdom.hpp"
#include "mpi/mpi_check.hpp"
#include "mpi/op_types.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

namespace redux {
namespace {

// Whether per-call options are valid: a known algorithm, finite costs, a limit for a strategy that needs one.
bool valid_options(const redux_options& options) {
    for (double cost : {options.transfer_s, options.compute_s}) {
        if (!std::isfinite(cost)) return false;
    }
    // Read as an int: a C caller may pass any number, and loading a C++ enum outside its values is undefined.
    int a = 0;
    static_assert(sizeof(a) == sizeof(options.algorithm), "redux_algorithm is an int-sized enum");
    std::memcpy(&a, &options.algorithm, sizeof a);
    if (a == REDUX_ALGORITHM_CONFIGURED || a == REDUX_ALGORITHM_AUTO || a == REDUX_ALGORITHM_NATIVE) return true;
    if (family_of(a)) return true;
    const std::optional<Strategy> strategy = strategy_from_value(a);
    return strategy && (!strategy_needs_limit(*strategy) || options.limit >= 1);
}

// What a call runs, CONFIGURED resolved with the communicator's agreed configuration: auto, native or a strategy.
redux_algorithm resolve(const redux_options& options, const Config& config) {
    return options.algorithm == REDUX_ALGORITHM_CONFIGURED ? config.algorithm : options.algorithm;
}

// True when MPI_Reduce itself should judge or handle the call (step 5). Sets rank and size otherwise; `state` is
// the communicator's state when libredux already has one (which answers rank and size without asking MPI).
bool leave_to_library(const ReduceCall& call, const CommState* state, int& rank, int& size) {
    if (call.comm == MPI_COMM_NULL || call.count <= 0 || call.datatype == MPI_DATATYPE_NULL || call.op == MPI_OP_NULL) {
        return true;
    }
    if (state != nullptr) {  // only intracommunicators get a state
        rank = state->rank;
        size = state->size;
    } else {
        int inter = 0;
        if (MPI_Comm_test_inter(call.comm, &inter) != MPI_SUCCESS || inter) return true;
        if (MPI_Comm_size(call.comm, &size) != MPI_SUCCESS || MPI_Comm_rank(call.comm, &rank) != MPI_SUCCESS) {
            return true;
        }
    }
    if (size == 1 || call.root < 0 || call.root >= size) return true;
    if (call.collective == Collective::reduce_scatter_block && call.count > std::numeric_limits<int>::max() / size) {
        return true;
    }
    return misplaced_buffers(call.sendbuf, call.recvbuf, rank, call.root, call.collective);
}

// The plan key of `call` (step 7), and its op's commutativity.
int key_of(const ReduceCall& call, const ElementLayout& layout, redux_algorithm algorithm, PlanKey& key,
           bool& commutative) {
    int c = 1;  // every predefined op is commutative (MPI 4.0, 6.9.2)
    if (!is_predefined(call.op)) REDUX_MPI(MPI_Op_commutative(call.op, &c));
    commutative = c != 0;
    const redux_options& opts = call.options;
    const std::optional<Strategy> strategy = strategy_of(algorithm);
    MPI_Aint lower_bound = 0, extent = 0;
    REDUX_MPI(MPI_Type_get_extent(call.datatype, &lower_bound, &extent));
    key = PlanKey{call.collective,
                  call.root,
                  call.count,
                  layout.type_size,
                  layout.named ? call.datatype : MPI_DATATYPE_NULL,
                  commutative,
                  is_predefined(call.op) ? call.op : MPI_OP_NULL,
                  algorithm,
                  opts.transfer_s < 0 ? -1.0 : opts.transfer_s,
                  opts.compute_s < 0 ? -1.0 : opts.compute_s,
                  strategy && strategy_needs_limit(*strategy) ? opts.limit : 0,
                  opts.segment_bytes < 0 ? -1 : opts.segment_bytes,
                  lower_bound != 0};
    return MPI_SUCCESS;
}

// Step 7: the plan of the call's key on `state`, and the call remembered in RecentCalls where its handles allow.
int plan_route(const ReduceCall& call, CommState& state, int rank, const ElementLayout& layout,
               redux_algorithm algorithm, Route& route) {
    PlanKey key;
    bool commutative = true;
    REDUX_MPI(key_of(call, layout, algorithm, key, commutative));
    const redux_options& opts = call.options;
    KeyWisdom wisdom;  // what an earlier job decided for the key (api/wisdom.hpp)
    if (state.config.wisdom && state.plans.count(key) == 0) {
        REDUX_MPI(key_wisdom(state, key, call.op, wisdom));
    }
    // The library's own, on the user's communicator.
    if (wisdom.entry == nullptr) {
        const FirstCall first = native_before_planning(state, key);
        route.first_call = first != FirstCall::planned;
        route.plan_beside = first == FirstCall::native_and_plan;
        if (route.first_call) return MPI_SUCCESS;
    }
    const bool in_place = call.sendbuf == MPI_IN_PLACE && (rank == call.root || call.collective != Collective::reduce);
    const void* own_data = in_place ? call.recvbuf : call.sendbuf;
    CachedPlan* cached = nullptr;
    REDUX_MPI(plan_for(state, key, own_data, call.datatype, call.op, layout, wisdom, cached));
    route.state = &state;
    route.plan =
        &route.made.emplace(PlanRoute{cached, algorithm, commutative, layout.named && is_predefined(call.op), layout});
    if (route.plan->predefined_handles) {
        state.recent_calls.remember({call.collective, call.count, call.root, call.datatype, call.op, opts, *route.plan},
                                    call.generation);
    }
    return MPI_SUCCESS;
}

// The communicator's state where `call` would run a plan it already holds or may plan (route_known's questions
// before the key), with the call's resolved algorithm and layout; null where it goes to the library's own.
// `stateless` (if given): set where that is because the communicator has no state.
CommState* known_state(const ReduceCall& call, redux_algorithm& algorithm, ElementLayout& layout,
                       bool* stateless = nullptr) {
    if (redux_foreign_mpi() || !mpi_running() || call.comm == MPI_COMM_NULL) return nullptr;
    CommState* state = find_comm_state(call.comm);
    if (state == nullptr) {
        if (stateless != nullptr) *stateless = true;
        return nullptr;
    }
    algorithm = resolve(call.options, state->config);
    if (algorithm == REDUX_ALGORITHM_NATIVE) return nullptr;
    int rank = 0, size = 1;
    if (leave_to_library(call, state, rank, size) || !op_defined_on(call.op, call.datatype) ||
        describe_layout(call.datatype, layout) != MPI_SUCCESS || !layout.fits(call.count)) {
        return nullptr;
    }
    return state;
}

// Step 3's agreements: the times of the nonblocking calls auto weighed, then the kept calls planned. Collective.
int agree_nonblocking_calls(CommState& state, MPI_Comm user_comm) {
    if (!state.weighing.empty()) REDUX_MPI(agree_nonblocking(state));
    if (state.has_pending()) REDUX_MPI(plan_pending(state, user_comm));
    return MPI_SUCCESS;
}

}  // namespace

int route_known(const ReduceCall& call, Route& route, bool note_unplanned) {
    if (call.comm != MPI_COMM_NULL && !valid_options(call.options)) return MPI_ERR_ARG;
    redux_algorithm algorithm = REDUX_ALGORITHM_AUTO;
    ElementLayout layout;
    bool stateless = false;
    CommState* state = known_state(call, algorithm, layout, &stateless);
    if (state == nullptr) {
        if (note_unplanned && stateless) note_stateless_nonblocking(call.comm);
        return MPI_SUCCESS;
    }
    PlanKey key;
    bool commutative = true;
    REDUX_MPI(key_of(call, layout, algorithm, key, commutative));
    const auto found = state->plans.find(key);
    if (found == state->plans.end()) {
        if (note_unplanned) note_pending(*state, call, key, layout);
        return MPI_SUCCESS;
    }
    route.state = state;
    route.plan = &route.made.emplace(
        PlanRoute{found->second.get(), algorithm, commutative, layout.named && is_predefined(call.op), layout});
    return MPI_SUCCESS;
}

bool decided_by_auto(const ReduceCall& call) {
    redux_algorithm algorithm = REDUX_ALGORITHM_AUTO;
    ElementLayout layout;
    return valid_options(call.options) && known_state(call, algorithm, layout) != nullptr &&
           algorithm == REDUX_ALGORITHM_AUTO;
}

int agree_at_barrier(MPI_Comm comm) {
    if (redux_foreign_mpi() || !mpi_running() || comm == MPI_COMM_NULL) return MPI_SUCCESS;
    CommState* state = find_comm_state(comm);
    if (state != nullptr) return agree_nonblocking_calls(*state, comm);
    return noted_stateless_nonblocking(comm) ? create_comm_state(comm, state) : MPI_SUCCESS;
}

int route(const ReduceCall& call, Route& route) {
    if (redux_foreign_mpi() || !mpi_running()) return MPI_SUCCESS;
    const redux_options& opts = call.options;
    if (call.comm != MPI_COMM_NULL && !valid_options(opts)) return MPI_ERR_ARG;
    if (opts.algorithm == REDUX_ALGORITHM_NATIVE) return MPI_SUCCESS;
    CommState* state = call.comm != MPI_COMM_NULL ? find_comm_state(call.comm) : nullptr;
    if (state != nullptr) {
        REDUX_MPI(agree_nonblocking_calls(*state, call.comm));
        if (resolve(opts, state->config) == REDUX_ALGORITHM_NATIVE) {
            route.configured_native = opts.algorithm == REDUX_ALGORITHM_CONFIGURED;
            return MPI_SUCCESS;
        }
        const RecentCall* recent = state->recent_calls.find(call.collective, call.count, call.datatype, call.op,
                                                            call.root, opts, call.generation);
        if (recent != nullptr &&
            !misplaced_buffers(call.sendbuf, call.recvbuf, state->rank, call.root, call.collective)) {
            route.state = state;
            route.plan = &recent->route;
            return MPI_SUCCESS;
        }
    }
    int rank = 0, size = 1;
    ElementLayout layout;
    if (leave_to_library(call, state, rank, size) || !op_defined_on(call.op, call.datatype) ||
        describe_layout(call.datatype, layout) != MPI_SUCCESS || !layout.fits(call.count)) {
        return MPI_SUCCESS;
    }
    if (state == nullptr) {  // the first reduce on this communicator: collective, agrees on the settings
        REDUX_MPI(create_comm_state(call.comm, state));
        if (resolve(opts, state->config) == REDUX_ALGORITHM_NATIVE) {
            route.configured_native = opts.algorithm == REDUX_ALGORITHM_CONFIGURED;
            return MPI_SUCCESS;
        }
    }
    return plan_route(call, *state, rank, layout, resolve(opts, state->config), route);
}

}  // namespace redux
