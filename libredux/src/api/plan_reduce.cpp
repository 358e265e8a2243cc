// Planning an MPI_Reduce: the tree plan selection chooses (plan/select.cpp), or Rabenseifner's reduce or tree-dyn
// where the key asks for one. Under auto that tree and selection's runners-up are measured against the MPI
// library's own reduce, each with its program made here (a program is a few ints per child), with Rabenseifner's
// reduce in the place its prediction gives it, and on MPI_Reduce over 3 or more ranks, segments not forced,
// tree-dyn after them, which auto weighs only where the ranks arrive far apart; its AutoSelect is told here what it
// needs to know about the library's reduce on the key: whether it fails when the root passes MPI_IN_PLACE, or when
// the root's recvbuf is MPI_BOTTOM (policy/auto_select.hpp). With REDUX_DEBUG=1 the ranks compare a hash of the
// plan they made.
#include "api/plan_reduce.hpp"

#include "api/first_calls.hpp"
#include "api/planning_costs.hpp"
#include "mpi/mpi_check.hpp"
#include "mpi/yielding.hpp"
#include "plan/select.hpp"
#include "plan/trees/arrival_tree.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <utility>
#include <vector>

namespace redux {
namespace {

uint64_t plan_hash(const Plan& plan) {
    uint64_t hash = 1469598103934665603ull;
    auto mix = [&](int64_t v) {
        hash ^= static_cast<uint64_t>(v);
        hash *= 1099511628211ull;
    };
    auto mix_tree = [&](const std::vector<int32_t>& parent, const std::vector<int32_t>& child_rank,
                        const std::vector<uint8_t>& joins_left) {
        for (int32_t p : parent) mix(p);
        for (int32_t c : child_rank) mix(c);
        for (uint8_t left : joins_left) mix(left);  // with the fold order, decides a non-commutative result
    };
    mix_tree(plan.parent, plan.child_rank, plan.child_joins_left);
    for (const TreeShape& tree : plan.more_trees) mix_tree(tree.parent, tree.child_rank, tree.child_joins_left);
    mix(plan.sink);
    mix(plan.final_transfer);
    mix(plan.request.root);
    mix(plan.segments);
    return hash;
}

// REDUX_DEBUG: every rank must hold the same plan.
int check_same_plan(const CommState& state, const Plan& plan) {
    const unsigned long long mine = plan_hash(plan);
    unsigned long long low = 0, high = 0;
    REDUX_MPI(allreduce_yielding(&mine, &low, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, state.comm));
    REDUX_MPI(allreduce_yielding(&mine, &high, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, state.comm));
    if (low == high) return MPI_SUCCESS;
    std::fprintf(stderr, "libredux: REDUX_DEBUG: rank %d holds plan %016llx, other ranks differ (%016llx..%016llx)\n",
                 state.rank, mine, low, high);
    return MPI_ERR_INTERN;
}

// Tree-dyn's entry: no tree to plan. What it is predicted to take, for the decision log and auto's order, is an
// estimate for ranks that arrive together, a lower bound: the best tree's time and the two small messages before
// the first pairing (a rank's "arrived" to the root, the root's order); ranks idle together are combined along the
// optimal tree for the call's costs (`batch_costs`, the selection's).
PlannedTree tree_dyn(const Plan& best, const Costs& costs, const Costs& batch_costs, double latency_s) {
    PlannedTree tree;
    tree.family = FamilyAlgorithm::tree_dyn;
    tree.batches = DynBatches(batch_costs, latency_s);
    tree.predicted_s = best.predicted_s() + costs.call_s + 2.0 * latency_s;
    return tree;
}

}  // namespace

PlannedTree arrival_planned_tree(const CommState& state, int root, const Costs& costs, bool commutative,
                                 const std::vector<double>& lateness_s) {
    const std::vector<double> ready_s =
        lateness_s.empty() ? std::vector<double>(static_cast<size_t>(state.size), 0.0) : lateness_s;
    const ArrivalTree built = arrival_tree(ready_s, root, costs, commutative);
    PlannedTree tree;
    tree.family = FamilyAlgorithm::arrival_tree;
    const auto me = static_cast<size_t>(state.rank);
    tree.program.parent = built.parent[me];
    tree.program.children = built.children[me];
    tree.predicted_s = built.done_s[static_cast<size_t>(root)] - ready_s[static_cast<size_t>(root)] + costs.call_s;
    return tree;
}

void remake_for_arrivals(PlannedTree& tree, const CommState& state, int root, const Costs& costs, bool commutative,
                         const std::vector<double>& lateness_s) {
    if (tree.family == FamilyAlgorithm::late_rank) {
        tree.late_rank = static_cast<int>(std::max_element(lateness_s.begin(), lateness_s.end()) - lateness_s.begin());
    } else {
        tree = arrival_planned_tree(state, root, costs, commutative, lateness_s);
    }
    tree.lateness_s = lateness_s;
}

namespace {

// Rabenseifner's reduce (recursive halving, then every block to the root) and its prediction.
PlannedTree rabenseifner_reduce(const CommState& state, const Costs& costs, double latency_s, long long bytes,
                                int count, int64_t op_piece_bytes) {
    PlannedTree halving;
    halving.family = FamilyAlgorithm::reduce_scatter;
    halving.flight_bytes = family_flight_bytes(bytes, costs.transfer_s, latency_s);
    halving.predicted_s =
        predict_reduce_scatter(FamilyShape(state.size), costs, latency_s,
                               {bytes, count, op_piece_bytes, halving.flight_bytes}, Collective::reduce) +
        costs.call_s;
    return halving;
}

}  // namespace

// MPI_Reduce: the tree selection chose, and under auto its runners-up.
int plan_reduce(CommState& state, const PlanKey& key, const Costs& costs, CachedPlan& cached) {
    PlanReport& report = cached.report;
    SelectionInput input = selection_input(state, key, costs);
    // Rabenseifner's reduce asked for: no tree to select.
    const std::optional<FamilyAlgorithm> asked = family_of(key.algorithm);
    if (asked == FamilyAlgorithm::reduce_scatter) {
        cached.trees.push_back(
            rabenseifner_reduce(state, costs, input.latency_s, report.bytes, key.count, cached.op_piece_bytes));
        return MPI_SUCCESS;
    }
    // Tree-dyn asked for: it moves whole vectors, and the tree selected only sets its estimate.
    if (asked == FamilyAlgorithm::tree_dyn) input.segments = 1;
    const auto nodes = static_cast<size_t>(input.node_pairs.node_ids.size());
    for (size_t a = 0; a < nodes; ++a) {
        const auto row = input.node_pairs.transfer_s.begin() + static_cast<std::ptrdiff_t>(a * nodes);
        report.node_pair_d_s.emplace_back(row, row + static_cast<std::ptrdiff_t>(nodes));
    }
    Selection selection = select_plan(input);
    for (const Candidate& candidate : selection.candidates) {
        report.predicted_by_strategy_s.emplace_back(strategy_name(candidate.strategy),
                                                    candidate.predicted_s + costs.call_s);
    }
    report.why = selection.why;
    const Plan& best = selection.plan;
    if (state.config.debug) REDUX_MPI(check_same_plan(state, best));
    auto tree_of = [&](const Plan& plan) {
        PlannedTree tree;
        tree.strategy = plan.request.strategy;
        tree.predicted_s = plan.predicted_s() + costs.call_s;
        tree.segments = plan.segments;
        tree.program = program_for(plan, state.rank);
        return tree;
    };
    if (asked == FamilyAlgorithm::tree_dyn) {
        cached.trees.push_back(tree_dyn(best, costs, input.costs, input.latency_s));
        return MPI_SUCCESS;
    }
    if (asked == FamilyAlgorithm::arrival_tree) {  // asked for: for ranks that come together
        cached.trees.push_back(arrival_planned_tree(state, key.root, costs, key.commutative, {}));
        return MPI_SUCCESS;
    }
    cached.trees.push_back(tree_of(best));
    if (key.algorithm == REDUX_ALGORITHM_AUTO) {
        for (const Plan& plan : selection.runners_up) cached.trees.push_back(tree_of(plan));
        // Rabenseifner's reduce: weighed with the trees, in the place its prediction gives it.
        PlannedTree halving =
            rabenseifner_reduce(state, costs, input.latency_s, report.bytes, key.count, cached.op_piece_bytes);
        // Rabenseifner's reduce and tree-dyn not where the segments are forced (the call's segment_bytes,
        // REDUX_SEGMENT_BYTES): they ask for trees.
        const bool segments_forced = input.segments != 0 && segment_bytes_for(state, key) >= 0;
        if (!segments_forced) {
            if (cached.trees.size() >= static_cast<size_t>(AutoSelect::kMaxTrees)) cached.trees.pop_back();
            auto at = std::find_if(cached.trees.begin(), cached.trees.end(),
                                   [&](const PlannedTree& t) { return t.predicted_s > halving.predicted_s; });
            cached.trees.insert(at, std::move(halving));
        }
        // Tree-dyn last, after the contenders, and after it the arrival tree (made again for the arrivals the
        // trials learn): auto weighs one of them only where the ranks' arrivals are spread.
        const int contenders = static_cast<int>(cached.trees.size());
        const bool dynamic = state.size >= 3 && !segments_forced;
        const bool arrivals = dynamic && state.size <= AutoSelect::kArrivalRanks;
        if (dynamic) cached.trees.push_back(tree_dyn(best, costs, input.costs, input.latency_s));
        if (arrivals) cached.trees.push_back(arrival_planned_tree(state, key.root, costs, key.commutative, {}));
        cached.auto_select =
            AutoSelect(contenders, native_failures(state, key).reduce, dynamic, AutoSelect::kExploreEvery, arrivals);
    }
    if (cached.trees.front().family == FamilyAlgorithm::tree) report.shared_cores_floor_s = best.shared_cores_floor_s;
    return MPI_SUCCESS;
}

}  // namespace redux
