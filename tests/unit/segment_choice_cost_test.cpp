// What choosing a segment count costs (plan/predict/segment_search.cpp, "Planning time") and the cache of its answers
// (plan/predict/choice_cache.hpp). Every rank plans every new key, so the search is bounded by the segments it
// simulates, whatever the vector's length, and its answer is kept for keys of the same shape:
//   - on long vectors (the worst case: a calibrated curve, a small latency, 16 and 64 ranks, every homogeneous
//     strategy, two-tree's several trees among them) the choice simulates no more than the documented bound;
//   - a plan for every root of a communicator gets from the cache, to the bit, the answer its own search
//     (search_segments, the cache aside) gives, commutative or not; commutative, every root has root 0's key;
//   - a plan under per-link costs is never answered from the cache (its key is empty).
#include "plan/planner.hpp"
#include "plan/predict/choice_cache.hpp"
#include "plan/predict/segments.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace redux {
namespace {

// d of a shared-memory link against the bytes: 1 us latency, 4 GB/s, a step of 5 us past 64 KiB.
std::shared_ptr<const LinkFit> shared_memory_curve() {
    std::vector<PingSample> samples;
    for (size_t bytes = 8; bytes <= (size_t{64} << 20); bytes *= 4) {
        samples.push_back({bytes, 1e-6 + static_cast<double>(bytes) / 4e9 + (bytes > 65536 ? 5e-6 : 0.0)});
    }
    LinkFit fit = fit_link(samples);
    fit.flight_s = 0.3e-6;
    return std::make_shared<const LinkFit>(fit);
}

PlanRequest long_vector(int32_t ranks, Strategy strategy, int64_t elements, int32_t root, bool commutative) {
    const std::shared_ptr<const LinkFit> curve = shared_memory_curve();
    PlanRequest request{ranks, {}, strategy, 0, root, commutative};
    const auto bytes = static_cast<size_t>(elements * 4);
    request.costs.transfer_s = curve->at(bytes);
    request.costs.compute_s = 1e-9 * static_cast<double>(elements);
    request.costs.flight_s = std::min(curve->flight_at(bytes), request.costs.transfer_s);
    request.elements = elements;
    request.latency_s = std::min(curve->alpha_s, request.costs.transfer_s);
    request.segment_curve = curve;
    request.element_bytes = 4;
    request.segments = 1;  // the plan unsegmented: choose_segments is called on it below
    return request;
}

std::vector<Strategy> homogeneous_library_strategies() {
    std::vector<Strategy> out;
    for (const StrategyInfo& info : strategies()) {
        if (info.needs == Needs::always) out.push_back(info.strategy);
    }
    return out;
}

TEST(SegmentChoiceCost, BoundedWhateverTheVectorsLength) {
    for (int32_t ranks : {16, 64}) {
        for (Strategy strategy : homogeneous_library_strategies()) {
            for (int64_t elements : {int64_t{1} << 16, int64_t{1} << 22, int64_t{1} << 24}) {
                const Plan plan = make_plan(long_vector(ranks, strategy, elements, 0, true));
                const SegmentChoice choice = choose_segments(plan);
                const std::string what = std::string(strategy_name(strategy)) + ", " + std::to_string(ranks) +
                                         " ranks, " + std::to_string(elements) + " elements";
                const int64_t bound =
                    plan.more_trees.empty() ? kSearchSegments : 2 * kSearchSegments + 2 * kMaxChosenSegments;
                EXPECT_LE(choice.simulated_segments, bound) << what;
                EXPECT_GT(choice.simulated_segments, 0) << what;
                EXPECT_GE(choice.segments, 1) << what;
                EXPECT_LE(choice.segments, kMaxChosenSegments) << what;
            }
        }
    }
}

TEST(SegmentChoiceCost, EveryRootGetsTheAnswerItsOwnSearchGives) {
    for (bool commutative : {true, false}) {
        for (Strategy strategy : homogeneous_library_strategies()) {
            // Elements differ per case, so that no earlier case's answer is in the cache under the same key.
            const int64_t elements = 300000 + 1000 * static_cast<int64_t>(strategy) + (commutative ? 0 : 500);
            const Plan first = make_plan(long_vector(7, strategy, elements, 0, commutative));
            const std::string first_key = choice_key(first);
            ASSERT_FALSE(first_key.empty()) << strategy_name(strategy);
            ASSERT_FALSE(cached_choice(first_key).has_value()) << "a new shape is not in the cache yet";
            choose_segments(first);  // a search, kept
            ASSERT_TRUE(cached_choice(first_key).has_value());
            for (int32_t root = 1; root < 7; ++root) {
                const Plan plan = make_plan(long_vector(7, strategy, elements, root, commutative));
                const std::string what = std::string(strategy_name(strategy)) + ", root " + std::to_string(root) +
                                         (commutative ? "" : ", not commutative");
                // Commutative: the same tree renumbered, one search for every root. Not: the sink is rank 0 and
                // the result goes on to the root, a shape per root's place.
                if (commutative) {
                    EXPECT_EQ(choice_key(plan), first_key) << what << ": the same shape, renumbered";
                }
                const SegmentChoice answered = choose_segments(plan);
                const SegmentChoice searched = search_segments(plan);
                EXPECT_EQ(answered.segments, searched.segments) << what;
                EXPECT_EQ(answered.times.makespan_s, searched.times.makespan_s) << what;
                EXPECT_EQ(answered.times.tree_makespan_s, searched.times.tree_makespan_s) << what;
            }
        }
    }
}

TEST(SegmentChoiceCost, PerLinkCostsAreNeverCached) {
    PlanRequest request = long_vector(4, Strategy::optimal, 100000, 0, true);
    std::vector<double> transfer(16, request.costs.transfer_s), flight(16, 0.0);
    transfer[1] *= 2;  // one slower link
    request.hetero_costs = std::make_shared<const HeteroCosts>(std::vector<double>(4, request.costs.compute_s),
                                                               std::move(transfer), std::move(flight));
    EXPECT_TRUE(choice_key(make_plan(request)).empty());
}

}  // namespace
}  // namespace redux
