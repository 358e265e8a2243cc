// The strategy table (libredux/src/plan/strategy.hpp, built from REDUX_STRATEGIES in redux/algorithms.h):
// names and values are unique and stable, every name parses back, and every strategy's builder makes a valid
// plan when the strategy's needs are met.
#include "plan/strategy.hpp"
#include "plan/planner.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>

namespace redux {
namespace {

TEST(StrategyTable, NamesAndValuesAreUniqueAndParseBack) {
    std::set<std::string> names{"auto", "native"};
    std::set<int> values{REDUX_ALGORITHM_CONFIGURED, REDUX_ALGORITHM_AUTO, REDUX_ALGORITHM_NATIVE};
    for (const StrategyInfo& info : strategies()) {
        SCOPED_TRACE(std::string(info.name));
        EXPECT_TRUE(names.insert(std::string(info.name)).second) << "name used twice";
        EXPECT_TRUE(values.insert(static_cast<int>(info.strategy)).second) << "value used twice";
        EXPECT_EQ(parse_strategy(info.name), info.strategy);
        EXPECT_EQ(strategy_name(info.strategy), info.name);
        EXPECT_EQ(strategy_of(public_algorithm(info.strategy)), info.strategy);
        EXPECT_EQ(&strategy_info(info.strategy), &info);
    }
    EXPECT_EQ(parse_strategy("hetero_greedy"), Strategy::hetero_greedy);  // '_' for '-'
    EXPECT_FALSE(parse_strategy("auto").has_value());
    EXPECT_FALSE(parse_strategy("ring").has_value());
    EXPECT_FALSE(strategy_of(REDUX_ALGORITHM_AUTO).has_value());
    EXPECT_FALSE(strategy_of(REDUX_ALGORITHM_NATIVE).has_value());
}

// The public values are ABI: a program built against an older header must keep meaning the same tree.
TEST(StrategyTable, PublicValuesNeverChange) {
    EXPECT_EQ(REDUX_ALGORITHM_CONFIGURED, 0);
    EXPECT_EQ(REDUX_ALGORITHM_AUTO, 1);
    EXPECT_EQ(REDUX_ALGORITHM_OPTIMAL, 2);
    EXPECT_EQ(REDUX_ALGORITHM_FIBONACCI, 3);
    EXPECT_EQ(REDUX_ALGORITHM_BINOMIAL, 4);
    EXPECT_EQ(REDUX_ALGORITHM_NATIVE, 5);
    EXPECT_EQ(REDUX_ALGORITHM_SNF, 6);
    EXPECT_EQ(REDUX_ALGORITHM_HETERO_GREEDY, 7);
    EXPECT_EQ(REDUX_ALGORITHM_TWO_LEVEL, 8);
    EXPECT_EQ(REDUX_ALGORITHM_TRANSFERS_LIMITED, 9);
    EXPECT_EQ(REDUX_ALGORITHM_REDUCERS_LIMITED, 10);
    EXPECT_EQ(REDUX_ALGORITHM_CHAIN, 11);
    EXPECT_EQ(REDUX_ALGORITHM_BINARY, 12);
    EXPECT_EQ(REDUX_ALGORITHM_KSSS, 13);
    EXPECT_EQ(REDUX_ALGORITHM_TWO_TREE, 14);
    EXPECT_EQ(REDUX_ALGORITHM_MULTI_TREE, 15);
}

TEST(StrategyTable, NamesForConfigurationLeaveOutTheLimitedOnes) {
    EXPECT_EQ(strategy_names(", ", library_strategy),
              "optimal, fibonacci, binomial, snf, hetero-greedy, two-level, chain, binary, ksss, two-tree, multi-tree");
    for (const StrategyInfo& info : strategies()) {
        EXPECT_EQ(strategy_needs_limit(info.strategy), info.needs == Needs::limit) << info.name;
        EXPECT_EQ(strategy_needs_hetero_costs(info.strategy),
                  info.needs == Needs::link_costs || info.needs == Needs::nodes)
            << info.name;
    }
}

// Every entry has a working builder: on 6 ranks in 2 nodes, with a limit, each strategy's plan reaches the root
// from every rank exactly once.
TEST(StrategyTable, EveryBuilderMakesAValidPlan) {
    const int32_t n = 6;
    std::vector<double> transfer(n * n, 0.0);
    for (int32_t i = 0; i < n; ++i) {
        for (int32_t j = 0; j < n; ++j) {
            if (i != j) transfer[i * n + j] = i / 3 == j / 3 ? 1.0 : 4.0;
        }
    }
    auto hetero = std::make_shared<const HeteroCosts>(std::vector<double>(n, 0.5), transfer);
    for (const StrategyInfo& info : strategies()) {
        SCOPED_TRACE(std::string(info.name));
        PlanRequest request{n, {1.0, 0.5}, info.strategy, 2, 4, true};
        if (strategy_needs_hetero_costs(info.strategy)) request.hetero_costs = hetero;
        if (info.needs == Needs::nodes) request.node_of = {0, 0, 0, 1, 1, 1};
        ASSERT_EQ(validate(request), "");
        const Plan plan = make_plan(request);
        EXPECT_EQ(plan.request.strategy, info.strategy);
        int32_t sinks = 0;
        for (int32_t r = 0; r < n; ++r) {
            int32_t at = r, hops = 0;
            while (plan.parent[at] >= 0 && hops <= n) at = plan.parent[at], ++hops;
            EXPECT_EQ(at, plan.sink) << "rank " << r;
            sinks += plan.parent[r] < 0;
        }
        EXPECT_EQ(sinks, 1);
        EXPECT_EQ(plan.child_rank.size(), static_cast<size_t>(n - 1));
        EXPECT_GT(plan.makespan_s, 0.0);
    }
}

}  // namespace
}  // namespace redux
