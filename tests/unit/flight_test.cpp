// The model with a time in flight (model/costs.hpp: L of d leaves the receiver's port free): Algorithm 1
// generalised (plan/trees/greedy.cpp) against exhaustive search, Proposition 3 generalised (plan/predict/schedule.cpp)
// against the event simulator, hand-worked cases, and L = 0 giving Canon & Antoniu's trees and times unchanged.
#include "exhaustive.hpp"
#include "plan/predict/bounds.hpp"
#include "plan/predict/schedule.hpp"
#include "plan/predict/simulator.hpp"
#include "plan/trees/fixed_trees.hpp"
#include "plan/trees/greedy.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace redux {
namespace {

constexpr double kTol = 1e-9;

using testing::describe;
using testing::flight_grid;

TEST(Flight, HandWorkedStarOfEightWhenTheLatencyDominates) {
    // d = 1 of which L = 0.9, c = 0. Reversed time: the sink hands out an element every 0.1 (its port's part)
    // and each arrives 1 later, so every rank is its child: s = 1, 1.1, ..., 1.6; forward, all seven send at
    // 0, reach the sink's port at 0.9 and hold it 0.1 each: the last arrives (and is folded, c = 0) at 1.6.
    const Costs costs{1.0, 0.0, 0.9};
    const Tree tree = optimal_tree(8, costs);
    for (int32_t i = 1; i < 8; ++i) EXPECT_EQ(tree.parent[i], 0) << "rank " << i;
    EXPECT_NEAR(tree.builder_makespan_s, 1.6, kTol);
    EXPECT_NEAR(earliest_schedule(tree, costs).makespan_s, 1.6, kTol);
    const Simulation sim = simulate(tree.parent, costs);
    EXPECT_NEAR(sim.makespan_s, 1.6, kTol);
    for (int32_t i = 1; i < 8; ++i) EXPECT_NEAR(sim.arrive_s[i], 1.0 + 0.1 * (i - 1), kTol) << "rank " << i;
    // The binomial tree pays a whole d per level, three levels: 3 (port free or not, each level waits for the
    // one below).
    const Tree binomial = binomial_strategy_tree(8, Costs{1.0, 0.0, 0.0});
    EXPECT_NEAR(simulate(binomial.parent, costs).makespan_s, 3.0, kTol);
}

TEST(Flight, HandWorkedTwoLevelsWhenTheFoldIsSlow) {
    // d = 1, L = 0.5, c = 1 (the fold is the bottleneck, pace max(0.5, 1) = 1). Reversed: s0 = 0; rank 1
    // under 0 (s1 = 2, s0 = 1); rank 2 under 0 (s2 = 3, s0 = 2); rank 3: s0 = 2 = s1, lowest index 0 (s3 = 4).
    const Costs costs{1.0, 1.0, 0.5};
    const Tree tree = optimal_tree(4, costs);
    EXPECT_EQ(tree.parent, (std::vector<int32_t>{-1, 0, 0, 0}));
    // Forward: the three arrive at 1, 1.5, 2 (port 0.5 each); folds of 1 each: 2, 3, 4.
    EXPECT_NEAR(simulate(tree.parent, costs).makespan_s, 4.0, kTol);
    EXPECT_NEAR(tree.builder_makespan_s, 4.0, kTol);
}

TEST(Flight, AlgorithmOneGeneralisedEqualsExhaustiveSearchUpTo7Ranks) {
    for (const Costs& costs : flight_grid()) {
        for (int32_t n = 1; n <= 7; ++n) {
            const Tree tree = optimal_tree(n, costs);
            const double greedy = simulate(tree.parent, costs).makespan_s;
            EXPECT_NEAR(greedy, testing::best_makespan(n, costs), kTol) << "n=" << n << " " << describe(costs);
            EXPECT_NEAR(greedy, tree.builder_makespan_s, kTol) << "n=" << n << " " << describe(costs);
            EXPECT_LE(lower_bound_s(n, costs), greedy + kTol) << "n=" << n << " " << describe(costs);
        }
    }
}

TEST(Flight, PropositionThreeAndSimulatorAgreeOnEveryBuilderTree) {
    std::mt19937_64 rng(20261125);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (int trial = 0; trial < 200; ++trial) {
        const double d = unit(rng) + 1e-3;
        const Costs costs{d, 2 * unit(rng), d * unit(rng)};
        const int32_t n = 1 + static_cast<int32_t>(unit(rng) * 300);
        for (const Tree& tree : {optimal_tree(n, costs), fibonacci_strategy_tree(n, costs),
                                 binomial_strategy_tree(n, costs), chain_tree(n, costs), binary_tree(n, costs)}) {
            const TreeSchedule sched = earliest_schedule(tree, costs);
            const Simulation sim = simulate(tree.parent, costs);
            ASSERT_NEAR(sim.makespan_s, sched.makespan_s, kTol) << "n=" << n << " " << describe(costs);
            for (int32_t i = 0; i < n; ++i) ASSERT_NEAR(sim.ready_s[i], sched.ready_s[i], kTol);
            ASSERT_NEAR(sched.makespan_s, tree.builder_makespan_s, kTol) << "n=" << n << " " << describe(costs);
        }
    }
}

TEST(Flight, ZeroFlightIsCanonAndAntoniusModel) {
    // The same trees and times as costs without the field (the one-port results are unchanged at L = 0), and a
    // time in flight never makes a tree slower.
    for (const Costs& costs : testing::cost_grid()) {
        for (int32_t n = 1; n <= 300; n += 7) {
            const Costs zero{costs.transfer_s, costs.compute_s, 0.0};
            EXPECT_EQ(optimal_tree(n, zero).parent, optimal_tree(n, costs).parent);
            const Tree tree = optimal_tree(n, zero);
            const double without = simulate(tree.parent, zero).makespan_s;
            // The paper's closed form for the optimal length is what the L = 0 builder reports.
            EXPECT_NEAR(tree.builder_makespan_s, without, kTol);
            const Costs flying{costs.transfer_s, costs.compute_s, costs.transfer_s / 2};
            EXPECT_LE(simulate(tree.parent, flying).makespan_s, without + kTol) << "n=" << n;
            EXPECT_LE(optimal_tree(n, flying).builder_makespan_s, without + kTol) << "n=" << n;
        }
    }
}

}  // namespace
}  // namespace redux
