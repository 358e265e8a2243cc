// Renders a redux::Plan for people and programs: JSON (one object), text (the tree and the schedule) and
// Graphviz dot (the tree, edges child -> parent). Used by the redux-plan command-line tool.
//
// Every writer streams straight to the output, one rank at a time, so a plan of a million ranks is printed
// without building a document in memory. The number and array writers at the top are shared with
// steady_state_format.hpp.
#pragma once

#include "plan/planner.hpp"

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace redux::tools {

// A number as JSON: the shortest text that reads back as the same double (std::to_chars); null when it is not
// finite (JSON has no inf or nan).
void put_json_number(std::ostream& out, double x);

// A JSON array of `values`, each written by put(value).
template <typename Values, typename Put>
void put_json_array(std::ostream& out, const Values& values, Put put) {
    out << '[';
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i > 0) out << ", ";
        put(values[i]);
    }
    out << ']';
}

// A number for people: `significant_digits` digits, no trailing zeros ("0.5", "1.5e-06").
std::string seconds_text(double x, int significant_digits);

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
