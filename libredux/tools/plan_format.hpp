// Renders a redux::Plan for people and programs: JSON (one object), text (the tree and the schedule) and
// Graphviz dot (the tree, edges child -> parent). Used by the redux-plan command-line tool.
//
// Every writer streams straight to the output, one rank at a time, so a plan of a million ranks is printed
// without building a document in memory.
#pragma once

#include "plan/planner.hpp"

#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace redux::tools {

// Strategy names as the command line spells them: strategy_name() with '-' for '_' (transfers-limited).
std::string cli_strategy_name(Strategy strategy);

// Accepts either spelling: transfers-limited and transfers_limited.
std::optional<Strategy> parse_cli_strategy(std::string_view name);

// One JSON object: the request (ranks, strategy, d, c, limit, root, commutative, model, heterogeneous; with
// heterogeneous costs d and c are their means), the predictions (makespan, tree_makespan, lower_bound,
// upper_bound, all in seconds) and, by rank, parent, children in fold order, ready, send_start and release.
void write_plan_json(std::ostream& out, const Plan& plan);

// The tree, indented, children in fold order with their ready times; then every transfer by start time, the
// final sink -> root transfer if any, the makespan and the bounds.
void write_plan_text(std::ostream& out, const Plan& plan);

// A Graphviz digraph of the tree: edges child -> parent labelled with the send start time, the sink filled,
// the root drawn with a double border, the final sink -> root transfer dashed.
void write_plan_dot(std::ostream& out, const Plan& plan);

}  // namespace redux::tools
