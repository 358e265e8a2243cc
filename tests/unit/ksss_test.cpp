// Karp, Sahay, Santos & Schauser's summation tree (plan/trees/ksss.cpp) on our model with a time in flight: P(T)
// against its recurrence and against exhaustive search, hand-worked cases, the tree against exhaustive search,
// the binomial tree when nothing flies and folds are free, and against Algorithm 1 generalised (greedy.cpp),
// which it was built independently of, tree by tree and as planned on ranks.
#include "plan/trees/ksss.hpp"
#include "exhaustive.hpp"
#include "plan/planner.hpp"
#include "plan/predict/bounds.hpp"
#include "plan/predict/schedule.hpp"
#include "plan/predict/simulator.hpp"
#include "plan/trees/greedy.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

namespace redux {
namespace {

constexpr double kTol = 1e-9;

using testing::describe;

// d, c and L as in flight_test.cpp (L from 0 to d, c on both sides of d - L), and Canon & Antoniu's grid (L = 0,
// d or c zero included).
std::vector<Costs> ksss_grid() {
    std::vector<Costs> grid = testing::cost_grid();
    const std::vector<Costs> flight = testing::flight_grid();
    grid.insert(grid.end(), flight.begin(), flight.end());
    return grid;
}

double simulated(const Tree& tree, const Costs& costs) { return simulate(tree.parent, costs).makespan_s; }

// P(T) straight from the recurrence, P(T) = P(T - max(d - L, c)) + P(T - (d + c)), no closed form.
int64_t recurrence(double t, const Costs& costs) {
    if (t < 0) return 0;
    if (t < costs.step_s()) return 1;
    return recurrence(t - costs.pace_s(), costs) + recurrence(t - costs.step_s(), costs);
}

TEST(Ksss, OperandsFollowTheRecurrence) {
    // Costs and deadlines in quarters and eighths: every subtraction above is exact, so the two must agree.
    for (const Costs& costs : {Costs{1.0, 0.0, 0.0}, Costs{1.0, 0.25, 0.5}, Costs{2.0, 0.5, 1.75},
                               Costs{0.5, 1.0, 0.25}, Costs{1.0, 1.0, 0.0}, Costs{0.0, 1.0, 0.0}}) {
        for (double t = -0.5; t <= 6.0; t += 0.125) {
            EXPECT_EQ(ksss_operands(t, costs, 1 << 30), recurrence(t, costs)) << "T=" << t << " " << describe(costs);
        }
    }
    // With d - L = c = 0 a rank takes any number of children by d: unbounded, capped.
    EXPECT_EQ(ksss_operands(0.5, Costs{1.0, 0.0, 1.0}, 1000), 1);
    EXPECT_EQ(ksss_operands(1.0, Costs{1.0, 0.0, 1.0}, 1000), 1000);
    EXPECT_EQ(ksss_operands(-1.0, Costs{1.0, 0.0, 1.0}, 1000), 0);
}

TEST(Ksss, OperandsAreWhatTheBestTreeSumsInTime) {
    // P(T) is the largest n whose best tree (over every tree) is done by T: at the optimum of n it reaches n,
    // a little before it does not.
    for (const Costs& costs : ksss_grid()) {
        for (int32_t n = 2; n <= 6; ++n) {
            const double best = testing::best_makespan(n, costs);
            EXPECT_GE(ksss_operands(best, costs, 1000), n) << "n=" << n << " " << describe(costs);
            if (best > 0) {
                EXPECT_LT(ksss_operands(best - 1e-6, costs, 1000), n) << "n=" << n << " " << describe(costs);
            }
        }
    }
}

TEST(Ksss, HandWorkedCases) {
    // n = 2: one hop, d + c whatever L is.
    EXPECT_EQ(ksss_tree(2, Costs{1.0, 0.5, 0.25}).parent, (std::vector<int32_t>{-1, 0}));
    EXPECT_NEAR(ksss_tree(2, Costs{1.0, 0.5, 0.25}).builder_makespan_s, 1.5, kTol);
    // n = 4, d = 1, c = L = 0: pace = step = 1, P doubles every step: P(1) = 2, P(2) = 4. Two levels, 2.
    const Tree binomial4 = ksss_tree(4, Costs{1.0, 0.0, 0.0});
    EXPECT_NEAR(binomial4.builder_makespan_s, 2.0, kTol);
    EXPECT_NEAR(simulated(binomial4, Costs{1.0, 0.0, 0.0}), 2.0, kTol);
    // n = 3, d = 2, c = 1, L = 1: pace = max(1, 1) = 1, step = 3. P(3) = P(2) + P(0) = 2, P(4) = P(3) + P(1) = 3.
    // Forward: two leaves send at 0, reach the sink's port at 1, hold it 1 each: arrive 2 and 3, folded by 3
    // and 4. The chain would take 2 (d + c) = 6.
    const Costs slow_fold{2.0, 1.0, 1.0};
    const Tree star3 = ksss_tree(3, slow_fold);
    EXPECT_EQ(star3.parent, (std::vector<int32_t>{-1, 0, 0}));
    EXPECT_NEAR(star3.builder_makespan_s, 4.0, kTol);
    EXPECT_NEAR(simulated(star3, slow_fold), 4.0, kTol);
    // n = 8, d = 1, c = 0, L = 0.9: pace 0.1, step 1; below 2 only one hop fits and P(1 + 0.1 a) = a + 2, so
    // T* = 1.6: the star, its seven messages reaching the sink's port at 0.9 and holding it 0.1 each.
    const Costs flying{1.0, 0.0, 0.9};
    const Tree star8 = ksss_tree(8, flying);
    EXPECT_EQ(star8.parent, (std::vector<int32_t>{-1, 0, 0, 0, 0, 0, 0, 0}));
    EXPECT_NEAR(star8.builder_makespan_s, 1.6, kTol);
    EXPECT_NEAR(simulated(star8, flying), 1.6, kTol);
}

TEST(Ksss, HandWorkedEightRanksWithFlightAndFold) {
    // d = 1, c = 0.1, L = 0.5: pace = 0.5, step = 1.1. P is 1 below 1.1, then on the lattice
    //   P(1.1) = P(0.6) + P(0) = 2,    P(1.6) = P(1.1) + P(0.5) = 3,  P(2.1) = P(1.6) + P(1.0) = 4,
    //   P(2.2) = P(1.7) + P(1.1) = 5,  P(2.6) = P(2.1) + P(1.5) = 6,  P(2.7) = P(2.2) + P(1.6) = 8,
    // so T* = 2.7 for n = 7 and 8. The sink's slots are due at 1.6, 1.1, 0.6, 0.1: subtrees of P = 3, 2, 1, 1.
    // Forward: the 3-subtree's two leaves arrive at 1.0 and 1.5 (port 0.5), folded by 1.6; the 2-subtree's
    // leaf is folded by 1.1; at the sink the two leaves arrive at 1.0 and 1.5, the 2-subtree at 2.1, the
    // 3-subtree at 2.6: folds end 1.1, 1.6, 2.2, 2.7.
    const Costs costs{1.0, 0.1, 0.5};
    EXPECT_EQ(ksss_operands(2.7, costs, 100), 8);
    EXPECT_EQ(ksss_operands(2.69, costs, 100), 6);
    const Tree tree = ksss_tree(8, costs);
    EXPECT_EQ(tree.parent, (std::vector<int32_t>{-1, 0, 1, 1, 0, 4, 0, 0}));
    EXPECT_NEAR(tree.builder_makespan_s, 2.7, kTol);
    EXPECT_NEAR(simulated(tree, costs), 2.7, kTol);
    EXPECT_NEAR(testing::best_makespan(8, costs), 2.7, kTol);
    EXPECT_NEAR(ksss_tree(7, costs).builder_makespan_s, 2.7, kTol);
    EXPECT_NEAR(ksss_tree(6, costs).builder_makespan_s, 2.6, kTol);
}

TEST(Ksss, EqualsExhaustiveSearchUpTo7Ranks) {
    for (const Costs& costs : ksss_grid()) {
        for (int32_t n = 1; n <= 7; ++n) {
            const Tree tree = ksss_tree(n, costs);
            const double length = simulated(tree, costs);
            EXPECT_NEAR(length, testing::best_makespan(n, costs), kTol) << "n=" << n << " " << describe(costs);
            EXPECT_NEAR(length, tree.builder_makespan_s, kTol) << "n=" << n << " " << describe(costs);
        }
    }
}

TEST(Ksss, BinomialTreeLengthWithoutFlightOrFolds) {
    // L = 0, c = 0 (or d = 0): pace = step, P(k step) = 2^k, the binomial tree's ceil(log2 n) steps.
    for (const Costs& costs : {Costs{1.0, 0.0, 0.0}, Costs{0.0, 1.0, 0.0}, Costs{2.5, 0.0, 0.0}}) {
        for (int32_t n = 1; n <= 1100; n += (n < 70 ? 1 : 37)) {
            const Tree tree = ksss_tree(n, costs);
            const double binomial = simulated(binomial_strategy_tree(n, costs), costs);
            EXPECT_NEAR(binomial, ceil_log2(n) * costs.step_s(), kTol) << "n=" << n;
            EXPECT_NEAR(simulated(tree, costs), binomial, kTol) << "n=" << n << " " << describe(costs);
            EXPECT_NEAR(tree.builder_makespan_s, binomial, kTol) << "n=" << n << " " << describe(costs);
        }
    }
}

TEST(Ksss, StarWhenNothingHoldsThePortOrTheReducer) {
    // L = d, c = 0: P is unbounded from d on, every rank sends straight to the sink.
    for (const double d : {0.0, 1.0}) {
        const Costs costs{d, 0.0, d};
        const Tree tree = ksss_tree(50, costs);
        for (int32_t i = 1; i < 50; ++i) ASSERT_EQ(tree.parent[i], 0);
        EXPECT_NEAR(simulated(tree, costs), d, kTol);
        EXPECT_NEAR(tree.builder_makespan_s, d, kTol);
    }
}

TEST(Ksss, SameLengthAsAlgorithmOneGeneralised) {
    // Two constructions of the same optimum: the recurrence top-down here, the heap in reversed time in
    // greedy.cpp. Each length is checked three ways: builder, Proposition 3 and the simulator.
    std::mt19937_64 rng(20261126);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (int trial = 0; trial < 300; ++trial) {
        const double d = unit(rng) + 1e-3;
        const Costs costs{d, 2 * unit(rng) * (trial % 5 == 0 ? 0.0 : 1.0), d * unit(rng) * (trial % 7 == 0 ? 0 : 1)};
        const int32_t n = 1 + static_cast<int32_t>(unit(rng) * (trial % 10 == 0 ? 20000 : 600));
        const Tree tree = ksss_tree(n, costs);
        const double greedy = simulated(optimal_tree(n, costs), costs);
        const double length = simulated(tree, costs);
        ASSERT_NEAR(length, greedy, kTol * (1 + greedy)) << "n=" << n << " " << describe(costs);
        ASSERT_NEAR(tree.builder_makespan_s, greedy, kTol * (1 + greedy)) << "n=" << n << " " << describe(costs);
        ASSERT_NEAR(earliest_schedule(tree, costs).makespan_s, length, kTol * (1 + greedy));
        ASSERT_LE(lower_bound_s(n, costs), length + kTol);
    }
}

TEST(Ksss, TreeDiffersFromTheGreedyWhereTheDeadlineLeavesRoom) {
    // n = 6, d = 1, c = L = 0: T* = 3 (P(2) = 4 < 6 <= P(3) = 8) leaves room for two more ranks. The sink's
    // slots are due at 2, 1 and 0 (last-folded first). The greedy keeps the six earliest ranks of the infinite
    // tree: its last-folded child, rank 1, takes two leaves (3 and 5), the other two children are leaves:
    // subtree sizes 3, 1, 1. Here the earlier slots are filled first, a pair (due at 1) and a leaf (due at 0),
    // and the last-folded child gets what is left, a pair, done at 1 though due at 2: sizes 2, 2, 1. Forward,
    // both sinks receive over [0, 1], [1, 2], [2, 3]: both take 3.
    const Costs costs{1.0, 0.0, 0.0};
    const Tree tree = ksss_tree(6, costs);
    const Tree greedy = optimal_tree(6, costs);
    EXPECT_EQ(tree.parent, (std::vector<int32_t>{-1, 0, 1, 0, 3, 0}));
    EXPECT_EQ(greedy.parent, (std::vector<int32_t>{-1, 0, 0, 1, 0, 1}));
    EXPECT_NEAR(tree.builder_makespan_s, 3.0, kTol);
    EXPECT_NEAR(simulated(tree, costs), 3.0, kTol);
    EXPECT_NEAR(simulated(greedy, costs), 3.0, kTol);
}

TEST(Ksss, PlannedOnRanksNeverSlowerThanOptimal) {
    // Through make_plan (layout on ranks, the sink on the root or, non-commutative, in rank order): the same
    // predicted length as the optimal strategy for every root, and never a final transfer, because the sink's
    // children sizes reach every position (ksss.cpp).
    for (const Costs& costs : {Costs{1.0, 0.0, 0.0}, Costs{1.0, 0.1, 0.5}, Costs{1.0, 1.0, 0.5}, Costs{2.0, 0.3, 1.9},
                               Costs{1.0, 3.0, 0.0}, Costs{0.0, 1.0, 0.0}}) {
        for (int32_t n = 1; n <= 48; ++n) {
            for (int32_t root = 0; root < n; ++root) {
                for (const bool commutative : {true, false}) {
                    const Plan ksss = make_plan({n, costs, Strategy::ksss, 0, root, commutative});
                    const Plan optimal = make_plan({n, costs, Strategy::optimal, 0, root, commutative});
                    ASSERT_FALSE(ksss.final_transfer) << "n=" << n << " root=" << root << " " << describe(costs);
                    ASSERT_NEAR(ksss.makespan_s, optimal.makespan_s, kTol)
                        << "n=" << n << " root=" << root << " " << describe(costs);
                    ASSERT_EQ(ksss.request.strategy, Strategy::ksss);
                }
            }
        }
    }
}

TEST(Ksss, RejectsNoRanks) { EXPECT_THROW(ksss_tree(0, Costs{1.0, 1.0, 0.0}), std::invalid_argument); }

}  // namespace
}  // namespace redux
