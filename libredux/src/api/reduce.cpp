// redux_reduce: MPI_Reduce's contract on a planned tree.
//
// Order of business, cheapest first: under another MPI library than the one libredux was built for
// (api/mpi_identity.h: a cached flag after the first call), straight to PMPI_Reduce, before any handle is
// touched; outside MPI_Init .. MPI_Finalize, with native asked for by the call, or
// on a communicator whose agreed configuration says native, straight to PMPI_Reduce; arguments that are wrong or that
// MPI_Reduce itself must judge (a null communicator, a bad root, count < 0, null handles, MPI_IN_PLACE where it is not
// allowed, a predefined op on a type it is not defined for) go to PMPI_Reduce before any message is sent, so the user
// gets the library's own error class through the communicator's error handler; intercommunicators, one-rank
// communicators and count 0 go there too (there is nothing to plan). The first other call on a communicator makes its
// state, collectively: a private duplicate and the settings every rank agrees on (rank 0's; comm_state.cpp), which can
// still say native. Everything else: the cached plan for this (root, count, type layout, commutativity, strategy) --
// made and cached on first use -- and the executor. An MPI error midway is reported through the user's communicator's
// error handler.
#include "redux/redux.h"

#include "api/comm_state.hpp"
#include "api/mpi_identity.h"
#include "api/planning.hpp"
#include "api/raw_call.h"
#include "api/settled_native.hpp"
#include "mpi/mpi_check.hpp"
#include "mpi/op_types.hpp"
#include "mpi/yielding.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <optional>
#include <utility>
#include <vector>

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
    const std::optional<Strategy> strategy = strategy_from_value(a);
    return strategy && (!strategy_needs_limit(*strategy) || options.limit >= 1);
}

// What a call runs, CONFIGURED resolved with the communicator's agreed configuration: auto, native or a strategy.
redux_algorithm resolve(const redux_options& options, const Config& config) {
    return options.algorithm == REDUX_ALGORITHM_CONFIGURED ? config.algorithm : options.algorithm;
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
    return misplaced_buffers(sendbuf, recvbuf, rank, root);
}

// What redux_call_info reports for a call that ran `tree` of the key's trees.
redux_call_info planned_info(const CachedPlan& cached, const PlannedTree& tree) {
    return {1,
            public_algorithm(tree.strategy),
            cached.costs.transfer_s,
            cached.costs.compute_s,
            tree.predicted_s,
            tree.segments};
}

// Runs tree `tree` of the key's trees (0: the strategy asked for or the model's choice).
int run_planned(CachedPlan& cached, int tree, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                MPI_Op op, bool commutative, int root, CommState& state, const ElementLayout& layout) {
    ReduceArgs args;
    args.in_place = state.rank == root && sendbuf == MPI_IN_PLACE;
    args.sendbuf = args.in_place ? recvbuf : sendbuf;
    args.recvbuf = recvbuf;
    args.count = count;
    args.datatype = datatype;
    args.op = op;
    args.commutative = commutative;
    args.root = root;
    const PlannedTree& planned = cached.trees[static_cast<size_t>(tree)];
    return run_program(planned.program, planned.segments, state.rank, args, layout, state.comm, cached.workspace,
                       state.config.knobs);
}

// The MPI library's reduce with the root's MPI_IN_PLACE turned into an ordinary send buffer: a copy of its
// data in the key's kept buffer (allocated once). Same result, without the library's in-place code.
int native_from_copy(CachedPlan& cached, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                     const CommState& state, const ElementLayout& layout) {
    const size_t span = layout.span_bytes(count);
    if (cached.in_place_copy.size() < span) cached.in_place_copy.resize(span);
    std::memcpy(cached.in_place_copy.data(), static_cast<char*>(recvbuf) + layout.true_lb, span);
    return PMPI_Reduce(cached.in_place_copy.data() - layout.true_lb, recvbuf, count, datatype, op, root, state.comm);
}

// auto: one of the planned trees or PMPI_Reduce (on the private communicator, so errors come back here), as the
// key's AutoSelect says; trial, confirming and decided planned calls are timed, decided native calls are not,
// and agreements are made when it asks. A trial starts from start_together_yielding (mpi/yielding.hpp): the root
// lets every rank go at once and times from then to its own end. Two earlier ways failed on the emulated
// clusters, where a one-way latency is milliseconds. Timed from a barrier to the rank's own end, ranks leave a
// barrier up to a few latencies apart, and a root that left late found its children's messages already there: on
// the heterogeneous cluster auto kept a star tree of 15.6 ms against native's 7.9 ms. Timed from a barrier to a
// barrier, the leaves of a wide tree, let go a few latencies after the root, delayed it: on the homogeneous
// cluster at 32 KiB auto measured the tree at 18.4 ms and native at 16.7 ms, and ran native (6.6 ms) where the
// tree took 5.0 ms. Confirming and decided planned calls are timed from the call's start, where the program makes
// it.
//
// Every time is the root's: the reduction is done when the root has the result (the benchmark's latency too). Each
// rank's own time with the slowest rank's taken was the rule before, and on ranks that share cores it counted
// against a tree whatever a rank spent descheduled after its part was done. Measured with mpi_bench, 4 ranks on 2
// cores, 8 B .. 4 KiB, 12 runs, confirmation included: with the slowest rank's time, auto ran a star tree at 0.77
// to 0.93 of native's speed in 8 runs of 12 at 256 B; with the root's, in 1 (0.85).
//
// Where the library's reduce is known to fail with MPI_IN_PLACE at the root (cached.native_in_place_failure,
// policy/native_failures.hpp: the same on every rank), only the root knows whether a call is in place, so each
// trial first agrees on "the root passed MPI_IN_PLACE" (an allreduce). Once it says yes, auto never tries native on the
// key again: the planned tree only, and the decision log says why. A key that decided for native before its root ever
// passed MPI_IN_PLACE (untimed calls agree on nothing) keeps native, and its root hands the library a copy of its data
// as an ordinary send buffer.
int run_auto(CachedPlan& cached, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             bool commutative, int root, CommState& state, const ElementLayout& layout, redux_call_info* info) {
    AutoSelect& select = cached.auto_select;
    AutoSelect::Step step = select.next();
    const bool in_place = state.rank == root && sendbuf == MPI_IN_PLACE;
    if (step.timed && cached.native_in_place_failure != nullptr) {
        int mine = in_place ? 1 : 0, any = 0;
        REDUX_MPI(allreduce_yielding(&mine, &any, 1, MPI_INT, MPI_MAX, state.comm));
        if (any != 0) {
            select.exclude_native();
            cached.report.strategy = std::string(strategy_name(cached.trees.front().strategy));
            cached.report.planned_s.reset();
            cached.report.native_s.reset();
            cached.report.native_excluded = cached.native_in_place_failure;
            log_plan(state, cached, "auto decision", true);
            step = select.next();  // the planned tree, untimed
        }
    }
    const bool timing = step.timed || step.watched;  // native once decided: the pass-through, not timed
    double start = 0.0;
    if (step.timed) {
        REDUX_MPI(start_together_yielding(state.comm, root, start));
    } else if (timing && state.rank == root) {  // only the root's time is recorded (below)
        start = MPI_Wtime();
    }
    const bool planned = step.run == AutoSelect::Run::planned;
    if (planned) {
        REDUX_MPI(
            run_planned(cached, step.tree, sendbuf, recvbuf, count, datatype, op, commutative, root, state, layout));
    } else if (in_place && cached.native_in_place_failure != nullptr) {
        REDUX_MPI(native_from_copy(cached, recvbuf, count, datatype, op, root, state, layout));
    } else {
        REDUX_MPI(PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, state.comm));
    }
    if (timing) {  // the root's time; zeros elsewhere, so that the agreements' MPI_MAX is the root's
        select.record(state.rank == root ? MPI_Wtime() - start : 0.0);
    } else {
        select.count();
    }
    if (info != nullptr) {
        *info = planned ? planned_info(cached, cached.trees[static_cast<size_t>(step.tree)])
                        : redux_call_info{0, REDUX_ALGORITHM_NATIVE, 0, 0, 0, 0};
    }
    if (select.needs_agreement()) {
        const std::vector<double> mine = select.local();
        std::vector<double> agreed(mine.size());
        REDUX_MPI(allreduce_yielding(mine.data(), agreed.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_MAX,
                                     state.comm));
        if (select.agree(agreed)) {
            cached.report.planned_s = select.planned_s();
            cached.report.native_s = select.native_s();
            cached.report.trial_calls = select.trial_calls();
            cached.report.trial_medians_s.clear();
            for (int t = 0; t < select.trees(); ++t) cached.report.trial_medians_s.push_back(select.tree_median_s(t));
            cached.report.confirm_planned_s.reset();
            cached.report.confirm_native_s.reset();
            if (select.confirmed()) {
                cached.report.confirm_planned_s = select.confirm_planned_s();
                cached.report.confirm_native_s = select.confirm_native_s();
            }
            const PlannedTree& chosen = cached.trees[static_cast<size_t>(select.tree())];
            cached.report.strategy = select.choice() == AutoSelect::Run::native
                                         ? std::string("native")
                                         : std::string(strategy_name(chosen.strategy));
            cached.report.predicted_s = chosen.predicted_s;
            cached.report.segments = chosen.segments;
            log_plan(state, cached, "auto decision", true);
        }
    }
    return MPI_SUCCESS;
}

// Runs a call on its plan: auto's choice where auto was asked for on a predefined datatype, else the plan.
int run_cached(CachedPlan& cached, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               bool commutative, int root, CommState& state, const ElementLayout& layout, redux_algorithm algorithm,
               redux_call_info* info) {
    if (algorithm == REDUX_ALGORITHM_AUTO && layout.named) {  // see planning.cpp
        return run_auto(cached, sendbuf, recvbuf, count, datatype, op, commutative, root, state, layout, info);
    }
    if (info != nullptr) *info = planned_info(cached, cached.trees.front());
    return run_planned(cached, 0, sendbuf, recvbuf, count, datatype, op, commutative, root, state, layout);
}

int reduce_on_tree(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                   CommState* state, int rank, const ElementLayout& layout, redux_algorithm algorithm,
                   const redux_options& options, redux_call_info* info) {
    int commutative = 1;  // every predefined op is commutative (MPI 4.0, 6.9.2)
    if (!is_predefined(op)) REDUX_MPI(MPI_Op_commutative(op, &commutative));

    const PlanKey key{root,
                      count,
                      layout.type_size,
                      layout.named ? datatype : MPI_DATATYPE_NULL,
                      commutative != 0,
                      is_predefined(op) ? op : MPI_OP_NULL,
                      algorithm,
                      options.transfer_s < 0 ? -1.0 : options.transfer_s,
                      options.compute_s < 0 ? -1.0 : options.compute_s,
                      strategy_of(algorithm) && strategy_needs_limit(*strategy_of(algorithm)) ? options.limit : 0,
                      options.segment_bytes < 0 ? -1 : options.segment_bytes};
    const void* own_data = rank == root && sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    CachedPlan* cached = nullptr;
    REDUX_MPI(plan_for(*state, key, own_data, datatype, op, layout, cached));
    if (layout.named && is_predefined(op)) {
        state->recent_calls.remember({cached, count, root, datatype, op, options, algorithm, commutative != 0, layout});
    }
    return run_cached(*cached, sendbuf, recvbuf, count, datatype, op, commutative != 0, root, *state, layout, algorithm,
                      info);
}

// The calling thread's settled-native record (api/settled_native.hpp). Initial-exec: read at a fixed offset from
// the thread pointer, not through __tls_get_addr. libredux is linked or preloaded, so it is in the static TLS
// block; a program that loads it with dlopen takes its 64 bytes from glibc's reserve for that (512 bytes by
// default). Not under SimGrid's SMPI, which loads one copy of the program per simulated rank with dlopen: 64
// copies exhaust the reserve ("cannot allocate memory in static TLS block").
#ifdef SMPI_H
thread_local SettledNative t_settled_native;
thread_local ConfiguredNative t_configured_native;
#else
thread_local SettledNative t_settled_native __attribute__((tls_model("initial-exec")));
thread_local ConfiguredNative t_configured_native __attribute__((tls_model("initial-exec")));
#endif

// Runs `call` with nothing crossing the C API; an error goes through the user's communicator's error handler.
template <typename Call>
int guarded(MPI_Comm comm, Call&& call) {
    int rc = MPI_ERR_INTERN;
    try {
        rc = call();
    } catch (const std::bad_alloc&) {
        rc = MPI_ERR_NO_MEM;
    } catch (const std::exception& e) {  // the planner's and simulator's invalid_argument, logic_error, ...
        std::fprintf(stderr, "libredux: internal error: %s\n", e.what());
    } catch (...) {
        std::fprintf(stderr, "libredux: internal error\n");
    }
    if (rc != MPI_SUCCESS) MPI_Comm_call_errhandler(comm, rc);
    return rc;
}

const redux_options kDefaults = REDUX_OPTIONS_INIT;

// Every call that the settled-native record does not take (below).
[[gnu::noinline]] int reduce_full(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                  int root, MPI_Comm comm, const redux_options& opts, redux_call_info* info) {
    if (redux_foreign_mpi()) return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    if (!mpi_running()) return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    if (comm != MPI_COMM_NULL && !valid_options(opts)) {
        MPI_Comm_call_errhandler(comm, MPI_ERR_ARG);
        return MPI_ERR_ARG;
    }
    CommState* state = nullptr;
    if (opts.algorithm != REDUX_ALGORITHM_NATIVE && comm != MPI_COMM_NULL) state = find_comm_state(comm);
    if (opts.algorithm == REDUX_ALGORITHM_NATIVE ||
        (state != nullptr && resolve(opts, state->config) == REDUX_ALGORITHM_NATIVE)) {  // pass-through
        if (state != nullptr && opts.algorithm == REDUX_ALGORITHM_CONFIGURED) {
            t_configured_native = {comm, lookup_generation()};
        }
        return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    }
    // A recent call's arguments again (RecentCalls): only the buffers are judged again, the rest was judged
    // when its plan was found.
    const RecentCall* recent = state != nullptr ? state->recent_calls.find(count, datatype, op, root, opts) : nullptr;
    if (recent != nullptr && !misplaced_buffers(sendbuf, recvbuf, state->rank, root)) {
        const RecentCall& last = *recent;
        AutoSelect& select = last.plan->auto_select;
        if (last.algorithm == REDUX_ALGORITHM_AUTO && select.settled_native() &&
            (last.plan->native_in_place_failure == nullptr || sendbuf != MPI_IN_PLACE)) {  // run_auto, shortened
            if (last.plan->native_in_place_failure == nullptr && SettledNative::defaults_but_algorithm(opts)) {
                t_settled_native = {&select, lookup_generation(), comm,          datatype, op, count,
                                    root,    state->rank,         opts.algorithm};
            }
            select.count();
            const int rc = PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, state->comm);
            if (rc != MPI_SUCCESS) MPI_Comm_call_errhandler(comm, rc);
            return rc;
        }
        return guarded(comm, [&] {
            return run_cached(*last.plan, sendbuf, recvbuf, count, datatype, op, last.commutative, root, *state,
                              last.layout, last.algorithm, info);
        });
    }
    int rank = 0, size = 1;
    ElementLayout layout;
    if (leave_to_library(sendbuf, recvbuf, count, datatype, op, root, comm, state, rank, size) ||
        !op_defined_on(op, datatype) || describe_layout(datatype, layout) != MPI_SUCCESS || !layout.fits(count)) {
        return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    }
    if (state == nullptr) {  // the first reduce on this communicator: collective, agrees on the settings
        int rc = MPI_ERR_NO_MEM;
        try {  // nothing may cross the C API: the state and its copies of the settings allocate
            rc = create_comm_state(comm, state);
        } catch (const std::bad_alloc&) {
            state = nullptr;
        } catch (...) {  // std::system_error from std::call_once, ...
            state = nullptr;
            rc = MPI_ERR_INTERN;
        }
        if (rc != MPI_SUCCESS) {
            MPI_Comm_call_errhandler(comm, rc);
            return rc;
        }
        if (resolve(opts, state->config) == REDUX_ALGORITHM_NATIVE) {
            return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
        }
    }
    const redux_algorithm algorithm = resolve(opts, state->config);
    return guarded(comm, [&] {
        return reduce_on_tree(sendbuf, recvbuf, count, datatype, op, root, state, rank, layout, algorithm, opts, info);
    });
}

// redux_reduce_ex, called directly by the three entry points below (an exported symbol called by name would be a
// hop through the PLT). The settled-native record is read here, in a small function of its own, so that its
// path does not pay for the set-up of the full one.
int reduce_entry(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                 MPI_Comm comm, const redux_options* options, redux_call_info* info) {
    const redux_options& opts = options != nullptr ? *options : kDefaults;
    if (info != nullptr) *info = {0, REDUX_ALGORITHM_NATIVE, 0, 0, 0, 0};
    const uint64_t generation = lookup_generation();
    if (AutoSelect* settled =
            t_settled_native.repeats(sendbuf, recvbuf, count, datatype, op, root, comm, opts, generation)) {
        settled->count();
        return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    }
    if (t_configured_native.takes(comm, opts, generation)) {
        return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    }
    return reduce_full(sendbuf, recvbuf, count, datatype, op, root, comm, opts, info);
}

}  // namespace
}  // namespace redux

extern "C" int redux_reduce_ex(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                               int root, MPI_Comm comm, const redux_options* options, redux_call_info* info) {
    return redux::reduce_entry(sendbuf, recvbuf, count, datatype, op, root, comm, options, info);
}

extern "C" int redux_reduce_raw(const void* sendbuf, void* recvbuf, int count, redux_raw_handle datatype,
                                redux_raw_handle op, int root, redux_raw_handle comm) {
    return redux::reduce_entry(sendbuf, recvbuf, count, (MPI_Datatype)datatype, (MPI_Op)op, root, (MPI_Comm)comm,
                               nullptr, nullptr);
}

extern "C" int redux_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                            MPI_Comm comm) {
    return redux::reduce_entry(sendbuf, recvbuf, count, datatype, op, root, comm, nullptr, nullptr);
}
