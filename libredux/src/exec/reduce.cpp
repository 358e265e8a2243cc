// redux_reduce: MPI_Reduce's contract on a planned tree.
//
// Order of business, cheapest first: outside MPI_Init .. MPI_Finalize, or with REDUX_ALGORITHM=native,
// straight to PMPI_Reduce; arguments
// that are wrong or that MPI_Reduce itself must judge (a null communicator, a bad root, count < 0, null
// handles, MPI_IN_PLACE where it is not allowed, a predefined op on a type it is not defined for) go to
// PMPI_Reduce before any message is sent, so the user gets the library's own error class through the
// communicator's error handler; intercommunicators, one-rank communicators and count 0 go there too (there
// is nothing to plan). Everything else: the communicator's private duplicate, the cached plan for this
// (root, count, type layout, commutativity, strategy) -- made and cached on first use -- and the executor.
// An MPI error midway is reported through the user's communicator's error handler.
#include "redux/redux.h"

#include "exec/comm_state.hpp"
#include "exec/config.hpp"
#include "exec/mpi_check.hpp"
#include "exec/op_types.hpp"
#include "exec/planning.hpp"

#include <cmath>
#include <cstdio>
#include <new>
#include <utility>
#include <vector>

namespace redux {
namespace {

redux_algorithm public_name(Strategy strategy) {
    switch (strategy) {
        case Strategy::snf:
            return REDUX_ALGORITHM_SNF;
        case Strategy::hetero_greedy:
            return REDUX_ALGORITHM_HETERO_GREEDY;
        case Strategy::two_level:
            return REDUX_ALGORITHM_TWO_LEVEL;
        case Strategy::fibonacci:
            return REDUX_ALGORITHM_FIBONACCI;
        case Strategy::binomial:
            return REDUX_ALGORITHM_BINOMIAL;
        default:
            return REDUX_ALGORITHM_OPTIMAL;
    }
}

// The algorithm a call asks for; false when `options` is not valid.
bool resolve(const redux_options& options, Algorithm& algorithm) {
    for (double cost : {options.transfer_s, options.compute_s}) {
        if (!std::isfinite(cost)) return false;
    }
    switch (options.algorithm) {
        case REDUX_ALGORITHM_CONFIGURED:
            algorithm = config().algorithm;
            return true;
        case REDUX_ALGORITHM_AUTO:
            algorithm = Algorithm::automatic;
            return true;
        case REDUX_ALGORITHM_OPTIMAL:
            algorithm = Algorithm::optimal;
            return true;
        case REDUX_ALGORITHM_FIBONACCI:
            algorithm = Algorithm::fibonacci;
            return true;
        case REDUX_ALGORITHM_BINOMIAL:
            algorithm = Algorithm::binomial;
            return true;
        case REDUX_ALGORITHM_NATIVE:
            algorithm = Algorithm::native;
            return true;
        case REDUX_ALGORITHM_SNF:
            algorithm = Algorithm::snf;
            return true;
        case REDUX_ALGORITHM_HETERO_GREEDY:
            algorithm = Algorithm::hetero_greedy;
            return true;
        case REDUX_ALGORITHM_TWO_LEVEL:
            algorithm = Algorithm::two_level;
            return true;
    }
    return false;
}

// True when MPI_Reduce itself should judge or handle the call. Sets rank and size otherwise; `state` is the
// communicator's state when libredux already has one (which answers rank and size without asking MPI).
bool leave_to_library(const void* sendbuf, const void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                      MPI_Comm comm, const CommState* state, int& rank, int& size) {
    if (comm == MPI_COMM_NULL || count <= 0 || datatype == MPI_DATATYPE_NULL || op == MPI_OP_NULL) return true;
    if (state != nullptr) {  // only intracommunicators get a state
        rank = state->rank;
        size = state->size;
    } else {
        int inter = 0;
        if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) return true;
        if (MPI_Comm_size(comm, &size) != MPI_SUCCESS || MPI_Comm_rank(comm, &rank) != MPI_SUCCESS) return true;
    }
    if (size == 1 || root < 0 || root >= size) return true;
    // Erroneous calls that only one side can see (MPI_IN_PLACE in the wrong place, aliased buffers) get the
    // library's error on that rank, as with MPI_Reduce itself. A null recvbuf is MPI_BOTTOM, which is legal:
    // it must not send the root elsewhere than the other ranks.
    if (rank == root) return recvbuf == MPI_IN_PLACE || sendbuf == recvbuf;
    return sendbuf == MPI_IN_PLACE;
}

int run_planned(CachedPlan& cached, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                bool commutative, int root, CommState& state, const ElementLayout& layout) {
    ReduceArgs args;
    args.in_place = state.rank == root && sendbuf == MPI_IN_PLACE;
    args.sendbuf = args.in_place ? recvbuf : sendbuf;
    args.recvbuf = recvbuf;
    args.count = count;
    args.datatype = datatype;
    args.op = op;
    args.commutative = commutative;
    args.root = root;
    return run_program(cached.program, state.rank, args, layout, state.comm, cached.workspace, config().knobs);
}

// auto: the planned tree or PMPI_Reduce (on the private communicator, so errors come back here), as the
// key's AutoSelect says; trials are timed after a barrier, and agreements are made when it asks.
int run_auto(CachedPlan& cached, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             bool commutative, int root, CommState& state, const ElementLayout& layout, redux_call_info* info) {
    AutoSelect& select = cached.auto_select;
    const AutoSelect::Step step = select.next();
    if (step.timed) REDUX_MPI(PMPI_Barrier(state.comm));
    const double start = MPI_Wtime();
    const bool planned = step.run == AutoSelect::Run::planned;
    REDUX_MPI(planned ? run_planned(cached, sendbuf, recvbuf, count, datatype, op, commutative, root, state, layout)
                      : PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, state.comm));
    select.record(MPI_Wtime() - start);
    if (info != nullptr && !planned) *info = {0, REDUX_ALGORITHM_NATIVE, 0, 0, 0};
    if (select.needs_agreement()) {
        const std::vector<double> mine = select.local();
        std::vector<double> agreed(mine.size());
        REDUX_MPI(MPI_Allreduce(mine.data(), agreed.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_MAX,
                                state.comm));
        if (select.agree(agreed)) {
            cached.report.planned_s = select.planned_s();
            cached.report.native_s = select.native_s();
            cached.report.strategy = select.choice() == AutoSelect::Run::native
                                         ? std::string("native")
                                         : std::string(strategy_name(cached.strategy));
            log_plan(state, cached, "auto decision", true);
        }
    }
    return MPI_SUCCESS;
}

int reduce_on_tree(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                   MPI_Comm comm, CommState* state, int rank, const ElementLayout& layout, Algorithm algorithm,
                   const redux_options& options, redux_call_info* info) {
    int commutative = 1;
    REDUX_MPI(MPI_Op_commutative(op, &commutative));
    if (state == nullptr) REDUX_MPI(create_comm_state(comm, state));

    const PlanKey key{root,
                      count,
                      layout.type_size,
                      layout.named ? datatype : MPI_DATATYPE_NULL,
                      commutative != 0,
                      is_predefined(op) ? op : MPI_OP_NULL,
                      algorithm,
                      options.transfer_s < 0 ? -1.0 : options.transfer_s,
                      options.compute_s < 0 ? -1.0 : options.compute_s};
    const void* own_data = rank == root && sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    CachedPlan* cached = nullptr;
    REDUX_MPI(plan_for(*state, key, own_data, datatype, op, layout, cached));
    if (info != nullptr) {
        *info = {1, public_name(cached->strategy), cached->costs.transfer_s, cached->costs.compute_s,
                 cached->predicted_s};
    }
    if (algorithm == Algorithm::automatic && key.datatype != MPI_DATATYPE_NULL) {  // see planning.cpp
        return run_auto(*cached, sendbuf, recvbuf, count, datatype, op, commutative != 0, root, *state, layout, info);
    }
    return run_planned(*cached, sendbuf, recvbuf, count, datatype, op, commutative != 0, root, *state, layout);
}

}  // namespace
}  // namespace redux

extern "C" int redux_reduce_ex(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                               int root, MPI_Comm comm, const redux_options* options, redux_call_info* info) {
    using namespace redux;
    static const redux_options kDefaults = REDUX_OPTIONS_INIT;
    const redux_options& opts = options != nullptr ? *options : kDefaults;
    if (info != nullptr) *info = {0, REDUX_ALGORITHM_NATIVE, 0, 0, 0};
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    Algorithm algorithm = Algorithm::native;
    if (initialized && !finalized && comm != MPI_COMM_NULL && !resolve(opts, algorithm)) {
        MPI_Comm_call_errhandler(comm, MPI_ERR_ARG);
        return MPI_ERR_ARG;
    }
    if (!initialized || finalized || algorithm == Algorithm::native) {
        return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    }
    CommState* state = find_comm_state(comm);
    int rank = 0, size = 1;
    ElementLayout layout;
    if (leave_to_library(sendbuf, recvbuf, count, datatype, op, root, comm, state, rank, size) ||
        !op_defined_on(op, datatype) || describe_layout(datatype, layout) != MPI_SUCCESS || !layout.fits(count)) {
        return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    }
    int rc = MPI_ERR_NO_MEM;
    try {  // nothing may cross the C API; scratch buffers are the only allocation that can fail
        rc = reduce_on_tree(sendbuf, recvbuf, count, datatype, op, root, comm, state, rank, layout, algorithm, opts,
                            info);
    } catch (const std::bad_alloc&) {
    }
    if (rc != MPI_SUCCESS) MPI_Comm_call_errhandler(comm, rc);
    return rc;
}

extern "C" int redux_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                            MPI_Comm comm) {
    return redux_reduce_ex(sendbuf, recvbuf, count, datatype, op, root, comm, nullptr, nullptr);
}
