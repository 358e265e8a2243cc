// Running a planned route. A strategy's plan runs its tree (tree 0). An auto plan asks its AutoSelect
// (policy/auto_select.hpp) for each call's step: one of the planned trees or the MPI library's own reduce, on the
// private communicator so that its errors come back here. Trial calls are timed from a start every rank makes
// together (start_together_yielding, mpi/yielding.hpp: the root lets every rank go at once and times from then to
// its own end), confirming and decided planned calls from the call's start, decided native calls not at all; the
// agreements are made when it asks. Timing from a barrier misleads where a one-way latency is large: ranks leave a
// barrier up to a few latencies apart, so a root that leaves late finds its children's messages already there, and
// the leaves of a wide tree, let go late, delay the root.
//
// An MPI_Reduce's time is the root's: the reduction is done when the root has the result (the benchmark's latency
// too), and on ranks that share cores another rank's time counts whatever it spends descheduled after its part is
// done. An MPI_Allreduce's or MPI_Reduce_scatter_block's is the slowest rank's: it is done when every rank has its
// part. Each trial call's time is agreed at the next trial call's start, in the messages that start the ranks
// together; the rounds' quartiles, the confirmation's and decided windows' medians by an allreduce.
//
// Where the library's reduce is known to fail when the root passes MPI_IN_PLACE, only the root knows whether a
// call is in place: a step with agree_in_place first agrees on it (an allreduce), and once the root did, native is
// excluded on the key and the decision log says why. A key decided for native before its root ever passed
// MPI_IN_PLACE keeps native, and its root hands the library a copy of its data as an ordinary send buffer.
#include "api/run_plan.hpp"

#include "api/plan_reduce.hpp"
#include "api/planning.hpp"
#include "api/wisdom.hpp"
#include "exec/execution.hpp"
#include "mpi/mpi_check.hpp"
#include "mpi/yielding.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace redux {
namespace {

static_assert(kStartValues >= 3 + AutoSelect::kArrivalRanks, "a trial start carries a wait per rank");

// What redux_call_info reports for a call that ran `tree` of the key's trees.
redux_call_info planned_info(const CachedPlan& cached, const PlannedTree& tree) {
    return {1, tree.algorithm(), cached.costs.transfer_s, cached.costs.compute_s, tree.predicted_s, tree.segments, 0};
}

// Runs tree `tree` of the key's trees (0: the strategy asked for or the model's choice).
int run_tree(const ReduceCall& call, const Route& route, int tree) {
    CachedPlan& cached = *route.plan->plan;
    const PlannedTree& planned = cached.trees[static_cast<size_t>(tree)];
    const ExecPlan plan = exec_plan(planned, cached.knobs, cached.op_piece_bytes);
    return execute(plan, exec_call(call, *route.state, *route.plan), cached.workspace);
}

// The root's data copied into the key's kept buffer (allocated once), as a send buffer for the library's reduce.
const void* copy_of_root_data(CachedPlan& cached, const ReduceCall& call, const ElementLayout& layout) {
    const size_t span = layout.span_bytes(call.count);
    if (cached.in_place_copy.size() < span) cached.in_place_copy.resize(span);
    std::memcpy(cached.in_place_copy.data(), static_cast<const char*>(call.recvbuf) + layout.true_lb, span);
    return cached.in_place_copy.data() - layout.true_lb;
}

// The library's reduce as auto runs it: from a copy of the root's data where the library fails when the root
// passes MPI_IN_PLACE, and into a receive buffer of the key's (allocated once), then copied into place by the
// datatype (its gaps left alone), where the library leaves a root's result at MPI_BOTTOM unwritten.
int run_native(const ReduceCall& call, const Route& route, const AutoSelect& select, bool root_in_place) {
    CachedPlan& cached = *route.plan->plan;
    const ElementLayout& layout = route.plan->layout;
    const void* sendbuf =
        select.native_needs_copy(root_in_place) ? copy_of_root_data(cached, call, layout) : call.sendbuf;
    const bool root_recv_at_bottom =
        call.collective == Collective::reduce && route.state->rank == call.root && call.recvbuf == MPI_BOTTOM;
    if (!select.native_needs_recv_copy(root_recv_at_bottom)) return plan_library_reduce(sendbuf, call, *route.state);
    const size_t span = layout.span_bytes(call.count);
    if (cached.recv_copy.size() < span) cached.recv_copy.resize(span);
    const ReduceCall into{call.sendbuf,
                          cached.recv_copy.data() - layout.true_lb,
                          call.count,
                          call.datatype,
                          call.op,
                          call.root,
                          call.comm,
                          call.options,
                          call.defaults_but_algorithm,
                          call.generation,
                          call.collective};
    if (sendbuf == MPI_IN_PLACE) {  // the root's data, where the library takes it in place
        REDUX_MPI(copy_elements(call.recvbuf, into.recvbuf, call.count, call.datatype, layout, cached.pack_scratch));
    }
    REDUX_MPI(plan_library_reduce(sendbuf, into, *route.state));
    return copy_elements(into.recvbuf, call.recvbuf, call.count, call.datatype, layout, cached.pack_scratch);
}

// The name of an AutoSelect contender: a tree's, or native (trees()).
std::string contender_name(const CachedPlan& cached, const AutoSelect& select, int contender) {
    return contender == select.trees() ? std::string("native") : cached.trees[static_cast<size_t>(contender)].name();
}

// The decision log's fields for the decision AutoSelect just made.
void report_decision(CachedPlan& cached, const AutoSelect& select) {
    PlanReport& report = cached.report;
    report.planned_s = select.planned_s();
    report.native_s = select.native_s();
    report.trial_calls = select.trial_calls();
    report.trial_medians_s.clear();
    for (int t = 0; t < select.trees(); ++t) report.trial_medians_s.push_back(select.tree_median_s(t));
    report.dropped.clear();
    for (const AutoSelect::Drop& drop : select.dropped()) {
        report.dropped.push_back(
            {contender_name(cached, select, drop.contender), drop_reason_name(drop.reason), drop.first_s, drop.best_s});
    }
    report.trials_end = trials_end_name(select.trials_end());
    report.trial_extra_s = select.trial_extra_s();
    report.trial_extra_bound_s = select.trial_extra_bound_s();
    report.confirm_planned_s.reset();
    report.confirm_incumbent_s.reset();
    if (select.confirmed()) {
        report.confirm_planned_s = select.confirm_planned_s();
        report.confirm_incumbent_s = select.confirm_incumbent_s();
        report.confirm_incumbent = contender_name(cached, select, select.incumbent());
    }
    report.arrival_spread_s.reset();
    report.dynamic_choice_s.reset();
    report.dynamic_s.reset();
    report.dynamic_choice_mean_s.reset();
    report.dynamic_mean_s.reset();
    report.dynamic.clear();
    report.dynamic_calls = 0;
    report.arrival_lateness_s.clear();
    if (select.dynamic()) report.arrival_spread_s = select.arrival_spread_s();
    if (select.arrivals_repeat()) report.arrival_lateness_s = select.arrival_lateness_s();
    report.arrival_starts = select.arrival_starts();
    report.arrival_held = select.arrival_held();
    if (select.dynamic_weighed()) {
        report.dynamic = cached.trees[static_cast<size_t>(select.dynamic_tree())].name();
        report.dynamic_choice_s = select.dynamic_choice_s();
        report.dynamic_s = select.dynamic_s();
        report.dynamic_choice_mean_s = select.dynamic_choice_mean_s();
        report.dynamic_mean_s = select.dynamic_mean_s();
        report.dynamic_calls = select.dynamic_weighed_calls();
    }
    const PlannedTree& chosen = cached.trees[static_cast<size_t>(select.tree())];
    report.strategy = select.choice() == AutoSelect::Run::native ? std::string("native") : chosen.name();
    report.predicted_s = chosen.predicted_s;
    report.segments = chosen.segments;
}

// A decision AutoSelect made: in the decision log, and kept for the next jobs (api/wisdom.hpp), with the second look
// at the runners-up still to come where it is (a short job's decision is remembered, and the next job takes it).
void log_decision(const CommState& state, CachedPlan& cached, const AutoSelect& select) {
    report_decision(cached, select);
    cached.report.wisdom.clear();
    cached.report.recheck_s.reset();
    log_plan(state, cached, "auto decision", true);
    keep_decision(state, cached);
}

// The agreement AutoSelect asks for: the ranks' local() reduced with MPI_MAX. Where it ends the re-check of an
// earlier job's decision, the log says how, and a decision that no longer holds leaves the wisdom file.
int agree(const CommState& state, CachedPlan& cached, AutoSelect& select) {
    const std::vector<double> mine = select.local();
    std::vector<double> agreed(mine.size());
    REDUX_MPI(
        allreduce_yielding(mine.data(), agreed.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_MAX, state.comm));
    const bool rechecking = select.rechecking();
    if (select.agree(agreed)) log_decision(state, cached, select);
    if (rechecking) {
        const bool holds = select.decided();
        cached.report.wisdom = holds ? "re-checked" : "no longer holds";
        cached.report.recheck_s = select.recheck_s();
        log_plan(state, cached, "auto decision", true);
        if (holds) {
            keep_decision(state, cached);  // with the time in place this job measured
        } else {
            drop_decision(state, cached);
        }
    }
    return MPI_SUCCESS;
}

// A trial call's start, every rank together, agreeing on the way on the previous trial call's time (the largest
// of the ranks' records: the root's alone for MPI_Reduce) and on how far apart the ranks other than the root came
// to the previous trial start (the longest wait there less the shortest: sent as {wait, -wait}, the root's as the
// lowest double); where the key has an arrival tree, also every rank's wait there, in a slot of its own (the others
// the lowest double), from which every rank knows how late each came after the first. Where that ends a round early
// (a contender left, or the trials' extra time is spent), the round's agreement follows and, if the next step is
// still a trial, a second start together, whose wait is not kept: the ranks come to it from the agreement, not from
// the program.
int start_trial(const ReduceCall& call, const CommState& state, CachedPlan& cached, AutoSelect& select, double& start) {
    constexpr double kNone = std::numeric_limits<double>::lowest();
    const bool root = state.rank == call.root;
    const double wait_s = select.start_wait_s();
    const bool waited = wait_s >= 0;  // a trial start of these trials came before
    const int count = 3 + (select.arrivals() ? state.size : 0);
    double mine[kStartValues], agreed[kStartValues];
    std::fill(mine, mine + count, kNone);
    mine[0] = select.pending_s();
    if (!root && waited) {
        mine[1] = wait_s;
        mine[2] = -wait_s;
    }
    // The root's wait ends when it has heard the last rank, the others' when its word reaches them, a message's time in
    // flight later: without that time the root would look late by it.
    if (select.arrivals() && waited) mine[3 + state.rank] = wait_s + (root ? cached.costs.flight_s : 0.0);
    const double came = MPI_Wtime();
    REDUX_MPI(start_together_yielding(state.comm, call.root, start, mine, agreed, count));
    select.record_start_wait(start - came);
    const double spread_s = agreed[1] > kNone ? agreed[1] + agreed[2] : -1.0;
    if (select.arrivals() && std::all_of(agreed + 3, agreed + count, [](double w) { return w > kNone; })) {
        const double longest = *std::max_element(agreed + 3, agreed + count);
        std::vector<double> lateness_s(static_cast<size_t>(state.size));
        for (int r = 0; r < state.size; ++r) lateness_s[static_cast<size_t>(r)] = longest - agreed[3 + r];
        select.learn_arrivals(std::move(lateness_s), call.collective == Collective::reduce ? call.root : -1);
    }
    if (select.agree_call(agreed[0], spread_s)) log_decision(state, cached, select);
    if (!select.needs_agreement()) return MPI_SUCCESS;
    REDUX_MPI(agree(state, cached, select));
    if (!select.next().timed) return MPI_SUCCESS;
    const double none[1] = {0.0};
    return start_together_yielding(state.comm, call.root, start, none, agreed, 1);
}

// The arrival tree for the arrivals the trials learnt, where the weighing that runs it has just begun
// (AutoSelect::arrival_tree_due); MPI_Allreduce's late-rank for the rank predicted latest.
void build_arrival_tree(const ReduceCall& call, const Route& route, AutoSelect& select) {
    if (!select.arrival_tree_due()) return;
    CachedPlan& cached = *route.plan->plan;
    remake_for_arrivals(cached.trees[static_cast<size_t>(select.arrival_tree())], *route.state, call.root, cached.costs,
                        route.plan->commutative, select.arrival_lateness_s());
    select.arrival_tree_built();
}

[[gnu::noinline]] int run_auto(const ReduceCall& call, const Route& route, redux_call_info* info) {
    CommState& state = *route.state;
    CachedPlan& cached = *route.plan->plan;
    AutoSelect& select = cached.auto_select;
    AutoSelect::Step step = select.next();
    const bool in_place = state.rank == call.root && call.sendbuf == MPI_IN_PLACE;
    if (step.agree_in_place) {
        int mine = in_place ? 1 : 0, any = 0;
        REDUX_MPI(allreduce_yielding(&mine, &any, 1, MPI_INT, MPI_MAX, state.comm));
        if (any != 0) {
            step = select.root_passed_in_place();  // the planned tree, untimed
            cached.report.strategy = cached.trees.front().name();
            cached.report.planned_s.reset();
            cached.report.native_s.reset();
            cached.report.native_excluded = select.native_in_place_failure();
            log_plan(state, cached, "auto decision", true);
        }
    }
    // A reduce is done when its root has the result; an allreduce or reduce-scatter when the last rank has its
    // part: every rank's time is recorded, and the agreements' MPI_MAX takes the slowest rank's.
    const bool timed_here = state.rank == call.root || call.collective != Collective::reduce;
    double start = 0.0;
    if (step.timed) {
        REDUX_MPI(start_trial(call, state, cached, select, start));
        build_arrival_tree(call, route, select);
        step = select.next();
    }
    const bool timing = step.timed || step.watched;  // native once decided: the pass-through, not timed
    if (!step.timed && timing && timed_here) start = MPI_Wtime();
    const bool planned = step.run == AutoSelect::Run::planned;
    if (planned) {
        REDUX_MPI(run_tree(call, route, step.tree));
    } else {
        REDUX_MPI(run_native(call, route, select, in_place));
    }
    if (timing) {  // zeros where not timed, so that the agreements' MPI_MAX is the timed ranks'
        select.record(timed_here ? MPI_Wtime() - start : 0.0);
    } else {
        select.count();
    }
    if (info != nullptr) {
        *info = planned ? planned_info(cached, cached.trees[static_cast<size_t>(step.tree)])
                        : redux_call_info{0, REDUX_ALGORITHM_NATIVE, 0, 0, 0, 0, 0};
    }
    if (select.needs_agreement()) REDUX_MPI(agree(state, cached, select));
    build_arrival_tree(call, route, select);
    if (info != nullptr) info->deciding = select.decision_final() ? 0 : 1;
    return MPI_SUCCESS;
}

}  // namespace

ExecCall exec_call(const ReduceCall& call, const CommState& state, const PlanRoute& route) {
    ExecCall e;
    e.collective = call.collective;
    e.root = call.root;
    // MPI_Reduce: only the root's MPI_IN_PLACE counts
    e.in_place = call.sendbuf == MPI_IN_PLACE && (call.collective != Collective::reduce || state.rank == call.root);
    e.input = e.in_place ? call.recvbuf : call.sendbuf;
    e.recvbuf = call.recvbuf;
    e.count = call.count;
    e.datatype = call.datatype;
    e.op = call.op;
    e.commutative = route.commutative;
    e.layout = route.layout;
    e.comm = state.comm;
    e.rank = state.rank;
    e.size = state.size;
    return e;
}

ExecPlan exec_plan(const PlannedTree& tree, const ExecKnobs& knobs, int64_t op_piece_bytes) {
    return {tree.family, &tree.program,  tree.segments,     &tree.spread,  &tree.batches,
            knobs,       op_piece_bytes, tree.flight_bytes, tree.late_rank};
}

int run_plan(const ReduceCall& call, const Route& route, redux_call_info* info) {
    if (route.plan->algorithm == REDUX_ALGORITHM_AUTO) return run_auto(call, route, info);
    if (info != nullptr) *info = planned_info(*route.plan->plan, route.plan->plan->trees.front());
    return run_tree(call, route, 0);
}

}  // namespace redux
