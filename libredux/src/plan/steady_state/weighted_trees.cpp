// Weighted reduction trees from the steady-state flow, the period, and the fixed-period approximation: Legrand,
// Marchal & Robert, "Optimizing the steady-state throughput of scatter and reduce operations on heterogeneous
// platforms", Section 4.3 (a schedule is described by a family of reduction trees, each with the throughput it
// carries) and Section 4.5 (Proposition 4). The paper leaves the extraction of the trees to its research report
// [7]; the algorithm here is ours.
//
// Decomposition. The solution (steady_state.cpp) is a flow of partial results: at every participant n and
// partial result v, what arrives (transfers into n) or is made (folds at n) equals what leaves or is consumed,
// except the sources (v[i,i] at i) and the sink (v[0,p-1] at the target, TP of them). decompose_into_trees peels
// trees off it, following the largest rates, the way a network flow is split into paths:
//   1. Start from the demand (v[0,p-1], target). For a demand (v, n): if v is n's own value, it is a leaf.
//      Otherwise take, among the folds at n that make v and the transfers into n that carry v, the one with the
//      most rate left. A fold T[k,l,m] makes two demands (v[k,l], n) and (v[l+1,m], n); a transfer j -> n makes
//      the demand (v, j). Conservation says that wherever rate is consumed some is produced, so a producer exists
//      while the rate at the sink does.
//   2. A chain of transfers of one v that comes back to a node it has passed through is a cycle: cancel it (take
//      its smallest rate off every transfer on it: conservation still holds) and start the tree again.
//   3. Otherwise the demands end in leaves: a reduction tree, each interval made once (the intervals of a tree
//      nest, so no column is used twice). Its weight w is the smallest rate left on any of its transfers and folds
//      and at the sink; subtract w from all of them (conservation still holds) and record the tree.
// Every round zeroes at least one column or the sink, so there are at most (non-zero columns + 1) trees. It
// stops when the sink's rate is below tolerance * TP. Rate that no tree reaches -- work the program was free to
// do but nothing needs -- is left out; the least-busy pass of steady_state.cpp leaves little of it.
//
// Period (Section 3.1's lcm of denominators, the T of Section 4.5). The schedule repeats every T time units, T the
// lcm of the denominators of the weights, so that each tree runs an integer number of times per period. The
// weights are floating-point: each becomes the largest fraction at most itself (plus round-off) with a bounded
// denominator (fraction_below). With measured costs the lcm soon passes any useful length (rational_period then
// says so): that is what the fixed period is for.
//
// Fixed period (Section 4.5). With a period T_fixed chosen in advance tree t runs r(t) = floor(weight(t) *
// T_fixed) times per period. Nothing is busier than under the weights, and the throughput lost is
//     TP - sum_t r(t) / T_fixed <= sum_t (weight(t) - (weight(t) * T_fixed - 1) / T_fixed) = card(TREES) / T_fixed
// (Proposition 4).
#include "plan/steady_state/weighted_trees.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <tuple>

namespace redux {
namespace {

__extension__ using Wide = __int128;  // exact products of two int64_t (GCC and Clang)

// The flow left to decompose, indexed by where each partial result is produced.
class RemainingFlow {
public:
    explicit RemainingFlow(const SteadyStateSolution& solution)
        : p_(solution.participants),
          results_(partial_result_count(solution.participants)),
          into_(static_cast<size_t>(p_) * static_cast<size_t>(results_)),
          made_(into_.size()) {
        for (const auto& rate : solution.transfers) {
            into_[slot(rate.transfer.value, rate.transfer.to)].push_back(static_cast<int32_t>(transfer_.size()));
            transfer_.push_back(rate.per_s);
        }
        for (const auto& rate : solution.folds) {
            made_[slot(rate.fold.result(), rate.fold.node)].push_back(static_cast<int32_t>(fold_.size()));
            fold_.push_back(rate.per_s);
        }
    }

    const std::vector<int32_t>& transfers_into(PartialResult v, int32_t node) const { return into_[slot(v, node)]; }
    const std::vector<int32_t>& folds_making(PartialResult v, int32_t node) const { return made_[slot(v, node)]; }
    double& transfer(int32_t id) { return transfer_[static_cast<size_t>(id)]; }
    double& fold(int32_t id) { return fold_[static_cast<size_t>(id)]; }

private:
    size_t slot(PartialResult v, int32_t node) const {
        return static_cast<size_t>(node) * static_cast<size_t>(results_) +
               static_cast<size_t>(partial_result_index(v, p_));
    }

    int32_t p_;
    int32_t results_;
    std::vector<std::vector<int32_t>> into_;  // by (node, result): transfers that bring it there
    std::vector<std::vector<int32_t>> made_;  // by (node, result): folds that make it there
    std::vector<double> transfer_;            // rate left, by transfer of the solution
    std::vector<double> fold_;                // rate left, by fold of the solution
};

// One attempt at a tree: the transfers and folds it uses (from the sink down), or a cycle of transfers, or
// nothing found (round-off: the sink's rate is gone in all but name).
struct Attempt {
    enum class Outcome { tree, cycle, stuck } outcome = Outcome::stuck;
    std::vector<int32_t> transfers;
    std::vector<int32_t> folds;
};

Attempt find_tree(const SteadyStateSolution& solution, RemainingFlow& flow, double floor) {
    struct Demand {
        PartialResult v;
        int32_t node;
    };
    Attempt attempt;
    std::vector<Demand> todo{{{0, solution.participants - 1}, solution.target}};
    while (!todo.empty()) {
        const Demand demand = todo.back();
        todo.pop_back();
        const PartialResult v = demand.v;
        // The chain of transfers that brings v to demand.node: chain_nodes[k + 1] -> chain_nodes[k] is
        // chain_transfers[k].
        std::vector<int32_t> chain_nodes{demand.node}, chain_transfers;
        for (int32_t n = demand.node; !(v.first == v.last && v.first == n);) {
            int32_t best_fold = -1, best_transfer = -1;
            double best = floor;
            for (const int32_t f : flow.folds_making(v, n)) {
                if (flow.fold(f) > best) best = flow.fold(f), best_fold = f, best_transfer = -1;
            }
            for (const int32_t t : flow.transfers_into(v, n)) {
                if (flow.transfer(t) > best) best = flow.transfer(t), best_transfer = t, best_fold = -1;
            }
            if (best_fold >= 0) {
                const ResultFold& fold = solution.folds[static_cast<size_t>(best_fold)].fold;
                attempt.folds.push_back(best_fold);
                todo.push_back({fold.right, n});
                todo.push_back({fold.left, n});
                break;
            }
            if (best_transfer < 0) return Attempt{};
            const int32_t from = solution.transfers[static_cast<size_t>(best_transfer)].transfer.from;
            const auto seen = std::find(chain_nodes.begin(), chain_nodes.end(), from);
            if (seen != chain_nodes.end()) {
                Attempt cycle{Attempt::Outcome::cycle, {best_transfer}, {}};
                cycle.transfers.insert(cycle.transfers.end(), chain_transfers.begin() + (seen - chain_nodes.begin()),
                                       chain_transfers.end());
                return cycle;
            }
            chain_transfers.push_back(best_transfer);
            chain_nodes.push_back(from);
            attempt.transfers.push_back(best_transfer);
            n = from;
        }
    }
    attempt.outcome = Attempt::Outcome::tree;
    return attempt;
}

}  // namespace

std::vector<WeightedTree> decompose_into_trees(const SteadyStateSolution& solution, double tolerance) {
    std::vector<WeightedTree> trees;
    if (solution.participants < 1 || !(solution.throughput_per_s > 0)) return trees;
    RemainingFlow flow(solution);
    const double floor = tolerance * solution.throughput_per_s;
    double sink = solution.throughput_per_s;
    while (sink > floor) {
        Attempt attempt = find_tree(solution, flow, floor);
        if (attempt.outcome == Attempt::Outcome::stuck) break;
        double w = attempt.outcome == Attempt::Outcome::tree ? sink : std::numeric_limits<double>::infinity();
        for (const int32_t t : attempt.transfers) w = std::min(w, flow.transfer(t));
        for (const int32_t f : attempt.folds) w = std::min(w, flow.fold(f));
        for (const int32_t t : attempt.transfers) flow.transfer(t) -= w;
        for (const int32_t f : attempt.folds) flow.fold(f) -= w;
        if (attempt.outcome == Attempt::Outcome::cycle) continue;
        sink -= w;
        WeightedTree tree;
        tree.per_s = w;
        // Found from the sink down; reversed, every input comes before its use.
        for (auto t = attempt.transfers.rbegin(); t != attempt.transfers.rend(); ++t) {
            tree.transfers.push_back(solution.transfers[static_cast<size_t>(*t)].transfer);
        }
        for (auto f = attempt.folds.rbegin(); f != attempt.folds.rend(); ++f) {
            tree.folds.push_back(solution.folds[static_cast<size_t>(*f)].fold);
        }
        trees.push_back(std::move(tree));
    }
    return trees;
}

std::string reduction_tree_error(const WeightedTree& tree, int32_t participants, int32_t target) {
    const int32_t p = participants;
    auto in_range = [p](PartialResult v) { return 0 <= v.first && v.first <= v.last && v.last < p; };
    auto is_node = [p](int32_t n) { return 0 <= n && n < p; };
    if (!is_node(target)) return "the target is not a participant";
    // What is where, ready to be used: (node, first, last) -> how many.
    std::map<std::tuple<int32_t, int32_t, int32_t>, int32_t> ready;
    for (int32_t i = 0; i < p; ++i) ready[{i, i, i}] = 1;
    auto take = [&](int32_t node, PartialResult v) {
        const auto it = ready.find({node, v.first, v.last});
        if (it == ready.end() || it->second == 0) return false;
        if (--it->second == 0) ready.erase(it);
        return true;
    };
    for (const auto& t : tree.transfers) {
        if (!is_node(t.from) || !is_node(t.to) || t.from == t.to || !in_range(t.value)) {
            return "transfer of " + to_string(t.value) + " out of range";
        }
    }
    for (const auto& f : tree.folds) {
        if (!is_node(f.node) || !in_range(f.left) || !in_range(f.right)) return "fold out of range";
        if (f.left.last + 1 != f.right.first) {
            return "fold of " + to_string(f.left) + " and " + to_string(f.right) + ", which are not adjacent";
        }
    }
    // Run everything whose inputs are ready until nothing more runs.
    std::vector<uint8_t> transfer_done(tree.transfers.size(), 0), fold_done(tree.folds.size(), 0);
    for (bool progress = true; progress;) {
        progress = false;
        for (size_t k = 0; k < tree.transfers.size(); ++k) {
            const auto& t = tree.transfers[k];
            if (transfer_done[k] || !take(t.from, t.value)) continue;
            ++ready[{t.to, t.value.first, t.value.last}];
            transfer_done[k] = progress = true;
        }
        for (size_t k = 0; k < tree.folds.size(); ++k) {
            const auto& f = tree.folds[k];
            if (fold_done[k] || ready.count({f.node, f.left.first, f.left.last}) == 0 ||
                ready.count({f.node, f.right.first, f.right.last}) == 0) {
                continue;
            }
            take(f.node, f.left);
            take(f.node, f.right);
            ++ready[{f.node, f.left.first, f.right.last}];
            fold_done[k] = progress = true;
        }
    }
    for (size_t k = 0; k < tree.transfers.size(); ++k) {
        const auto& t = tree.transfers[k];
        if (!transfer_done[k]) {
            return "transfer of " + to_string(t.value) + " from " + std::to_string(t.from) + " never has its input";
        }
    }
    for (size_t k = 0; k < tree.folds.size(); ++k) {
        const auto& f = tree.folds[k];
        if (!fold_done[k]) {
            return "fold at " + std::to_string(f.node) + " of " + to_string(f.left) + " and " + to_string(f.right) +
                   " never has its inputs";
        }
    }
    for (const auto& [where, count] : ready) {
        const auto [node, first, last] = where;
        if (node != target || first != 0 || last != p - 1 || count != 1) {
            return to_string({first, last}) + " left unused at " + std::to_string(node);
        }
    }
    if (ready.empty()) return "the target never has the result";
    return "";
}

std::optional<TreeShape> tree_shape(const WeightedTree& tree, int32_t participants, int32_t target) {
    if (!reduction_tree_error(tree, participants, target).empty()) return std::nullopt;
    const auto p = static_cast<size_t>(participants);
    std::vector<int32_t> sent(p, -1);  // the one transfer out of each node
    std::vector<std::vector<int32_t>> received(p), folds_at(p);
    for (size_t k = 0; k < tree.transfers.size(); ++k) {
        const auto& t = tree.transfers[k];
        if (sent[static_cast<size_t>(t.from)] >= 0 || t.from == target) return std::nullopt;
        sent[static_cast<size_t>(t.from)] = static_cast<int32_t>(k);
        received[static_cast<size_t>(t.to)].push_back(static_cast<int32_t>(k));
    }
    for (size_t k = 0; k < tree.folds.size(); ++k) {
        folds_at[static_cast<size_t>(tree.folds[k].node)].push_back(static_cast<int32_t>(k));
    }
    TreeShape shape;
    shape.parent.assign(p, -1);
    shape.child_offset.assign(p + 1, 0);
    for (int32_t n = 0; n < participants; ++n) {
        const auto& mine = folds_at[static_cast<size_t>(n)];
        if (mine.size() != received[static_cast<size_t>(n)].size()) return std::nullopt;  // forwarding
        // Follow the accumulator: each fold joins one received result to it, on its left or its right.
        PartialResult acc{n, n};
        std::vector<uint8_t> used(mine.size(), 0);
        for (size_t step = 0; step < mine.size(); ++step) {
            bool joined = false;
            for (size_t k = 0; k < mine.size() && !joined; ++k) {
                const ResultFold& f = tree.folds[static_cast<size_t>(mine[k])];
                if (used[k] || (f.left != acc && f.right != acc)) continue;
                const bool joins_left = f.right == acc;
                const PartialResult other = joins_left ? f.left : f.right;
                for (const int32_t r : received[static_cast<size_t>(n)]) {
                    const ResultTransfer& t = tree.transfers[static_cast<size_t>(r)];
                    if (t.value != other) continue;
                    shape.parent[static_cast<size_t>(t.from)] = n;
                    shape.child_rank.push_back(t.from);
                    shape.child_joins_left.push_back(joins_left ? 1 : 0);
                    used[k] = 1;
                    joined = true;
                    acc = f.result();
                    break;
                }
            }
            if (!joined) return std::nullopt;
        }
        shape.child_offset[static_cast<size_t>(n) + 1] = static_cast<int32_t>(shape.child_rank.size());
        const int32_t out = sent[static_cast<size_t>(n)];
        if (n == target) {
            if (acc != PartialResult{0, participants - 1}) return std::nullopt;
        } else if (out < 0 || tree.transfers[static_cast<size_t>(out)].value != acc) {
            return std::nullopt;  // sends something other than its accumulator
        }
    }
    return shape;
}

SteadyStateSolution flow_of_trees(const SteadyStatePlatform& platform, const std::vector<WeightedTree>& trees) {
    SteadyStateSolution flow;
    flow.participants = platform.size();
    flow.target = platform.target();
    std::map<std::tuple<int32_t, int32_t, int32_t, int32_t>, double> transfers;  // (from, to, first, last)
    std::map<std::tuple<int32_t, int32_t, int32_t, int32_t>, double> folds;      // (node, k, l, m)
    for (const auto& tree : trees) {
        flow.throughput_per_s += tree.per_s;
        for (const auto& t : tree.transfers) transfers[{t.from, t.to, t.value.first, t.value.last}] += tree.per_s;
        for (const auto& f : tree.folds) folds[{f.node, f.left.first, f.left.last, f.right.last}] += tree.per_s;
    }
    for (const auto& [key, per_s] : transfers) {
        const auto [from, to, first, last] = key;
        flow.transfers.push_back({{{first, last}, from, to}, per_s});
    }
    for (const auto& [key, per_s] : folds) {
        const auto [node, k, l, m] = key;
        flow.folds.push_back({{node, {k, l}, {l + 1, m}}, per_s});
    }
    flow.busy = busy_fractions(platform, flow.transfers, flow.folds);
    return flow;
}

std::optional<Fraction> fraction_below(double x, int64_t max_denominator, double tolerance) {
    if (!(x >= 0) || !std::isfinite(x) || max_denominator < 1) return std::nullopt;
    const long double bound = static_cast<long double>(x) + tolerance * std::max(1.0, x);
    if (bound * static_cast<long double>(max_denominator) >= 9e18L) return std::nullopt;
    Fraction best{static_cast<int64_t>(std::floor(bound)), 1};
    for (int64_t d = 2; d <= max_denominator; ++d) {
        const auto n = static_cast<int64_t>(std::floor(bound * static_cast<long double>(d)));
        // n / d > best  <=>  n * best.d > best.n * d, in 128 bits
        if (static_cast<Wide>(n) * best.denominator > static_cast<Wide>(best.numerator) * d) best = {n, d};
    }
    return best;
}

std::optional<TreePeriod> rational_period(const std::vector<WeightedTree>& trees, double time_unit_s,
                                          int64_t max_denominator, int64_t max_period) {
    std::vector<Fraction> weights;
    int64_t period = 1;
    for (const auto& tree : trees) {
        const std::optional<Fraction> w = fraction_below(tree.per_s * time_unit_s, max_denominator);
        if (!w) return std::nullopt;
        const int64_t step = w->denominator / std::gcd(period, w->denominator);
        if (period > max_period / step) return std::nullopt;
        period *= step;
        weights.push_back(*w);
    }
    TreePeriod out;
    out.period = period;
    out.period_s = static_cast<double>(period) * time_unit_s;
    long double total = 0;
    for (const Fraction& w : weights) {
        const Wide count = static_cast<Wide>(w.numerator) * (period / w.denominator);
        if (count > std::numeric_limits<int64_t>::max()) return std::nullopt;
        out.trees_per_period.push_back(static_cast<int64_t>(count));
        total += static_cast<long double>(count);
    }
    out.throughput_per_s = out.period_s > 0 ? static_cast<double>(total / out.period_s) : 0.0;
    return out;
}

FixedPeriod fixed_period(const std::vector<WeightedTree>& trees, double period_s) {
    FixedPeriod out;
    out.period_s = period_s;
    int64_t total = 0;
    for (const auto& tree : trees) {
        const double runs = tree.per_s * period_s;
        const auto count = static_cast<int64_t>(std::floor(runs * (1 + 1e-9)));
        out.trees_per_period.push_back(count);
        total += count;
    }
    out.throughput_per_s = period_s > 0 ? static_cast<double>(total) / period_s : 0.0;
    return out;
}

}  // namespace redux
