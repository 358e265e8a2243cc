// The planner's front door: names, validation, what a plan holds.
#include "plan/planner.hpp"
#include "plan/builders.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

namespace redux {
namespace {

TEST(Planner, StrategyNamesRoundTrip) {
    for (Strategy s : {Strategy::optimal, Strategy::fibonacci, Strategy::binomial, Strategy::transfers_limited,
                       Strategy::reducers_limited, Strategy::chain, Strategy::binary, Strategy::ksss}) {
        ASSERT_EQ(parse_strategy(strategy_name(s)), s);
    }
    EXPECT_FALSE(parse_strategy("ring").has_value());
    EXPECT_FALSE(parse_strategy("").has_value());
}

TEST(Planner, ValidationNamesTheBadField) {
    const PlanRequest good{8, {1e-6, 2e-6}, Strategy::optimal, 0, 3, true};
    EXPECT_EQ(validate(good), "");
    auto with = [&](auto change) {
        PlanRequest r = good;
        change(r);
        return validate(r);
    };
    EXPECT_NE(with([](PlanRequest& r) { r.ranks = 0; }).find("ranks"), std::string::npos);
    EXPECT_NE(with([](PlanRequest& r) { r.costs.transfer_s = -1; }).find("d "), std::string::npos);
    EXPECT_NE(with([](PlanRequest& r) { r.costs.compute_s = NAN; }).find("c "), std::string::npos);
    EXPECT_NE(with([](PlanRequest& r) { r.costs.compute_s = INFINITY; }).find("c "), std::string::npos);
    EXPECT_NE(with([](PlanRequest& r) { r.root = 8; }).find("root"), std::string::npos);
    EXPECT_NE(with([](PlanRequest& r) { r.root = -1; }).find("root"), std::string::npos);
    EXPECT_NE(with([](PlanRequest& r) { r.strategy = Strategy::reducers_limited; }).find("limit"), std::string::npos);
    // Segments (segments_test.cpp): elements, latency in [0, d], a count >= 0, one slot at least, overlap.
    EXPECT_NE(with([](PlanRequest& r) { r.elements = 0; }).find("elements"), std::string::npos);
    EXPECT_NE(with([](PlanRequest& r) { r.latency_s = -1e-9; }).find("latency"), std::string::npos);
    EXPECT_NE(with([](PlanRequest& r) { r.latency_s = 2e-6; }).find("latency"), std::string::npos);
    EXPECT_NE(with([](PlanRequest& r) { r.latency_s = NAN; }).find("latency"), std::string::npos);
    EXPECT_NE(with([](PlanRequest& r) { r.segments = -1; }).find("segments"), std::string::npos);
    EXPECT_NE(with([](PlanRequest& r) { r.recv_window = 0; }).find("window"), std::string::npos);
    EXPECT_NE(with([](PlanRequest& r) {
                  r.segments = 2;
                  r.model = TransferModel::no_overlap;
              }).find("overlap"),
              std::string::npos);
    EXPECT_EQ(with([](PlanRequest& r) { r.latency_s = 1e-6; }), "");  // latency = d: allowed
    EXPECT_EQ(with([](PlanRequest& r) { r.segments = 0; }), "");
    EXPECT_THROW(make_plan(PlanRequest{0, {1, 1}, Strategy::optimal, 0, 0, true}), std::invalid_argument);
}

TEST(Planner, PlanHoldsBoundsAndConsistentPrograms) {
    const Plan plan = make_plan({7, {1.0, 1.0}, Strategy::optimal, 0, 2, true});
    EXPECT_EQ(plan.sink, 2);
    EXPECT_EQ(plan.lower_bound_s, 3.0);  // ceil(log2 7) max(d, c)
    EXPECT_EQ(plan.upper_bound_s, 6.0);  // ceil(log2 7)(d + c)
    EXPECT_EQ(plan.makespan_s, 5.0);     // 7 elements need order 4 (F(6) = 8 > 7 >= F(5)): d + 3 max + c
    int32_t edges = 0;
    for (int32_t r = 0; r < 7; ++r) {
        const RankProgram program = program_for(plan, r);
        EXPECT_EQ(program.parent, plan.parent[r]);
        for (const ChildStep& child : program.children) {
            EXPECT_EQ(plan.parent[child.rank], r);
            ++edges;
        }
    }
    EXPECT_EQ(edges, 6);
}

// The fixed shapes: the chain's parent is the node before it, the binary tree's (i - 1) / 2; both lengths are
// Proposition 3's, for the chain (n - 1)(d + c).
TEST(Planner, ChainAndBinaryTreesHaveTheirShapes) {
    for (int32_t n : {1, 2, 3, 7, 8, 100}) {
        PlanRequest request{n, {1.0, 0.5}, Strategy::chain, 0, 0, true};
        const Tree chain = std::get<Tree>(build_tree(request));
        request.strategy = Strategy::binary;
        const Tree binary = std::get<Tree>(build_tree(request));
        ASSERT_EQ(chain.size(), n);
        ASSERT_EQ(binary.size(), n);
        EXPECT_EQ(chain.parent[0], -1);
        EXPECT_EQ(binary.parent[0], -1);
        for (int32_t i = 1; i < n; ++i) {
            EXPECT_EQ(chain.parent[i], i - 1);
            EXPECT_EQ(binary.parent[i], (i - 1) / 2);
        }
        EXPECT_DOUBLE_EQ(chain.builder_makespan_s, (n - 1) * 1.5);
        EXPECT_DOUBLE_EQ(make_plan({n, {1.0, 0.5}, Strategy::chain, 0, 0, true}).makespan_s, (n - 1) * 1.5);
        // On ranks: every rank has at most two children and is at most floor(log2 n) hops from the root.
        const Plan plan = make_plan({n, {1.0, 0.5}, Strategy::binary, 0, n / 2, true});
        EXPECT_DOUBLE_EQ(plan.builder_makespan_s, binary.builder_makespan_s);
        for (int32_t r = 0; r < n; ++r) {
            EXPECT_LE(plan.child_offset[r + 1] - plan.child_offset[r], 2);
            int32_t hops = 0;
            for (int32_t at = r; plan.parent[at] >= 0; at = plan.parent[at]) ++hops;
            EXPECT_LE(hops, static_cast<int32_t>(std::floor(std::log2(n))));
        }
    }
}

// A plan predicted with a time in flight lets a rank's children send together (the executor posts their receives
// at once); without one (Canon & Antoniu's model), per-link costs (the flight is not modelled there) or with
// segments (the pipeline's one-receive-at-a-time model), it does not.
TEST(Planner, ChildrenReceivedTogetherOnlyUnderATimeInFlight) {
    const auto together = [](const PlanRequest& request) {
        const Plan plan = make_plan(request);
        bool any = false, all = true;
        for (int32_t r = 0; r < request.ranks; ++r) {
            const RankProgram program = program_for(plan, r);
            if (program.children.empty()) {
                EXPECT_FALSE(program.receive_together) << "a leaf receives nothing";
                continue;
            }
            any = any || program.receive_together;
            all = all && program.receive_together;
        }
        EXPECT_EQ(any, all) << "the same for every rank of a plan whose links are alike";
        return all;
    };
    PlanRequest request{8, {1.0, 0.0, 0.9}, Strategy::optimal, 0, 0, true};
    EXPECT_TRUE(together(request));
    request.costs.flight_s = 0;
    EXPECT_FALSE(together(request));
    request.costs.flight_s = 0.5;
    request.strategy = Strategy::binomial;
    EXPECT_TRUE(together(request)) << "any tree predicted with the flight";
    request.elements = 1024;
    request.segments = 4;
    EXPECT_FALSE(together(request));
    request.segments = 1;
    request.hetero_costs = std::make_shared<const HeteroCosts>(HeteroCosts::uniform(8, request.costs));
    EXPECT_FALSE(together(request)) << "per-link costs without a time in flight";
    request.hetero_costs = std::make_shared<const HeteroCosts>(
        std::vector<double>(8, 0.0), std::vector<double>(64, 1.0), std::vector<double>(64, 0.5));
    EXPECT_TRUE(together(request)) << "per-link costs with one";
}

TEST(Planner, OneRankPlanIsEmpty) {
    const Plan plan = make_plan({1, {1.0, 1.0}, Strategy::fibonacci, 0, 0, false});
    EXPECT_EQ(plan.parent, (std::vector<int32_t>{-1}));
    EXPECT_EQ(plan.makespan_s, 0.0);
    EXPECT_TRUE(program_for(plan, 0).children.empty());
}

}  // namespace
}  // namespace redux
