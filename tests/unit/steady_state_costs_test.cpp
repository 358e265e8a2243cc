// The steady-state platform of a segmented vector (plan/steady_state/steady_state_costs.hpp): one segment's transfer
// and fold times from homogeneous and per-link costs, the same rule as the segmented model (checked against make_plan
// on a two-rank pipeline, whose makespan is m d_e + c_e when d_e >= c_e), the refusals, and the forecast of the
// weighted trees: a tree's throughput and makespan alone, and the predicted time.
#include "plan/steady_state/steady_state_costs.hpp"
#include "model/link_costs.hpp"
#include "plan/planner.hpp"
#include "plan/steady_state/tree_packing.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using redux::PlanRequest;
using redux::SegmentScale;
using redux::SteadyStatePlatform;
using redux::WeightedTree;

TEST(SteadyStateCosts, HomogeneousCostsScaleToOneSegment) {
    // d = 2.5 s with 0.5 s of latency, c = 12 s, 4 segments: 0.5 + 2 / 4 = 1 s to move a segment, 12 / 4 = 3 s to
    // fold one.
    const SteadyStatePlatform platform = redux::steady_state_platform(4, {2.5, 12.0}, 2, SegmentScale{4, 0.5, 0});
    ASSERT_EQ(platform.size(), 4);
    EXPECT_EQ(platform.target(), 2);
    for (int32_t i = 0; i < 4; ++i) {
        EXPECT_DOUBLE_EQ(platform.fold_s(i), 3.0);
        for (int32_t j = 0; j < 4; ++j) {
            if (i != j) {
                EXPECT_DOUBLE_EQ(platform.transfer_s(i, j), 1.0) << i << " -> " << j;
            }
        }
    }
    EXPECT_EQ(platform.validate(), "");
}

TEST(SteadyStateCosts, PerLinkCostsScaleLinkByLinkWithTheLatencyClamped) {
    const std::vector<double> d = {0,   0.2, 4.0,  //
                                   1.0, 0,   0.5,  //
                                   2.0, 3.0, 0};
    const redux::HeteroCosts costs({0.8, 1.6, 0.4}, d);
    const SegmentScale scale{8, 0.3, 0};
    const SteadyStatePlatform platform = redux::steady_state_platform(costs, 1, scale);
    ASSERT_EQ(platform.size(), 3);
    EXPECT_EQ(platform.target(), 1);
    for (int32_t i = 0; i < 3; ++i) {
        EXPECT_DOUBLE_EQ(platform.fold_s(i), costs.compute_s(i) / 8);
        for (int32_t j = 0; j < 3; ++j) {
            if (i == j) continue;
            const double whole_s = costs.transfer_s(i, j);
            const double latency_s = std::min(0.3, whole_s);  // 0.2 s on 0 -> 1: all of it is latency
            EXPECT_DOUBLE_EQ(platform.transfer_s(i, j), latency_s + (whole_s - latency_s) / 8) << i << " -> " << j;
        }
    }
    EXPECT_DOUBLE_EQ(platform.transfer_s(0, 1), 0.2);
}

// A request for a two-rank pipeline, rank 1 sending its segments to rank 0.
PlanRequest two_rank_pipeline(int64_t elements, int32_t segments, double latency_s) {
    PlanRequest request{2, {1e-3, 1e-5}, redux::Strategy::chain, 0, 0, true};
    request.elements = elements;
    request.segments = segments;
    request.latency_s = latency_s;
    return request;
}

// make_plan's segmented model on two ranks: rank 1 sends m segments back to back, rank 0 folds each as it arrives,
// so the last fold ends at m d_e + c_e. The platform's d_e and c_e must give that.
void expect_same_rule_as_the_segmented_model(const PlanRequest& request) {
    std::string error;
    const auto platform = redux::steady_state_platform(request, redux::kTreePackingMaxParticipants, &error);
    ASSERT_TRUE(platform) << error;
    const double d_e = platform->transfer_s(1, 0), c_e = platform->fold_s(0);
    ASSERT_GE(d_e, c_e);
    const redux::Plan plan = redux::make_plan(request);
    EXPECT_NEAR(plan.makespan_s, request.segments * d_e + c_e, 1e-12 * plan.makespan_s);
}

TEST(SteadyStateCosts, SegmentsCostWhatTheSegmentedModelCharges) {
    expect_same_rule_as_the_segmented_model(two_rank_pipeline(1200, 6, 1e-4));
    expect_same_rule_as_the_segmented_model(two_rank_pipeline(1200, 1, 1e-4));
    expect_same_rule_as_the_segmented_model(two_rank_pipeline(1200, 40, 0));

    PlanRequest curved = two_rank_pipeline(1000, 4, 0);  // d against the bytes: 100 us + 1 ns per byte
    curved.segment_curve = std::make_shared<const redux::LinkFit>(redux::LinkFit{1e-4, 1e-9, true, {}, 0});
    curved.element_bytes = 8;
    EXPECT_DOUBLE_EQ(redux::segment_scale(curved).curve_ratio, (1e-4 + 2000e-9) / (1e-4 + 8000e-9));
    expect_same_rule_as_the_segmented_model(curved);
}

TEST(SteadyStateCosts, RefusesWhatItCannotBuildFaithfully) {
    const auto refusal = [](const PlanRequest& request, int32_t max_participants = 64) {
        std::string error;
        const auto platform = redux::steady_state_platform(request, max_participants, &error);
        EXPECT_FALSE(platform);
        EXPECT_FALSE(error.empty());
        return error;
    };
    PlanRequest request = two_rank_pipeline(100, 4, 0);
    request.ranks = 65;
    EXPECT_NE(refusal(request).find("above the limit of 64"), std::string::npos);
    request.ranks = 13;
    EXPECT_NE(refusal(request, redux::kSteadyStateMaxParticipants).find("limit of 12"), std::string::npos);

    request = two_rank_pipeline(100, 0, 0);  // auto
    EXPECT_NE(refusal(request).find("segment count"), std::string::npos);
    request = two_rank_pipeline(3, 4, 0);
    EXPECT_NE(refusal(request).find("no element"), std::string::npos);
    request = two_rank_pipeline(100, 1, 0);
    request.model = redux::TransferModel::no_overlap;
    EXPECT_NE(refusal(request).find("overlap"), std::string::npos);
    request = two_rank_pipeline(100, 4, 0);
    request.costs.flight_s = 5e-4;
    EXPECT_NE(refusal(request).find("in flight"), std::string::npos);
    request = two_rank_pipeline(100, 4, 0);
    request.root = 2;
    EXPECT_EQ(refusal(request), redux::validate(request));

    std::string error;
    EXPECT_TRUE(redux::steady_state_platform(two_rank_pipeline(100, 4, 0), 2, &error)) << error;
}

// The chain 3 -> 2 -> 1 -> 0 of Section 4.3's notation: each rank folds its own value with what the next sent.
WeightedTree chain_of_four() {
    WeightedTree tree;
    tree.transfers = {{{3, 3}, 3, 2}, {{2, 3}, 2, 1}, {{1, 3}, 1, 0}};
    tree.folds = {{2, {2, 2}, {3, 3}}, {1, {1, 1}, {2, 3}}, {0, {0, 0}, {1, 3}}};
    return tree;
}

// Every value sent to rank 0, which folds them all.
WeightedTree star_of_four() {
    WeightedTree tree;
    tree.transfers = {{{1, 1}, 1, 0}, {{2, 2}, 2, 0}, {{3, 3}, 3, 0}};
    tree.folds = {{0, {2, 2}, {3, 3}}, {0, {1, 1}, {2, 3}}, {0, {0, 0}, {1, 3}}};
    return tree;
}

TEST(SteadyStateCosts, TreesAlone) {
    // Transfers 1 s, folds 3 s.
    const SteadyStatePlatform platform = redux::steady_state_platform(4, {1.0, 3.0}, 0, SegmentScale{});
    // The chain: every port and folding busy at most 3 s a reduction (ranks 0-2 fold once), so 1/3 per second;
    // one reduction is three transfers and three folds one after the other, 12 s.
    const redux::TreeAlone chain = redux::tree_alone(platform, chain_of_four());
    EXPECT_DOUBLE_EQ(chain.throughput_per_s, 1.0 / 3);
    EXPECT_DOUBLE_EQ(chain.makespan_s, 12.0);
    // The star: rank 0 folds 9 s a reduction. Its receive port takes the values at 1, 2 and 3 s; it folds
    // v[2,2]+v[3,3] from 3 s, then the other two: done at 12 s.
    const redux::TreeAlone star = redux::tree_alone(platform, star_of_four());
    EXPECT_DOUBLE_EQ(star.throughput_per_s, 1.0 / 9);
    EXPECT_DOUBLE_EQ(star.makespan_s, 12.0);

    WeightedTree broken = chain_of_four();
    broken.folds.pop_back();
    EXPECT_THROW(redux::tree_alone(platform, broken), std::invalid_argument);
}

TEST(SteadyStateCosts, ForecastOfTheOptimalTrees) {
    // 4 ranks, transfers 1 s, folds 3 s: TP = 4/9 (tests/cli/redux_plan_steady_state_test.cpp derives it).
    const SteadyStatePlatform platform = redux::steady_state_platform(4, {1.0, 3.0}, 0, SegmentScale{});
    const auto packing = redux::pack_reduction_trees(platform);
    ASSERT_TRUE(packing);
    const redux::SteadyStateForecast forecast = redux::forecast_steady_state(platform, packing->trees, 10);
    EXPECT_NEAR(forecast.throughput_per_s, 4.0 / 9, 1e-9);
    ASSERT_EQ(forecast.alone.size(), packing->trees.size());
    double longest_s = 0;
    for (const redux::TreeAlone& alone : forecast.alone) {
        EXPECT_LE(alone.throughput_per_s, 1.0 / 3 + 1e-12);  // 3 folds on 4 ranks: one rank folds at least once
        longest_s = std::max(longest_s, alone.makespan_s);
    }
    EXPECT_EQ(forecast.fill_s, longest_s);
    EXPECT_DOUBLE_EQ(forecast.time_s, forecast.fill_s + 9 / forecast.throughput_per_s);
    const redux::TreeAlone& best = forecast.alone[static_cast<size_t>(forecast.best_tree)];
    EXPECT_DOUBLE_EQ(forecast.best_tree_time_s, best.makespan_s + 9 / best.throughput_per_s);
}

TEST(SteadyStateCosts, ForecastIsExactOnATwoRankPipeline) {
    // One tree, 1 -> 0 with the fold on 0, at 1 / d_e: the first segment takes d_e + c_e, each further one d_e,
    // m d_e + c_e in all -- the segmented model's makespan.
    const PlanRequest request = two_rank_pipeline(1200, 6, 1e-4);
    const auto platform = redux::steady_state_platform(request, 64);
    ASSERT_TRUE(platform);
    const auto packing = redux::pack_reduction_trees(*platform);
    ASSERT_TRUE(packing);
    ASSERT_EQ(packing->trees.size(), 1u);
    const redux::SteadyStateForecast forecast = redux::forecast_steady_state(*platform, packing->trees, 6);
    const double makespan_s = redux::make_plan(request).makespan_s;
    EXPECT_NEAR(forecast.time_s, makespan_s, 1e-9 * makespan_s);
    EXPECT_NEAR(forecast.best_tree_time_s, makespan_s, 1e-9 * makespan_s);
}

TEST(SteadyStateCosts, NoTreesNoForecast) {
    const SteadyStatePlatform platform = redux::steady_state_platform(3, {1.0, 1.0}, 0, SegmentScale{});
    const redux::SteadyStateForecast forecast = redux::forecast_steady_state(platform, {}, 4);
    EXPECT_EQ(forecast.best_tree, -1);
    EXPECT_TRUE(std::isinf(forecast.time_s));
}

}  // namespace
