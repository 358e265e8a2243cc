// The simulator under heterogeneous costs and the no-overlap model: uniform costs give back the homogeneous
// results, and small schedules worked out by hand. Gamma noise: the mean and CV it promises, reproducibly.
#include "exhaustive.hpp"
#include "hetero_exhaustive.hpp"
#include "plan/predict/simulator.hpp"
#include "plan/trees/greedy.hpp"
#include "study/gamma_noise.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace redux {
namespace {

TEST(HeteroSimulator, UniformCostsReplayTheHomogeneousModelOnEveryTree) {
    for (const Costs& costs : testing::cost_grid()) {
        for (int32_t n = 1; n <= 6; ++n) {
            const HeteroCosts uniform = HeteroCosts::uniform(n, costs);
            testing::for_each_tree(n, [&](const std::vector<int32_t>& parent) {
                const Simulation homogeneous = simulate(parent, costs);
                const Simulation hetero = simulate(parent, uniform, TransferModel::overlap);
                ASSERT_EQ(homogeneous.makespan_s, hetero.makespan_s);
                ASSERT_EQ(homogeneous.send_start_s, hetero.send_start_s);
            });
        }
    }
}

TEST(HeteroSimulator, UniformFlightReplaysTheHomogeneousModelOnEveryTree) {
    for (const Costs& costs : testing::flight_grid()) {
        for (int32_t n = 1; n <= 6; ++n) {
            const auto cells = static_cast<size_t>(n) * static_cast<size_t>(n);
            const HeteroCosts uniform(std::vector<double>(static_cast<size_t>(n), costs.compute_s),
                                      std::vector<double>(cells, costs.transfer_s),
                                      std::vector<double>(cells, costs.flight_s));
            testing::for_each_tree(n, [&](const std::vector<int32_t>& parent) {
                const Simulation homogeneous = simulate(parent, costs);
                const Simulation hetero = simulate(parent, uniform, TransferModel::overlap);
                ASSERT_EQ(homogeneous.makespan_s, hetero.makespan_s);
                ASSERT_EQ(homogeneous.send_start_s, hetero.send_start_s);
                ASSERT_EQ(homogeneous.arrive_s, hetero.arrive_s);
            });
        }
    }
}

TEST(HeteroSimulator, EachLinkKeepsItsOwnTimeInFlight) {
    // Sink 0, leaves 1 and 2, c = 0. 1 -> 0: d = 3, all but 0.5 in flight; 2 -> 0: d = 2, none in flight.
    // Both ready at 0: rank 1's message reaches the port at 2.5 and holds it 0.5 (arrives 3); rank 2's starts
    // at once (one-port: it takes the port at 0) and holds it until 2. Total 3, where the one-port model
    // serves them one after the other: 3 + 2 = 5.
    const std::vector<double> d{0, 9, 9, 3, 0, 9, 2, 9, 0};
    const std::vector<double> flight{0, 0, 0, 2.5, 0, 0, 0, 0, 0};
    const Simulation sim = simulate({-1, 0, 0}, HeteroCosts({0, 0, 0}, d, flight), TransferModel::overlap);
    EXPECT_EQ(sim.arrive_s, (std::vector<double>{-1, 3, 2}));
    EXPECT_EQ(sim.makespan_s, 3.0);
    EXPECT_EQ(simulate({-1, 0, 0}, HeteroCosts({0, 0, 0}, d), TransferModel::overlap).makespan_s, 5.0);
    EXPECT_THROW(HeteroCosts({0, 0}, {0, 1, 1, 0}, {0, 1}), std::invalid_argument);
    EXPECT_FALSE(HeteroCosts({0, 0}, {0, 1, 1, 0}, {0, 2, 0, 0}).validate().empty());  // L above d
}

TEST(HeteroSimulator, StarServesChildrenInOrderOfReadinessWithTheirOwnLinks) {
    // Sink 0, leaves 1..3 with transfers 3, 1, 2 to it and c_0 = 2. All ready at 0: served in rank order.
    // overlap:    1: [0,3) fold [3,5); 2: [3,4) fold [5,7); 3: [4,6) fold [7,9)  -> 9
    // no_overlap: 1: [0,3) fold [3,5); 2: [5,6) fold [6,8); 3: [8,10) fold [10,12) -> 12
    HeteroCosts costs({2.0, 9.0, 9.0, 9.0}, {0, 9, 9, 9, 3, 0, 9, 9, 1, 9, 0, 9, 2, 9, 9, 0});
    const std::vector<int32_t> star{-1, 0, 0, 0};
    const Simulation overlap = simulate(star, costs, TransferModel::overlap);
    EXPECT_EQ(overlap.send_start_s, (std::vector<double>{-1, 0, 3, 4}));
    EXPECT_EQ(overlap.arrive_s, (std::vector<double>{-1, 3, 4, 6}));
    EXPECT_EQ(overlap.makespan_s, 9.0);
    const Simulation no_overlap = simulate(star, costs, TransferModel::no_overlap);
    EXPECT_EQ(no_overlap.send_start_s, (std::vector<double>{-1, 0, 5, 8}));
    EXPECT_EQ(no_overlap.makespan_s, 12.0);
}

TEST(HeteroSimulator, NoOverlapStarTakesKTimesTransferPlusFold) {
    for (const Costs& costs : testing::cost_grid()) {
        for (int32_t k = 1; k <= 5; ++k) {
            std::vector<int32_t> star(static_cast<size_t>(k) + 1, 0);
            star[0] = -1;
            UniformCosts uniform(costs);
            EXPECT_DOUBLE_EQ(simulate(star, uniform, TransferModel::no_overlap).makespan_s, k * costs.step_s());
        }
    }
}

TEST(HeteroSimulator, NoOverlapNeverBeatsOverlap) {
    std::mt19937_64 engine(7);
    for (int trial = 0; trial < 20; ++trial) {
        const HeteroCosts costs = draw_gamma_costs(5, {1.0, 0.8}, {0.7, 0.8}, 100 + trial);
        testing::for_each_rank_tree(5, 0, [&](const std::vector<int32_t>& parent) {
            ASSERT_LE(simulate(parent, costs, TransferModel::overlap).makespan_s,
                      simulate(parent, costs, TransferModel::no_overlap).makespan_s + 1e-12);
        });
    }
}

TEST(HeteroSimulator, ChainIsTheSameInBothModels) {
    // 3 -> 2 -> 1 -> 0 never has two elements at one rank: both models give d_32 + c_2 + d_21 + c_1 + d_10 + c_0.
    const HeteroCosts costs = draw_gamma_costs(4, {1.0, 0.5}, {1.0, 0.5}, 3);
    const double expected = costs.transfer_s(3, 2) + costs.compute_s(2) + costs.transfer_s(2, 1) + costs.compute_s(1) +
                            costs.transfer_s(1, 0) + costs.compute_s(0);
    for (const TransferModel model : {TransferModel::overlap, TransferModel::no_overlap}) {
        EXPECT_NEAR(simulate({-1, 0, 1, 2}, costs, model).makespan_s, expected, 1e-12);
    }
}

TEST(HeteroSimulator, CountsConcurrentTransfersOfDifferentLengths) {
    // 1 -> 0 takes 5, 3 -> 2 takes 1, then 2 -> 0 waits for 0's port: at most 2 at once.
    HeteroCosts costs({0, 0, 0, 0}, {0, 1, 1, 1, 5, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0});
    const Simulation sim = simulate({-1, 0, 0, 2}, costs);
    EXPECT_EQ(sim.send_start_s[2], 5.0);
    EXPECT_EQ(max_concurrent_transfers(sim), 2);
}

TEST(HeteroSimulator, LinkClassesExpandToPairs) {
    const HeteroCosts costs = HeteroCosts::from_classes({1, 1, 2}, {0, 0, 1}, {{0.5, 4.0}, {3.0, 0.25}});
    EXPECT_EQ(costs.transfer_s(0, 1), 0.5);
    EXPECT_EQ(costs.transfer_s(1, 2), 4.0);
    EXPECT_EQ(costs.transfer_s(2, 0), 3.0);
    EXPECT_EQ(costs.compute_s(2), 2.0);
    EXPECT_EQ(costs.min_transfer_s(), 0.5);
    EXPECT_EQ(costs.max_transfer_s(), 4.0);
    EXPECT_THROW(HeteroCosts::from_classes({1, 1}, {0, 2}, {{1, 1}, {1, 1}}), std::invalid_argument);
}

TEST(GammaNoise, DrawsHaveTheRequestedMeanAndCoefficientOfVariation) {
    for (const double cv : {0.1, 1.0, 3.0}) {
        std::mt19937_64 engine(11);
        const GammaLaw law{2.5, cv};
        const int draws = 200000;
        double sum = 0, sum_sq = 0;
        for (int k = 0; k < draws; ++k) {
            const double x = draw_gamma(law, engine);
            ASSERT_GE(x, 0.0);
            sum += x;
            sum_sq += x * x;
        }
        const double mean = sum / draws, sd = std::sqrt(sum_sq / draws - mean * mean);
        // Standard error of the mean: 2.5 cv / sqrt(draws); of the CV, larger for heavy tails (cv = 3).
        EXPECT_NEAR(mean, 2.5, 5 * 2.5 * cv / std::sqrt(draws)) << "cv " << cv;
        EXPECT_NEAR(sd / mean, cv, cv >= 3 ? 0.15 * cv : 0.02 * cv) << "cv " << cv;
    }
}

TEST(GammaNoise, SameSeedSameRunZeroCvIsTheBaseCost) {
    const HeteroCosts base = HeteroCosts::uniform(16, {1.0, 0.5});
    const Tree tree = optimal_tree(16, {1.0, 0.5});
    GammaNoise a(base, 0.5, 0.5, 42), b(base, 0.5, 0.5, 42), c(base, 0.5, 0.5, 43);
    const double first = simulate(tree.parent, a, TransferModel::overlap).makespan_s;
    EXPECT_EQ(first, simulate(tree.parent, b, TransferModel::overlap).makespan_s);
    EXPECT_NE(first, simulate(tree.parent, c, TransferModel::overlap).makespan_s);
    GammaNoise exact(base, 0.0, 0.0, 1);
    EXPECT_EQ(simulate(tree.parent, exact, TransferModel::overlap).makespan_s,
              simulate(tree.parent, {1.0, 0.5}).makespan_s);
}

}  // namespace
}  // namespace redux
