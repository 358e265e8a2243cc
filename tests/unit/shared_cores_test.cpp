// The shared cores' floor (libredux/src/plan/predict/shared_cores.hpp): a node with more ranks than hardware threads
// needs at least (its ranks' transfers to each other, d each, + their folds, c each) / threads, whatever the tree.
// Every expectation is counted here from the tree's shape (n - 1 transfers on one node; two-level's per node), not
// taken from the floor's own code; and plan selection ranks by the floored prediction, then by makespan.
#include "plan/predict/shared_cores.hpp"
#include "plan/select.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

namespace redux {
namespace {

constexpr double kD = 1.0, kC = 0.1;

std::vector<RankPlace> one_node(int32_t ranks, int32_t cpus) {
    return std::vector<RankPlace>(static_cast<size_t>(ranks), RankPlace{0, -1, cpus});
}

Plan plan_of(Strategy strategy, int32_t ranks, double flight_s = 0) {
    PlanRequest request{ranks, Costs{kD, kC, flight_s}, strategy};
    return make_plan(request);
}

TEST(SharedCores, FourRanksOnTwoThreadsNeedThreeTransfersAndFoldsOverTwo) {
    for (Strategy strategy : {Strategy::optimal, Strategy::binomial, Strategy::chain, Strategy::ksss}) {
        for (double flight_s : {0.0, kD}) {
            const Plan plan = plan_of(strategy, 4, flight_s);
            EXPECT_DOUBLE_EQ(shared_cores_floor_s(plan, one_node(4, 2)), 3 * (kD + kC) / 2)
                << strategy_name(strategy) << " flight " << flight_s;
        }
    }
    // Eight ranks on two threads: seven transfers.
    EXPECT_DOUBLE_EQ(shared_cores_floor_s(plan_of(Strategy::optimal, 8, kD), one_node(8, 2)), 7 * (kD + kC) / 2);
}

TEST(SharedCores, NoFloorWithAThreadPerRankOrWhereThreadsAreUnknown) {
    const Plan plan = plan_of(Strategy::optimal, 4, kD);
    EXPECT_EQ(shared_cores_floor_s(plan, one_node(4, 4)), 0.0);
    EXPECT_EQ(shared_cores_floor_s(plan, one_node(4, 8)), 0.0);
    EXPECT_EQ(shared_cores_floor_s(plan, one_node(4, 0)), 0.0);
    EXPECT_EQ(shared_cores_floor_s(plan, {}), 0.0);
    EXPECT_EQ(shared_cores_floor_s(plan, one_node(3, 1)), 0.0);  // a placement of other ranks
}

TEST(SharedCores, APredictionIsTheMakespanOrTheFloorWhicheverIsLarger) {
    // With every message in flight together the optimal tree of 8 ranks is predicted below 7 (d + c) / 2; the
    // binomial tree with no flight, 3 (d + c), above 3 (d + c) / 2 on 4 ranks.
    Plan wide = plan_of(Strategy::optimal, 8, kD);
    wide.shared_cores_floor_s = shared_cores_floor_s(wide, one_node(8, 2));
    ASSERT_LT(wide.makespan_s, wide.shared_cores_floor_s);
    EXPECT_DOUBLE_EQ(wide.predicted_s(), 7 * (kD + kC) / 2);
    Plan deep = plan_of(Strategy::binomial, 4);
    deep.shared_cores_floor_s = shared_cores_floor_s(deep, one_node(4, 2));
    EXPECT_DOUBLE_EQ(deep.makespan_s, 2 * (kD + kC));
    EXPECT_DOUBLE_EQ(deep.predicted_s(), 2 * (kD + kC));
}

TEST(SharedCores, OnlyTransfersWithinANodeCount) {
    // Two nodes of four ranks on two threads each, d 1 within a node and 10 between: two-level reduces each node
    // to one rank (three transfers within it), then the two across.
    const int32_t n = 8;
    std::vector<RankPlace> place;
    std::vector<int32_t> node_of;
    for (int32_t r = 0; r < n; ++r) {
        place.push_back({r / 4, -1, 2});
        node_of.push_back(r / 4);
    }
    PlanRequest request{n, Costs{kD, kC}, Strategy::two_level};
    request.node_of = node_of;
    request.hetero_costs = std::make_shared<const HeteroCosts>(
        HeteroCosts::from_classes(std::vector<double>(n, kC), node_of, {{kD, 10 * kD}, {10 * kD, kD}}));
    const Plan plan = make_plan(request);
    EXPECT_DOUBLE_EQ(shared_cores_floor_s(plan, place), 3 * (kD + kC) / 2);
}

TEST(SharedCores, SegmentsEachPayTheLatency) {
    // Four segments of a vector whose d is 1 with a latency part of 0.2: each link moves them in
    // 4 x 0.2 + 0.8 = 1.6, and folds the whole c.
    PlanRequest request{4, Costs{kD, kC}, Strategy::chain};
    request.elements = 8;
    request.latency_s = 0.2;
    request.segments = 4;
    const Plan plan = make_plan(request);
    ASSERT_EQ(plan.segments, 4);
    EXPECT_DOUBLE_EQ(shared_cores_floor_s(plan, one_node(4, 2)), 3 * (1.6 + kC) / 2);
}

TEST(SharedCores, AResultSentFromTheSinkToTheRootCountsWithoutAFold) {
    // Non-commutative reductions whose tree ends on another rank than the root, which then gets the result.
    int ending_elsewhere = 0;
    for (const Costs& costs : {Costs{1.0, 1.0}, Costs{1.0, 3.0}, Costs{3.0, 1.0}, Costs{1.0, 0.1}}) {
        for (Strategy strategy : {Strategy::optimal, Strategy::binomial, Strategy::fibonacci, Strategy::binary}) {
            for (int32_t n = 3; n <= 16; ++n) {
                for (int32_t root = 0; root < n; ++root) {
                    const Plan plan = make_plan({n, costs, strategy, 0, root, false});
                    const double d = costs.transfer_s, c = costs.compute_s;
                    const double expected = ((n - 1) * (d + c) + (plan.final_transfer ? d : 0.0)) / 2;
                    EXPECT_DOUBLE_EQ(shared_cores_floor_s(plan, one_node(n, 2)), expected)
                        << strategy_name(strategy) << " n=" << n << " root=" << root;
                    ending_elsewhere += plan.final_transfer;
                }
            }
        }
    }
    EXPECT_GT(ending_elsewhere, 0);
}

TEST(SharedCores, SelectionPredictsWithTheFloorAndRanksByMakespan) {
    SelectionInput input;
    input.ranks = 8;
    input.costs = Costs{kD, 0.01, 0.9};
    const Selection free_cores = [&] {
        input.place = one_node(8, 8);
        return select_plan(input);
    }();
    input.place = one_node(8, 2);
    const Selection shared = select_plan(input);
    EXPECT_EQ(shared.plan.request.strategy, free_cores.plan.request.strategy);
    EXPECT_TRUE(same_execution(shared.plan, free_cores.plan));
    ASSERT_EQ(shared.candidates.size(), free_cores.candidates.size());
    for (size_t i = 0; i < shared.candidates.size(); ++i) {
        EXPECT_DOUBLE_EQ(shared.candidates[i].predicted_s,
                         std::max(free_cores.candidates[i].predicted_s, 7 * (kD + 0.01) / 2))
            << strategy_name(shared.candidates[i].strategy);
    }
}

// A long vector: with a thread per rank the model pipelines it (a plan in several segments wins); on 2 threads every
// segment's transfer pays its latency on the shared threads, so an unsegmented tree predicts least: (n - 1)(d + c) / 2
// (its makespan, about log2(n)(d + c), is below that floor), and the winner is the one with the smallest makespan
// among them. Runners-up follow in order of prediction.
TEST(SharedCores, SelectionRanksByTheFloorThenByMakespan) {
    SelectionInput input;
    input.ranks = 8;
    input.costs = Costs{kD, kC};
    input.elements = 1 << 20;
    input.latency_s = 0.05 * kD;
    input.segments = 0;
    input.place = one_node(8, 8);
    const Selection free_cores = select_plan(input);
    ASSERT_GT(free_cores.plan.segments, 1) << "the test needs a pipelined winner with a thread per rank";
    input.place = one_node(8, 2);
    const Selection shared = select_plan(input);
    EXPECT_EQ(shared.plan.segments, 1);
    EXPECT_NEAR(shared.plan.predicted_s(), 7 * (kD + kC) / 2, 1e-9);
    PlanRequest optimal{8, input.costs, Strategy::optimal};
    EXPECT_NEAR(shared.plan.makespan_s, make_plan(optimal).makespan_s, 1e-9) << "the least makespan at the floor";
    for (const Candidate& c : shared.candidates) {
        EXPECT_GE(c.predicted_s, shared.plan.predicted_s() * (1 - 1e-9)) << strategy_name(c.strategy);
        if (c.segments > 1) {
            EXPECT_GT(c.predicted_s, 7 * (kD + kC) / 2) << strategy_name(c.strategy);
        }
    }
    double previous = shared.plan.predicted_s();
    for (const Plan& r : shared.runners_up) {
        EXPECT_GE(r.predicted_s(), previous);
        previous = r.predicted_s();
    }
}

// thread_per_rank (model/link_costs.hpp), which decides where calibration times a call from a common start: a node
// has a thread per rank when its ranks in the list are no more than its threads; unknown threads (0) never do.
TEST(SharedCores, AThreadPerRankCountsTheRanksOfTheRanksOwnNode) {
    EXPECT_TRUE(thread_per_rank(one_node(2, 2), 0));
    EXPECT_TRUE(thread_per_rank(one_node(2, 2), 1));
    EXPECT_FALSE(thread_per_rank(one_node(3, 2), 2));
    EXPECT_FALSE(thread_per_rank(one_node(2, 0), 0)) << "threads unknown";
    // Node 0 with 3 ranks on 4 threads, node 1 with 3 ranks on 2: each rank is judged by its own node.
    const std::vector<RankPlace> two_nodes = {{0, -1, 4}, {1, -1, 2}, {0, -1, 4}, {1, -1, 2}, {0, -1, 4}, {1, -1, 2}};
    for (size_t r = 0; r < two_nodes.size(); ++r) {
        EXPECT_EQ(thread_per_rank(two_nodes, r), two_nodes[r].node == 0) << "rank " << r;
    }
}

}  // namespace
}  // namespace redux
