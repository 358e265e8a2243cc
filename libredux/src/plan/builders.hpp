// One builder per strategy, build_<name> for every line of REDUX_STRATEGIES (redux/algorithms.h): a plan
// request in, a tree out. The tree is either over abstract nodes (the homogeneous strategies: make_plan lays
// it out on ranks, Section 4.1 of Canon & Antoniu) or over the ranks themselves (the heterogeneous ones, whose
// costs depend on who sits where; the two-tree strategy's two trees with their fold order). Each builder is a
// few lines that call its algorithm's file.
#pragma once

#include "plan/planner.hpp"
#include "plan/tree.hpp"

#include <variant>

namespace redux {

using BuiltTree = std::variant<Tree, RankTree, RankTrees>;

#define REDUX_STRATEGY_BUILDER_(ENUM, name, text, value, needs) BuiltTree build_##name(const PlanRequest& request);
REDUX_STRATEGIES(REDUX_STRATEGY_BUILDER_)
#undef REDUX_STRATEGY_BUILDER_

// The builder of request.strategy (which validate(request) has accepted).
BuiltTree build_tree(const PlanRequest& request);

}  // namespace redux
