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

// One JSON object: the request (ranks, strategy, d, c, limit, root, commutative, model, heterogeneous, elements,
// latency, recv_window, segments_requested (a count or "auto"); with heterogeneous costs d and c are their means),
// the segment count, the predictions (makespan and tree_makespan in that many segments, unsegmented_makespan,
// lower_bound, upper_bound, all in seconds) and, by rank, parent, children in fold order, ready, send_start and
// release (those of the whole vector in one piece).
void write_plan_json(std::ostream& out, const Plan& plan);

// The tree, indented, children in fold order with their ready times; then every transfer by start time, the
// final sink -> root transfer if any (all for the whole vector in one piece), the makespan (in the plan's
// segments) and the bounds.
void write_plan_text(std::ostream& out, const Plan& plan);

// A Graphviz digraph of the tree: edges child -> parent labelled with the send start time, the sink filled,
// the root drawn with a double border, the final sink -> root transfer dashed.
void write_plan_dot(std::ostream& out, const Plan& plan);

}  // namespace redux::tools
