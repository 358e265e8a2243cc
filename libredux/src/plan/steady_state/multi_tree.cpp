// The multi-tree strategy: the segments of a long vector form a series of reductions (Legrand, Marchal & Robert,
// Section 4: one reduction per segment), and on a platform of unequal links no single tree need reach the best
// throughput. The weighted trees of the steady state do; the executor runs plain trees (a rank folds what its
// children send into its own value and sends once), so the trees are the best weighting of plain trees
// (plain_trees.cpp, column generation over minimum in-trees).
//
// For a segment count m, the platform is the request's per-link and per-rank costs scaled to one segment by the
// segmented model's rule (steady_state_costs.hpp: latency per message, or the calibrated curve's ratio), every
// message holding both ports for all of its time (the program's one-port model: a time in flight is not used).
// Transfers share each rank's link as TCP flows share a NIC, each no faster than its path
// (PortModel::shared_links): the one-port model of the paper would charge a fast sender the whole time of a slow
// path, and plan as if it could send nothing else meanwhile. Its packing gives TP and the trees; segments are dealt to
// the trees in proportion to their weights (deal_segments: the interleaving of a periodic schedule, Section 4.5,
// without waiting for a whole period), and the forecast is
//     fill + (m - 1) / TP,   fill = the longest one-segment reduction along one of the trees alone,
// the pipeline's fill, then one segment every 1 / TP. With m left to the planner, m is scanned over about
// geometric counts (1, 2, 3, 4, 6, 9, ..., at most min(elements, 4096)) until two in a row forecast 10 % above
// the best, as choose_segments scans (segment_search.cpp), since the trees change with m when latency counts.
// The forecast assumes the executor keeps every link busy; how close it comes is measured, not assumed
// (docs/model.md). The whole scan is one packing per count tried, once per communicator and key (redux-plan
// --strategy multi-tree --segments auto times it).
#include "plan/steady_state/multi_tree.hpp"

#include "plan/steady_state/plain_trees.hpp"
#include "plan/steady_state/steady_state_costs.hpp"

#include <algorithm>
#include <limits>

namespace redux {
namespace {

constexpr int32_t kMaxRounds = 1000;  // column generation rounds per segment count

struct Candidate {
    int32_t segments = 0;
    double time_s = std::numeric_limits<double>::infinity();
    PlainTreePacking packing;
};

Candidate forecast(const PlanRequest& request, int32_t segments) {
    Candidate out;
    out.segments = segments;
    PlanRequest at_m = request;
    at_m.segments = segments;
    const SteadyStatePlatform platform =
        steady_state_platform(*request.hetero_costs, request.root, segment_scale(at_m));
    TreePackingOptions options;
    options.max_participants = kMultiTreeMaxRanks;
    // Every rank plans on its own and must make the same plan, so the search is bounded by rounds (the same on
    // every rank), not by time; kMaxRounds is well above what a packing of kMultiTreeMaxRanks ranks needs, and a
    // count that needs more is not taken. The time limit is a last guard only.
    options.max_rounds = kMaxRounds;
    options.time_limit_s = 60;
    std::optional<PlainTreePacking> packing = pack_plain_trees(platform, options, nullptr, PortModel::shared_links);
    if (!packing || packing->throughput_per_s <= 0) return out;
    double fill_s = 0;
    for (const PlainTree& tree : packing->trees) fill_s = std::max(fill_s, plain_tree_makespan(platform, tree.parent));
    out.time_s = fill_s + (segments - 1) / packing->throughput_per_s;
    out.packing = std::move(*packing);
    return out;
}

TreeShape shape_of(const std::vector<int32_t>& parent) {
    const ChildLists lists = child_lists(parent);
    TreeShape shape;
    shape.parent = parent;
    shape.child_offset = lists.offset;
    shape.child_rank = lists.child;
    shape.child_joins_left.assign(lists.child.size(), 0);  // commutative: acc o child
    return shape;
}

}  // namespace

std::vector<int32_t> deal_segments(const std::vector<double>& weight, int32_t segments) {
    double total = 0;
    for (double w : weight) total += std::max(0.0, w);
    std::vector<int32_t> deal;
    if (total <= 0) return deal;
    std::vector<double> credit(weight.size(), 0.0);
    for (int32_t j = 0; j < segments; ++j) {
        size_t pick = 0;
        for (size_t t = 0; t < weight.size(); ++t) {
            credit[t] += std::max(0.0, weight[t]) / total;
            if (credit[t] > credit[pick]) pick = t;
        }
        credit[pick] -= 1;
        deal.push_back(static_cast<int32_t>(pick));
    }
    return deal;
}

std::optional<RankTrees> multi_tree(const PlanRequest& request) {
    if (!request.hetero_costs || request.ranks < 2 || request.ranks > kMultiTreeMaxRanks) return std::nullopt;
    Candidate best;
    if (request.segments >= 1) {
        best = forecast(request, static_cast<int32_t>(std::min<int64_t>(request.segments, request.elements)));
    } else {
        const auto cap = static_cast<int32_t>(std::min<int64_t>(request.elements, 4096));
        int32_t worse = 0;
        for (int32_t m = 1; m <= cap && worse < 2; m = std::max(m + 1, m * 3 / 2)) {
            Candidate c = forecast(request, m);
            worse = c.time_s > 1.1 * best.time_s ? worse + 1 : 0;
            if (c.time_s < best.time_s) best = std::move(c);
        }
    }
    if (best.packing.trees.empty()) return std::nullopt;

    std::vector<double> weight;
    for (const PlainTree& tree : best.packing.trees) weight.push_back(tree.per_s);
    const std::vector<int32_t> dealt = deal_segments(weight, best.segments);
    // Only the trees that carry a segment, renumbered in the order of their first segment.
    std::vector<int32_t> number(weight.size(), -1);
    RankTrees out;
    out.sink = request.root;
    for (int32_t t : dealt) {
        if (number[static_cast<size_t>(t)] < 0) {
            number[static_cast<size_t>(t)] = static_cast<int32_t>(out.trees.size());
            out.trees.push_back(shape_of(best.packing.trees[static_cast<size_t>(t)].parent));
        }
        out.deal.push_back(number[static_cast<size_t>(t)]);
    }
    out.segments = best.segments;
    out.predicted_s = best.time_s;
    return out;
}

}  // namespace redux
