// make_plan with heterogeneous costs: the heterogeneous strategies end on the root, every rank is folded once,
// children are folded in the order they arrive, and the prediction is the simulator's under the request's costs
// and model; the homogeneous strategies are evaluated under those costs.
#include "plan/planner.hpp"
#include "plan/predict/simulator.hpp"
#include "study/gamma_noise.hpp"

#include <gtest/gtest.h>

#include <memory>

namespace redux {
namespace {

TEST(HeteroPlanner, PlansEndOnTheRootFoldEveryRankOnceAndPredictTheSimulatorsLength) {
    for (int trial = 0; trial < 12; ++trial) {
        const int32_t n = 2 + 5 * trial;
        auto costs = std::make_shared<const HeteroCosts>(draw_gamma_costs(n, {1.0, 0.8}, {0.5, 0.8}, 40 + trial));
        for (const Strategy strategy :
             {Strategy::snf, Strategy::hetero_greedy, Strategy::optimal, Strategy::binomial}) {
            for (const TransferModel model : {TransferModel::overlap, TransferModel::no_overlap}) {
                PlanRequest request;
                request.ranks = n;
                request.costs = costs->mean_costs();
                request.strategy = strategy;
                request.root = trial % n;
                request.hetero_costs = costs;
                request.model = model;
                const Plan plan = make_plan(request);
                EXPECT_EQ(plan.sink, request.root);
                EXPECT_FALSE(plan.final_transfer);
                std::vector<int> folded(static_cast<size_t>(n), 0);
                for (int32_t r = 0; r < n; ++r) {
                    const RankProgram program = program_for(plan, r);
                    EXPECT_EQ(program.parent, plan.parent[r]);
                    double last_arrival = -1;
                    for (const ChildStep& step : program.children) {
                        ++folded[step.rank];
                        EXPECT_EQ(plan.parent[step.rank], r);
                        if (strategy_needs_hetero_costs(strategy)) {
                            EXPECT_GE(plan.arrive_s[step.rank], last_arrival);  // arrival order
                            last_arrival = plan.arrive_s[step.rank];
                        }
                    }
                }
                for (int32_t r = 0; r < n; ++r) EXPECT_EQ(folded[r], r == request.root ? 0 : 1) << r;
                EXPECT_DOUBLE_EQ(plan.makespan_s, simulate(plan.parent, *costs, model).makespan_s);
                EXPECT_LE(plan.lower_bound_s, plan.makespan_s);
            }
        }
    }
}

TEST(HeteroPlanner, HeterogeneousStrategiesNeedCostsAndACommutativeOperator) {
    PlanRequest request;
    request.ranks = 4;
    request.costs = {1.0, 1.0};
    request.strategy = Strategy::snf;
    EXPECT_NE(validate(request), "");
    request.hetero_costs = std::make_shared<const HeteroCosts>(HeteroCosts::uniform(4, {1.0, 1.0}));
    EXPECT_EQ(validate(request), "");
    request.commutative = false;
    EXPECT_NE(validate(request), "");
    request.commutative = true;
    request.ranks = 5;
    EXPECT_NE(validate(request), "");  // costs for 4 ranks
}

}  // namespace
}  // namespace redux
