// Renders redux-plan --steady-state's result as JSON or text (see steady_state_format.hpp). Numbers in JSON are
// exact (put_json_number), text rounds to 9 significant digits like plan_format.cpp.
#include "steady_state_format.hpp"

#include "plan_format.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>

namespace redux::tools {
namespace {

std::string text_s(double x) { return seconds_text(x, 9) + " s"; }
std::string text_number(double x) { return seconds_text(x, 9); }
std::string percent_text(double part, double whole) { return seconds_text(100.0 * part / whole, 4) + " %"; }

double segment_elements(const SteadyStateReport& report) {
    return static_cast<double>(report.request.elements) / report.request.segments;
}
double elements_per_s(const SteadyStateReport& report) { return report.throughput_per_s * segment_elements(report); }

// "3 ranks, d = 1 s, c = 2 s, root 0, commutative, 4000 elements, latency 0.5 s, 4 segments"
std::string request_summary(const PlanRequest& request) {
    std::string summary = std::to_string(request.ranks) + " ranks";
    summary += request.hetero_costs ? ", heterogeneous costs (mean d = " : ", d = ";
    summary += text_s(request.costs.transfer_s) + ", c = " + text_s(request.costs.compute_s);
    if (request.hetero_costs) summary += ")";
    summary += ", root " + std::to_string(request.root);
    summary += request.commutative ? ", commutative" : ", non-commutative";
    summary += ", " + std::to_string(request.elements) + (request.elements == 1 ? " element" : " elements");
    summary += ", latency " + text_s(request.latency_s);
    summary += ", " + std::to_string(request.segments) + (request.segments == 1 ? " segment" : " segments");
    return summary;
}

// "1 s" when every entry is the same, otherwise "0.5 s to 2 s".
std::string range_text(double least, double most) {
    return least == most ? text_s(least) : text_s(least) + " to " + text_s(most);
}

void write_segment_costs(std::ostream& out, const SteadyStateReport& report) {
    const SteadyStatePlatform& platform = report.platform;
    double least_d = std::numeric_limits<double>::infinity(), most_d = 0;
    double least_c = least_d, most_c = 0;
    for (int32_t i = 0; i < platform.size(); ++i) {
        least_c = std::min(least_c, platform.fold_s(i));
        most_c = std::max(most_c, platform.fold_s(i));
        for (int32_t j = 0; j < platform.size(); ++j) {
            if (i == j) continue;
            least_d = std::min(least_d, platform.transfer_s(i, j));
            most_d = std::max(most_d, platform.transfer_s(i, j));
        }
    }
    out << "one segment (" << text_number(segment_elements(report)) << " elements): transfer "
        << range_text(least_d, most_d) << ", fold " << range_text(least_c, most_c) << '\n';
}

void write_text_tree(std::ostream& out, const SteadyStateReport& report, size_t t) {
    const WeightedTree& tree = report.trees[t];
    const TreeAlone& alone = report.forecast.alone[t];
    out << "  tree " << t << ": " << text_number(tree.per_s) << " /s ("
        << percent_text(tree.per_s, report.throughput_per_s) << " of TP); alone " << text_number(alone.throughput_per_s)
        << " /s, one segment in " << text_s(alone.makespan_s) << '\n';
    out << "    transfers ";
    for (size_t i = 0; i < tree.transfers.size(); ++i) {
        const ResultTransfer& x = tree.transfers[i];
        out << (i > 0 ? ", " : "") << to_string(x.value) << ' ' << x.from << "->" << x.to;
    }
    out << "\n    folds     ";
    for (size_t i = 0; i < tree.folds.size(); ++i) {
        const ResultFold& x = tree.folds[i];
        out << (i > 0 ? ", " : "") << to_string(x.left) << '+' << to_string(x.right) << " on " << x.node;
    }
    out << '\n';
}

void put_json_value(std::ostream& out, PartialResult v) { out << '[' << v.first << ", " << v.last << ']'; }

void put_json_tree(std::ostream& out, const WeightedTree& tree, const TreeAlone& alone) {
    out << "{\"weight\": ";
    put_json_number(out, tree.per_s);
    out << ", \"alone_throughput\": ";
    put_json_number(out, alone.throughput_per_s);
    out << ", \"alone_makespan\": ";
    put_json_number(out, alone.makespan_s);
    out << ",\n     \"transfers\": ";
    put_json_array(out, tree.transfers, [&](const ResultTransfer& x) {
        out << "{\"value\": ";
        put_json_value(out, x.value);
        out << ", \"from\": " << x.from << ", \"to\": " << x.to << '}';
    });
    out << ",\n     \"folds\": ";
    put_json_array(out, tree.folds, [&](const ResultFold& x) {
        out << "{\"node\": " << x.node << ", \"left\": ";
        put_json_value(out, x.left);
        out << ", \"right\": ";
        put_json_value(out, x.right);
        out << '}';
    });
    out << '}';
}

void put_json_segment_costs(std::ostream& out, const SteadyStatePlatform& platform) {
    out << ",\n  \"segment_transfer\": [";
    for (int32_t i = 0; i < platform.size(); ++i) {
        out << (i > 0 ? ", " : "") << '[';
        for (int32_t j = 0; j < platform.size(); ++j) {
            if (j > 0) out << ", ";
            if (i == j) {
                out << "null";
            } else {
                put_json_number(out, platform.transfer_s(i, j));
            }
        }
        out << ']';
    }
    out << "],\n  \"segment_fold\": [";
    for (int32_t i = 0; i < platform.size(); ++i) {
        if (i > 0) out << ", ";
        put_json_number(out, platform.fold_s(i));
    }
    out << ']';
}

}  // namespace

void write_steady_state_json(std::ostream& out, const SteadyStateReport& report) {
    const PlanRequest& request = report.request;
    const SteadyStateForecast& forecast = report.forecast;
    const auto field = [&](const char* name, double x) {
        out << ",\n  \"" << name << "\": ";
        put_json_number(out, x);
    };
    const double nan = std::numeric_limits<double>::quiet_NaN();  // written as null

    out << "{\n  \"ranks\": " << request.ranks;
    out << ",\n  \"root\": " << request.root;
    out << ",\n  \"commutative\": " << (request.commutative ? "true" : "false");
    out << ",\n  \"heterogeneous\": " << (request.hetero_costs ? "true" : "false");
    field("d", request.costs.transfer_s);
    field("c", request.costs.compute_s);
    out << ",\n  \"elements\": " << request.elements;
    field("latency", request.latency_s);
    out << ",\n  \"segments\": " << request.segments;
    out << ",\n  \"element_bytes\": ";
    if (report.element_bytes > 0) {
        out << report.element_bytes;
    } else {
        out << "null";
    }
    field("segment_elements", segment_elements(report));
    put_json_segment_costs(out, report.platform);
    out << ",\n  \"solver\": \"" << report.solver << '"';
    out << ",\n  \"rounds\": " << report.rounds;
    out << ",\n  \"lp_rows\": " << report.lp_rows;
    out << ",\n  \"lp_columns\": " << report.lp_columns;
    field("solve_time", report.solve_s);
    field("throughput", report.throughput_per_s);
    field("elements_per_second", elements_per_s(report));
    field("bytes_per_second",
          report.element_bytes > 0 ? elements_per_s(report) * static_cast<double>(report.element_bytes) : nan);
    field("upper_bound", report.upper_bound_per_s);
    out << ",\n  \"trees\": [";
    for (size_t t = 0; t < report.trees.size(); ++t) {
        out << (t > 0 ? ",\n    " : "\n    ");
        put_json_tree(out, report.trees[t], forecast.alone[t]);
    }
    out << (report.trees.empty() ? "]" : "\n  ]");
    out << ",\n  \"best_tree\": " << forecast.best_tree;
    const bool any = forecast.best_tree >= 0;
    field("best_tree_throughput", any ? forecast.alone[static_cast<size_t>(forecast.best_tree)].throughput_per_s : nan);
    field("best_tree_time", forecast.best_tree_time_s);
    out << ",\n  \"fill_tree\": " << forecast.fill_tree;
    field("fill", forecast.fill_s);
    field("predicted_time", forecast.time_s);
    out << "\n}\n";
}

void write_steady_state_text(std::ostream& out, const SteadyStateReport& report) {
    const SteadyStateForecast& forecast = report.forecast;
    const double tp = report.throughput_per_s;
    out << "steady state: " << request_summary(report.request) << '\n';
    write_segment_costs(out, report);
    if (report.solver == "packing") {
        out << "solver: tree packing (column generation), " << report.rounds << " rounds, " << text_s(report.solve_s)
            << "; no flow does better than " << text_number(report.upper_bound_per_s) << " /s\n";
    } else {
        out << "solver: the linear program (" << report.lp_rows << " rows, " << report.lp_columns << " columns), "
            << text_s(report.solve_s) << '\n';
    }
    out << "TP " << text_number(tp) << " reductions of one segment per second = " << text_number(elements_per_s(report))
        << " elements/s";
    if (report.element_bytes > 0) {
        out << " = " << text_number(elements_per_s(report) * static_cast<double>(report.element_bytes)) << " B/s";
    }
    out << '\n';
    if (report.trees.empty()) {
        out << "no tree: some rank cannot reach the root\n";
        return;
    }
    out << report.trees.size() << (report.trees.size() == 1 ? " tree" : " trees")
        << ", weights summing to TP (v[k,l]: the values of ranks k..l reduced; a->b: rank a sends to rank b):\n";
    for (size_t t = 0; t < report.trees.size(); ++t) write_text_tree(out, report, t);
    const auto best = static_cast<size_t>(forecast.best_tree);
    const int32_t segments = report.request.segments;
    out << "best single tree: tree " << best << ", " << text_number(forecast.alone[best].throughput_per_s)
        << " /s alone (" << percent_text(forecast.alone[best].throughput_per_s, tp) << " of TP); " << segments
        << (segments == 1 ? " segment" : " segments") << " along it alone: " << text_s(forecast.best_tree_time_s)
        << '\n';
    out << "predicted time for " << segments << (segments == 1 ? " segment" : " segments") << ": "
        << text_s(forecast.time_s) << " = fill " << text_s(forecast.fill_s) << " (one segment along tree "
        << forecast.fill_tree << ", the slowest alone) + " << segments - 1 << " more at TP ("
        << text_s(forecast.time_s - forecast.fill_s) << ")\n";
}

}  // namespace redux::tools
