// The heterogeneous greedy tree: with uniform costs it is Algorithm 1 (so optimal, Theorem 4); with
// heterogeneous costs a heuristic whose gap to exhaustive search over every labelled tree is measured here.
#include "plan/trees/hetero_greedy.hpp"
#include "exhaustive.hpp"
#include "hetero_exhaustive.hpp"
#include "plan/predict/simulator.hpp"
#include "plan/trees/greedy.hpp"
#include "plan/trees/snf.hpp"
#include "study/gamma_noise.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>

namespace redux {
namespace {

constexpr double kTol = 1e-9;

TEST(HeteroGreedy, UniformCostsGiveAlgorithmOne) {
    for (const Costs& costs : testing::cost_grid()) {
        for (int32_t n = 1; n <= 150; n += (n < 20 ? 1 : 13)) {
            const RankTree tree = hetero_greedy_tree(HeteroCosts::uniform(n, costs), 0);
            ASSERT_EQ(tree.parent, optimal_tree(n, costs).parent) << "n=" << n << " d=" << costs.transfer_s;
        }
    }
}

TEST(HeteroGreedy, UniformCostsAreOptimalAtAnySink) {  // Theorem 4 through exhaustive search over tree shapes
    for (const Costs& costs : testing::cost_grid()) {
        for (int32_t n = 1; n <= 7; ++n) {
            const RankTree tree = hetero_greedy_tree(HeteroCosts::uniform(n, costs), n / 2);
            EXPECT_EQ(tree.parent[n / 2], -1);
            EXPECT_NEAR(simulate(tree.parent, costs).makespan_s, testing::best_makespan(n, costs), kTol);
        }
    }
}

TEST(HeteroGreedy, ItsOwnScheduleIsFeasibleSoTheSimulatorIsNoLonger) {
    for (int trial = 0; trial < 100; ++trial) {
        const int32_t n = 2 + trial % 40;
        const HeteroCosts costs = draw_gamma_costs(n, {1.0, 0.7}, {trial % 2 ? 0.5 : 2.0, 0.7}, 900 + trial);
        for (const TransferModel model : {TransferModel::overlap, TransferModel::no_overlap}) {
            const RankTree tree = hetero_greedy_tree(costs, trial % n, model);
            const Simulation sim = simulate(tree.parent, costs, model);
            EXPECT_EQ(sim.sink, trial % n);
            EXPECT_LE(sim.makespan_s, tree.builder_makespan_s + kTol) << "n=" << n;
        }
    }
}

struct Gap {
    double worst = 1.0, sum = 0.0;
    int count = 0, optimal = 0;
    void add(double ratio) {
        worst = std::max(worst, ratio);
        sum += ratio;
        ++count;
        optimal += ratio < 1 + 1e-9 ? 1 : 0;
    }
};

// Greedy and SNF against the best of every labelled tree ending on rank 0, on random platforms of n ranks.
TEST(HeteroGreedy, GapToExhaustiveSearch) {
    struct Platform {
        const char* name;
        GammaLaw transfer, compute;
    };
    const Platform platforms[] = {
        {"d cv 0.5, c = 0", {1.0, 0.5}, {0.0, 0.0}},
        {"d cv 0.5, c cv 0.5 mean 1", {1.0, 0.5}, {1.0, 0.5}},
        {"d cv 1, c cv 1 mean 0.3", {1.0, 1.0}, {0.3, 1.0}},
    };
    for (const auto& platform : platforms) {
        for (const TransferModel model : {TransferModel::overlap, TransferModel::no_overlap}) {
            Gap greedy, snf;
            for (int32_t n = 4; n <= 7; ++n) {
                const int trials = n == 7 ? 4 : 10;
                for (int trial = 0; trial < trials; ++trial) {
                    const HeteroCosts costs =
                        draw_gamma_costs(n, platform.transfer, platform.compute, 1000 * n + trial);
                    const double best = testing::best_rank_tree_makespan(costs, model, 0);
                    const double g = simulate(hetero_greedy_tree(costs, 0, model).parent, costs, model).makespan_s;
                    const double s = simulate(snf_tree(costs, 0).parent, costs, model).makespan_s;
                    ASSERT_GE(g, best - kTol);
                    ASSERT_GE(s, best - kTol);
                    greedy.add(g / best);
                    snf.add(s / best);
                }
            }
            std::cout << "[ measured ] " << platform.name << ", " << transfer_model_name(model)
                      << ": hetero-greedy / best mean " << greedy.sum / greedy.count << " worst " << greedy.worst
                      << " optimal " << greedy.optimal << "/" << greedy.count << "; snf mean " << snf.sum / snf.count
                      << " worst " << snf.worst << '\n';
        }
    }
}

}  // namespace
}  // namespace redux
