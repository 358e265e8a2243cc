// Algorithm 1 (Canon & Antoniu, Section 5) against the theorems: optimality by exhaustive search (Theorem 4),
// its predictions against the independent simulator, the bounds of Lemma 5 and Proposition 6, Figure 1.
#include "exhaustive.hpp"
#include "plan/predict/bounds.hpp"
#include "plan/predict/schedule.hpp"
#include "plan/predict/simulator.hpp"
#include "plan/trees/greedy.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace redux {
namespace {

using testing::cost_grid;

constexpr double kTol = 1e-9;

TEST(Algorithm1, EqualsExhaustiveSearchForEveryTreeUpTo8Ranks) {  // Theorem 4
    for (const Costs& costs : cost_grid()) {
        for (int32_t n = 1; n <= 8; ++n) {
            const double greedy = simulate(optimal_tree(n, costs).parent, costs).makespan_s;
            EXPECT_NEAR(greedy, testing::best_makespan(n, costs), kTol)
                << "n=" << n << " d=" << costs.transfer_s << " c=" << costs.compute_s;
        }
    }
}

TEST(Algorithm1, BuilderPropositionThreeAndSimulatorAgreeUpTo2000Ranks) {
    for (const Costs& costs : cost_grid()) {
        for (int32_t n = 1; n <= 2000; ++n) {
            const Tree tree = optimal_tree(n, costs);
            const TreeSchedule sched = earliest_schedule(tree, costs);
            const Simulation sim = simulate(tree.parent, costs);
            ASSERT_NEAR(sim.makespan_s, tree.builder_makespan_s, kTol) << "n=" << n;
            ASSERT_NEAR(sim.makespan_s, sched.makespan_s, kTol) << "n=" << n;
            for (int32_t i = 0; i < n; ++i) ASSERT_NEAR(sim.ready_s[i], sched.ready_s[i], kTol) << "n=" << n;
        }
    }
}

TEST(Algorithm1, TreesAreWellFormed) {
    for (int32_t n : {1, 2, 3, 100, 4097}) {
        const Tree tree = optimal_tree(n, {1.0, 2.0});
        ASSERT_EQ(tree.size(), n);
        EXPECT_EQ(tree.parent[0], -1);
        for (int32_t i = 1; i < n; ++i) {
            EXPECT_GE(tree.parent[i], 0);
            EXPECT_LT(tree.parent[i], i);
        }
    }
}

TEST(Bounds, Lemma5AndProposition6HoldForTheOptimumUpTo2000Ranks) {
    for (const Costs& costs : cost_grid()) {
        for (int32_t n = 1; n <= 2000; ++n) {
            const double optimum = earliest_schedule(optimal_tree(n, costs), costs).makespan_s;
            ASSERT_GE(optimum, lower_bound_s(n, costs) - kTol) << "n=" << n;
            ASSERT_LE(optimum, upper_bound_s(n, costs) + kTol) << "n=" << n;
        }
    }
}

TEST(Bounds, TightWhenOneCostIsZero) {  // "they are tight when d = 0 or c = 0"
    for (int32_t n = 1; n <= 300; ++n) {
        for (const Costs costs : {Costs{1.5, 0.0}, Costs{0.0, 2.5}}) {
            const double optimum = simulate(optimal_tree(n, costs).parent, costs).makespan_s;
            EXPECT_NEAR(optimum, lower_bound_s(n, costs), kTol) << "n=" << n;
            EXPECT_NEAR(optimum, upper_bound_s(n, costs), kTol) << "n=" << n;
        }
    }
}

TEST(Bounds, CeilLog2) {
    EXPECT_EQ(ceil_log2(1), 0);
    EXPECT_EQ(ceil_log2(2), 1);
    EXPECT_EQ(ceil_log2(3), 2);
    EXPECT_EQ(ceil_log2(4), 2);
    EXPECT_EQ(ceil_log2(5), 3);
    EXPECT_EQ(ceil_log2(1 << 20), 20);
    EXPECT_EQ(ceil_log2((1 << 20) + 1), 21);
}

TEST(Figure1, FourElementsWithEqualCostsStartTransfersAt0DAnd2D) {
    const double d = 1.25;
    const Costs costs{d, d};
    const Tree tree = optimal_tree(4, costs);
    const Simulation sim = simulate(tree.parent, costs);
    std::vector<double> starts;
    for (int32_t i = 0; i < 4; ++i) {
        if (i != sim.sink) starts.push_back(sim.send_start_s[i]);
    }
    std::sort(starts.begin(), starts.end());
    EXPECT_EQ(starts, (std::vector<double>{0.0, d, 2 * d}));
    EXPECT_DOUBLE_EQ(sim.makespan_s, d + 2 * d + d);  // d + (k - 1) max(d, c) + c with k = 3
}

}  // namespace
}  // namespace redux
