// redux-plan: prints the reduction plan libredux would run for N ranks under the costs (d, c), or under the
// per-rank and per-link costs of a cost file.
//
//   redux-plan (--ranks N --d D --c C [--flight F] | --costs FILE [--ranks N])
//              [--strategy NAME (any of redux/algorithms.h: optimal, fibonacci, binomial, snf, ...)]
//              [--limit K] [--root R] [--noncommutative] [--model overlap|no-overlap]
//              [--elements E --latency L --segments auto|M [--recv-window W]] [--format json|text|dot]
//   redux-plan --steady-state (--ranks N --d D --c C | --costs FILE [--ranks N]) [--root R] [--noncommutative]
//              [--elements E --latency L --segments M] [--element-bytes B] [--steady-state-solver packing|lp]
//              [--format json|text]
//   redux-plan --library-tree binomial|knomial:K|in-order-binary (--ranks N --d D --c C | --costs FILE)
//              [--root R] [--noncommutative] [--format json|text]
//
// Segments: the vector of E elements is cut into M segments (auto: the count the model predicts fastest), each
// moved in L + (D - L) e / E and folded in C e / E (plan/predict/segments.cpp).
//
// --steady-state: instead of one plan, the best throughput of a series of reductions of one segment each, the
// steady state of Legrand, Marchal & Robert (plan/steady_state/steady_state_costs.hpp): TP, the weighted trees that
// reach it, the best tree alone, and the time it predicts for the M segments of the vector (steady_state_format.hpp).
//
// --library-tree: the time the model predicts for a tree an MPI library's own reduce runs (study/library_trees.hpp),
// so that a measured "libredux / the library" can be held against the model's ratio.
//
// The command line is parsed into a PlanRequest, checked with redux::validate (so the tool and the library
// reject the same requests), planned with redux::make_plan and written by plan_format. Exit status: 0 on
// success and for --help, 2 for a bad command line (one line on stderr saying what is wrong), 1 otherwise.
#include "model/cost_file.hpp"
#include "plan/planner.hpp"
#include "plan/steady_state/steady_state_costs.hpp"
#include "plan/steady_state/tree_packing.hpp"
#include "plan_format.hpp"
#include "redux/version.h"
#include "steady_state_format.hpp"
#include "study/library_trees.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>

namespace {

constexpr int exit_ok = 0;
constexpr int exit_failure = 1;
constexpr int exit_usage = 2;

enum class OutputFormat { json, text, dot };

// What the command line asked for, as typed; checked and converted by make_request().
struct CommandLine {
    std::string ranks_text;
    std::string transfer_s_text;
    std::string compute_s_text;
    std::string flight_s_text = "0";
    std::string compute_call_s_text = "0";
    std::string costs_path;
    std::string model_text = "overlap";
    std::string strategy_text = "optimal";
    std::string limit_text;
    bool limit_given = false;
    std::string root_text = "0";
    bool noncommutative = false;
    std::string format_text = "json";
    std::string elements_text = "1";
    std::string latency_text = "0";
    std::string segments_text = "1";
    std::string recv_window_text = "2";
    bool steady_state = false;
    std::string steady_state_solver_text = "packing";
    std::string element_bytes_text;
    std::string library_tree_text;
};

int usage_error(const std::string& message) {
    std::cerr << "redux-plan: " << message << "\nRun 'redux-plan --help' for usage.\n";
    return exit_usage;
}

std::string strategy_list(const char* separator) { return redux::strategy_names(separator, redux::any_strategy); }

// Reads the whole of `text` as a decimal integer that fits in int64_t; otherwise explains in `error`.
bool read_int64(const char* option, const std::string& text, int64_t& value, std::string& error) {
    char* end = nullptr;
    errno = 0;
    const long long parsed = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE) {
        error = std::string(option) + ": '" + text + "' is not a 64-bit integer";
        return false;
    }
    value = parsed;
    return true;
}

// The same for int32_t.
bool read_int32(const char* option, const std::string& text, int32_t& value, std::string& error) {
    int64_t wide = 0;
    if (!read_int64(option, text, wide, error) || wide < std::numeric_limits<int32_t>::min() ||
        wide > std::numeric_limits<int32_t>::max()) {
        error = std::string(option) + ": '" + text + "' is not a 32-bit integer";
        return false;
    }
    value = static_cast<int32_t>(wide);
    return true;
}

// Reads the whole of `text` as a number of seconds. Sign and finiteness are redux::validate's business.
bool read_seconds(const char* option, const std::string& text, double& value, std::string& error) {
    char* end = nullptr;
    value = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size()) {
        error = std::string(option) + ": '" + text + "' is not a number of seconds";
        return false;
    }
    return true;
}

std::optional<OutputFormat> parse_format(const std::string& text) {
    if (text == "json") return OutputFormat::json;
    if (text == "text") return OutputFormat::text;
    if (text == "dot") return OutputFormat::dot;
    return std::nullopt;
}

void add_options(CLI::App& app, CommandLine& line) {
    app.add_option("--ranks", line.ranks_text,
                   "number of ranks taking part in the reduction (>= 1); with --costs, implied by the file")
        ->type_name("N");
    app.add_option("--d", line.transfer_s_text, "time to transfer one element between two ranks, in seconds")
        ->type_name("D");
    app.add_option("--c", line.compute_s_text, "time of one application of the operator, in seconds")->type_name("C");
    app.add_option("--c-call", line.compute_call_s_text,
                   "the part of C that every application of the operator pays whatever its length (a dispatch, a "
                   "callback), in seconds: 0 <= A <= C (default 0: all of C per element); a segmented plan pays it "
                   "once per segment")
        ->type_name("A");
    app.add_option("--flight", line.flight_s_text,
                   "the part of D a message spends in flight, leaving the receiver free (LogP's latency), in "
                   "seconds: 0 <= F <= D (default 0, the one-port model)")
        ->type_name("F");
    app.add_option("--costs", line.costs_path,
                   "JSON file of per-rank and per-link costs, instead of --d and --c: "
                   "{\"c\": [c_0, ...], \"d\": [[d_00, d_01, ...], ...]} or "
                   "{\"c\": [...], \"class_of\": [k_0, ...], \"d_class\": [[...], ...]}")
        ->type_name("FILE");
    app.add_option("--model", line.model_text,
                   "overlap: a rank receives while it folds (default); no-overlap: one transfer or fold at a time")
        ->type_name("MODEL");
    app.add_option("--strategy", line.strategy_text, "tree to build: " + strategy_list("|") + " (default optimal)")
        ->type_name("NAME");
    app.add_option("--limit", line.limit_text,
                   "at most K concurrent transfers (transfers-limited) or K reducing ranks (reducers-limited)")
        ->type_name("K");
    app.add_option("--root", line.root_text, "rank that ends with the result (default 0)")->type_name("R");
    app.add_flag("--noncommutative", line.noncommutative,
                 "the operator is not commutative: ranks fold in rank order (the result may need one more transfer)");
    app.add_option("--elements", line.elements_text, "elements in the vector (default 1), for --segments")
        ->type_name("E");
    app.add_option("--latency", line.latency_text,
                   "the part of D that does not grow with the bytes, in seconds: 0 <= L <= D (default 0)")
        ->type_name("L");
    app.add_option("--segments", line.segments_text,
                   "cut the vector into M pipelined segments (at most E), or auto: the count the model predicts "
                   "fastest (default 1)")
        ->type_name("auto|M");
    app.add_option("--recv-window", line.recv_window_text,
                   "receives a rank posts ahead while it folds, with segments (default 2, as the library)")
        ->type_name("W");
    app.add_option("--format", line.format_text, "output: json|text|dot (default json)")->type_name("FORMAT");
    app.add_flag(
        "--steady-state", line.steady_state,
        "instead of a plan, the steady state of a series of reductions of one segment each: the "
        "throughput TP (segments and elements per second), the weighted trees reaching it, the best "
        "single tree's throughput and the time predicted for the M segments (--segments M, not auto); at most " +
            std::to_string(redux::kTreePackingMaxParticipants) + " ranks; json or text");
    app.add_option("--steady-state-solver", line.steady_state_solver_text,
                   "packing: column generation over trees (default, up to " +
                       std::to_string(redux::kTreePackingMaxParticipants) +
                       " ranks); lp: the whole linear program (up to " +
                       std::to_string(redux::kSteadyStateMaxParticipants) + " ranks), for checking")
        ->type_name("SOLVER");
    app.add_option("--element-bytes", line.element_bytes_text,
                   "bytes of one element, with --steady-state: also prints bytes reduced per second")
        ->type_name("B");
    app.add_option("--library-tree", line.library_tree_text,
                   "instead of a plan, the time the model predicts for a tree an MPI library's reduce runs: binomial, "
                   "knomial:K or in-order-binary (study/library_trees.hpp); json or text")
        ->type_name("NAME");
    app.footer("Exit status: 0 on success, 2 for a bad command line or cost file.");
}

// The costs: --ranks, --d and --c, or a cost file (whose size --ranks, if given, must match). With a file the
// homogeneous strategies plan with its mean costs.
bool read_costs(const CommandLine& line, redux::PlanRequest& request, std::string& error) {
    if (line.costs_path.empty()) {
        for (const auto& [option, text] :
             {std::pair{"--ranks", &line.ranks_text}, std::pair{"--d", &line.transfer_s_text},
              std::pair{"--c", &line.compute_s_text}}) {
            if (text->empty()) {
                error = std::string(option) + " is required (or give --costs FILE)";
                return false;
            }
        }
        return read_int32("--ranks", line.ranks_text, request.ranks, error) &&
               read_seconds("--d", line.transfer_s_text, request.costs.transfer_s, error) &&
               read_seconds("--c", line.compute_s_text, request.costs.compute_s, error) &&
               read_seconds("--flight", line.flight_s_text, request.costs.flight_s, error) &&
               read_seconds("--c-call", line.compute_call_s_text, request.costs.compute_call_s, error);
    }
    if (line.compute_call_s_text != "0") {
        error = "--c-call goes with --d and --c";
        return false;
    }
    if (line.flight_s_text != "0") {
        error = "--flight goes with --d and --c (a cost file has no time in flight)";
        return false;
    }
    if (!line.transfer_s_text.empty() || !line.compute_s_text.empty()) {
        error = "--costs replaces --d and --c: give one or the other";
        return false;
    }
    try {
        request.hetero_costs = std::make_shared<const redux::HeteroCosts>(redux::read_cost_file(line.costs_path));
    } catch (const redux::CostFileError& e) {
        error = "--costs " + line.costs_path + ": " + e.what();
        return false;
    }
    request.ranks = request.hetero_costs->size();
    request.costs = request.hetero_costs->mean_costs();
    if (!line.ranks_text.empty()) {
        int32_t ranks = 0;
        if (!read_int32("--ranks", line.ranks_text, ranks, error)) return false;
        if (ranks != request.ranks) {
            error = "--ranks " + line.ranks_text + " does not match the " + std::to_string(request.ranks) +
                    " ranks of " + line.costs_path;
            return false;
        }
    }
    return true;
}

// --elements, --latency, --segments and --recv-window; their ranges are redux::validate's business.
bool read_segments(const CommandLine& line, redux::PlanRequest& request, std::string& error) {
    if (line.segments_text == "auto") {
        request.segments = 0;
    } else if (!read_int32("--segments", line.segments_text, request.segments, error)) {
        return false;
    } else if (request.segments < 1) {
        error = "--segments: M must be at least 1 (or auto), got " + line.segments_text;
        return false;
    }
    return read_int64("--elements", line.elements_text, request.elements, error) &&
           read_seconds("--latency", line.latency_text, request.latency_s, error) &&
           read_int32("--recv-window", line.recv_window_text, request.recv_window, error);
}

// Turns the typed command line into a valid request, or returns nothing with `error` saying why.
std::optional<redux::PlanRequest> make_request(const CommandLine& line, std::string& error) {
    redux::PlanRequest request;
    request.commutative = !line.noncommutative;
    if (!read_costs(line, request, error) || !read_int32("--root", line.root_text, request.root, error)) {
        return std::nullopt;
    }
    const std::optional<redux::TransferModel> model = redux::parse_transfer_model(line.model_text);
    if (!model) {
        error = "--model: unknown model '" + line.model_text + "' (expected overlap or no-overlap)";
        return std::nullopt;
    }
    request.model = *model;
    if (!read_segments(line, request, error)) return std::nullopt;

    const std::optional<redux::Strategy> strategy = redux::parse_strategy(line.strategy_text);
    if (!strategy) {
        error =
            "--strategy: unknown strategy '" + line.strategy_text + "' (expected one of " + strategy_list(", ") + ")";
        return std::nullopt;
    }
    request.strategy = *strategy;

    if (line.limit_given) {
        if (!read_int32("--limit", line.limit_text, request.limit, error)) return std::nullopt;
        if (request.limit < 1) {
            error = "--limit: K must be at least 1, got " + line.limit_text;
            return std::nullopt;
        }
    } else if (redux::strategy_needs_limit(request.strategy)) {
        error = "--strategy " + std::string(redux::strategy_name(request.strategy)) + " needs --limit K";
        return std::nullopt;
    }
    if (!redux::strategy_needs_limit(request.strategy)) request.limit = 0;  // ignored by the other strategies
    if (redux::strategy_needs_hetero_costs(request.strategy) && !request.hetero_costs) {
        error = "--strategy " + std::string(redux::strategy_name(request.strategy)) + " needs --costs FILE";
        return std::nullopt;
    }
    if (request.strategy == redux::Strategy::two_level) {  // the nodes: the cost file's link classes
        request.node_of = redux::read_cost_file_classes(line.costs_path);
        if (request.node_of.empty()) {
            error = "--strategy two-level needs the node of every rank: a --costs FILE with \"class_of\"";
            return std::nullopt;
        }
    }

    error = redux::validate(request);
    if (!error.empty()) return std::nullopt;
    return request;
}

// The options --steady-state leaves out: it finds its own trees, and its model has no receive window. Empty when
// none is given (and --element-bytes goes with --steady-state only).
std::string steady_state_conflict(const CLI::App& app, const CommandLine& line) {
    if (!line.steady_state) {
        for (const char* option : {"--element-bytes", "--steady-state-solver"}) {
            if (app.get_option(option)->count() > 0) return std::string(option) + " goes with --steady-state";
        }
        return {};
    }
    for (const char* option : {"--strategy", "--limit", "--recv-window"}) {
        if (app.get_option(option)->count() > 0) return std::string(option) + " does not go with --steady-state";
    }
    if (line.format_text == "dot") return "--format dot does not go with --steady-state (json or text)";
    if (line.steady_state_solver_text != "packing" && line.steady_state_solver_text != "lp") {
        return "--steady-state-solver: unknown solver '" + line.steady_state_solver_text + "' (expected packing or lp)";
    }
    return {};
}

// Solves the steady state of `report.platform` with the chosen solver into `report`; false with `error` on failure.
bool find_steady_state(redux::tools::SteadyStateReport& report, std::string& error) {
    if (report.solver == "lp") {
        const std::optional<redux::SteadyStateSolution> solution =
            redux::solve_steady_state(report.platform, {}, &error);
        if (!solution) return false;
        report.throughput_per_s = report.upper_bound_per_s = solution->throughput_per_s;
        report.trees = redux::decompose_into_trees(*solution);
        report.lp_rows = solution->lp_rows;
        report.lp_columns = solution->lp_columns;
        report.solve_s = solution->solve_s;
        return true;
    }
    const std::optional<redux::TreePacking> packing = redux::pack_reduction_trees(report.platform, {}, &error);
    if (!packing) return false;
    report.throughput_per_s = packing->solution.throughput_per_s;
    report.upper_bound_per_s = packing->upper_bound_per_s;
    report.trees = packing->trees;
    report.rounds = packing->rounds;
    report.lp_rows = packing->solution.lp_rows;
    report.lp_columns = packing->solution.lp_columns;
    report.solve_s = packing->solution.solve_s;
    return true;
}

// --steady-state: the platform of one segment, the weighted trees of its optimal throughput and their forecast,
// written as `format`. Exit status as main()'s: a platform the solvers refuse is a bad command line.
int run_steady_state(const CommandLine& line, const redux::PlanRequest& request, OutputFormat format) {
    redux::tools::SteadyStateReport report;
    report.request = request;
    report.solver = line.steady_state_solver_text;
    std::string error;
    if (!line.element_bytes_text.empty() &&
        (!read_int64("--element-bytes", line.element_bytes_text, report.element_bytes, error) ||
         report.element_bytes < 1)) {
        return usage_error(error.empty() ? "--element-bytes: B must be at least 1, got " + line.element_bytes_text
                                         : error);
    }
    const int32_t limit =
        report.solver == "lp" ? redux::kSteadyStateMaxParticipants : redux::kTreePackingMaxParticipants;
    std::optional<redux::SteadyStatePlatform> platform = redux::steady_state_platform(request, limit, &error);
    if (platform) error = redux::steady_state_refusal(*platform, limit);
    if (!error.empty()) return usage_error("--steady-state: " + error);
    report.platform = std::move(*platform);

    if (!find_steady_state(report, error)) {
        std::cerr << "redux-plan: --steady-state: " << error << '\n';
        return exit_failure;
    }
    std::stable_sort(report.trees.begin(), report.trees.end(),
                     [](const redux::WeightedTree& a, const redux::WeightedTree& b) { return a.per_s > b.per_s; });
    report.forecast = redux::forecast_steady_state(report.platform, report.trees, request.segments);
    std::ios::sync_with_stdio(false);
    if (format == OutputFormat::text) {
        redux::tools::write_steady_state_text(std::cout, report);
    } else {
        redux::tools::write_steady_state_json(std::cout, report);
    }
    std::cout.flush();
    if (!std::cout) {
        std::cerr << "redux-plan: could not write the steady state to standard output\n";
        return exit_failure;
    }
    return exit_ok;
}

// --library-tree: the prediction for one of the MPI libraries' trees, written as `format`.
int run_library_tree(const CommandLine& line, const redux::PlanRequest& request, OutputFormat format) {
    const std::optional<redux::LibraryTree> tree =
        redux::library_tree(line.library_tree_text, request.ranks, request.root, request.commutative);
    if (!tree) {
        return usage_error("--library-tree: unknown tree '" + line.library_tree_text +
                           "' (expected binomial, knomial:K with 2 <= K <= 1024, or in-order-binary)");
    }
    const double predicted_s = request.hetero_costs ? redux::predict_library_tree(*tree, *request.hetero_costs)
                                                    : redux::predict_library_tree(*tree, request.costs);
    std::cout.precision(9);
    if (format == OutputFormat::text) {
        std::cout << tree->name << " tree over " << request.ranks << " ranks, ends on rank " << tree->sink
                  << (tree->sink != tree->root ? ", which sends the result to rank " + std::to_string(tree->root) : "")
                  << ": predicted " << predicted_s << " s\n";
    } else {
        std::cout << "{\"library_tree\": \"" << tree->name << "\", \"ranks\": " << request.ranks
                  << ", \"root\": " << tree->root << ", \"sink\": " << tree->sink
                  << ", \"predicted_s\": " << predicted_s << "}\n";
    }
    return exit_ok;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Prints the reduction tree and schedule libredux plans for N ranks under the cost model (d, c).",
                 "redux-plan"};
    CommandLine line;
    add_options(app, line);
    app.set_version_flag("--version", "redux-plan (libredux) " REDUX_VERSION_STRING);
    try {
        app.parse(argc, argv);
        line.limit_given = app.get_option("--limit")->count() > 0;
    } catch (const CLI::CallForVersion& e) {
        std::cout << e.what() << '\n';
        return exit_ok;
    } catch (const CLI::CallForHelp&) {
        std::cout << app.help();
        return exit_ok;
    } catch (const CLI::CallForAllHelp&) {
        std::cout << app.help("", CLI::AppFormatMode::All);
        return exit_ok;
    } catch (const CLI::ParseError& e) {
        return usage_error(e.what());
    }

    std::string error = steady_state_conflict(app, line);
    if (!error.empty()) return usage_error(error);
    const std::optional<redux::PlanRequest> request = make_request(line, error);
    if (!request) return usage_error(error);
    const std::optional<OutputFormat> format = parse_format(line.format_text);
    if (!format) return usage_error("--format: unknown format '" + line.format_text + "' (expected json, text or dot)");
    if (!line.library_tree_text.empty()) {
        for (const char* option : {"--strategy", "--limit", "--segments", "--steady-state"}) {
            if (app.get_option(option)->count() > 0) {
                return usage_error(std::string(option) + " does not go with --library-tree");
            }
        }
        if (*format == OutputFormat::dot) return usage_error("--format dot does not go with --library-tree");
        return run_library_tree(line, *request, *format);
    }
    if (line.steady_state) {
        try {
            return run_steady_state(line, *request, *format);
        } catch (const std::exception& e) {
            std::cerr << "redux-plan: --steady-state: " << e.what() << '\n';
            return exit_failure;
        }
    }

    try {
        const redux::Plan plan = redux::make_plan(*request);
        std::ios::sync_with_stdio(false);
        switch (*format) {
            case OutputFormat::json:
                redux::tools::write_plan_json(std::cout, plan);
                break;
            case OutputFormat::text:
                redux::tools::write_plan_text(std::cout, plan);
                break;
            case OutputFormat::dot:
                redux::tools::write_plan_dot(std::cout, plan);
                break;
        }
        std::cout.flush();
        if (!std::cout) {
            std::cerr << "redux-plan: could not write the plan to standard output\n";
            return exit_failure;
        }
    } catch (const std::exception& e) {
        std::cerr << "redux-plan: " << e.what() << '\n';
        return exit_failure;
    }
    return exit_ok;
}
