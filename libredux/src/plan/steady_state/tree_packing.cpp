// The steady-state optimum of Legrand, Marchal & Robert (Section 4; steady_state.cpp) by column generation over
// reduction trees. The paper describes its schedules as weighted reduction trees (Section 4.3); this solves for
// those trees directly, as the Dantzig-Wolfe form of the Section 4 program. This file is ours, not the paper's.
//
// Why. The Section 4 program has a column per partial result and edge and per task and participant: p^4 / 2 +
// p^4 / 6 on a complete platform, and GLPK's simplex needs minutes a few participants past
// kSteadyStateMaxParticipants (steady_state.hpp). But any flow of the program is a weighted sum of reduction trees
// (decompose_into_trees) and any such sum is a flow, so the optimum is also that of the master program
//     maximise sum_T x_T   subject to, for every participant n and each of its resources r in {send port,
//     receive port, folding}:  sum_T x_T * busy_T(n, r) <= 1,   x_T >= 0,
// where busy_T(n, r) is the time one reduction along tree T keeps n's resource r busy. It has 3p rows and a
// column per tree -- too many trees to write down, but only the useful ones are needed.
//
// Column generation. Start with one tree (the one of least total busy time). Repeat:
//   1. Solve the master over the trees found so far (GLPK, warm-started); TP its optimum, price[n, r] >= 0 the
//      duals of its rows.
//   2. Pricing: the cheapest tree when each unit of busy time of (n, r) costs price[n, r]. By dynamic programming
//      over (partial result v, participant n), shortest partial results first: cost(v[i,i], i) = 0; a fold at n
//      costs fold_s(n) * price[n, fold] + cost(v[k,l], n) + cost(v[l+1,m], n), best over l; then, per v, Dijkstra
//      over the edges, a transfer j -> n costing transfer_s(j, n) * (price[j, send] + price[n, receive]).
//      cost(v[0,p-1], target) is the cheapest tree's cost, C.
//   3. Every tree costs at least C, so price / C is a feasible dual of the whole master: TP* <= TP / C. If
//      C >= 1 - relative_gap the trees found are optimal; otherwise the cheapest tree improves the master (its
//      reduced cost 1 - C > 0): add it and go on.
// Smoothing (Pricer below) cuts the rounds severalfold. A round costs O(p^4): p^4 / 6 fold candidates
// (vectorised) and p^2 / 2 Dijkstra runs of p^2 steps take about half of it, the master's simplex most of the rest.
// The master's basis has 3p rows, so at most 3p trees keep a non-zero weight (decompose_into_trees finds about as
// many in the program's flow), which also bounds Proposition 4's loss, card(TREES) / T_fixed.
//
// The rounds grow about linearly with p, so the time grows about as p^5: at kTreePackingMaxParticipants it is the
// time of a tool (redux-plan --steady-state), not of a call, bounded by TreePackingOptions::time_limit_s. Adding,
// besides the cheapest tree, the cheapest ones with other last steps at the target cuts the rounds but not the time (a
// larger master), so it is not done.
#include "plan/steady_state/tree_packing.hpp"

#include "plan/steady_state/column_generation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace redux {
namespace {

using column_generation::kInfinity;
using column_generation::Prices;

// Step 2: the cheapest reduction tree under given prices.
class CheapestTree {
public:
    using Column = WeightedTree;
    CheapestTree(const SteadyStatePlatform& platform, double unit_s)
        : p_(platform.size()),
          target_(platform.target()),
          transfer_(static_cast<size_t>(p_) * static_cast<size_t>(p_), kInfinity),
          fold_(static_cast<size_t>(p_)),
          edge_price_(transfer_.size()),
          fold_price_(fold_.size()),
          cost_(static_cast<size_t>(partial_result_count(p_)) * static_cast<size_t>(p_)),
          how_(cost_.size()),
          open_(static_cast<size_t>(p_)) {
        for (int32_t i = 0; i < p_; ++i) {
            fold_[static_cast<size_t>(i)] = platform.fold_s(i) / unit_s;
            for (int32_t j = 0; j < p_; ++j) {
                if (platform.has_edge(i, j)) transfer_[at(i, j)] = platform.transfer_s(i, j) / unit_s;
            }
        }
    }

    // The cost of the cheapest tree (infinite when some value cannot reach the target); fills `tree` with it.
    double find(const Prices& prices, WeightedTree& tree) {
        for (int32_t i = 0; i < p_; ++i) {
            fold_price_[static_cast<size_t>(i)] =
                fold_[static_cast<size_t>(i)] * prices[static_cast<size_t>(2 * p_ + i)];
            for (int32_t j = 0; j < p_; ++j) {
                edge_price_[at(i, j)] =
                    transfer_[at(i, j)] * (prices[static_cast<size_t>(i)] + prices[static_cast<size_t>(p_ + j)]);
            }
        }
        for (int32_t length = 1; length <= p_; ++length) {
            for (int32_t k = 0; k + length <= p_; ++k) cheapest_everywhere({k, k + length - 1});
        }
        const PartialResult full{0, p_ - 1};
        const double cost = cost_[slot(full, target_)];
        if (cost < kInfinity) tree = build(full);
        return cost;
    }

    int32_t rows() const { return 3 * p_; }

    // The time one reduction along `tree` keeps each resource busy, scaled, in row order (as Prices).
    std::vector<double> busy(const WeightedTree& tree) const {
        std::vector<double> busy(static_cast<size_t>(3 * p_), 0.0);
        for (const auto& t : tree.transfers) {
            busy[static_cast<size_t>(t.from)] += transfer_[at(t.from, t.to)];
            busy[static_cast<size_t>(p_ + t.to)] += transfer_[at(t.from, t.to)];
        }
        for (const auto& f : tree.folds)
            busy[static_cast<size_t>(2 * p_ + f.node)] += fold_[static_cast<size_t>(f.node)];
        return busy;
    }

    // The tree as a sorted list of its transfers and folds, to notice the pricing handing back one the master has.
    std::vector<int32_t> signature(const WeightedTree& tree) const {
        std::vector<std::vector<int32_t>> items;
        for (const auto& t : tree.transfers) items.push_back({0, t.from, t.to, t.value.first, t.value.last});
        for (const auto& f : tree.folds) items.push_back({1, f.node, f.left.first, f.left.last, f.right.last});
        std::sort(items.begin(), items.end());
        std::vector<int32_t> flat;
        for (const auto& item : items) flat.insert(flat.end(), item.begin(), item.end());
        return flat;
    }

private:
    // how_: >= 0: a transfer from that node; kLeaf: v[n,n] at n; kFold: a fold at n (split()); kUnreached.
    static constexpr int32_t kLeaf = -1;
    static constexpr int32_t kFold = -2;
    static constexpr int32_t kUnreached = std::numeric_limits<int32_t>::min();

    size_t at(int32_t i, int32_t j) const {
        return static_cast<size_t>(i) * static_cast<size_t>(p_) + static_cast<size_t>(j);
    }
    size_t slot(PartialResult v, int32_t n) const {
        return static_cast<size_t>(partial_result_index(v, p_)) * static_cast<size_t>(p_) + static_cast<size_t>(n);
    }

    // cost(v, n) and how_ for every n: folds on the spot, then transfers (Dijkstra; costs are >= 0).
    void cheapest_everywhere(PartialResult v) {
        double* cost = &cost_[slot(v, 0)];
        int32_t* how = &how_[slot(v, 0)];
        std::fill(cost, cost + p_, kInfinity);
        std::fill(how, how + p_, kUnreached);
        if (v.first == v.last) {
            cost[v.first] = 0;
            how[v.first] = kLeaf;
        }
        // Split by split, every node at once: a plain minimum over contiguous rows, which the compiler vectorises.
        // The split itself is found again for the few (v, n) the cheapest tree uses (build).
        for (int32_t l = v.first; l < v.last; ++l) {
            const double* left = &cost_[slot({v.first, l}, 0)];
            const double* right = &cost_[slot({l + 1, v.last}, 0)];
            for (int32_t n = 0; n < p_; ++n) cost[n] = std::min(cost[n], left[n] + right[n]);
        }
        if (v.first < v.last) {
            for (int32_t n = 0; n < p_; ++n) {
                cost[n] += fold_price_[static_cast<size_t>(n)];
                if (cost[n] < kInfinity) how[n] = kFold;
            }
        }
        // Dijkstra on the complete graph: the nodes not settled yet are open_[0 .. open).
        size_t open = static_cast<size_t>(p_);
        std::iota(open_.begin(), open_.end(), 0);
        while (open > 0) {
            size_t best = 0;
            for (size_t k = 1; k < open; ++k) {
                if (cost[open_[k]] < cost[open_[best]]) best = k;
            }
            const int32_t u = open_[best];
            if (cost[u] == kInfinity) break;
            open_[best] = open_[--open];
            const double* price = &edge_price_[at(u, 0)];
            for (size_t k = 0; k < open; ++k) {
                const int32_t n = open_[k];
                if (cost[u] + price[n] < cost[n]) cost[n] = cost[u] + price[n], how[n] = u;
            }
        }
    }

    // The split of the cheapest fold of v at n: the same sums in the same order as cheapest_everywhere, so the
    // first one that reaches the minimum is the one it took.
    int32_t split(PartialResult v, int32_t n) const {
        int32_t best = v.first;
        double best_cost = kInfinity;
        for (int32_t l = v.first; l < v.last; ++l) {
            const double c = cost_[slot({v.first, l}, n)] + cost_[slot({l + 1, v.last}, n)];
            if (c < best_cost) best_cost = c, best = l;
        }
        return best;
    }

    // The tree behind cost(full, target), inputs first in both lists.
    WeightedTree build(PartialResult full) const {
        WeightedTree tree;
        std::vector<std::pair<PartialResult, int32_t>> todo{{full, target_}};
        while (!todo.empty()) {
            const auto [v, n] = todo.back();
            todo.pop_back();
            const int32_t how = how_[slot(v, n)];
            if (how >= 0) {
                tree.transfers.push_back({v, how, n});
                todo.push_back({v, how});
            } else if (how == kFold) {
                const int32_t l = split(v, n);
                tree.folds.push_back({n, {v.first, l}, {l + 1, v.last}});
                todo.push_back({{v.first, l}, n});
                todo.push_back({{l + 1, v.last}, n});
            }
        }
        std::reverse(tree.transfers.begin(), tree.transfers.end());
        std::reverse(tree.folds.begin(), tree.folds.end());
        return tree;
    }

    int32_t p_;
    int32_t target_;
    std::vector<double> transfer_;    // scaled, by (from, to); infinite without an edge
    std::vector<double> fold_;        // scaled, by node
    std::vector<double> edge_price_;  // this round's price of a transfer, by (from, to)
    std::vector<double> fold_price_;  // this round's price of a fold, by node
    std::vector<double> cost_;        // by (partial result, node)
    std::vector<int32_t> how_;        // by (partial result, node): how the cheapest one gets there
    std::vector<int32_t> open_;       // Dijkstra's scratch
};

std::optional<TreePacking> failed(std::string* error, const std::string& message) {
    if (error) *error = "pack_reduction_trees: " + message;
    return std::nullopt;
}

}  // namespace

std::optional<TreePacking> pack_reduction_trees(const SteadyStatePlatform& platform, const TreePackingOptions& options,
                                                std::string* error) {
    const int32_t p = platform.size();
    if (const std::string refusal = steady_state_refusal(platform, options.max_participants); !refusal.empty()) {
        return failed(error, refusal);
    }
    const double unit_s = platform.largest_time_s();

    CheapestTree cheapest(platform, unit_s);
    std::string why;
    const auto found = column_generation::solve(
        cheapest, {options.time_limit_s, options.relative_gap, options.smoothing, options.max_rounds}, why);
    if (!found) return failed(error, why);
    TreePacking packing;
    packing.trees = found->trees;
    for (size_t t = 0; t < packing.trees.size(); ++t) packing.trees[t].per_s = found->weight[t] / unit_s;
    packing.solution = flow_of_trees(platform, packing.trees);
    packing.rounds = found->rounds;
    if (found->rounds == 0) return packing;  // some value cannot reach the target: TP = 0
    packing.solution.lp_rows = 3 * p;
    packing.solution.lp_columns = found->lp_columns;
    packing.solution.lp_nonzeros = found->lp_nonzeros;
    packing.solution.solve_s = found->solve_s;
    packing.upper_bound_per_s = found->upper / unit_s;
    return packing;
}

}  // namespace redux
