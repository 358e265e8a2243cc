// Renders a redux::Plan as JSON, text or Graphviz dot (see plan_format.hpp).
//
// Times in JSON are written with std::to_chars, the shortest text that reads back as the same double, so a
// program reading the JSON gets exactly the planner's numbers. Text and dot round to 9 and 6 significant
// digits for the eye. The tree is walked with an explicit stack: a plan may be a chain a million ranks deep.
#include "plan_format.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <utility>
#include <vector>

namespace redux::tools {
namespace {

// Beyond this depth the text tree stops indenting further and prints the depth instead, so a deep chain
// stays linear in size.
constexpr int32_t max_indent_levels = 32;

std::string text_s(double x) { return seconds_text(x, 9) + " s"; }
std::string dot_s(double x) { return seconds_text(x, 6) + " s"; }

const char* joins_word(const Plan& plan, int32_t child_index) {
    return plan.child_joins_left[static_cast<size_t>(child_index)] ? "left" : "right";
}

// "sink", "root", both, or nullptr for any other rank.
const char* role_of(const Plan& plan, int32_t rank) {
    const bool sink = rank == plan.sink;
    const bool root = rank == plan.request.root;
    if (sink && root) return "sink, root";
    if (sink) return "sink";
    if (root) return "root";
    return nullptr;
}

bool is_limited(const Plan& plan) { return strategy_needs_limit(plan.request.strategy); }

// "1 segment", "12 segments (chosen by the model)".
std::string segments_text(const Plan& plan) {
    std::string text = std::to_string(plan.segments) + (plan.segments == 1 ? " segment" : " segments");
    if (plan.request.segments == 0) text += " (chosen by the model)";
    return text;
}

// "7 ranks, strategy optimal, d = 1 s, c = 1 s, root 0, commutative"
std::string request_summary(const Plan& plan, std::string (*format_s)(double)) {
    const PlanRequest& request = plan.request;
    std::string summary = std::to_string(request.ranks) + (request.ranks == 1 ? " rank" : " ranks") + ", strategy " +
                          std::string(strategy_name(request.strategy));
    if (is_limited(plan)) summary += " (limit " + std::to_string(request.limit) + ")";
    summary += request.hetero_costs ? ", heterogeneous costs (mean d = " : ", d = ";
    summary += format_s(request.costs.transfer_s) + ", c = " + format_s(request.costs.compute_s);
    if (request.costs.flight_s > 0) summary += " (in flight " + format_s(request.costs.flight_s) + " of d)";
    if (request.hetero_costs) summary += ")";
    if (request.model != TransferModel::overlap)
        summary += ", model " + std::string(transfer_model_name(request.model));
    summary += ", root " + std::to_string(request.root);
    summary += request.commutative ? ", commutative" : ", non-commutative";
    if (request.elements > 1 || plan.segments > 1) {
        summary += ", " + std::to_string(request.elements) + " elements, latency " + format_s(request.latency_s) +
                   ", " + segments_text(plan);
    }
    return summary;
}

// Ranks that send, by send start time (ties in rank order).
std::vector<int32_t> senders_by_start(const Plan& plan) {
    std::vector<int32_t> senders;
    senders.reserve(plan.parent.size());
    for (int32_t rank = 0; rank < static_cast<int32_t>(plan.parent.size()); ++rank) {
        if (plan.parent[static_cast<size_t>(rank)] >= 0) senders.push_back(rank);
    }
    std::stable_sort(senders.begin(), senders.end(), [&](int32_t a, int32_t b) {
        return plan.send_start_s[static_cast<size_t>(a)] < plan.send_start_s[static_cast<size_t>(b)];
    });
    return senders;
}

void put_json_children(std::ostream& out, const Plan& plan) {
    out << '[';
    const size_t ranks = plan.parent.size();
    for (size_t rank = 0; rank < ranks; ++rank) {
        if (rank > 0) out << ", ";
        out << '[';
        for (int32_t i = plan.child_offset[rank]; i < plan.child_offset[rank + 1]; ++i) {
            if (i > plan.child_offset[rank]) out << ", ";
            out << "{\"rank\": " << plan.child_rank[static_cast<size_t>(i)] << ", \"joins\": \"" << joins_word(plan, i)
                << "\"}";
        }
        out << ']';
    }
    out << ']';
}

void write_text_tree(std::ostream& out, const Plan& plan) {
    const PlanRequest& request = plan.request;
    out << "tree (children in fold order; ready = partial result complete";
    if (plan.segments > 1) out << ", times for the whole vector in one piece";
    out << "):\n";
    // (rank, depth, index of the rank in child_rank or -1 for the sink)
    struct Visit {
        int32_t rank;
        int32_t depth;
        int32_t child_index;
    };
    std::vector<Visit> stack{{plan.sink, 0, -1}};
    while (!stack.empty()) {
        const Visit visit = stack.back();
        stack.pop_back();
        const auto r = static_cast<size_t>(visit.rank);
        out << std::string(2 * static_cast<size_t>(std::min(visit.depth, max_indent_levels)), ' ');
        if (visit.depth > max_indent_levels) out << "(depth " << visit.depth << ") ";
        out << "rank " << visit.rank;
        if (visit.child_index >= 0 && !request.commutative) out << "  joins " << joins_word(plan, visit.child_index);
        out << "  ready " << text_s(plan.ready_s[r]);
        if (visit.child_index >= 0) out << "  sends at " << text_s(plan.send_start_s[r]);
        if (const char* role = role_of(plan, visit.rank)) out << "  [" << role << ']';
        out << '\n';
        for (int32_t i = plan.child_offset[r + 1] - 1; i >= plan.child_offset[r]; --i) {
            stack.push_back({plan.child_rank[static_cast<size_t>(i)], visit.depth + 1, i});
        }
    }
}

// When `rank`'s transfer to its parent ends: the simulator's time, or start + d for a plan made without one.
double arrival_s(const Plan& plan, int32_t rank) {
    const auto r = static_cast<size_t>(rank);
    return r < plan.arrive_s.size() ? plan.arrive_s[r] : plan.send_start_s[r] + plan.request.costs.transfer_s;
}

void write_text_schedule(std::ostream& out, const Plan& plan) {
    out << "schedule (transfers by start time" << (plan.segments > 1 ? ", whole vector in one piece" : "") << "):\n";
    for (const int32_t rank : senders_by_start(plan)) {
        const double start_s = plan.send_start_s[static_cast<size_t>(rank)];
        out << "  t=" << text_s(start_s) << "  rank " << rank << " -> rank " << plan.parent[static_cast<size_t>(rank)]
            << "  (arrives " << text_s(arrival_s(plan, rank)) << ")\n";
    }
    if (plan.final_transfer) {  // in one piece, like the lines above
        const bool whole = plan.segments == 1;
        out << "  t=" << text_s(whole ? plan.tree_makespan_s : plan.ready_s[static_cast<size_t>(plan.sink)])
            << "  rank " << plan.sink << " -> rank " << plan.request.root << "  (arrives "
            << text_s(whole ? plan.makespan_s : plan.unsegmented_makespan_s)
            << ")  final transfer of the result to the root\n";
    }
    if (plan.parent.size() == 1) out << "  (none: a single rank already holds the result)\n";
}

// The segments each tree carries (Plan::tree_of), the first tree first.
std::vector<int64_t> segments_per_tree(const Plan& plan) {
    std::vector<int64_t> count(1 + plan.more_trees.size(), 0);
    for (int32_t j = 0; j < plan.segments; ++j) ++count[static_cast<size_t>(plan.tree_of(j))];
    return count;
}

}  // namespace

void put_json_number(std::ostream& out, double x) {
    if (!std::isfinite(x)) {  // JSON has no inf or nan; a validated plan never produces them
        out << "null";
        return;
    }
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, x);
    out.write(buffer, result.ptr - buffer);
}

std::string seconds_text(double x, int significant_digits) {
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%.*g", significant_digits, x);
    return buffer;
}

void write_plan_json(std::ostream& out, const Plan& plan) {
    const PlanRequest& request = plan.request;
    const auto put_int = [&](int32_t x) { out << x; };
    const auto put_double = [&](double x) { put_json_number(out, x); };

    out << "{\n  \"ranks\": " << request.ranks;
    out << ",\n  \"strategy\": \"" << strategy_name(request.strategy) << '"';
    out << ",\n  \"d\": ";
    put_double(request.costs.transfer_s);
    out << ",\n  \"c\": ";
    put_double(request.costs.compute_s);
    out << ",\n  \"flight\": ";
    put_double(request.costs.flight_s);
    out << ",\n  \"limit\": ";
    if (is_limited(plan)) {
        out << request.limit;
    } else {
        out << "null";
    }
    out << ",\n  \"root\": " << request.root;
    out << ",\n  \"commutative\": " << (request.commutative ? "true" : "false");
    out << ",\n  \"model\": \"" << transfer_model_name(request.model) << '"';
    out << ",\n  \"heterogeneous\": " << (request.hetero_costs ? "true" : "false");
    out << ",\n  \"elements\": " << request.elements;
    out << ",\n  \"latency\": ";
    put_double(request.latency_s);
    out << ",\n  \"recv_window\": " << request.recv_window;
    out << ",\n  \"segments_requested\": ";
    if (request.segments == 0) {
        out << "\"auto\"";
    } else {
        out << request.segments;
    }
    out << ",\n  \"segments\": " << plan.segments;
    out << ",\n  \"sink\": " << plan.sink;
    out << ",\n  \"final_transfer\": " << (plan.final_transfer ? "true" : "false");
    out << ",\n  \"makespan\": ";
    put_double(plan.makespan_s);
    out << ",\n  \"tree_makespan\": ";
    put_double(plan.tree_makespan_s);
    out << ",\n  \"unsegmented_makespan\": ";
    put_double(plan.unsegmented_makespan_s);
    out << ",\n  \"lower_bound\": ";
    put_double(plan.lower_bound_s);
    out << ",\n  \"upper_bound\": ";
    put_double(plan.upper_bound_s);
    out << ",\n  \"parent\": ";
    put_json_array(out, plan.parent, put_int);
    out << ",\n  \"children\": ";
    put_json_children(out, plan);
    out << ",\n  \"more_trees\": [";  // the trees after the first (two-tree, multi-tree): parents
    for (size_t t = 0; t < plan.more_trees.size(); ++t) {
        out << (t > 0 ? ", " : "") << "{\"parent\": ";
        put_json_array(out, plan.more_trees[t].parent, put_int);
        out << '}';
    }
    out << ']';
    out << ",\n  \"segments_per_tree\": ";  // how many of the segments go along each tree, the first tree first
    put_json_array(out, segments_per_tree(plan), put_int);
    out << ",\n  \"ready\": ";
    put_json_array(out, plan.ready_s, put_double);
    out << ",\n  \"send_start\": ";
    put_json_array(out, plan.send_start_s, put_double);
    out << ",\n  \"release\": ";
    if (plan.release_s.empty()) {
        out << "null";
    } else {
        put_json_array(out, plan.release_s, put_double);
    }
    out << "\n}\n";
}

void write_plan_text(std::ostream& out, const Plan& plan) {
    out << "reduction plan: " << request_summary(plan, text_s) << '\n';
    write_text_tree(out, plan);
    const size_t trees = 1 + plan.more_trees.size();
    const std::vector<int64_t> carried = segments_per_tree(plan);
    for (size_t t = 1; t < trees; ++t) {
        out << "tree " << t << " of " << trees << " (" << carried[t] << " of the " << plan.segments
            << " segments; the tree above carries " << carried[0] << "), parent by rank:";
        for (int32_t p : plan.more_trees[t - 1].parent) out << ' ' << p;
        out << '\n';
    }
    write_text_schedule(out, plan);
    out << "makespan " << text_s(plan.makespan_s);
    if (plan.segments > 1) {
        out << " in " << segments_text(plan) << "  (whole vector in one piece: " << text_s(plan.unsegmented_makespan_s)
            << ")";
    }
    if (plan.final_transfer) {
        out << "  (tree " << text_s(plan.tree_makespan_s) << " + final transfer "
            << text_s(plan.makespan_s - plan.tree_makespan_s) << ")";
    }
    out << '\n';
    out << "bounds on the optimal makespan for " << plan.request.ranks << (plan.request.ranks == 1 ? " rank" : " ranks")
        << ": lower " << text_s(plan.lower_bound_s) << ", upper " << text_s(plan.upper_bound_s) << '\n';
}

void write_plan_dot(std::ostream& out, const Plan& plan) {
    const PlanRequest& request = plan.request;
    out << "digraph redux_plan {\n";
    out << "  graph [rankdir=BT, labelloc=t, fontname=\"Helvetica\", label=\"" << request_summary(plan, dot_s)
        << "\\nmakespan " << dot_s(plan.makespan_s)
        << (plan.segments > 1 ? " in " + std::to_string(plan.segments) + " segments" : std::string()) << "\"];\n";
    out << "  node [shape=box, fontname=\"Helvetica\"];\n";
    out << "  edge [fontname=\"Helvetica\", fontsize=10];\n";
    const auto ranks = static_cast<int32_t>(plan.parent.size());
    for (int32_t rank = 0; rank < ranks; ++rank) {
        out << "  r" << rank << " [label=\"rank " << rank;
        if (const char* role = role_of(plan, rank)) out << " (" << role << ')';
        out << "\\nready " << dot_s(plan.ready_s[static_cast<size_t>(rank)]) << '"';
        if (rank == plan.sink) out << ", style=filled, fillcolor=lightblue";
        if (rank == request.root) out << ", peripheries=2, penwidth=2";
        out << "];\n";
    }
    // Edges parent by parent, each parent's children in fold order.
    for (int32_t rank = 0; rank < ranks; ++rank) {
        const auto r = static_cast<size_t>(rank);
        for (int32_t i = plan.child_offset[r]; i < plan.child_offset[r + 1]; ++i) {
            const int32_t child = plan.child_rank[static_cast<size_t>(i)];
            out << "  r" << child << " -> r" << rank
                << " [label=\"t=" << dot_s(plan.send_start_s[static_cast<size_t>(child)]);
            if (!request.commutative) out << " (" << joins_word(plan, i) << ")";
            out << "\"];\n";
        }
    }
    if (plan.final_transfer) {
        out << "  r" << plan.sink << " -> r" << request.root << " [label=\"final t=" << dot_s(plan.tree_makespan_s)
            << "\", style=dashed, color=red, fontcolor=red, constraint=false];\n";
    }
    out << "}\n";
}

}  // namespace redux::tools
