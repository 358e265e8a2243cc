// Plan selection (libredux/src/plan/select.hpp), a pure function: which strategies are candidates on one node,
// several nodes and several packages, for commutative and non-commutative ops; that every candidate's
// prediction is make_plan's under per-link costs built here independently; the winner; and the tie-breaks
// (fewest transfers between nodes, then table order).
#include "plan/select.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace redux {
namespace {

std::vector<Strategy> strategies_of(const Selection& selection) {
    std::vector<Strategy> out;
    for (const Candidate& candidate : selection.candidates) out.push_back(candidate.strategy);
    return out;
}

// `nodes` nodes of `per_node` ranks each, ranks in node order; packages alternate within a node when asked.
std::vector<RankPlace> cluster(int32_t nodes, int32_t per_node, bool two_packages) {
    std::vector<RankPlace> place;
    for (int32_t node = 0; node < nodes; ++node) {
        for (int32_t k = 0; k < per_node; ++k) place.push_back({node, two_packages ? k % 2 : 0});
    }
    return place;
}

// d_ij from the class of each pair, written out here rather than through the selection's own helper.
std::shared_ptr<const HeteroCosts> per_link(const SelectionInput& input) {
    const auto n = static_cast<size_t>(input.ranks);
    std::vector<double> transfer(n * n, 0.0);
    for (size_t i = 0; i < n; ++i) {
        for (size_t j = 0; j < n; ++j) {
            if (i == j) continue;
            const RankPlace& a = input.place[i];
            const RankPlace& b = input.place[j];
            const int cls = a.node != b.node ? 2 : a.package == b.package && a.package >= 0 ? 0 : 1;
            transfer[i * n + j] = input.class_transfer_s[cls];
        }
    }
    return std::make_shared<const HeteroCosts>(std::vector<double>(n, input.costs.compute_s), std::move(transfer));
}

double predicted_under_links(const SelectionInput& input, Strategy strategy) {
    PlanRequest request{input.ranks, input.costs, strategy, input.limit, input.root, input.commutative};
    request.hetero_costs = per_link(input);
    if (strategy == Strategy::two_level) {
        for (const RankPlace& p : input.place) request.node_of.push_back(p.node);
    }
    return make_plan(request).makespan_s;
}

void expect_fastest_wins(const Selection& selection) {
    double fastest = selection.candidates.front().predicted_s;
    for (const Candidate& c : selection.candidates) fastest = std::min(fastest, c.predicted_s);
    EXPECT_NEAR(selection.plan.makespan_s, fastest, 1e-4 * fastest);
}

TEST(Select, OneNodeAutoWeighsTheHomogeneousTreesAndAlgorithmOneWins) {
    for (const double c : {0.0, 0.3, 1.0, 4.0}) {
        for (const bool commutative : {true, false}) {
            SelectionInput input;
            input.ranks = 11;
            input.root = 3;
            input.commutative = commutative;
            input.costs = {1.0, c};
            const Selection selection = select_plan(input);
            EXPECT_EQ(strategies_of(selection),
                      (std::vector<Strategy>{Strategy::optimal, Strategy::fibonacci, Strategy::binomial,
                                             Strategy::chain, Strategy::binary, Strategy::ksss, Strategy::two_tree}));
            for (const Candidate& candidate : selection.candidates) {
                PlanRequest request{11, {1.0, c}, candidate.strategy, 0, 3, commutative};
                EXPECT_DOUBLE_EQ(candidate.predicted_s, make_plan(request).makespan_s);
                EXPECT_EQ(candidate.inter_node_transfers, 0);
            }
            // Algorithm 1 is optimal in this model: the others can only tie, and ties go to the table's first.
            EXPECT_EQ(selection.plan.request.strategy, Strategy::optimal) << "c = " << c;
            expect_fastest_wins(selection);
            EXPECT_NE(selection.why.find("auto"), std::string::npos);
        }
    }
}

TEST(Select, RequestedStrategyThatDoesNotApplyPlansTheOptimalTree) {
    SelectionInput input;
    input.ranks = 6;
    input.costs = {1.0, 1.0};
    for (const Strategy s :
         {Strategy::snf, Strategy::hetero_greedy, Strategy::two_level, Strategy::transfers_limited}) {
        input.requested = s;
        const Selection selection = select_plan(input);
        EXPECT_EQ(strategies_of(selection), std::vector<Strategy>{Strategy::optimal}) << strategy_name(s);
        EXPECT_NE(selection.why.find("does not apply"), std::string::npos) << selection.why;
    }
    input.requested = Strategy::transfers_limited;
    input.limit = 2;
    EXPECT_EQ(select_plan(input).plan.request.strategy, Strategy::transfers_limited);
    input.requested = Strategy::binomial;
    EXPECT_EQ(select_plan(input).plan.request.strategy, Strategy::binomial);
}

TEST(Select, SeveralNodesAddThePerLinkTreesAllPredictedUnderPerLinkCosts) {
    SelectionInput input;
    input.ranks = 8;
    input.root = 5;
    input.costs = {1e-3, 1e-6};  // the slowest class's d
    input.place = cluster(4, 2, false);
    input.class_transfer_s = {1e-6, 1e-6, 1e-3};
    const Selection selection = select_plan(input);
    EXPECT_EQ(strategies_of(selection),
              (std::vector<Strategy>{Strategy::optimal, Strategy::fibonacci, Strategy::binomial, Strategy::snf,
                                     Strategy::hetero_greedy, Strategy::two_level, Strategy::chain, Strategy::binary,
                                     Strategy::ksss, Strategy::two_tree, Strategy::multi_tree}));
    for (const Candidate& candidate : selection.candidates) {
        SCOPED_TRACE(std::string(strategy_name(candidate.strategy)));
        EXPECT_DOUBLE_EQ(candidate.predicted_s, predicted_under_links(input, candidate.strategy));
    }
    expect_fastest_wins(selection);
    // The two-level tree crosses nodes once per node other than the root's.
    const auto two_level = std::find_if(selection.candidates.begin(), selection.candidates.end(),
                                        [](const Candidate& c) { return c.strategy == Strategy::two_level; });
    ASSERT_NE(two_level, selection.candidates.end());
    EXPECT_EQ(two_level->inter_node_transfers, 3);
    EXPECT_EQ(selection.plan.sink, 5);
}

TEST(Select, SeveralPackagesOnOneNodeAddSnfAndHeteroGreedyButNotTwoLevel) {
    SelectionInput input;
    input.ranks = 6;
    input.costs = {2e-6, 1e-6};
    input.place = cluster(1, 6, true);
    input.class_transfer_s = {1e-6, 2e-6, 0};
    const Selection selection = select_plan(input);
    EXPECT_EQ(strategies_of(selection),
              (std::vector<Strategy>{Strategy::optimal, Strategy::fibonacci, Strategy::binomial, Strategy::snf,
                                     Strategy::hetero_greedy, Strategy::chain, Strategy::binary, Strategy::ksss,
                                     Strategy::two_tree, Strategy::multi_tree}));
    for (const Candidate& candidate : selection.candidates) {
        EXPECT_DOUBLE_EQ(candidate.predicted_s, predicted_under_links(input, candidate.strategy));
    }
    expect_fastest_wins(selection);
}

TEST(Select, NonCommutativeOpsKeepTheHomogeneousTreesButPredictUnderPerLinkCosts) {
    SelectionInput input;
    input.ranks = 8;
    input.commutative = false;
    input.costs = {1e-3, 1e-6};
    input.place = cluster(2, 4, false);
    input.class_transfer_s = {1e-6, 1e-6, 1e-3};
    const Selection selection = select_plan(input);
    EXPECT_EQ(strategies_of(selection),
              (std::vector<Strategy>{Strategy::optimal, Strategy::fibonacci, Strategy::binomial, Strategy::chain,
                                     Strategy::binary, Strategy::ksss, Strategy::two_tree}));
    for (const Candidate& candidate : selection.candidates) {
        EXPECT_DOUBLE_EQ(candidate.predicted_s, predicted_under_links(input, candidate.strategy));
    }
    input.requested = Strategy::snf;
    EXPECT_EQ(select_plan(input).plan.request.strategy, Strategy::optimal);
}

// All classes equally fast: the per-link trees and the homogeneous ones predict alike, so the tie-break decides:
// the fewest transfers between nodes among the fastest, then the first in table order.
TEST(Select, TiesGoToTheFewestInterNodeTransfersThenTableOrder) {
    SelectionInput input;
    input.ranks = 8;
    input.costs = {1.0, 0.0};
    input.place = {{0, 0}, {1, 0}, {0, 0}, {1, 0}, {0, 0}, {1, 0}, {0, 0}, {1, 0}};  // nodes alternate
    input.class_transfer_s = {1.0, 1.0, 1.0};
    const Selection selection = select_plan(input);
    double fastest = selection.candidates.front().predicted_s;
    for (const Candidate& c : selection.candidates) fastest = std::min(fastest, c.predicted_s);
    const Candidate* expected = nullptr;
    for (const Candidate& c : selection.candidates) {
        if (std::abs(c.predicted_s - fastest) > 1e-4 * fastest) continue;
        if (expected == nullptr || c.inter_node_transfers < expected->inter_node_transfers) expected = &c;
    }
    ASSERT_NE(expected, nullptr);
    EXPECT_EQ(selection.plan.request.strategy, expected->strategy);
    EXPECT_EQ(expected->inter_node_transfers, 1) << "a tree per node and one transfer across is among the fastest";
}

// Segments: every candidate is planned with the input's elements, latency and segment count (0: its own best
// count), and auto compares the segmented predictions. Unsegmented, Algorithm 1 wins; with a long vector and a
// small latency, pipelining wins, in many segments.
TEST(Select, SegmentedPredictionsAreCompared) {
    SelectionInput input;
    input.ranks = 16;
    input.root = 2;
    input.costs = {1e-3, 1e-4};
    input.elements = 1 << 20;
    input.latency_s = 2e-6;
    input.segments = 0;
    const Selection selection = select_plan(input);
    for (const Candidate& candidate : selection.candidates) {
        SCOPED_TRACE(std::string(strategy_name(candidate.strategy)));
        PlanRequest request{16, input.costs, candidate.strategy, 0, 2, true};
        request.elements = input.elements;
        request.latency_s = input.latency_s;
        request.segments = 0;
        const Plan plan = make_plan(request);
        EXPECT_EQ(candidate.segments, plan.segments);
        EXPECT_DOUBLE_EQ(candidate.predicted_s, plan.makespan_s);
        EXPECT_GT(candidate.segments, 1);
    }
    expect_fastest_wins(selection);
    EXPECT_GT(selection.plan.segments, 1);
    EXPECT_LT(selection.plan.makespan_s, selection.plan.unsegmented_makespan_s / 2);
    EXPECT_NE(selection.why.find("segments"), std::string::npos) << selection.why;

    input.segments = 1;
    const Selection whole = select_plan(input);
    EXPECT_EQ(whole.plan.request.strategy, Strategy::optimal);
    for (const Candidate& candidate : whole.candidates) EXPECT_EQ(candidate.segments, 1);
    input.segments = 8;
    input.requested = Strategy::chain;
    const Selection forced = select_plan(input);
    EXPECT_EQ(forced.plan.request.strategy, Strategy::chain);
    EXPECT_EQ(forced.plan.segments, 8);
}

TEST(Select, NoPerLinkTreesBeyondTheSizeLimitOrWithoutPlacement) {
    SelectionInput input;
    input.ranks = kMaxPerLinkRanks + 1;
    input.costs = {1.0, 1.0};
    input.place = cluster(2, (kMaxPerLinkRanks + 1) / 2, false);
    input.place.push_back({1, 0});
    input.class_transfer_s = {1.0, 1.0, 2.0};
    ASSERT_EQ(static_cast<int32_t>(input.place.size()), input.ranks);
    EXPECT_EQ(select_plan(input).candidates.size(), 7u);
    input.ranks = 4;
    input.place.clear();  // d given by the call: one number for every link
    EXPECT_EQ(select_plan(input).candidates.size(), 7u);
}

// A latency-bound link (most of d in flight, c ~ 0, one link class): auto takes the generalised Algorithm 1,
// a star here, predicted at d + (n - 2)(d - L) + c, against the binomial tree's 3 (d + c) at 8 ranks (its
// children send one level at a time, so nothing is in flight together).
TEST(Select, MostOfDInFlightMakesTheOptimalTreeWideAndAutoTakesIt) {
    SelectionInput input;
    input.ranks = 8;
    input.costs = {2.0e-3, 1.0e-8, 1.95e-3};
    const Selection selection = select_plan(input);
    expect_fastest_wins(selection);
    EXPECT_EQ(selection.plan.request.strategy, Strategy::optimal) << selection.why;
    for (int32_t rank = 1; rank < 8; ++rank) EXPECT_EQ(selection.plan.parent[rank], 0) << "rank " << rank;
    EXPECT_NEAR(selection.plan.makespan_s, 2.0e-3 + 6 * 0.05e-3 + 1.0e-8, 1e-12);
    for (const Candidate& c : selection.candidates) {
        if (c.strategy == Strategy::binomial) {
            EXPECT_NEAR(c.predicted_s, 3 * (2.0e-3 + 1.0e-8), 1e-12);
        }
    }
}

// Node pairs measured by calibration replace the other-node class's d for their pairs. Three ranks on three
// nodes, the class says 1 for every pair, c = 0; measured: 0 - 1 and 1 - 2 take 1, 0 - 2 takes 10. Rank 2's
// only fast way to the root goes through rank 1: 2 -> 1 -> 0 in 2, where anything that sends 2 -> 0 takes 10.
TEST(Select, NodePairsReplaceTheClassForTheirPairs) {
    SelectionInput input;
    input.ranks = 3;
    input.costs = {1.0, 0.0};
    input.place = cluster(3, 1, false);
    input.class_transfer_s = {1.0, 1.0, 1.0};
    input.node_pairs = {{0, 1, 2}, {0, 1, 10, 1, 0, 1, 10, 1, 0}, std::vector<double>(9, 0.0)};
    const Selection selection = select_plan(input);
    expect_fastest_wins(selection);
    EXPECT_EQ(selection.plan.parent, (std::vector<int32_t>{-1, 0, 1})) << selection.why;
    EXPECT_NEAR(selection.plan.makespan_s, 2.0, 1e-12);
    // Without them every pair is the class's 1: the star and the chain both take 2, and 2 -> 0 is as good.
    input.node_pairs = {};
    EXPECT_NEAR(select_plan(input).plan.makespan_s, 2.0, 1e-12);
    // Costs for the wrong number of nodes are refused, not read out of bounds.
    input.node_pairs = {{0, 1, 2}, {0, 1}, {0, 1}};
    EXPECT_THROW(select_plan(input), std::invalid_argument);
}

// The time in flight of each pair reaches the per-link predictions, and a rank whose children's links all have
// some gets every receive posted at once. Eight ranks on eight nodes, d = 1 of which 0.9 in flight on every
// pair, c = 0: the star takes 0.9 + 7 x 0.1 = 1.6, as in the homogeneous model; without the flight it takes 7.
TEST(Select, PerLinkCostsCarryTheTimeInFlight) {
    SelectionInput input;
    input.ranks = 8;
    input.costs = {1.0, 0.0, 0.9};
    input.place = cluster(8, 1, false);
    input.class_transfer_s = {1.0, 1.0, 1.0};
    input.class_flight_s = {0.9, 0.9, 0.9};
    const Selection selection = select_plan(input);
    expect_fastest_wins(selection);
    EXPECT_NEAR(selection.plan.makespan_s, 1.6, 1e-9) << selection.why;
    for (int32_t rank = 1; rank < 8; ++rank) EXPECT_EQ(selection.plan.parent[rank], 0) << "rank " << rank;
    EXPECT_TRUE(program_for(selection.plan, 0).receive_together);
    // The same from the node pairs: the class says no flight, the pairs say 0.9.
    input.class_flight_s = {};
    input.node_pairs.node_ids = {0, 1, 2, 3, 4, 5, 6, 7};
    input.node_pairs.transfer_s.assign(64, 1.0);
    input.node_pairs.flight_s.assign(64, 0.9);
    EXPECT_NEAR(select_plan(input).plan.makespan_s, 1.6, 1e-9);
    // No flight anywhere: one receive at a time, and the star is slow.
    input.node_pairs.flight_s.assign(64, 0.0);
    const Selection one_port = select_plan(input);
    EXPECT_NEAR(one_port.plan.makespan_s, 3.0, 1e-9);  // the binomial tree's three steps
    EXPECT_FALSE(program_for(one_port.plan, 0).receive_together);
}

// auto's runners-up: the next fastest predicted plans, each running differently from the winner and from the
// others, fastest first, predicted within kRunnerUpSpan of the winner, at most kRunnersUp; none when a strategy is
// asked for.
TEST(Select, RunnersUpAreTheNextFastestDistinctPlans) {
    for (int32_t ranks : {2, 4, 7, 16}) {
        SelectionInput input;
        input.ranks = ranks;
        input.costs = {1.0e-3, 0.4e-3, 0.0};
        const Selection selection = select_plan(input);
        SCOPED_TRACE("ranks " + std::to_string(ranks));
        std::vector<Plan> distinct;  // every candidate's plan, one per way of running, found here independently
        for (const Candidate& c : selection.candidates) {
            PlanRequest request{input.ranks, input.costs, c.strategy, 0, input.root, input.commutative};
            Plan plan = make_plan(request);
            const bool seen = std::any_of(distinct.begin(), distinct.end(), [&](const Plan& p) {
                return p.parent == plan.parent && p.child_rank == plan.child_rank &&
                       p.child_joins_left == plan.child_joins_left && p.sink == plan.sink &&
                       p.segments == plan.segments &&
                       (plan.segments == 1 || p.more_trees.size() == plan.more_trees.size());
            });
            if (!seen) distinct.push_back(std::move(plan));
        }
        const double span_s = kRunnerUpSpan * selection.plan.makespan_s;
        const size_t others_in_span =
            static_cast<size_t>(std::count_if(distinct.begin(), distinct.end(),
                                              [&](const Plan& p) { return p.makespan_s <= span_s; })) -
            1;
        ASSERT_LE(selection.runners_up.size(), static_cast<size_t>(kRunnersUp));
        EXPECT_EQ(selection.runners_up.size(), std::min<size_t>(others_in_span, kRunnersUp))
            << distinct.size() << " ways of running among " << selection.candidates.size() << " candidates";
        double previous = selection.plan.makespan_s;
        for (size_t i = 0; i < selection.runners_up.size(); ++i) {
            const Plan& r = selection.runners_up[i];
            EXPECT_FALSE(same_execution(r, selection.plan)) << "runner-up " << i;
            for (size_t j = 0; j < i; ++j) EXPECT_FALSE(same_execution(r, selection.runners_up[j]));
            EXPECT_GE(r.makespan_s, previous * (1 - 1e-4)) << "fastest first";
            EXPECT_LE(r.makespan_s, span_s) << "runner-up " << i << " predicted beyond the span";
            previous = r.makespan_s;
        }
    }
    SelectionInput requested;
    requested.ranks = 16;
    requested.costs = {1.0e-3, 0.4e-3, 0.0};
    requested.requested = Strategy::fibonacci;
    EXPECT_TRUE(select_plan(requested).runners_up.empty());
}

}  // namespace
}  // namespace redux
