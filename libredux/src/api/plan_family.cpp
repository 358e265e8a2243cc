// Planning an MPI_Allreduce or an MPI_Reduce_scatter_block (plan/family.hpp): a reduction along the tree plan
// selection chooses, then the result spread from rank 0 down that tree (spread_role), or recursive halving, or
// recursive doubling, or the ring, or allgather, each with its prediction; under auto all of them, fastest predicted
// first, for auto to measure against the MPI library's own collective.
#include "api/plan_family.hpp"

#include "api/planning_costs.hpp"
#include "plan/exec_limits.hpp"
#include "plan/select.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace redux {
namespace {

// The second phase of a family tree at `rank`: the result from rank 0 down the plan's tree 0 (its parent's
// children, the sink's from the root), or down a binomial tree where tree 0 does not reach every rank.
SpreadRole spread_role(const Plan& plan, int ranks, int rank, int& depth, int& fan_out) {
    const int root = 0;
    std::vector<int> parent(static_cast<size_t>(ranks), -1);
    bool spans = true;
    for (int r = 0; r < ranks; ++r) {
        if (r == root) continue;
        parent[static_cast<size_t>(r)] = r == plan.sink ? root : plan.parent[static_cast<size_t>(r)];
        if (parent[static_cast<size_t>(r)] < 0 || parent[static_cast<size_t>(r)] == r) spans = false;
    }
    if (!spans) {  // binomial from rank 0
        for (int r = 1; r < ranks; ++r) parent[static_cast<size_t>(r)] = r & (r - 1);
    }
    SpreadRole role;
    role.parent = parent[static_cast<size_t>(rank)];
    std::vector<int> children(static_cast<size_t>(ranks), 0);
    for (int r = 0; r < ranks; ++r) {
        if (parent[static_cast<size_t>(r)] < 0) continue;
        ++children[static_cast<size_t>(parent[static_cast<size_t>(r)])];
        if (parent[static_cast<size_t>(r)] == rank) role.children.push_back(r);
    }
    fan_out = *std::max_element(children.begin(), children.end());
    depth = 0;
    for (int r = 0; r < ranks; ++r) {
        int d = 0;
        for (int at = r; parent[static_cast<size_t>(at)] >= 0 && d <= ranks; at = parent[static_cast<size_t>(at)]) ++d;
        if (d > ranks) throw std::logic_error("the spread tree has a cycle");
        depth = std::max(depth, d);
    }
    return role;
}

}  // namespace

// MPI_Allreduce and MPI_Reduce_scatter_block: the trees and algorithms `key` may run, predicted and ranked
// (plan/family.hpp). A tree strategy asked for: its tree; a family algorithm asked for: it (recursive doubling
// does not apply to a reduce-scatter-block, nor the ring to a non-commutative op: recursive halving instead); auto:
// the model's tree, recursive halving, (allreduce) recursive doubling, (commutative, 3 ranks or more) the ring and
// (3 ranks or more, every rank's piece within ExecLimits::allgather_bytes) allgather, fastest predicted first,
// measured against the library's own.
void plan_family(const CommState& state, const PlanKey& key, const Costs& costs, CachedPlan& cached) {
    const int64_t least_piece_bytes = cached.op_piece_bytes;
    PlanKey tree_key = key;
    tree_key.count = whole_count(state, key);
    tree_key.root = 0;
    const SelectionInput input = selection_input(state, tree_key, costs);
    const FamilyShape shape(state.size);
    const int64_t bytes = static_cast<int64_t>(key.type_size) * tree_key.count;
    std::vector<PlannedTree> trees;
    std::optional<FamilyAlgorithm> asked = family_of(key.algorithm);
    if ((asked == FamilyAlgorithm::recursive_doubling && key.collective == Collective::reduce_scatter_block) ||
        ((asked == FamilyAlgorithm::ring || asked == FamilyAlgorithm::late_rank) && !key.commutative)) {
        asked = FamilyAlgorithm::reduce_scatter;
    }
    if (asked == FamilyAlgorithm::allgather && key.collective == Collective::allreduce &&
        int64_t{tree_key.count} * state.size > std::numeric_limits<int>::max()) {
        asked = FamilyAlgorithm::reduce_scatter;  // every rank's vector would not fit a count of an int
    }
    const bool automatic = key.algorithm == REDUX_ALGORITHM_AUTO;
    // MPI_Reduce's only: the model's tree
    const bool dynamic = asked == FamilyAlgorithm::tree_dyn || asked == FamilyAlgorithm::arrival_tree;
    if (!asked || automatic || dynamic) {
        const Selection selection = select_plan(input);
        const Plan& plan = selection.plan;
        PlannedTree tree;
        tree.strategy = plan.request.strategy;
        tree.program = program_for(plan, state.rank);
        int depth = 0, fan_out = 0;
        tree.spread = spread_role(plan, state.size, state.rank, depth, fan_out);
        tree.segments = plan.segments;
        const int spread_segments = plan.segments > 1 ? plan.segments : family_pieces(bytes, least_piece_bytes);
        tree.spread.segments = spread_segments;
        tree.predicted_s = predict_tree_then_spread(plan.predicted_s(), shape, costs, input.latency_s, depth, fan_out,
                                                    spread_segments, key.collective) +
                           costs.call_s;
        trees.push_back(std::move(tree));
        cached.report.why = selection.why;
    }
    const HalvingPieces halving{bytes, tree_key.count, least_piece_bytes,
                                family_flight_bytes(bytes, costs.transfer_s, input.latency_s)};
    auto add = [&](FamilyAlgorithm algorithm) {
        PlannedTree tree;
        tree.family = algorithm;
        tree.flight_bytes = halving.flight_bytes;
        switch (algorithm) {
            case FamilyAlgorithm::recursive_doubling:
                tree.predicted_s = predict_recursive_doubling(shape, costs, input.latency_s);
                break;
            case FamilyAlgorithm::ring:
                tree.predicted_s = predict_ring(state.size, costs, input.latency_s, halving, key.collective);
                break;
            case FamilyAlgorithm::late_rank:  // the last rank, with the others together: the ring among them, the
                                              // last rank's vector out, its block folded, a block's result out
                tree.late_rank = state.size - 1;
                tree.predicted_s =
                    predict_ring(state.size - 1, costs, input.latency_s, halving, Collective::reduce_scatter_block) +
                    costs.transfer_s + 2 * costs.compute_s / std::max(state.size - 1, 1) + 2 * input.latency_s;
                break;
            case FamilyAlgorithm::allgather:
                tree.predicted_s = predict_allgather(state.size, costs, input.latency_s, key.collective);
                break;
            default:
                tree.predicted_s = predict_reduce_scatter(shape, costs, input.latency_s, halving, key.collective);
                break;
        }
        tree.predicted_s += costs.call_s;
        trees.push_back(std::move(tree));
    };
    if (asked && !automatic && !dynamic) add(*asked);
    if (automatic) {
        add(FamilyAlgorithm::reduce_scatter);
        if (key.collective == Collective::allreduce) add(FamilyAlgorithm::recursive_doubling);
        if (key.commutative && state.size >= 3) add(FamilyAlgorithm::ring);
        const int64_t gathered = key.collective == Collective::allreduce ? bytes * state.size : bytes;
        if (state.size >= 3 && gathered <= kExecLimits.allgather_bytes) add(FamilyAlgorithm::allgather);
        std::stable_sort(trees.begin(), trees.end(),
                         [](const PlannedTree& a, const PlannedTree& b) { return a.predicted_s < b.predicted_s; });
        // After the contenders, late-rank for the rank the trials find latest, weighed only where one is
        // (policy/auto_select.hpp)
        if (key.commutative && state.size >= 3 && state.size <= AutoSelect::kArrivalRanks) {
            add(FamilyAlgorithm::late_rank);
        }
    }
    cached.trees = std::move(trees);
}

}  // namespace redux
