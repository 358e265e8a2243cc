// The cache of choose_segments' answers (choice_cache.hpp).
//
// The key. choose_segments simulates the plan's trees rank by rank: each rank's receives from its children in fold
// order, its folds, its sends, with the request's costs, which are the same on every link and every rank unless
// the request has per-link or per-rank costs (hetero_costs) or release times. Without those, renumbering the ranks
// changes nothing it computes, so the key numbers them by a preorder walk of tree 0 from the sink (children in fold
// order): tree 0 is then its child counts in that order; the further trees of a two-tree or multi-tree plan are
// their children lists in the new numbers; the root's new number says where the final transfer goes (and which
// rank waits for it). Every number the simulation reads from the request and the plan follows.
//
// At most kMaxChoices answers; when full, the cache starts again empty (a program with that many shapes pays a
// search per key, as without it).
#include "plan/predict/choice_cache.hpp"

#include "plan/planner.hpp"

#include <map>
#include <mutex>
#include <type_traits>
#include <vector>

namespace redux {
namespace {

constexpr size_t kMaxChoices = 1024;

std::mutex g_mutex;
std::map<std::string, SegmentChoice> g_choices;

template <typename T>
void put(std::string& key, const T& value) {
    static_assert(std::is_trivially_copyable_v<T>, "bytes of plain values only");
    key.append(reinterpret_cast<const char*>(&value), sizeof value);
}

void put_points(std::string& key, const std::vector<PingSample>& points) {
    put(key, points.size());
    for (const PingSample& point : points) {
        put(key, point.bytes);
        put(key, point.one_way_s);
    }
}

}  // namespace

std::string choice_key(const Plan& plan) {
    const PlanRequest& request = plan.request;
    if (request.hetero_costs || !plan.release_s.empty()) return "";
    const auto n = static_cast<int32_t>(plan.parent.size());
    // Preorder from the sink, children in fold order.
    std::vector<int32_t> number(static_cast<size_t>(n), -1), order;
    std::vector<int32_t> stack{plan.sink};
    while (!stack.empty()) {
        const int32_t rank = stack.back();
        stack.pop_back();
        number[static_cast<size_t>(rank)] = static_cast<int32_t>(order.size());
        order.push_back(rank);
        for (int32_t k = plan.child_offset[static_cast<size_t>(rank) + 1] - 1; k >= plan.child_offset[rank]; --k) {
            stack.push_back(plan.child_rank[static_cast<size_t>(k)]);
        }
    }
    if (static_cast<int32_t>(order.size()) != n) return "";  // tree 0 does not reach every rank
    std::string key;
    put(key, n);
    for (int32_t rank : order) put(key, plan.child_offset[rank + 1] - plan.child_offset[rank]);
    put(key, plan.more_trees.size());
    for (const TreeShape& tree : plan.more_trees) {
        for (int32_t rank : order) {
            put(key, tree.child_offset[rank + 1] - tree.child_offset[rank]);
            for (int32_t k = tree.child_offset[rank]; k < tree.child_offset[rank + 1]; ++k) {
                put(key, number[static_cast<size_t>(tree.child_rank[static_cast<size_t>(k)])]);
            }
        }
    }
    put(key, plan.deal.size());
    for (int32_t tree : plan.deal) put(key, tree);
    put(key, number[static_cast<size_t>(request.root)]);
    put(key, plan.final_transfer);
    put(key, plan.tree_makespan_s);
    put(key, plan.makespan_s);
    const Costs& costs = request.costs;
    for (double value : {costs.transfer_s, costs.compute_s, costs.flight_s, costs.call_s, costs.compute_call_s}) {
        put(key, value);
    }
    put(key, request.model);
    put(key, request.elements);
    put(key, request.latency_s);
    put(key, request.element_bytes);
    put(key, request.recv_window);
    put(key, request.segment_flight);
    put(key, static_cast<bool>(request.segment_curve));
    if (const LinkFit* curve = request.segment_curve.get()) {
        for (double value : {curve->alpha_s, curve->beta_s_per_byte, curve->flight_s, curve->call_s}) put(key, value);
        put(key, curve->measured);
        put_points(key, curve->points);
        put_points(key, curve->flight_points);
    }
    return key;
}

std::optional<SegmentChoice> cached_choice(const std::string& key) {
    const std::lock_guard<std::mutex> lock(g_mutex);
    const auto found = g_choices.find(key);
    if (found == g_choices.end()) return std::nullopt;
    return found->second;
}

void keep_choice(const std::string& key, const SegmentChoice& choice) {
    const std::lock_guard<std::mutex> lock(g_mutex);
    if (g_choices.size() >= kMaxChoices) g_choices.clear();
    g_choices.emplace(key, choice);
}

void forget_segment_choices() {
    const std::lock_guard<std::mutex> lock(g_mutex);
    g_choices.clear();
}

}  // namespace redux
