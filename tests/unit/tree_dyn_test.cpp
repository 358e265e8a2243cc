// Tree-dyn and Non-Commut-Tree-dyn (Benoit, Canon & Marchal, RR-8315): schedules worked out by hand, the
// neighbor rule, and Section 5's Markov chain against Monte Carlo runs of the simulator.
#include "study/tree_dyn.hpp"
#include "study/gamma_noise.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <map>
#include <utility>
#include <vector>

namespace redux {
namespace {

TEST(TreeDyn, PairsRanksAsTheyBecomeIdle) {
    // d = 1, c = 0. n = 8: 1->0, 3->2, 5->4, 7->6 at 0; at 1: 2->0, 6->4; at 2: 4->0; done at 3.
    UniformCosts unit({1.0, 0.0});
    const Simulation eight = simulate_tree_dyn(8, unit);
    EXPECT_EQ(eight.parent, (std::vector<int32_t>{-1, 0, 0, 2, 0, 4, 4, 6}));
    EXPECT_EQ(eight.makespan_s, 3.0);
    // n = 5: 4 waits in the slot at 0; at 1, 0 sends to 4 and 2 waits; at 2, 4 sends to 2; done at 3.
    const Simulation five = simulate_tree_dyn(5, unit);
    EXPECT_EQ(five.parent, (std::vector<int32_t>{4, 0, -1, 2, 2}));
    EXPECT_EQ(five.sink, 2);
    EXPECT_EQ(five.makespan_s, 3.0);
}

TEST(NonCommutTreeDyn, BalancedWhenAllCostsAreEqual) {
    UniformCosts unit({1.0, 0.0});
    const Simulation sim = simulate_non_commut_tree_dyn(8, unit);
    EXPECT_EQ(sim.parent, (std::vector<int32_t>{-1, 0, 0, 2, 0, 4, 4, 6}));
    EXPECT_EQ(sim.makespan_s, 3.0);
}

// Their Figure 3: P2 and P4 finish their first transfers slightly before P0 and P6 and pair; P0 and P6 must
// then wait for them, and the reduction takes four steps instead of three.
TEST(NonCommutTreeDyn, FigureThreeTakesAnExtraStep) {
    const double eps = 0.125;
    std::vector<double> d(64, 1.0);
    d[3 * 8 + 2] = d[5 * 8 + 4] = 1 - eps;  // 3 -> 2 and 5 -> 4 end early
    const HeteroCosts costs(std::vector<double>(8, 0.0), d);
    FixedCosts fixed(costs);
    const Simulation sim = simulate_non_commut_tree_dyn(8, fixed);
    // 1-eps: 4 ([4,5]) sends to 2 ([2,3]); 2-eps: 2 ([2,5]) sends to 0, which waited longer than 6... all wait
    // since 1, so the left one; 3-eps: 0 ([0,5]) sends to 6 ([6,7]); done at 4 - eps.
    EXPECT_EQ(sim.parent[4], 2);
    EXPECT_EQ(sim.parent[2], 0);
    EXPECT_EQ(sim.parent[0], 6);
    EXPECT_DOUBLE_EQ(sim.makespan_s, 4 - eps);
    EXPECT_EQ(simulate_tree_dyn(8, fixed).makespan_s, 3.0);  // Tree-dyn pairs any two idle ranks
}

TEST(NonCommutTreeDyn, EveryTransferJoinsNeighborIntervals) {
    for (int trial = 0; trial < 50; ++trial) {
        const int32_t n = 2 + trial;
        const HeteroCosts base = HeteroCosts::uniform(n, {1.0, 0.4});
        GammaNoise noise(base, 1.5, 1.5, 77 + trial);
        const Simulation sim = simulate_non_commut_tree_dyn(n, noise);
        // Replay the transfers by start time: each sender's interval must touch its receiver's.
        std::vector<std::pair<double, int32_t>> sends;
        for (int32_t j = 0; j < n; ++j) {
            if (sim.parent[j] >= 0) sends.emplace_back(sim.send_start_s[j], j);
        }
        std::sort(sends.begin(), sends.end());
        std::vector<int32_t> lo(static_cast<size_t>(n)), hi(static_cast<size_t>(n));
        for (int32_t r = 0; r < n; ++r) lo[r] = hi[r] = r;
        for (const auto& [start, j] : sends) {
            const int32_t p = sim.parent[j];
            ASSERT_TRUE(hi[j] + 1 == lo[p] || hi[p] + 1 == lo[j]) << "n=" << n << " " << j << "->" << p;
            lo[p] = std::min(lo[p], lo[j]);
            hi[p] = std::max(hi[p], hi[j]);
        }
        ASSERT_GE(sim.sink, 0);
        EXPECT_EQ(lo[sim.sink], 0);
        EXPECT_EQ(hi[sim.sink], n - 1);
    }
}

// Section 5: with exponential transfer costs (rate lambda) and no computation, Tree-dyn is a continuous-time
// Markov chain on states (i, j): i transfers in flight, j = 1 when a rank waits in the slot. (i, 0) -> (i-1, 1)
// and (i, 1) -> (i, 0), both at rate i lambda; start (n/2, 0), absorbing (0, 1). First-step analysis gives the
// mean and second moment of the time to absorption from the chain itself:
//   E(s) = 1/q + sum p E(s'),   M2(s) = 2/q^2 + (2/q) sum p E(s') + sum p M2(s')   (q: total rate out of s).
struct Moments {
    double mean, variance;
};

Moments tree_dyn_chain(int32_t n, double lambda) {
    using State = std::pair<int32_t, int32_t>;
    std::map<State, std::vector<std::pair<State, double>>> out;  // transitions with rates
    for (int32_t i = 1; i <= n / 2; ++i) {
        out[{i, 0}].push_back({{i - 1, 1}, i * lambda});
        if (i < n / 2) out[{i, 1}].push_back({{i, 0}, i * lambda});
    }
    std::map<State, std::pair<double, double>> memo;  // state -> (E, M2)
    std::function<std::pair<double, double>(State)> solve = [&](State s) -> std::pair<double, double> {
        if (auto it = memo.find(s); it != memo.end()) return it->second;
        const auto edges = out.find(s);
        if (edges == out.end()) return memo[s] = {0.0, 0.0};  // absorbing
        double q = 0;
        for (const auto& edge : edges->second) q += edge.second;
        double next_mean = 0, next_m2 = 0;
        for (const auto& [to, rate] : edges->second) {
            const auto [e, m2] = solve(to);
            next_mean += rate / q * e;
            next_m2 += rate / q * m2;
        }
        return memo[s] = {1 / q + next_mean, 2 / (q * q) + 2 / q * next_mean + next_m2};
    };
    const auto [e, m2] = solve({n / 2, 0});
    return {e, m2 - e * e};
}

double harmonic(int32_t k) {
    double h = 0;
    for (int32_t i = 1; i <= k; ++i) h += 1.0 / i;
    return h;
}

TEST(TreeDynMarkov, ChainGivesTheHarmonicSumsAndThePrintedVariance) {
    for (const double lambda : {1.0, 2.5}) {
        for (int32_t n = 4; n <= 64; n += 2) {
            const Moments chain = tree_dyn_chain(n, lambda);
            // The printed mean, (2 H(n/2) - 1) / lambda + 2 / n, is garbled; the chain's states sum to:
            EXPECT_NEAR(chain.mean, (harmonic(n / 2) + harmonic(n / 2 - 1)) / lambda, 1e-12) << n;
            double squares = 0;
            for (int32_t i = 1; i < n / 2; ++i) squares += 1.0 / (i * i);
            EXPECT_NEAR(chain.variance, (2 * squares + 4.0 / (n * n)) / (lambda * lambda), 1e-12) << n;
        }
    }
}

TEST(TreeDynMarkov, MonteCarloMatchesTheChain) {
    const double lambda = 2.0;
    for (const int32_t n : {8, 16, 32, 64}) {
        const HeteroCosts base = HeteroCosts::uniform(n, {1 / lambda, 0.0});
        const int runs = 4000;
        double sum = 0, sum_sq = 0;
        for (int run = 0; run < runs; ++run) {
            GammaNoise exponential(base, 1.0, 0.0, 5000 + run);  // CV 1: the exponential law
            const double t = simulate_tree_dyn(n, exponential).makespan_s;
            sum += t;
            sum_sq += t * t;
        }
        const double mean = sum / runs, variance = sum_sq / runs - mean * mean;
        const Moments chain = tree_dyn_chain(n, lambda);
        EXPECT_NEAR(mean / chain.mean, 1.0, 0.03) << "n = " << n << ": MC " << mean << ", chain " << chain.mean;
        EXPECT_NEAR(variance / chain.variance, 1.0, 0.12) << "n = " << n;
        std::cout << "[ measured ] n = " << n << ": Monte Carlo mean " << mean << " (chain " << chain.mean
                  << "), variance " << variance << " (chain " << chain.variance << ")\n";
    }
}

}  // namespace
}  // namespace redux
