// The planner's front door: names, validation, what a plan holds.
#include "plan/planner.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace redux {
namespace {

TEST(Planner, StrategyNamesRoundTrip) {
    for (Strategy s : {Strategy::optimal, Strategy::fibonacci, Strategy::binomial, Strategy::transfers_limited,
                       Strategy::reducers_limited}) {
        ASSERT_EQ(parse_strategy(strategy_name(s)), s);
    }
    EXPECT_FALSE(parse_strategy("binary").has_value());
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

TEST(Planner, OneRankPlanIsEmpty) {
    const Plan plan = make_plan({1, {1.0, 1.0}, Strategy::fibonacci, 0, 0, false});
    EXPECT_EQ(plan.parent, (std::vector<int32_t>{-1}));
    EXPECT_EQ(plan.makespan_s, 0.0);
    EXPECT_TRUE(program_for(plan, 0).children.empty());
}

}  // namespace
}  // namespace redux
