// The steady-state solution (steady_state.hpp) as a family of weighted reduction trees, its period and the
// fixed-period approximation of Legrand, Marchal & Robert, Sections 4.3 and 4.5. See weighted_trees.cpp.
#pragma once

#include "plan/steady_state/steady_state.hpp"
#include "plan/tree.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace redux {

// One reduction tree of the family: how one reduction's values meet at the target. Every participant's value
// enters once; folds join adjacent partial results only. Both lists are in an order that runs: whatever a
// transfer sends or a fold uses is made by an earlier entry of its list, by the other list, or is a value at its
// owner. per_s: how many reductions per time unit go this way.
struct WeightedTree {
    std::vector<ResultTransfer> transfers;
    std::vector<ResultFold> folds;
    double per_s = 0;
};

// Decomposes the solution's flow into trees whose weights sum to its TP (up to `tolerance` times TP): see
// weighted_trees.cpp for the algorithm. Flow that no tree needs (useless work the program was free to do) is
// left out. At most (non-zero columns of the solution + 1) trees.
std::vector<WeightedTree> decompose_into_trees(const SteadyStateSolution& solution, double tolerance = 1e-9);

// Empty when `tree` is a reduction tree of `participants` values ending at `target`: participants and results in
// range, only adjacent partial results folded, every transfer and fold has its input (at the right node, not
// used by another), and what is left at the end is v[0,p-1] at the target alone -- so every value was used once.
// Otherwise the first problem.
std::string reduction_tree_error(const WeightedTree& tree, int32_t participants, int32_t target);

// The tree in the per-rank form of tree.hpp when it is a plain reduction tree: every participant other than the
// target sends exactly one partial result, its own value with whatever its children sent folded in, and every
// fold joins a received partial result to the accumulator holding the node's own value (no forwarding, no folds
// of two received results). The children of each rank are listed in the tree's fold order. nullopt otherwise.
std::optional<TreeShape> tree_shape(const WeightedTree& tree, int32_t participants, int32_t target);

// The flow of the trees together, each at its per_s: TP their sum, equal transfers and folds merged, the busy
// fractions they leave (steady_state_violation checks it like a solution of the program).
SteadyStateSolution flow_of_trees(const SteadyStatePlatform& platform, const std::vector<WeightedTree>& trees);

// n / d with 1 <= d.
struct Fraction {
    int64_t numerator = 0;
    int64_t denominator = 1;
};

// The largest n / d <= x + tolerance * max(1, x) with 1 <= d <= max_denominator, the smallest d among equal
// values (x >= 0). The tolerance lets a rate that round-off left just below a fraction come out as that fraction;
// anything else is rounded down, so a schedule built from it never asks more of a port than the rate did.
// O(max_denominator). nullopt when x is negative or not finite, or n would not fit.
std::optional<Fraction> fraction_below(double x, int64_t max_denominator, double tolerance = 1e-9);

// The period of the schedule (the lcm of the denominators, Section 3.1; T in Section 4.5): each tree's weight, in
// reductions per time unit of time_unit_s, as a fraction with a denominator of at most max_denominator
// (fraction_below); the period T is the lcm of the denominators (in time units) and tree t runs weight(t) * T times per
// period, an integer.
struct TreePeriod {
    int64_t period = 0;                     // T, in time units
    double period_s = 0;                    // T * time_unit_s
    std::vector<int64_t> trees_per_period;  // by tree
    double throughput_per_s = 0;            // sum of trees_per_period / period_s: TP when the weights are exact
};

// nullopt when a weight has no fraction (fraction_below) or the lcm passes max_period time units -- as it soon
// does when the weights are not simple fractions (the solution of a platform with measured costs): then a
// period chosen in advance (fixed_period) is the way to a schedule.
std::optional<TreePeriod> rational_period(const std::vector<WeightedTree>& trees, double time_unit_s = 1.0,
                                          int64_t max_denominator = 1000, int64_t max_period = int64_t{1} << 40);

// Section 4.5: a period of period_s fixed in advance; tree t runs r(t) = floor(per_s(t) * period_s) times in it
// (up to a relative 1e-9, for round-off). The ports and folds are no busier than with the weights, and
// Proposition 4 bounds the loss: TP - throughput_per_s <= trees.size() / period_s.
struct FixedPeriod {
    double period_s = 0;
    std::vector<int64_t> trees_per_period;
    double throughput_per_s = 0;  // sum of trees_per_period / period_s
};

FixedPeriod fixed_period(const std::vector<WeightedTree>& trees, double period_s);

}  // namespace redux
