// Costs between nodes pair by pair (libredux/src/model/node_pairs.hpp): the round-robin schedule calibration
// measures the pairs in, and d and L at any size from the measured sizes and the class's curve, worked out
// by hand.
#include "model/node_pairs.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <utility>

namespace redux {
namespace {

TEST(NodePairs, RoundRobinMeetsEveryPairOnceAndNobodyTwiceInARound) {
    for (int32_t n = 0; n <= 21; ++n) {
        std::set<std::pair<int32_t, int32_t>> met;
        for (int32_t round = 0; round < pair_rounds(n); ++round) {
            for (int32_t node = 0; node < n; ++node) {
                const int32_t partner = pair_partner(n, round, node);
                if (partner < 0) continue;
                ASSERT_NE(partner, node);
                ASSERT_LT(partner, n);
                ASSERT_EQ(pair_partner(n, round, partner), node) << "n=" << n << " round=" << round;
                if (node < partner) {
                    ASSERT_TRUE(met.insert({node, partner}).second) << "n=" << n << " met twice";
                }
            }
        }
        EXPECT_EQ(static_cast<int64_t>(met.size()), int64_t{n} * (n - 1) / 2) << "n=" << n;
        EXPECT_EQ(pair_rounds(n), n < 2 ? 0 : n % 2 == 0 ? n - 1 : n);
    }
    EXPECT_EQ(pair_partner(4, 3, 0), -1);  // past the last round
    EXPECT_EQ(pair_partner(4, 0, 4), -1);  // no such node
}

// The other-node class: 1 ms at 8 B, 2 ms at 32 KiB, 4 ms at 256 KiB, 10 ms at 1 MiB, 0.8 ms of it in flight.
// Three nodes, named by their lowest ranks 0, 2 and 5; one-way times measured (ms), both directions alike:
//            8 B   8 KiB   32 KiB   64 KiB   256 KiB
//   0 - 2     1      1       2        3         4       the class's own pair
//   0 - 5     4      4       4        5         8       farther: 4x the latency, then 2x the class
//   2 - 5   0.5      1       6       12        16       nearer, but 3x and 4x slower for larger messages, with steps
struct ThreeNodes : ::testing::Test {
    LinkFit fit{1e-3, 6e-3 / (768 << 10), true, {{8, 1e-3}, {32768, 2e-3}, {262144, 4e-3}, {1 << 20, 10e-3}}, 0.8e-3};
    NodePairTimes times{{0, 2, 5},
                        {{{0, 1e-3, 4e-3, 1e-3, 0, 0.5e-3, 4e-3, 0.5e-3, 0},
                          {0, 1e-3, 4e-3, 1e-3, 0, 1e-3, 4e-3, 1e-3, 0},
                          {0, 2e-3, 4e-3, 2e-3, 0, 6e-3, 4e-3, 6e-3, 0},
                          {0, 3e-3, 5e-3, 3e-3, 0, 12e-3, 5e-3, 12e-3, 0},
                          {0, 4e-3, 8e-3, 4e-3, 0, 16e-3, 8e-3, 16e-3, 0}}}};
    static double at(const NodePairCosts& costs, int32_t a, int32_t b, bool flight = false) {
        return (flight ? costs.flight_s : costs.transfer_s)[static_cast<size_t>(a * 3 + b)];
    }
};

TEST_F(ThreeNodes, AtTheMeasuredSizesDIsWhatWasMeasured) {
    const NodePairCosts small = node_pair_costs(times, fit, 8);
    EXPECT_EQ(small.node_ids, (std::vector<int32_t>{0, 2, 5}));
    EXPECT_NEAR(at(small, 0, 1), 1e-3, 1e-12);
    EXPECT_NEAR(at(small, 0, 2), 4e-3, 1e-12);
    EXPECT_NEAR(at(small, 2, 1), 0.5e-3, 1e-12);
    EXPECT_NEAR(at(node_pair_costs(times, fit, 8192), 1, 2), 1e-3, 1e-12);
    EXPECT_NEAR(at(node_pair_costs(times, fit, 8192), 0, 1), 1e-3, 1e-12) << "not the class's 1.25 ms there";
    const NodePairCosts middle = node_pair_costs(times, fit, 32768);
    EXPECT_NEAR(at(middle, 0, 2), 4e-3, 1e-12);
    EXPECT_NEAR(at(middle, 1, 2), 6e-3, 1e-12);
    const NodePairCosts step = node_pair_costs(times, fit, 65536);
    EXPECT_NEAR(at(step, 0, 2), 5e-3, 1e-12);
    EXPECT_NEAR(at(step, 1, 2), 12e-3, 1e-12);
    const NodePairCosts large = node_pair_costs(times, fit, 262144);
    EXPECT_NEAR(at(large, 0, 2), 8e-3, 1e-12);
    EXPECT_NEAR(at(large, 1, 2), 16e-3, 1e-12);
}

TEST_F(ThreeNodes, BeyondTheLargestSizeTheClassCurveScaled) {
    // 1 MiB: the class's 10 ms, x2 for 0 - 5, x4 for 2 - 5 (their ratios to the class at 256 KiB).
    const NodePairCosts costs = node_pair_costs(times, fit, 1 << 20);
    EXPECT_NEAR(at(costs, 0, 1), 10e-3, 1e-12);
    EXPECT_NEAR(at(costs, 0, 2), 20e-3, 1e-12);
    EXPECT_NEAR(at(costs, 1, 2), 40e-3, 1e-12);
    // Below 8 B the pair's 8 B time.
    EXPECT_NEAR(at(node_pair_costs(times, fit, 0), 0, 2), 4e-3, 1e-12);
}

TEST_F(ThreeNodes, BetweenTheSizesThePairsOwnTimesAreInterpolated) {
    // 512 B, between 8 B and 8 KiB: 2 - 5 on its line from 0.5 to 1 ms, 0 - 5 stays at 4 ms; 16 KiB, between 8
    // and 32 KiB: 2 - 5 a third of the way from 1 to 6 ms.
    const NodePairCosts low = node_pair_costs(times, fit, 512);
    EXPECT_NEAR(at(low, 1, 2), 0.5e-3 + 0.5e-3 * (512.0 - 8) / (8192 - 8), 1e-12);
    EXPECT_NEAR(at(low, 0, 2), 4e-3, 1e-12);
    EXPECT_NEAR(at(node_pair_costs(times, fit, 16384), 1, 2), 1e-3 + 5e-3 / 3, 1e-12);
    // 48 KiB, between 32 and 64 KiB: 2 - 5 from 6 to 12 ms; 128 KiB, between 64 and 256 KiB: from 12 to 16 ms.
    EXPECT_NEAR(at(node_pair_costs(times, fit, 49152), 1, 2), 9e-3, 1e-12);
    EXPECT_NEAR(at(node_pair_costs(times, fit, 131072), 1, 2), 12e-3 + 4e-3 * 65536.0 / (262144 - 65536), 1e-12);
    // A pair measured faster at 32 KiB than at 8 B: as for a class (fit_link), the larger size's time bounds
    // the smaller one's, and d never falls with the bytes.
    NodePairTimes noisy = times;
    noisy.one_way_s[2][1] = 0.5e-3;
    const NodePairCosts fixed = node_pair_costs(noisy, fit, 4096);
    EXPECT_NEAR(at(fixed, 0, 1), 0.5e-3, 1e-12);
    EXPECT_NEAR(at(node_pair_costs(noisy, fit, 8), 0, 1), 0.5e-3, 1e-12);
}

TEST_F(ThreeNodes, FlightIsTheClassesPlusWhatThePairAdds) {
    // L = 0.8 ms + (pair's 8 B - class's 8 B), at every size: 0 - 5: 3.8 ms; 2 - 5: 0.3 ms; the class's pair:
    // 0.8 ms.
    const NodePairCosts costs = node_pair_costs(times, fit, 65536);
    EXPECT_NEAR(at(costs, 0, 2, true), 3.8e-3, 1e-12);
    EXPECT_NEAR(at(costs, 2, 1, true), 0.3e-3, 1e-12);
    EXPECT_NEAR(at(costs, 1, 0, true), 0.8e-3, 1e-12);
    // Never more than d, never below 0.
    NodePairTimes near = times;
    near.one_way_s[0][1] = near.one_way_s[0][3] = 0.1e-3;  // 0 - 2 far faster than the class: L = 0.8 - 0.9 < 0
    EXPECT_EQ(at(node_pair_costs(near, fit, 8), 0, 1, true), 0.0);
    LinkFit all_flight = fit;
    all_flight.flight_s = 1e-3;
    const NodePairCosts capped = node_pair_costs(times, all_flight, 8);
    EXPECT_NEAR(at(capped, 0, 2, true), at(capped, 0, 2), 1e-12);
    // With the class's flight measured at 8 KiB too (0.9 ms), L there is that plus what the pair adds: 0 - 5
    // 3.9 ms, 2 - 5 0.4 ms; halfway to it, halfway between.
    LinkFit sized = fit;
    sized.flight_points = {{8192, 0.9e-3}};
    EXPECT_NEAR(at(node_pair_costs(times, sized, 8192), 0, 2, true), 3.9e-3, 1e-12);
    EXPECT_NEAR(at(node_pair_costs(times, sized, 8192), 2, 1, true), 0.4e-3, 1e-12);
    EXPECT_NEAR(at(node_pair_costs(times, sized, 4100), 2, 1, true), 0.35e-3, 1e-12);
}

TEST_F(ThreeNodes, NodesAreFoundByTheirLowestRank) {
    const NodePairCosts costs = node_pair_costs(times, fit, 8);
    EXPECT_EQ(costs.index_of(0), 0);
    EXPECT_EQ(costs.index_of(5), 2);
    EXPECT_EQ(costs.index_of(3), -1);
    EXPECT_EQ(times.index_of(2), 1);
    EXPECT_TRUE(node_pair_costs(NodePairTimes{}, fit, 8).empty());
}

}  // namespace
}  // namespace redux
