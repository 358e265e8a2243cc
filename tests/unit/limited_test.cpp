// Algorithm 2 (at most K concurrent transfers) and Algorithm 3 (at most K reducers) of Canon & Antoniu,
// Section 6: the limits hold, the trees match exhaustive search (Theorems 7 and 9), Proposition 8 and
// Corollary 11 bound their lengths, and the simulator replays their schedules exactly.
#include "exhaustive.hpp"
#include "plan/predict/bounds.hpp"
#include "plan/predict/schedule.hpp"
#include "plan/predict/simulator.hpp"
#include "plan/trees/greedy.hpp"
#include "plan/trees/transfers_limited.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace redux {
namespace {

using testing::cost_grid;
constexpr double kTol = 1e-9;

int32_t reducer_count(const std::vector<int32_t>& parent) {
    std::vector<uint8_t> reduces(parent.size(), 0);
    for (int32_t p : parent) {
        if (p >= 0) reduces[p] = 1;
    }
    return static_cast<int32_t>(std::count(reduces.begin(), reduces.end(), 1));
}

// One ctest entry per K, so the sweeps run in parallel.
class LimitK : public ::testing::TestWithParam<int32_t> {};
INSTANTIATE_TEST_SUITE_P(K, LimitK, ::testing::Values(1, 3, 7));

TEST_P(LimitK, Algorithm2NeverExceedsKTransfersAndTheSimulatorReplaysItsLengthUpTo2000Ranks) {
    const int32_t k = GetParam();
    for (const Costs& costs : cost_grid()) {
        for (int32_t n = 1; n <= 2000; ++n) {
            const Tree tree = transfers_limited_tree(n, costs, k);
            const Simulation sim = simulate(tree.parent, costs, tree.release_s);
            ASSERT_NEAR(sim.makespan_s, tree.builder_makespan_s, kTol) << "n=" << n << " K=" << k;
            ASSERT_NEAR(sim.makespan_s, earliest_schedule(tree, costs).makespan_s, kTol) << "n=" << n;
            ASSERT_LE(max_concurrent_transfers(sim, costs), k) << "n=" << n << " K=" << k;
        }
    }
}

TEST_P(LimitK, Algorithm3NeverExceedsKReducersAndPredictionsAgreeUpTo2000Ranks) {
    const int32_t k = GetParam();
    for (const Costs& costs : cost_grid()) {
        for (int32_t n = 1; n <= 2000; ++n) {
            const Tree tree = reducers_limited_tree(n, costs, k);
            ASSERT_LE(reducer_count(tree.parent), k) << "n=" << n << " K=" << k;
            const Simulation sim = simulate(tree.parent, costs);
            ASSERT_NEAR(sim.makespan_s, tree.builder_makespan_s, kTol) << "n=" << n << " K=" << k;
            ASSERT_NEAR(sim.makespan_s, earliest_schedule(tree, costs).makespan_s, kTol) << "n=" << n;
        }
    }
}

TEST(Algorithm2, EqualsExhaustiveSearchUpTo8Ranks) {  // Theorem 7
    for (const Costs& costs : cost_grid()) {
        for (int32_t n = 1; n <= 8; ++n) {
            for (int32_t k = 1; k <= std::max(1, n / 2); ++k) {
                const double greedy = transfers_limited_tree(n, costs, k).builder_makespan_s;
                EXPECT_NEAR(greedy, testing::best_makespan_transfers_limited(n, costs, k), kTol)
                    << "n=" << n << " K=" << k << " d=" << costs.transfer_s << " c=" << costs.compute_s;
            }
        }
    }
}

TEST(Algorithm2, WithoutContentionItIsAlgorithm1) {
    for (const Costs& costs : cost_grid()) {
        for (int32_t n = 1; n <= 300; ++n) {
            const double unlimited = simulate(optimal_tree(n, costs).parent, costs).makespan_s;
            ASSERT_NEAR(transfers_limited_tree(n, costs, n).builder_makespan_s, unlimited, kTol) << "n=" << n;
        }
    }
}

// Proposition 8 bounds Algorithm 2, Corollary 11 Algorithm 3, by the same expression (corrected: see below).
TEST(LimitedBounds, Proposition8AndCorollary11HoldUpTo600Ranks) {
    for (const Costs& costs : cost_grid()) {
        for (int32_t n = 2; n <= 600; ++n) {
            for (int32_t k = 1; k <= n / 2; k = k < 8 ? k + 1 : k * 2) {
                const double bound = limited_upper_bound_s(n, k, costs) + kTol;
                ASSERT_LE(transfers_limited_tree(n, costs, k).builder_makespan_s, bound) << "n=" << n << " K=" << k;
                ASSERT_LE(reducers_limited_tree(n, costs, k).builder_makespan_s, bound) << "n=" << n << " K=" << k;
            }
        }
    }
}

TEST(Proposition8, AsPrintedItIsTooSmallWhenKIsNotAPowerOfTwo) {
    const Costs costs{0.5, 0.0};
    // Lemma 5 says 6 elements need 3 steps of d; the printed bound allows 2.
    EXPECT_LT(limited_upper_bound_as_printed_s(6, 3, costs), lower_bound_s(6, costs));
    EXPECT_GE(limited_upper_bound_s(6, 3, costs), lower_bound_s(6, costs));
    // For K a power of two the corrected bound is the printed one.
    for (int64_t n = 2; n <= 300; ++n) {
        for (int64_t k = 1; k <= n / 2; k *= 2) {
            ASSERT_DOUBLE_EQ(limited_upper_bound_s(n, k, {1.0, 1.0}),
                             limited_upper_bound_as_printed_s(n, k, {1.0, 1.0}))
                << "n=" << n << " K=" << k;
        }
    }
}

TEST(Algorithm3, EqualsExhaustiveSearchUpTo8Ranks) {  // Theorem 9
    for (const Costs& costs : cost_grid()) {
        for (int32_t n = 1; n <= 8; ++n) {
            for (int32_t k = 1; k <= n; ++k) {
                const double greedy = simulate(reducers_limited_tree(n, costs, k).parent, costs).makespan_s;
                EXPECT_NEAR(greedy, testing::best_makespan(n, costs, k), kTol)
                    << "n=" << n << " K=" << k << " d=" << costs.transfer_s << " c=" << costs.compute_s;
            }
        }
    }
}

TEST(Algorithm3, Theorem10ItAlsoRespectsKTransfersWhenDAtLeastC) {
    for (const Costs& costs : cost_grid()) {
        if (costs.transfer_s < costs.compute_s) continue;
        for (int32_t n = 2; n <= 7; ++n) {
            for (int32_t k = 1; k <= n / 2; ++k) {
                const double greedy = simulate(reducers_limited_tree(n, costs, k).parent, costs).makespan_s;
                EXPECT_NEAR(greedy, testing::best_makespan_transfers_limited(n, costs, k), kTol)
                    << "n=" << n << " K=" << k;
            }
        }
    }
}

}  // namespace
}  // namespace redux
