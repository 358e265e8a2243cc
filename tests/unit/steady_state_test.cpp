// The steady-state linear program of Legrand, Marchal & Robert (plan/steady_state/steady_state.cpp), its weighted trees
// (plan/steady_state/weighted_trees.cpp) and the column generation that finds them directly
// (plan/steady_state/tree_packing.cpp): optimal throughputs worked out by hand on small platforms, the paper's Figure
// 6, an independent check of every solution against the program's constraints, simple bounds on random platforms, the
// trees (valid reduction trees whose weights add up to TP and whose flow the program allows, cycles cancelled), the
// per-rank form, the period, Proposition 4's fixed-period bound, and the column generation's TP against the program's.
#include "plan/steady_state/steady_state.hpp"
#include "plan/planner.hpp"
#include "plan/steady_state/multi_tree.hpp"
#include "plan/steady_state/plain_trees.hpp"
#include "plan/steady_state/tree_packing.hpp"
#include "plan/steady_state/weighted_trees.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace redux {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

SteadyStateSolution solve(const SteadyStatePlatform& platform) {
    std::string error;
    const std::optional<SteadyStateSolution> solution = solve_steady_state(platform, {}, &error);
    EXPECT_TRUE(solution.has_value()) << error;
    return solution.value_or(SteadyStateSolution{});
}

// The solution satisfies the program; its trees are reduction trees, their weights add up to TP and together
// they keep every port and every participant's folding within its time. Returns the trees.
std::vector<WeightedTree> check_solution_and_trees(const SteadyStatePlatform& platform,
                                                   const SteadyStateSolution& solution) {
    EXPECT_EQ(steady_state_violation(platform, solution), "");
    const std::vector<WeightedTree> trees = decompose_into_trees(solution);
    double sum_per_s = 0;
    for (const auto& tree : trees) {
        EXPECT_EQ(reduction_tree_error(tree, platform.size(), platform.target()), "");
        EXPECT_GT(tree.per_s, 0);
        sum_per_s += tree.per_s;
    }
    EXPECT_NEAR(sum_per_s, solution.throughput_per_s, 1e-6 * std::max(1.0, solution.throughput_per_s));
    // Together the trees are a flow of the program (conserved, no port busier than its time), with TP their sum.
    EXPECT_EQ(steady_state_violation(platform, flow_of_trees(platform, trees)), "");
    return trees;
}

// The interval a per-rank tree leaves at `rank`, following its fold order and sides; {-1, -1} when it folds two
// partial results that are not adjacent.
PartialResult folded_interval(const TreeShape& shape, int32_t rank) {
    PartialResult acc{rank, rank};
    for (int32_t k = shape.child_offset[rank]; k < shape.child_offset[rank + 1]; ++k) {
        const PartialResult child = folded_interval(shape, shape.child_rank[k]);
        const PartialResult left = shape.child_joins_left[k] ? child : acc;
        const PartialResult right = shape.child_joins_left[k] ? acc : child;
        if (left.first < 0 || right.first < 0 || left.last + 1 != right.first) return {-1, -1};
        acc = {left.first, right.last};
    }
    return acc;
}

// Simple upper bounds on TP. The target receives at least one partial result per reduction (the other values
// are elsewhere); every other participant's value leaves it at least once; a reduction takes p - 1 folds,
// shared among the participants; a target without outgoing edges folds at least once itself.
double throughput_upper_bound(const SteadyStatePlatform& platform) {
    const int32_t p = platform.size(), t = platform.target();
    double fastest_in = kInf, fold_capacity_per_s = 0, bound = kInf;
    bool target_sends = false;
    for (int32_t i = 0; i < p; ++i) {
        double fastest_out = kInf;
        for (int32_t j = 0; j < p; ++j) {
            if (!platform.has_edge(i, j)) continue;
            fastest_out = std::min(fastest_out, platform.transfer_s(i, j));
            if (j == t) fastest_in = std::min(fastest_in, platform.transfer_s(i, j));
        }
        if (i != t) bound = std::min(bound, 1 / fastest_out);
        target_sends = target_sends || (i == t && fastest_out < kInf);
        fold_capacity_per_s += 1 / platform.fold_s(i);
    }
    bound = std::min({bound, 1 / fastest_in, fold_capacity_per_s / (p - 1)});
    if (!target_sends) bound = std::min(bound, 1 / platform.fold_s(t));
    return bound;
}

// The throughput of the star, a lower bound on TP: every participant sends its value straight to the target
// (p - 1 receives there per reduction), which folds them in (p - 1 folds).
double star_throughput(const SteadyStatePlatform& platform) {
    const int32_t t = platform.target();
    double receive_s = 0;
    for (int32_t i = 0; i < platform.size(); ++i) {
        if (i != t) receive_s += platform.transfer_s(i, t);
    }
    return 1 / std::max(receive_s, (platform.size() - 1) * platform.fold_s(t));
}

// A complete platform with transfer times in [0.5, 2] and fold times in [0.1, 2].
SteadyStatePlatform random_platform(int32_t p, int32_t target, std::mt19937& rng) {
    std::uniform_real_distribution<double> transfer(0.5, 2.0), fold(0.1, 2.0);
    std::vector<double> transfer_s(static_cast<size_t>(p * p)), fold_s(static_cast<size_t>(p));
    for (auto& d : transfer_s) d = transfer(rng);
    for (auto& c : fold_s) c = fold(rng);
    return SteadyStatePlatform::complete(transfer_s, fold_s, target);
}

// Chain 2 -> 1 -> 0 (target 0), every transfer 1 s; participant 1 folds in 2 s, participant 0 in 0.5 s.
// Participant 2's value has one way out, to 1, once per reduction: 1 s of 2's send port and 1's receive port.
// Participant 1 then either folds v[1,2] itself (2 s of its compute, one transfer to 0) or forwards v[1,1] and
// v[2,2] (two transfers to 0, both folded by 0). With a share a of the reductions folded at 1 and TP reductions
// per second:
//     1's compute:    2 a TP <= 1
//     1's send port:  (a + 2 (1 - a)) TP = (2 - a) TP <= 1   (0's receive port the same)
//     0's compute:    0.5 (2 - a) TP <= 1, 2's send and 1's receive: TP <= 1   (looser)
// TP = min(1 / (2a), 1 / (2 - a)) is largest where 2a = 2 - a: a = 2/3 and TP = 3/4, half a reduction per
// second folded at 1 and a quarter forwarded.
SteadyStatePlatform chain_of_three() {
    SteadyStatePlatform platform(3, 0);
    platform.set_transfer_s(2, 1, 1.0);
    platform.set_transfer_s(1, 0, 1.0);
    platform.set_fold_s(0, 0.5);
    platform.set_fold_s(1, 2.0);
    platform.set_fold_s(2, 1.0);
    return platform;
}

TEST(SteadyState, ChainOfThreeMixesFoldingAndForwarding) {
    const SteadyStatePlatform platform = chain_of_three();
    const SteadyStateSolution solution = solve(platform);
    EXPECT_NEAR(solution.throughput_per_s, 0.75, 1e-9);
    EXPECT_NEAR(solution.busy.compute[1], 1.0, 1e-9);
    EXPECT_NEAR(solution.busy.send[1], 1.0, 1e-9);
    const std::vector<WeightedTree> trees = check_solution_and_trees(platform, solution);

    // The tree that folds v[1,2] at 1 carries 1/2; those that forward carry 1/4 together.
    double folded_at_1 = 0, forwarded = 0;
    for (const auto& tree : trees) {
        const bool folds_at_1 =
            std::any_of(tree.folds.begin(), tree.folds.end(), [](const ResultFold& f) { return f.node == 1; });
        (folds_at_1 ? folded_at_1 : forwarded) += tree.per_s;
        // Only the first is a plain reduction tree: 2 -> 1 -> 0, each child joining on the right.
        const std::optional<TreeShape> shape = tree_shape(tree, 3, 0);
        EXPECT_EQ(shape.has_value(), folds_at_1);
        if (shape) {
            EXPECT_EQ(shape->parent, (std::vector<int32_t>{-1, 0, 1}));
            EXPECT_EQ(shape->child_joins_left, (std::vector<uint8_t>{0, 0}));
            EXPECT_EQ(folded_interval(*shape, 0), (PartialResult{0, 2}));
        }
    }
    EXPECT_NEAR(folded_at_1, 0.5, 1e-9);
    EXPECT_NEAR(forwarded, 0.25, 1e-9);

    // Weights 1/2 and 1/4 (the forwarding quarter in one tree or split in simple fractions): a period of a few
    // seconds with an integer number of each tree, 3/4 of a reduction per second.
    const std::optional<TreePeriod> period = rational_period(trees);
    ASSERT_TRUE(period.has_value());
    EXPECT_LE(period->period, 12);
    EXPECT_NEAR(period->throughput_per_s, 0.75, 1e-12);
    for (size_t t = 0; t < trees.size(); ++t) {
        EXPECT_NEAR(static_cast<double>(period->trees_per_period[t]) / period->period_s, trees[t].per_s, 1e-9);
    }
}

// Star around participant 1 (the target) with leaves 0, 2 and 3: every edge leaf <-> centre takes 1 s, folds
// 0.1 s. Leaves reach each other only through the centre, so every leaf's value enters the centre at least once
// on its own (a partial result arriving from leaf i holds only i's value and values that already went through
// the centre): three receives per reduction, 3 s of the centre's receive port, TP <= 1/3 -- a third of what
// one receive per reduction (1 / the fastest incoming edge) would allow. The plain star reaches it: each leaf
// sends once per 3 s, the centre folds 3 * 0.1 s per reduction.
TEST(SteadyState, StarIsLimitedByTheTargetsReceivePort) {
    SteadyStatePlatform platform(4, 1);
    for (int32_t leaf : {0, 2, 3}) {
        platform.set_transfer_s(leaf, 1, 1.0);
        platform.set_transfer_s(1, leaf, 1.0);
    }
    for (int32_t n = 0; n < 4; ++n) platform.set_fold_s(n, 0.1);
    const SteadyStateSolution solution = solve(platform);
    EXPECT_NEAR(solution.throughput_per_s, 1.0 / 3.0, 1e-9);
    EXPECT_NEAR(solution.busy.receive[1], 1.0, 1e-9);
    const std::vector<WeightedTree> trees = check_solution_and_trees(platform, solution);
    // Where a tree is a plain one, it is the star, folding in rank order around the centre's own value.
    for (const auto& tree : trees) {
        if (const std::optional<TreeShape> shape = tree_shape(tree, 4, 1)) {
            EXPECT_EQ(shape->parent, (std::vector<int32_t>{1, -1, 1, 1}));
            EXPECT_EQ(folded_interval(*shape, 1), (PartialResult{0, 3}));
        }
    }
}

// Two speed classes on a complete platform of four, every transfer 1 s: participants 0 (the target) and 1 fold
// in 1 s, participants 2 and 3 in 4 s. A reduction takes 3 folds and the four can fold 1 + 1 + 1/4 + 1/4 = 5/2
// per second, so TP <= 5/6 (the ports allow 1). Four trees reach it, each fold on the node named:
//     X (1/4): 3 -> 2, fold [2,3] at 2, 2 -> 1, fold [1,3] at 1, 1 -> 0, fold [0,3] at 0
//     Y (1/4): 2 -> 3, fold [2,3] at 3, 3 -> 1, fold [1,3] at 1, 1 -> 0, fold at 0
//     Z (1/6): 2 -> 1, fold [1,2] at 1, 1 -> 0, 3 -> 0, folds [0,2] and [0,3] at 0
//     W (1/6): 2 -> 1, 3 -> 1, folds [1,2] and [1,3] at 1, 1 -> 0, fold at 0
// Folding: 2 and 3 4 * 1/4 = 1, 1: 1/4 + 1/4 + 1/6 + 2/6 = 1, 0: 1/4 + 1/4 + 2/6 + 1/6 = 1. Ports: 1 receives
// 1/4 + 1/4 + 1/6 + 2/6 = 1, 0 receives 5/6 + 1/6 = 1, each of 1, 2, 3 sends 5/6. So TP = 5/6 exactly, with
// every participant folding all the time.
TEST(SteadyState, TwoSpeedClassesAreBoundByFolding) {
    std::vector<double> transfer_s(16, 1.0);
    const SteadyStatePlatform platform = SteadyStatePlatform::complete(transfer_s, {1.0, 1.0, 4.0, 4.0}, 0);
    const SteadyStateSolution solution = solve(platform);
    EXPECT_NEAR(solution.throughput_per_s, 5.0 / 6.0, 1e-9);
    for (int32_t n = 0; n < 4; ++n) EXPECT_NEAR(solution.busy.compute[n], 1.0, 1e-9) << n;
    const std::vector<WeightedTree> trees = check_solution_and_trees(platform, solution);
    EXPECT_GE(trees.size(), 2u);  // no single tree folds on all four at these rates
}

// Figure 6 of the paper. Its topology (a) is a picture the text lost; we rebuild it from the LP solution (b) and
// the schedule (d). (d) gives every transfer one time unit (one column) and participants 1 and 2 one unit per
// fold; the text says participant 0 runs two tasks per time unit (0.5). (b) uses the edges 1 -> 2, 2 -> 1,
// 1 -> 0 and 2 -> 0. Three reductions every three time units: TP = 1, and participant 0's receive port is the
// bound (the values of 1 and 2 reach it in at least one partial result per reduction, 1 time unit each).
// Whether (a) also has edges out of participant 0 does not matter: we solve both ways.
SteadyStatePlatform figure6_platform(bool edges_out_of_target) {
    SteadyStatePlatform platform(3, 0);
    platform.set_transfer_s(1, 2, 1.0);
    platform.set_transfer_s(2, 1, 1.0);
    platform.set_transfer_s(1, 0, 1.0);
    platform.set_transfer_s(2, 0, 1.0);
    if (edges_out_of_target) {
        platform.set_transfer_s(0, 1, 1.0);
        platform.set_transfer_s(0, 2, 1.0);
    }
    platform.set_fold_s(0, 0.5);
    platform.set_fold_s(1, 1.0);
    platform.set_fold_s(2, 1.0);
    return platform;
}

// Figure 6 (b): per period of 3, 1 -> 2 sends v[1,1] twice, 2 -> 1 v[2,2] once, 1 -> 0 v[1,2] once, 2 -> 0 v[1,2]
// twice; 1 folds T[1,1,2] once, 2 twice, 0 folds T[0,0,2] three times. Here per time unit.
SteadyStateSolution figure6_solution() {
    SteadyStateSolution paper;
    paper.participants = 3;
    paper.target = 0;
    paper.throughput_per_s = 3.0 / 3;
    paper.transfers = {
        {{{1, 1}, 1, 2}, 2.0 / 3}, {{{2, 2}, 2, 1}, 1.0 / 3}, {{{1, 2}, 1, 0}, 1.0 / 3}, {{{1, 2}, 2, 0}, 2.0 / 3}};
    paper.folds = {{{1, {1, 1}, {2, 2}}, 1.0 / 3}, {{2, {1, 1}, {2, 2}}, 2.0 / 3}, {{0, {0, 0}, {1, 2}}, 1.0}};
    return paper;
}

TEST(SteadyState, Figure6OfThePaper) {
    for (const bool edges_out_of_target : {false, true}) {
        const SteadyStatePlatform platform = figure6_platform(edges_out_of_target);
        const SteadyStateSolution solution = solve(platform);
        EXPECT_NEAR(solution.throughput_per_s, 1.0, 1e-9) << edges_out_of_target;
        EXPECT_NEAR(solution.busy.receive[0], 1.0, 1e-9);
        const std::vector<WeightedTree> trees = check_solution_and_trees(platform, solution);
        for (const auto& tree : trees) {
            const std::optional<TreeShape> shape = tree_shape(tree, 3, 0);
            ASSERT_TRUE(shape.has_value());  // every tree here is 1 -> 2 -> 0 or 2 -> 1 -> 0
            EXPECT_EQ(folded_interval(*shape, 0), (PartialResult{0, 2}));
        }

        // The paper's solution (b), per period of 3, satisfies our program and reaches the same TP.
        const SteadyStateSolution paper = figure6_solution();
        EXPECT_EQ(steady_state_violation(platform, paper), "");
        const std::vector<WeightedTree> paper_trees = check_solution_and_trees(platform, paper);
        ASSERT_EQ(paper_trees.size(), 2u);  // 1 -> 2 -> 0 at 2/3, 2 -> 1 -> 0 at 1/3
        const std::optional<TreePeriod> period = rational_period(paper_trees);
        ASSERT_TRUE(period.has_value());
        EXPECT_EQ(period->period, 3);  // the paper's period
        EXPECT_EQ(period->trees_per_period, (std::vector<int64_t>{2, 1}));
    }
}

TEST(SteadyState, ViolationsAreReported) {
    const SteadyStatePlatform platform = figure6_platform(false);
    const SteadyStateSolution paper = figure6_solution();
    SteadyStateSolution more = paper;
    more.throughput_per_s = 1.1;  // the target makes only 1 per time unit
    EXPECT_NE(steady_state_violation(platform, more).find("conserved at 0"), std::string::npos);
    SteadyStateSolution busy = paper;
    for (auto& rate : busy.transfers) rate.per_s *= 1.5;
    for (auto& rate : busy.folds) rate.per_s *= 1.5;
    busy.throughput_per_s = 1.5;
    EXPECT_NE(steady_state_violation(platform, busy).find("more than it can"), std::string::npos);
    SteadyStateSolution missing_edge = paper;
    missing_edge.transfers.push_back({{{0, 0}, 0, 1}, 0.1});
    EXPECT_NE(steady_state_violation(platform, missing_edge).find("missing edge"), std::string::npos);
    SteadyStateSolution apart = paper;
    apart.folds.push_back({{0, {0, 0}, {2, 2}}, 0.1});
    EXPECT_NE(steady_state_violation(platform, apart).find("a fold of"), std::string::npos);
}

// A flow with useless work in it: Figure 6 (b) plus 0.8 v[1,2] per time unit sent round 1 -> 2 -> 1, on links
// between 1 and 2 four times as fast so that the ports have room. Following the largest rates, the demand for
// v[1,2] at 2 goes back to 1 and from there back to 2: a cycle, which the decomposition cancels before it finds
// the paper's two trees.
TEST(SteadyState, DecompositionCancelsCycles) {
    SteadyStatePlatform platform = figure6_platform(false);
    platform.set_transfer_s(1, 2, 0.25);
    platform.set_transfer_s(2, 1, 0.25);
    SteadyStateSolution flow = figure6_solution();
    flow.transfers.push_back({{{1, 2}, 1, 2}, 0.8});
    flow.transfers.push_back({{{1, 2}, 2, 1}, 0.8});
    ASSERT_EQ(steady_state_violation(platform, flow), "");
    const std::vector<WeightedTree> trees = check_solution_and_trees(platform, flow);
    ASSERT_EQ(trees.size(), 2u);
    EXPECT_NEAR(trees[0].per_s, 2.0 / 3, 1e-12);
    EXPECT_NEAR(trees[1].per_s, 1.0 / 3, 1e-12);
    for (const auto& tree : trees) EXPECT_EQ(tree.transfers.size(), 2u);  // no trip round the cycle
}

TEST(SteadyState, RandomPlatformsStayWithinSimpleBounds) {
    std::mt19937 rng(20040426);
    int32_t with_period = 0;
    for (int32_t round = 0; round < 12; ++round) {
        const int32_t p = 3 + round % 4;
        const int32_t target = round % p;
        SteadyStatePlatform platform = random_platform(p, target, rng);
        if (round % 3 == 2) {  // some edges missing, none into the target
            std::bernoulli_distribution drop(0.3);
            for (int32_t i = 0; i < p; ++i) {
                for (int32_t j = 0; j < p; ++j) {
                    if (i != j && j != target && drop(rng)) platform.set_transfer_s(i, j, kInf);
                }
            }
        }
        const SteadyStateSolution solution = solve(platform);
        SCOPED_TRACE("round " + std::to_string(round) + ", p " + std::to_string(p));
        EXPECT_LE(solution.throughput_per_s, throughput_upper_bound(platform) * (1 + 1e-9));
        EXPECT_GE(solution.throughput_per_s, star_throughput(platform) * (1 - 1e-9));
        const std::vector<WeightedTree> trees = check_solution_and_trees(platform, solution);
        ASSERT_FALSE(trees.empty());

        // Proposition 4: a period fixed in advance loses at most card(TREES) / T_fixed, and asks no more of a
        // port or a participant's folding than the weights did.
        for (const double period_s : {1.0, 7.5, 40.0, 1000.0}) {
            const FixedPeriod fixed = fixed_period(trees, period_s);
            EXPECT_GE(fixed.throughput_per_s,
                      solution.throughput_per_s - static_cast<double>(trees.size()) / period_s - 1e-9);
            EXPECT_LE(fixed.throughput_per_s, solution.throughput_per_s * (1 + 1e-9));
            std::vector<WeightedTree> runs = trees;
            for (size_t t = 0; t < runs.size(); ++t) {
                runs[t].per_s = static_cast<double>(fixed.trees_per_period[t]) / period_s;
            }
            const BusyFractions busy = flow_of_trees(platform, runs).busy;
            for (int32_t n = 0; n < p; ++n) {
                EXPECT_LE(std::max({busy.send[n], busy.receive[n], busy.compute[n]}), 1 + 1e-7) << n;
            }
        }
        // The rational period, where the lcm of the weights' denominators stays small enough to have one, never
        // claims more than TP and loses less than a 1/1000 per tree (each weight rounded down to a fraction with
        // a denominator of at most 1000).
        if (const std::optional<TreePeriod> period = rational_period(trees)) {
            ++with_period;
            EXPECT_LE(period->throughput_per_s, solution.throughput_per_s * (1 + 1e-9));
            EXPECT_GE(period->throughput_per_s, solution.throughput_per_s - static_cast<double>(trees.size()) / 1000);
        }
    }
    RecordProperty("rounds_with_a_rational_period", with_period);
}

// A transfer time scale far from 1 (microseconds) gives the same flow, rates scaled.
TEST(SteadyState, TimeUnitDoesNotMatter) {
    SteadyStatePlatform platform = chain_of_three();
    SteadyStatePlatform micro(3, 0);
    micro.set_transfer_s(2, 1, 1e-6);
    micro.set_transfer_s(1, 0, 1e-6);
    for (int32_t n = 0; n < 3; ++n) micro.set_fold_s(n, platform.fold_s(n) * 1e-6);
    const SteadyStateSolution solution = solve(micro);
    EXPECT_NEAR(solution.throughput_per_s, 0.75e6, 1e-3);
    check_solution_and_trees(micro, solution);
}

TEST(SteadyState, UnreachableTargetGivesNoThroughput) {
    SteadyStatePlatform platform(3, 0);
    platform.set_transfer_s(1, 0, 1.0);
    platform.set_fold_s(0, 1.0);  // participant 2 has no edge at all
    const SteadyStateSolution solution = solve(platform);
    EXPECT_EQ(solution.throughput_per_s, 0.0);
    EXPECT_TRUE(decompose_into_trees(solution).empty());
}

TEST(SteadyState, RefusesWhatItCannotSolve) {
    std::string error;
    EXPECT_FALSE(solve_steady_state(SteadyStatePlatform(1, 0), {}, &error).has_value());
    EXPECT_NE(error.find("two participants"), std::string::npos);

    SteadyStatePlatform free_platform(2, 0);
    free_platform.set_transfer_s(1, 0, 0.0);
    EXPECT_FALSE(solve_steady_state(free_platform, {}, &error).has_value());
    EXPECT_NE(error.find("unbounded"), std::string::npos);
    free_platform.set_fold_s(1, 1.0);  // a cost somewhere, but a route that costs nothing: GLPK finds it unbounded
    EXPECT_FALSE(solve_steady_state(free_platform, {}, &error).has_value());
    EXPECT_NE(error.find("unbounded"), std::string::npos);

    std::mt19937 rng(7);
    const SteadyStatePlatform large = random_platform(kSteadyStateMaxParticipants + 1, 0, rng);
    EXPECT_FALSE(solve_steady_state(large, {}, &error).has_value());
    EXPECT_NE(error.find("limit"), std::string::npos);

    SteadyStatePlatform negative(2, 0);
    negative.set_transfer_s(1, 0, -1.0);
    EXPECT_FALSE(solve_steady_state(negative, {}, &error).has_value());
    EXPECT_NE(error.find("transfer_s(1, 0)"), std::string::npos);
}

// The program's size on a complete platform of 8: a transfer column per edge and partial result, less v[j,j]
// into j and v[0,7] out of the target; a fold column per participant and task T[k,l,m] (C(9,3) = 84); TP.
TEST(SteadyState, ProgramSize) {
    std::mt19937 rng(8);
    const SteadyStateSolution solution = solve(random_platform(8, 3, rng));
    const int64_t edges = 8 * 7, results = 36;
    EXPECT_EQ(solution.lp_columns, edges * results - edges - 7 + 8 * 84 + 1);
    EXPECT_EQ(solution.lp_rows, 3 * 8 + 8 * results - 8);
}

TEST(SteadyState, ReductionTreeErrors) {
    WeightedTree tree;  // 1 -> 0, fold at 0, for two participants
    tree.transfers = {{{1, 1}, 1, 0}};
    tree.folds = {{0, {0, 0}, {1, 1}}};
    EXPECT_EQ(reduction_tree_error(tree, 2, 0), "");
    WeightedTree twice = tree;  // v[1,1] sent twice: the second has no input
    twice.transfers.push_back({{1, 1}, 1, 0});
    EXPECT_NE(reduction_tree_error(twice, 2, 0), "");
    WeightedTree reversed = tree;  // v[1,1] before v[0,0]: not adjacent in that order
    reversed.folds = {{0, {1, 1}, {0, 0}}};
    EXPECT_NE(reduction_tree_error(reversed, 2, 0).find("not adjacent"), std::string::npos);
    WeightedTree unused = tree;  // participant 2's value never used
    EXPECT_NE(reduction_tree_error(unused, 3, 0).find("left unused"), std::string::npos);
    WeightedTree elsewhere = tree;  // the result ends at 0, the target is 1
    EXPECT_NE(reduction_tree_error(elsewhere, 2, 1), "");
}

TEST(SteadyState, FractionBelow) {
    auto fraction = [](double x, int64_t max_denominator) {
        const std::optional<Fraction> f = fraction_below(x, max_denominator);
        return f ? std::vector<int64_t>{f->numerator, f->denominator} : std::vector<int64_t>{};
    };
    EXPECT_EQ(fraction(1.0 / 3, 1000), (std::vector<int64_t>{1, 3}));
    EXPECT_EQ(fraction(0.3333333332, 1000), (std::vector<int64_t>{1, 3}));  // round-off below 1/3
    EXPECT_EQ(fraction(0.7071, 10), (std::vector<int64_t>{7, 10}));         // 5/7 is above, 7/10 the largest below
    EXPECT_EQ(fraction(std::sqrt(2.0) - 1, 5), (std::vector<int64_t>{2, 5}));
    EXPECT_EQ(fraction(2.5, 1), (std::vector<int64_t>{2, 1}));
    EXPECT_EQ(fraction(0.0, 10), (std::vector<int64_t>{0, 1}));
    EXPECT_EQ(fraction(-1.0, 10), (std::vector<int64_t>{}));
}

// Column generation over trees (plan/steady_state/tree_packing.cpp) reaches the program's optimum: on the hand-worked
// platforms and on random ones, with its trees valid, adding up to TP, a flow of the program, no more of them
// than the master has rows, and its upper bound above the optimum.
TEST(TreePacking, MatchesTheProgram) {
    std::vector<SteadyStatePlatform> platforms{chain_of_three(), figure6_platform(false), figure6_platform(true)};
    platforms.push_back(SteadyStatePlatform::complete(std::vector<double>(16, 1.0), {1.0, 1.0, 4.0, 4.0}, 0));
    std::mt19937 rng(1789);
    for (int32_t round = 0; round < 10; ++round) {
        const int32_t p = 3 + round % 5;
        platforms.push_back(random_platform(p, (round * 7) % p, rng));
    }
    for (size_t k = 0; k < platforms.size(); ++k) {
        const SteadyStatePlatform& platform = platforms[k];
        SCOPED_TRACE("platform " + std::to_string(k));
        const SteadyStateSolution program = solve(platform);
        std::string error;
        const std::optional<TreePacking> packing = pack_reduction_trees(platform, {}, &error);
        ASSERT_TRUE(packing.has_value()) << error;
        const double tp = program.throughput_per_s;
        EXPECT_NEAR(packing->solution.throughput_per_s, tp, 1e-7 * tp);
        EXPECT_GE(packing->upper_bound_per_s, tp * (1 - 1e-9));
        EXPECT_LE(packing->trees.size(), static_cast<size_t>(3 * platform.size()));
        double sum_per_s = 0;
        for (const auto& tree : packing->trees) {
            EXPECT_EQ(reduction_tree_error(tree, platform.size(), platform.target()), "");
            sum_per_s += tree.per_s;
        }
        EXPECT_NEAR(sum_per_s, packing->solution.throughput_per_s, 1e-12 * tp);
        EXPECT_EQ(steady_state_violation(platform, packing->solution), "");
    }
}

TEST(TreePacking, RefusesWhatItCannotSolve) {
    std::string error;
    SteadyStatePlatform free_platform(2, 0);
    free_platform.set_transfer_s(1, 0, 0.0);
    EXPECT_FALSE(pack_reduction_trees(free_platform, {}, &error).has_value());
    EXPECT_NE(error.find("unbounded"), std::string::npos);
    free_platform.set_fold_s(1, 1.0);  // a cost somewhere, but a tree that costs nothing
    EXPECT_FALSE(pack_reduction_trees(free_platform, {}, &error).has_value());
    EXPECT_NE(error.find("unbounded"), std::string::npos);
    TreePackingOptions small;
    small.max_participants = 3;
    std::mt19937 rng(3);
    EXPECT_FALSE(pack_reduction_trees(random_platform(4, 0, rng), small, &error).has_value());
    EXPECT_NE(error.find("limit"), std::string::npos);

    SteadyStatePlatform unreachable(3, 0);
    unreachable.set_transfer_s(1, 0, 1.0);
    const std::optional<TreePacking> none = pack_reduction_trees(unreachable, {}, &error);
    ASSERT_TRUE(none.has_value()) << error;
    EXPECT_EQ(none->solution.throughput_per_s, 0.0);
    EXPECT_TRUE(none->trees.empty());
}

// Target 0 with links of 1 s to participants 1 and 2, which are 3 s apart; folds free. Plain trees: the star
// (0 receives twice), the chains 2 -> 1 -> 0 and 1 -> 2 -> 0. With weights x (star), y and z (chains), by hand:
//     0's receive port:  2x + y + z <= 1,   1's send port:  x + y + 3z <= 1,   2's send port:  x + 3y + z <= 1
// (1's and 2's receive ports, 3y and 3z <= 1, are looser). Maximising x + y + z: x = 1/3, y = z = 1/6, TP = 2/3
// (the dual prices 1/3 on 0's receive port and 1/6 on each send port prove it), where the star alone gives 1/2.
SteadyStatePlatform triangle() {
    SteadyStatePlatform platform(3, 0);
    for (int32_t u = 0; u < 3; ++u) {
        for (int32_t v = 0; v < 3; ++v) {
            if (u != v) platform.set_transfer_s(u, v, u != 0 && v != 0 ? 3.0 : 1.0);
        }
    }
    return platform;
}

// The parent vector is an in-tree towards `root` over all nodes: -1 at the root only, every walk reaches it.
bool is_in_tree(const std::vector<int32_t>& parent, int32_t root) {
    const auto k = static_cast<int32_t>(parent.size());
    for (int32_t u = 0; u < k; ++u) {
        if ((parent[static_cast<size_t>(u)] < 0) != (u == root)) return false;
        int32_t w = u;
        for (int32_t steps = 0; w != root; ++steps) {
            if (steps > k || w < 0 || w >= k) return false;
            w = parent[static_cast<size_t>(w)];
        }
    }
    return true;
}

TEST(PlainTrees, TriangleNeedsSeveralTrees) {
    std::string error;
    const std::optional<PlainTreePacking> packing = pack_plain_trees(triangle(), {}, &error);
    ASSERT_TRUE(packing.has_value()) << error;
    EXPECT_NEAR(packing->throughput_per_s, 2.0 / 3.0, 1e-9);
    EXPECT_GE(packing->trees.size(), 2u);
    double best_alone = 0;
    for (const PlainTree& tree : packing->trees) {
        EXPECT_TRUE(is_in_tree(tree.parent, 0));
        best_alone = std::max(best_alone, plain_tree_throughput(triangle(), tree.parent));
    }
    EXPECT_NEAR(best_alone, 0.5, 1e-12);  // the star; each chain alone: 1/3
    EXPECT_NEAR(plain_tree_throughput(triangle(), {-1, 0, 0}), 0.5, 1e-12);
    EXPECT_NEAR(plain_tree_throughput(triangle(), {-1, 0, 1}), 1.0 / 3.0, 1e-12);
}

// The triangle with shared links: 1's and 2's links out, 0's link in take 1 s a segment, the path between 1 and
// 2 takes 3 s each way (its own row). By hand, star x, chains 2 -> 1 -> 0 (y) and 1 -> 2 -> 0 (z):
//     0's link in:  2x + y + z <= 1,   1's and 2's links out:  x + y + z <= 1,   paths:  3y <= 1, 3z <= 1
// so y = z = 1/3, x = 1/6, TP = 5/6 (duals: 1/2 on 0's link in, 1/6 on each path: 1/2 + 2/6 = 5/6), where one port
// gives 2/3: a rank sending on the slow path still sends to 0 at the speed of its link.
TEST(PlainTrees, TriangleWithSharedLinks) {
    std::string error;
    const std::optional<PlainTreePacking> packing = pack_plain_trees(triangle(), {}, &error, PortModel::shared_links);
    ASSERT_TRUE(packing.has_value()) << error;
    EXPECT_NEAR(packing->throughput_per_s, 5.0 / 6.0, 1e-9);
    EXPECT_NEAR(plain_tree_throughput(triangle(), {-1, 0, 0}, PortModel::shared_links), 0.5, 1e-12);
    EXPECT_NEAR(plain_tree_throughput(triangle(), {-1, 0, 1}, PortModel::shared_links), 1.0 / 3.0, 1e-12);
}

TEST(PlainTrees, MinimumInTreeAgainstEveryTree) {
    std::mt19937 rng(42);
    std::uniform_real_distribution<double> draw(0.0, 10.0);
    for (int32_t round = 0; round < 40; ++round) {
        const int32_t k = 2 + round % 5, root = round % k;
        std::vector<double> cost(static_cast<size_t>(k * k));
        for (double& c : cost) c = draw(rng) < 1.5 ? std::numeric_limits<double>::infinity() : draw(rng);
        auto total = [&](const std::vector<int32_t>& parent) {
            double sum = 0;
            for (int32_t u = 0; u < k; ++u) {
                if (u != root) sum += cost[static_cast<size_t>(u * k + parent[static_cast<size_t>(u)])];
            }
            return sum;
        };
        // Every parent function, k^(k-1) of them at most.
        double best = std::numeric_limits<double>::infinity();
        std::vector<int32_t> parent(static_cast<size_t>(k), 0);
        parent[static_cast<size_t>(root)] = -1;
        for (bool more = true; more;) {
            if (is_in_tree(parent, root)) best = std::min(best, total(parent));
            more = false;
            for (int32_t u = 0; u < k && !more; ++u) {
                if (u == root) continue;
                int32_t& p = parent[static_cast<size_t>(u)];
                if (++p < k)
                    more = true;
                else
                    p = 0;
            }
        }
        SCOPED_TRACE("round " + std::to_string(round));
        const std::vector<int32_t> found = minimum_in_tree(k, root, cost);
        if (best == std::numeric_limits<double>::infinity()) {
            EXPECT_TRUE(found.empty() || total(found) == best);
            continue;
        }
        ASSERT_TRUE(is_in_tree(found, root));
        EXPECT_NEAR(total(found), best, 1e-9 * best);
    }
}

TEST(PlainTrees, WeightsWithinEveryPort) {
    std::vector<SteadyStatePlatform> platforms{chain_of_three(), triangle()};
    // Homogeneous, one port: the chain sends and receives one value per node and reduction, TP = 1 / max(t, f).
    platforms.push_back(SteadyStatePlatform::complete(std::vector<double>(25, 1.0), std::vector<double>(5, 0.25), 0));
    std::mt19937 rng(7);
    for (int32_t round = 0; round < 8; ++round) platforms.push_back(random_platform(3 + round % 6, round % 3, rng));
    for (size_t k = 0; k < platforms.size(); ++k) {
        const SteadyStatePlatform& platform = platforms[k];
        SCOPED_TRACE("platform " + std::to_string(k));
        std::string error;
        const std::optional<PlainTreePacking> plain = pack_plain_trees(platform, {}, &error);
        ASSERT_TRUE(plain.has_value()) << error;
        const double tp = plain->throughput_per_s;
        EXPECT_GE(plain->upper_bound_per_s, tp * (1 - 1e-9));
        // The chain of three has one plain tree, whose 1 folds 2 s per reduction: TP 1/2, where the program
        // reaches 3/4 by forwarding (chain_of_three). The homogeneous platform: 1.
        if (k == 0) {
            EXPECT_NEAR(tp, 0.5, 1e-9);
        } else if (k == 2) {
            EXPECT_NEAR(tp, 1.0, 1e-9);
        }
        const int32_t p = platform.size();
        std::vector<double> busy(static_cast<size_t>(3 * p), 0.0);  // the weighted trees together, per second
        double sum = 0;
        for (const PlainTree& tree : plain->trees) {
            ASSERT_TRUE(is_in_tree(tree.parent, platform.target()));
            EXPECT_LE(plain_tree_throughput(platform, tree.parent), tp * (1 + 1e-9));
            sum += tree.per_s;
            for (int32_t u = 0; u < p; ++u) {
                const int32_t v = tree.parent[static_cast<size_t>(u)];
                if (v < 0) continue;
                busy[static_cast<size_t>(u)] += tree.per_s * platform.transfer_s(u, v);
                busy[static_cast<size_t>(p + v)] += tree.per_s * platform.transfer_s(u, v);
                busy[static_cast<size_t>(2 * p + v)] += tree.per_s * platform.fold_s(v);
            }
        }
        EXPECT_NEAR(sum, tp, 1e-12 * tp);
        for (double b : busy) EXPECT_LE(b, 1 + 1e-9);
    }
}

TEST(MultiTree, DealFollowsTheWeightsAtEveryPrefix) {
    const std::vector<double> weight{0.5, 0.3, 0.2, 0.0};
    const std::vector<int32_t> deal = deal_segments(weight, 100);
    ASSERT_EQ(deal.size(), 100u);
    std::vector<int32_t> count(weight.size(), 0);
    for (size_t k = 0; k < deal.size(); ++k) {
        ++count[static_cast<size_t>(deal[k])];
        for (size_t t = 0; t < weight.size(); ++t) {  // never a whole segment ahead of or behind its share
            EXPECT_LT(std::abs(count[t] - static_cast<double>(k + 1) * weight[t]), 1.0) << "tree " << t << " at " << k;
        }
    }
    EXPECT_EQ(count, (std::vector<int32_t>{50, 30, 20, 0}));
    EXPECT_TRUE(deal_segments({0.0, 0.0}, 5).empty());
}

// The triangle with a vector of 1000 elements in 30 segments: each segment costs 1/30 of the vector (no latency).
// The multi-tree plans with shared links (PlainTrees.TriangleWithSharedLinks): TP = 30 x 5/6 = 25 segments per
// second over the star and both chains; the fill is the longest one-segment reduction along one of them, a
// chain: 3/30 + 1/30 s. Forecast 4/30 + 29/25 s.
TEST(MultiTree, TrianglePlanIsTheForecastOfItsTrees) {
    PlanRequest request;
    request.ranks = 3;
    request.strategy = Strategy::multi_tree;
    request.hetero_costs =
        std::make_shared<HeteroCosts>(std::vector<double>(3, 0.0), std::vector<double>{0, 1, 1, 1, 0, 3, 1, 3, 0});
    request.costs = request.hetero_costs->mean_costs();
    request.elements = 1000;
    request.segments = 30;
    const Plan plan = make_plan(request);
    EXPECT_EQ(plan.segments, 30);
    EXPECT_EQ(plan.more_trees.size(), 2u);
    EXPECT_NEAR(plan.makespan_s, 4.0 / 30 + 29.0 / 25, 1e-9);
    std::vector<int32_t> carried(3, 0);
    for (int32_t j = 0; j < plan.segments; ++j) ++carried[static_cast<size_t>(plan.tree_of(j))];
    std::sort(carried.begin(), carried.end());
    EXPECT_EQ(carried, (std::vector<int32_t>{6, 12, 12}));  // weights 1/6, 1/3, 1/3: shares 1/5, 2/5, 2/5 of 30
    // Left to choose, the count follows the forecast: more segments shorten the fill (no latency here).
    request.segments = 0;
    const Plan chosen = make_plan(request);
    EXPECT_GT(chosen.segments, 30);
    EXPECT_LT(chosen.makespan_s, plan.makespan_s);
    EXPECT_GE(chosen.makespan_s, 1.2);  // 1 / TP for the whole vector: 6/5 s
}

}  // namespace
}  // namespace redux
