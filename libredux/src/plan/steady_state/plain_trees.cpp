// The steady state of a series of reductions (Legrand, Marchal & Robert, Section 4) restricted to plain trees:
// the trees the executor runs (a rank receives its children's partial results, folds them into its own value and
// sends the result once to its parent). The paper's program and pack_reduction_trees (tree_packing.cpp) also let
// a participant forward a value it did not fold, or fold two values neither of which is its own; this file is
// ours, not the paper's, and gives up those schedules for trees the library can run as they are.
//
// Column generation (column_generation.hpp) as in tree_packing.cpp, with another pricing. A plain tree keeps
// busy, for every participant u but the target, u's send port and its parent v's receive port for t(u, v), and
// v's folding for f(v) (one fold per child). So its cost at prices (send s_u, receive r_v, fold q_v) is a sum
// over its edges,
//     w(u, v) = t(u, v) (s_u + r_v) + f(v) q_v,
// (one-port); with shared links (plain_trees.hpp) u's link out and v's link in are charged their own fastest
// transfer times instead, and the path u -> v its own row, priced p_uv:
//     w(u, v) = out(u) s_u + in(v) r_v + t(u, v) p_uv + f(v) q_v.
// Either way the cheapest plain tree is a minimum-cost arborescence towards the target: Chu-Liu/Edmonds (each node
// takes its cheapest parent; a cycle is contracted into one node whose edges out are charged what leaving the
// cycle there saves, and the contracted problem is solved again; then the cycle is opened where its edge out
// leaves). O(p^3) per pricing.
//
// Commutative operators only (the fold order of a plain tree here follows the arrival of the children's values,
// not the ranks): the library offers the multi-tree strategy for those.
#include "plan/steady_state/plain_trees.hpp"

#include "plan/steady_state/column_generation.hpp"
#include "plan/tree.hpp"

#include <algorithm>
#include <utility>

namespace redux {
namespace {

using column_generation::kInfinity;
using column_generation::Prices;

// The cheapest plain tree under given prices, for column_generation::solve. An edge u -> v keeps u's send port
// busy for send_[u -> v], v's receive port for receive_[u -> v], v's folding for fold_[v] and, with shared links,
// the path u -> v (its own row) for transfer_[u -> v].
class CheapestPlainTree {
public:
    using Column = std::vector<int32_t>;  // parent by participant

    CheapestPlainTree(const SteadyStatePlatform& platform, double unit_s, PortModel model)
        : p_(platform.size()),
          target_(platform.target()),
          shared_(model == PortModel::shared_links),
          transfer_(size_t(p_) * size_t(p_), kInfinity),
          send_(transfer_.size(), kInfinity),
          receive_(transfer_.size(), kInfinity),
          fold_(size_t(p_)),
          cost_(transfer_.size()) {
        std::vector<double> out(size_t(p_), kInfinity), in(size_t(p_), kInfinity);  // each one's fastest link
        for (int32_t u = 0; u < p_; ++u) {
            fold_[size_t(u)] = platform.fold_s(u) / unit_s;
            for (int32_t v = 0; v < p_; ++v) {
                if (u == v || !platform.has_edge(u, v)) continue;
                const double t = platform.transfer_s(u, v) / unit_s;
                transfer_[at(u, v)] = t;
                out[size_t(u)] = std::min(out[size_t(u)], t);
                in[size_t(v)] = std::min(in[size_t(v)], t);
            }
        }
        for (int32_t u = 0; u < p_; ++u) {
            for (int32_t v = 0; v < p_; ++v) {
                if (transfer_[at(u, v)] == kInfinity) continue;
                send_[at(u, v)] = shared_ ? out[size_t(u)] : transfer_[at(u, v)];
                receive_[at(u, v)] = shared_ ? in[size_t(v)] : transfer_[at(u, v)];
            }
        }
    }

    int32_t rows() const { return 3 * p_ + (shared_ ? p_ * p_ : 0); }

    double find(const Prices& prices, Column& tree) {
        for (int32_t u = 0; u < p_; ++u) {
            for (int32_t v = 0; v < p_; ++v) {
                const size_t e = at(u, v);
                if (transfer_[e] == kInfinity) {
                    cost_[e] = kInfinity;
                    continue;
                }
                cost_[e] = send_[e] * prices[size_t(u)] + receive_[e] * prices[size_t(p_ + v)] +
                           fold_[size_t(v)] * prices[size_t(2 * p_ + v)];
                if (shared_) cost_[e] += transfer_[e] * prices[size_t(3 * p_) + e];
            }
        }
        Column found = minimum_in_tree(p_, target_, cost_);
        if (found.empty()) return kInfinity;
        double total = 0;
        for (int32_t u = 0; u < p_; ++u) {
            if (u != target_) total += cost_[at(u, found[size_t(u)])];
        }
        tree = std::move(found);
        return total;
    }

    std::vector<double> busy(const Column& tree) const {
        std::vector<double> busy(size_t(rows()), 0.0);
        for (int32_t u = 0; u < p_; ++u) {
            const int32_t v = tree[size_t(u)];
            if (v < 0) continue;
            const size_t e = at(u, v);
            busy[size_t(u)] += send_[e];
            busy[size_t(p_ + v)] += receive_[e];
            busy[size_t(2 * p_ + v)] += fold_[size_t(v)];
            if (shared_) busy[size_t(3 * p_) + e] += transfer_[e];
        }
        return busy;
    }

    std::vector<int32_t> signature(const Column& tree) const { return tree; }

private:
    size_t at(int32_t u, int32_t v) const { return size_t(u) * size_t(p_) + size_t(v); }

    int32_t p_;
    int32_t target_;
    bool shared_;
    std::vector<double> transfer_;  // scaled, by (from, to); infinite without an edge
    std::vector<double> send_;      // scaled, by (from, to): the sender's port or link
    std::vector<double> receive_;   // scaled, by (from, to): the receiver's port or link
    std::vector<double> fold_;      // scaled, by node
    std::vector<double> cost_;      // this round's w(u, v)
};

std::optional<PlainTreePacking> failed(std::string* error, const std::string& message) {
    if (error) *error = "pack_plain_trees: " + message;
    return std::nullopt;
}

}  // namespace

std::vector<int32_t> minimum_in_tree(int32_t k, int32_t root, const std::vector<double>& cost) {
    auto c = [&](int32_t u, int32_t v) { return cost[size_t(u) * size_t(k) + size_t(v)]; };
    // Each node's cheapest parent.
    std::vector<int32_t> best(size_t(k), -1);
    for (int32_t u = 0; u < k; ++u) {
        if (u == root) continue;
        for (int32_t v = 0; v < k; ++v) {
            if (v != u && c(u, v) < kInfinity && (best[size_t(u)] < 0 || c(u, v) < c(u, best[size_t(u)]))) {
                best[size_t(u)] = v;
            }
        }
        if (best[size_t(u)] < 0) return {};
    }
    // A cycle of the cheapest parents, if any: walk from each node until the root, a node seen on this walk (a
    // cycle) or one seen on an earlier walk (no new cycle).
    std::vector<int32_t> walk(size_t(k), -1);
    std::vector<int32_t> cycle;
    for (int32_t start = 0; start < k && cycle.empty(); ++start) {
        int32_t u = start;
        while (u != root && walk[size_t(u)] < 0) walk[size_t(u)] = start, u = best[size_t(u)];
        if (u != root && walk[size_t(u)] == start) {
            for (int32_t w = u;;) {
                cycle.push_back(w);
                w = best[size_t(w)];
                if (w == u) break;
            }
        }
    }
    if (cycle.empty()) return best;

    // Contract the cycle into node `ring` (the last index); the others keep their order.
    std::vector<char> in_cycle(size_t(k), 0);
    for (int32_t u : cycle) in_cycle[size_t(u)] = 1;
    std::vector<int32_t> index(size_t(k), -1), node;  // index: old -> new; node: new -> old (outside the cycle)
    for (int32_t u = 0; u < k; ++u) {
        if (!in_cycle[size_t(u)]) index[size_t(u)] = int32_t(node.size()), node.push_back(u);
    }
    const auto ring = int32_t(node.size());
    const int32_t k2 = ring + 1;
    std::vector<double> cost2(size_t(k2) * size_t(k2), kInfinity);
    std::vector<int32_t> enter(size_t(k2), -1);  // by outside node: which cycle node it takes as parent
    std::vector<int32_t> leave(size_t(k2), -1);  // by outside node: which cycle node leaves the cycle for it
    for (int32_t a = 0; a < ring; ++a) {
        const int32_t u = node[size_t(a)];
        for (int32_t b = 0; b < ring; ++b) {
            if (a != b) cost2[size_t(a) * size_t(k2) + size_t(b)] = c(u, node[size_t(b)]);
        }
        for (int32_t w : cycle) {  // u's parent in the cycle
            double& into = cost2[size_t(a) * size_t(k2) + size_t(ring)];
            if (c(u, w) < into) into = c(u, w), enter[size_t(a)] = w;
        }
        for (int32_t w : cycle) {  // the cycle leaves at w for parent u: it saves w's edge in the cycle
            if (c(w, u) == kInfinity) continue;
            const double saved = c(w, u) - c(w, best[size_t(w)]);
            double& out = cost2[size_t(ring) * size_t(k2) + size_t(a)];
            if (saved < out) out = saved, leave[size_t(a)] = w;
        }
    }
    const std::vector<int32_t> parent2 = minimum_in_tree(k2, index[size_t(root)], cost2);
    if (parent2.empty()) return {};
    std::vector<int32_t> parent(size_t(k), -1);
    for (int32_t a = 0; a < ring; ++a) {
        const int32_t b = parent2[size_t(a)];
        parent[size_t(node[size_t(a)])] = b < 0 ? -1 : b == ring ? enter[size_t(a)] : node[size_t(b)];
    }
    for (int32_t w : cycle) parent[size_t(w)] = best[size_t(w)];
    const int32_t out = parent2[size_t(ring)];  // the cycle's way out
    parent[size_t(leave[size_t(out)])] = node[size_t(out)];
    return parent;
}

double plain_tree_throughput(const SteadyStatePlatform& platform, const std::vector<int32_t>& parent, PortModel model) {
    for (int32_t u = 0; u < platform.size(); ++u) {
        const int32_t v = parent[size_t(u)];
        if (v >= 0 && !platform.has_edge(u, v)) return 0;
    }
    const std::vector<double> busy = CheapestPlainTree(platform, 1.0, model).busy(parent);
    const double most = *std::max_element(busy.begin(), busy.end());
    return most > 0 ? 1 / most : kInfinity;
}

double plain_tree_makespan(const SteadyStatePlatform& platform, const std::vector<int32_t>& parent) {
    const ChildLists lists = child_lists(parent);
    const int32_t target = platform.target();
    // Ranks children first: the reverse of a breadth-first order from the target.
    std::vector<int32_t> order{target};
    for (size_t k = 0; k < order.size(); ++k) {
        const int32_t u = order[k];
        for (int32_t c = lists.offset[size_t(u)]; c < lists.offset[size_t(u) + 1]; ++c)
            order.push_back(lists.child[size_t(c)]);
    }
    std::vector<double> ready(parent.size(), 0.0);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const int32_t u = *it;
        std::vector<std::pair<double, int32_t>> children;  // (ready, rank)
        for (int32_t c = lists.offset[size_t(u)]; c < lists.offset[size_t(u) + 1]; ++c) {
            children.emplace_back(ready[size_t(lists.child[size_t(c)])], lists.child[size_t(c)]);
        }
        std::sort(children.begin(), children.end());
        double arrived = 0, folded = 0;
        for (const auto& [child_ready, child] : children) {
            arrived = std::max(arrived, child_ready) + platform.transfer_s(child, u);
            folded = std::max(folded, arrived) + platform.fold_s(u);
        }
        ready[size_t(u)] = folded;
    }
    return ready[size_t(target)];
}

std::optional<PlainTreePacking> pack_plain_trees(const SteadyStatePlatform& platform, const TreePackingOptions& options,
                                                 std::string* error, PortModel model) {
    if (const std::string refusal = steady_state_refusal(platform, options.max_participants); !refusal.empty()) {
        return failed(error, refusal);
    }
    const double unit_s = platform.largest_time_s();
    CheapestPlainTree cheapest(platform, unit_s, model);
    std::string why;
    const auto found = column_generation::solve(
        cheapest, {options.time_limit_s, options.relative_gap, options.smoothing, options.max_rounds}, why);
    if (!found) return failed(error, why);
    PlainTreePacking packing;
    for (size_t t = 0; t < found->trees.size(); ++t) {
        packing.trees.push_back({found->trees[t], found->weight[t] / unit_s});
        packing.throughput_per_s += packing.trees.back().per_s;
    }
    packing.upper_bound_per_s = found->upper / unit_s;
    packing.rounds = found->rounds;
    packing.solve_s = found->solve_s;
    return packing;
}

}  // namespace redux
