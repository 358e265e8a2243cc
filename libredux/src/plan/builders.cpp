// The builders of the strategies in REDUX_STRATEGIES and the dispatch from a Strategy to its builder.
#include "plan/builders.hpp"

#include "plan/steady_state/multi_tree.hpp"
#include "plan/trees/fixed_trees.hpp"
#include "plan/trees/greedy.hpp"
#include "plan/trees/hetero_greedy.hpp"
#include "plan/trees/ksss.hpp"
#include "plan/trees/snf.hpp"
#include "plan/trees/transfers_limited.hpp"
#include "plan/trees/two_level.hpp"
#include "plan/trees/two_tree.hpp"

namespace redux {

BuiltTree build_optimal(const PlanRequest& r) { return optimal_tree(r.ranks, r.costs); }
BuiltTree build_fibonacci(const PlanRequest& r) { return fibonacci_strategy_tree(r.ranks, r.costs); }
BuiltTree build_binomial(const PlanRequest& r) { return binomial_strategy_tree(r.ranks, r.costs); }
BuiltTree build_transfers_limited(const PlanRequest& r) { return transfers_limited_tree(r.ranks, r.costs, r.limit); }
BuiltTree build_reducers_limited(const PlanRequest& r) { return reducers_limited_tree(r.ranks, r.costs, r.limit); }
BuiltTree build_snf(const PlanRequest& r) { return snf_tree(*r.hetero_costs, r.root); }
BuiltTree build_hetero_greedy(const PlanRequest& r) { return hetero_greedy_tree(*r.hetero_costs, r.root, r.model); }
BuiltTree build_two_level(const PlanRequest& r) { return two_level_tree(*r.hetero_costs, r.node_of, r.root); }
BuiltTree build_chain(const PlanRequest& r) { return chain_tree(r.ranks, r.costs); }
BuiltTree build_binary(const PlanRequest& r) { return binary_tree(r.ranks, r.costs); }
BuiltTree build_ksss(const PlanRequest& r) { return ksss_tree(r.ranks, r.costs); }
BuiltTree build_two_tree(const PlanRequest& r) { return two_tree(r.ranks, r.root, r.commutative); }

// Beyond the sizes the multi-tree packs (multi_tree.hpp), the hetero-greedy tree.
BuiltTree build_multi_tree(const PlanRequest& r) {
    if (std::optional<RankTrees> trees = multi_tree(r)) return std::move(*trees);
    return hetero_greedy_tree(*r.hetero_costs, r.root, r.model);
}

BuiltTree build_tree(const PlanRequest& request) {
    switch (request.strategy) {
#define REDUX_STRATEGY_CASE_(ENUM, name, text, value, needs) \
    case Strategy::name:                                     \
        return build_##name(request);
        REDUX_STRATEGIES(REDUX_STRATEGY_CASE_)
#undef REDUX_STRATEGY_CASE_
    }
    return build_optimal(request);  // unreachable: every Strategy has a case
}

}  // namespace redux
