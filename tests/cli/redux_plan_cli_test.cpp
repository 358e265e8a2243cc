// Runs the built redux-plan binary (REDUX_PLAN_EXE) and checks what it prints against the planner library.
//
// For every request in a grid (ranks 1..1000, every strategy, both operator kinds, several roots and costs)
// the JSON must parse, carry every documented key, describe a tree consistent with itself, and predict the
// same times as redux::simulate on its own `parent` and as redux::make_plan in-process. Bad command lines must
// exit with status 2 and say why on stderr; --help exits 0; dot output must satisfy Graphviz; text output must
// mention every rank. The layouts rarely if ever need the final sink -> root transfer, so the formatter is also fed a
// plan that has one.
#include "plan/planner.hpp"
#include "plan/predict/simulator.hpp"
#include "plan_format.hpp"
#include "run_command.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <ostream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#ifndef REDUX_PLAN_EXE
#error "REDUX_PLAN_EXE must name the redux-plan binary"
#endif
#ifndef REDUX_DOT_EXE
#define REDUX_DOT_EXE ""
#endif

namespace {

using nlohmann::json;

using redux::testing::CommandResult;
using redux::testing::read_file;
using redux::testing::run_command;
using redux::testing::run_redux_plan;
using redux::testing::shell_quote;
using redux::testing::temp_path;

std::string exact(double x) {
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%.17g", x);
    return buffer;
}

// Equal within 1e-12 relative (exactly equal when both are 0).
void expect_close(double actual, double expected, const std::string& what) {
    const double tolerance = 1e-12 * std::max(std::abs(actual), std::abs(expected));
    EXPECT_LE(std::abs(actual - expected), tolerance) << what << ": " << exact(actual) << " vs " << exact(expected);
}

// ---------------------------------------------------------------------------------------------------------
// Valid requests: JSON against the library.

struct CostCase {
    double d;
    double c;
};
const std::vector<CostCase> cost_cases = {{1, 1}, {1e-6, 3e-7}, {0.5, 2}, {1, 0}, {0, 1}, {2.5e-5, 2.5e-5}};

const std::vector<redux::Strategy> all_strategies = {
    redux::Strategy::optimal,          redux::Strategy::fibonacci,
    redux::Strategy::binomial,         redux::Strategy::transfers_limited,
    redux::Strategy::reducers_limited, redux::Strategy::chain,
    redux::Strategy::binary,           redux::Strategy::ksss,
    redux::Strategy::two_tree};

struct PlanCase {
    int32_t ranks;
    redux::Strategy strategy;
    int32_t limit;  // 0 unless the strategy needs one
    int32_t root;
    bool commutative;
    int cost_index;

    redux::PlanRequest request() const {
        redux::PlanRequest r;
        r.ranks = ranks;
        r.costs = redux::Costs{cost_cases[cost_index].d, cost_cases[cost_index].c};
        r.strategy = strategy;
        r.limit = limit;
        r.root = root;
        r.commutative = commutative;
        return r;
    }

    std::string cli_strategy() const {
        std::string name(redux::strategy_name(strategy));
        std::replace(name.begin(), name.end(), '_', '-');
        return name;
    }

    std::string args() const {
        const CostCase& costs = cost_cases[cost_index];
        std::string a = "--ranks " + std::to_string(ranks) + " --d " + exact(costs.d) + " --c " + exact(costs.c) +
                        " --strategy " + cli_strategy() + " --root " + std::to_string(root);
        if (limit > 0) a += " --limit " + std::to_string(limit);
        if (!commutative) a += " --noncommutative";
        return a;
    }

    std::string name() const {
        std::string n = "n" + std::to_string(ranks) + "_" + cli_strategy();
        if (limit > 0) n += "_k" + std::to_string(limit);
        n += "_root" + std::to_string(root) + (commutative ? "_comm" : "_noncomm") + "_costs" +
             std::to_string(cost_index);
        std::replace(n.begin(), n.end(), '-', '_');
        return n;
    }
};

void PrintTo(const PlanCase& pc, std::ostream* out) { *out << "redux-plan " << pc.args(); }

std::vector<PlanCase> plan_cases() {
    std::vector<PlanCase> cases;
    int next_costs = 0;
    for (const int32_t ranks : {1, 2, 7, 64, 1000}) {
        std::set<int32_t> roots = {0, ranks / 2, ranks - 1};
        for (const redux::Strategy strategy : all_strategies) {
            std::vector<int32_t> limits = {0};
            if (redux::strategy_needs_limit(strategy)) limits = {1, 3};
            for (const int32_t limit : limits) {
                for (const bool commutative : {true, false}) {
                    for (const int32_t root : roots) {
                        cases.push_back({ranks, strategy, limit, root, commutative, next_costs});
                        next_costs = (next_costs + 1) % static_cast<int>(cost_cases.size());
                    }
                }
            }
        }
    }
    return cases;
}

const char* const required_keys[] = {"ranks",
                                     "strategy",
                                     "d",
                                     "c",
                                     "root",
                                     "makespan",
                                     "lower_bound",
                                     "upper_bound",
                                     "parent",
                                     "limit",
                                     "commutative",
                                     "sink",
                                     "final_transfer",
                                     "tree_makespan",
                                     "children",
                                     "ready",
                                     "send_start",
                                     "elements",
                                     "latency",
                                     "recv_window",
                                     "segments",
                                     "segments_requested",
                                     "unsegmented_makespan"};

std::vector<double> doubles_or_empty(const json& value) {
    if (value.is_null()) return {};
    return value.get<std::vector<double>>();
}

class PlanJson : public testing::TestWithParam<PlanCase> {};

TEST_P(PlanJson, MatchesTheLibrary) {
    const PlanCase& pc = GetParam();
    const redux::PlanRequest request = pc.request();
    const int32_t n = pc.ranks;
    SCOPED_TRACE("redux-plan " + pc.args());

    const CommandResult run = run_redux_plan(pc.args());
    ASSERT_EQ(run.exit_status, 0) << run.err;
    EXPECT_TRUE(run.err.empty()) << run.err;
    const json j = json::parse(run.out, nullptr, /*allow_exceptions=*/false);
    ASSERT_TRUE(j.is_object()) << "not a JSON object:\n" << run.out;
    for (const char* key : required_keys) ASSERT_TRUE(j.contains(key)) << "missing key " << key;

    // The request comes back as given, costs exactly.
    EXPECT_EQ(j["ranks"], n);
    EXPECT_EQ(j["strategy"], pc.cli_strategy());
    EXPECT_EQ(j["d"].get<double>(), request.costs.transfer_s);
    EXPECT_EQ(j["c"].get<double>(), request.costs.compute_s);
    EXPECT_EQ(j["root"], pc.root);
    EXPECT_EQ(j["commutative"], pc.commutative);
    if (pc.limit > 0) {
        EXPECT_EQ(j["limit"], pc.limit);
    } else {
        EXPECT_TRUE(j["limit"].is_null());
    }

    // A tree: one sink, parents in range, children listing exactly the parent relation.
    const auto parent = j["parent"].get<std::vector<int32_t>>();
    ASSERT_EQ(static_cast<int32_t>(parent.size()), n);
    ASSERT_EQ(std::count(parent.begin(), parent.end(), -1), 1);
    const auto sink = static_cast<int32_t>(std::find(parent.begin(), parent.end(), -1) - parent.begin());
    EXPECT_EQ(j["sink"], sink);
    for (const int32_t p : parent) ASSERT_TRUE(p >= -1 && p < n);
    EXPECT_EQ(j["final_transfer"], sink != pc.root);
    if (pc.commutative) {
        EXPECT_EQ(sink, pc.root) << "a commutative plan ends on the root";
    }

    const json& children = j["children"];
    ASSERT_TRUE(children.is_array());
    ASSERT_EQ(static_cast<int32_t>(children.size()), n);
    std::vector<int> times_listed(static_cast<size_t>(n), 0);
    for (int32_t r = 0; r < n; ++r) {
        for (const json& step : children[static_cast<size_t>(r)]) {
            const auto child = step.at("rank").get<int32_t>();
            ASSERT_TRUE(child >= 0 && child < n);
            EXPECT_EQ(parent[static_cast<size_t>(child)], r) << "child " << child << " listed under " << r;
            const auto joins = step.at("joins").get<std::string>();
            EXPECT_TRUE(joins == "left" || joins == "right") << joins;
            ++times_listed[static_cast<size_t>(child)];
        }
    }
    for (int32_t r = 0; r < n; ++r) EXPECT_EQ(times_listed[static_cast<size_t>(r)], r == sink ? 0 : 1) << r;

    // The times are the simulator's, on the JSON's own tree.
    const auto ready = j["ready"].get<std::vector<double>>();
    const auto send_start = j["send_start"].get<std::vector<double>>();
    ASSERT_EQ(static_cast<int32_t>(ready.size()), n);
    ASSERT_EQ(static_cast<int32_t>(send_start.size()), n);
    EXPECT_EQ(send_start[static_cast<size_t>(sink)], -1);
    const std::vector<double> release = j.contains("release") ? doubles_or_empty(j["release"]) : std::vector<double>{};
    const redux::Simulation sim = redux::simulate(parent, request.costs, release);
    const double final_s = j["final_transfer"].get<bool>() ? request.costs.transfer_s : 0.0;
    expect_close(j["tree_makespan"], sim.makespan_s, "tree_makespan vs simulate");
    expect_close(j["makespan"], sim.makespan_s + final_s, "makespan vs simulate");
    for (int32_t r = 0; r < n; ++r) {
        expect_close(ready[static_cast<size_t>(r)], sim.ready_s[static_cast<size_t>(r)],
                     "ready of " + std::to_string(r));
        expect_close(send_start[static_cast<size_t>(r)], sim.send_start_s[static_cast<size_t>(r)],
                     "send_start of " + std::to_string(r));
    }

    // And the library, asked in-process, plans the same.
    const redux::Plan plan = redux::make_plan(request);
    EXPECT_EQ(parent, plan.parent);
    EXPECT_EQ(j["sink"], plan.sink);
    expect_close(j["makespan"], plan.makespan_s, "makespan vs make_plan");
    expect_close(j["tree_makespan"], plan.tree_makespan_s, "tree_makespan vs make_plan");
    expect_close(j["lower_bound"], plan.lower_bound_s, "lower_bound vs make_plan");
    expect_close(j["upper_bound"], plan.upper_bound_s, "upper_bound vs make_plan");

    // No tree beats the lower bound on the optimum; the optimal strategy stays under the upper bound.
    const double slack = 1e-12 * std::max(1.0, std::abs(j["tree_makespan"].get<double>()));
    EXPECT_LE(j["lower_bound"].get<double>(), j["tree_makespan"].get<double>() + slack);
    if (pc.strategy == redux::Strategy::optimal) {
        EXPECT_LE(j["tree_makespan"].get<double>(), j["upper_bound"].get<double>() + slack);
    }
}

INSTANTIATE_TEST_SUITE_P(Grid, PlanJson, testing::ValuesIn(plan_cases()),
                         [](const testing::TestParamInfo<PlanCase>& info) { return info.param.name(); });

TEST(ReduxPlanCli, AcceptsStrategyNamesWithUnderscores) {
    const CommandResult run = run_redux_plan("--ranks 9 --d 1 --c 2 --strategy transfers_limited --limit 2");
    ASSERT_EQ(run.exit_status, 0) << run.err;
    const json j = json::parse(run.out);
    EXPECT_EQ(j["strategy"], "transfers-limited");
    EXPECT_EQ(j["limit"], 2);
}

TEST(ReduxPlanCli, DefaultsToOptimalOnRootZero) {
    const CommandResult run = run_redux_plan("--ranks 5 --d 1 --c 1");
    ASSERT_EQ(run.exit_status, 0) << run.err;
    const json j = json::parse(run.out);
    EXPECT_EQ(j["strategy"], "optimal");
    EXPECT_EQ(j["root"], 0);
    EXPECT_EQ(j["commutative"], true);
    EXPECT_TRUE(j["limit"].is_null());
}

// Most of d in flight and c = 0: the optimal tree is a star; JSON carries the time in flight.
TEST(ReduxPlanCli, TimeInFlightMakesTheOptimalTreeAStar) {
    const CommandResult run = run_redux_plan("--ranks 8 --d 1 --c 0 --flight 0.9");
    ASSERT_EQ(run.exit_status, 0) << run.err;
    const json j = json::parse(run.out);
    EXPECT_EQ(j["flight"], 0.9);
    for (int rank = 1; rank < 8; ++rank) EXPECT_EQ(j["parent"][rank], 0) << "rank " << rank;
    EXPECT_NEAR(j["makespan"].get<double>(), 1.6, 1e-12);
}

// An op whose cost is all per application (--c-call = --c) gains nothing from segments: the model keeps the
// vector whole where the same c all per element is cut.
TEST(ReduxPlanCli, AnOpsCostPerApplicationKeepsTheVectorWhole) {
    const std::string base = "--ranks 8 --d 1e-5 --c 2e-3 --elements 64 --latency 5e-6 --segments auto";
    const CommandResult per_element = run_redux_plan(base);
    const CommandResult per_call = run_redux_plan(base + " --c-call 2e-3");
    ASSERT_EQ(per_element.exit_status, 0) << per_element.err;
    ASSERT_EQ(per_call.exit_status, 0) << per_call.err;
    EXPECT_GT(json::parse(per_element.out)["segments"].get<int>(), 1);
    EXPECT_EQ(json::parse(per_call.out)["segments"].get<int>(), 1);
}

TEST(ReduxPlanCli, EqualsSignAndSpaceMeanTheSame) {
    // --d=1e-6 and --d 1e-6 are the same request.
    const CommandResult a = run_redux_plan("--ranks 5 --d=1e-6 --c=1e-7");
    const CommandResult b = run_redux_plan("--ranks 5 --d 1e-6 --c 1e-7");
    ASSERT_EQ(a.exit_status, 0) << a.err;
    EXPECT_EQ(a.out, b.out);
}

TEST(ReduxPlanCli, HandlesAMillionRanks) {
    const CommandResult run = run_redux_plan("--ranks 1000000 --d 1e-6 --c 2e-7");
    ASSERT_EQ(run.exit_status, 0) << run.err;
    EXPECT_NE(run.out.find("\"ranks\": 1000000"), std::string::npos);
    const json j = json::parse(run.out, nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(j.is_discarded());
    EXPECT_EQ(j["parent"].size(), 1000000u);
}

// ---------------------------------------------------------------------------------------------------------
// Bad command lines: status 2, a message on stderr, nothing on stdout.

struct BadCase {
    const char* name;
    const char* args;
    const char* stderr_mentions;  // a word the message should contain ("" for no check)
};

const BadCase bad_cases[] = {
    {"ranks_zero", "--ranks 0 --d 1 --c 1", "ranks"},
    {"ranks_negative", "--ranks -4 --d 1 --c 1", "ranks"},
    {"ranks_not_a_number", "--ranks many --d 1 --c 1", "ranks"},
    {"ranks_overflow", "--ranks 99999999999 --d 1 --c 1", "ranks"},
    {"d_negative", "--ranks 4 --d -1 --c 1", "transfer"},
    {"d_nan", "--ranks 4 --d nan --c 1", "transfer"},
    {"d_inf", "--ranks 4 --d inf --c 1", "transfer"},
    {"d_overflow", "--ranks 4 --d 1e999 --c 1", "transfer"},
    {"d_not_a_number", "--ranks 4 --d fast --c 1", "--d"},
    {"c_negative", "--ranks 4 --d 1 --c -0.5", "compute"},
    {"c_nan", "--ranks 4 --d 1 --c NaN", "compute"},
    {"c_not_a_number", "--ranks 4 --d 1 --c 1s", "--c"},
    {"c_empty", "--ranks 4 --d 1 --c ''", "--c"},
    {"root_too_big", "--ranks 4 --d 1 --c 1 --root 4", "root"},
    {"root_negative", "--ranks 4 --d 1 --c 1 --root -1", "root"},
    {"unknown_strategy", "--ranks 4 --d 1 --c 1 --strategy greedy", "strategy"},
    {"limit_zero", "--ranks 4 --d 1 --c 1 --strategy transfers-limited --limit 0", "limit"},
    {"limit_negative", "--ranks 4 --d 1 --c 1 --strategy reducers-limited --limit -3", "limit"},
    {"limit_not_a_number", "--ranks 4 --d 1 --c 1 --strategy reducers-limited --limit two", "limit"},
    {"transfers_limited_without_limit", "--ranks 4 --d 1 --c 1 --strategy transfers-limited", "limit"},
    {"reducers_limited_without_limit", "--ranks 4 --d 1 --c 1 --strategy reducers-limited", "limit"},
    {"unknown_format", "--ranks 4 --d 1 --c 1 --format xml", "format"},
    {"unknown_option", "--ranks 4 --d 1 --c 1 --frobnicate", "frobnicate"},
    {"missing_ranks", "--d 1 --c 1", "ranks"},
    {"missing_d", "--ranks 4 --c 1", "--d"},
    {"missing_c", "--ranks 4 --d 1", "--c"},
    {"option_without_value", "--ranks 4 --d 1 --c", "--c"},
    {"unexpected_argument", "--ranks 4 --d 1 --c 1 extra", "extra"},
    {"segments_zero", "--ranks 4 --d 1 --c 1 --elements 8 --segments 0", "segments"},
    {"segments_negative", "--ranks 4 --d 1 --c 1 --elements 8 --segments -2", "segments"},
    {"segments_not_a_number", "--ranks 4 --d 1 --c 1 --elements 8 --segments many", "segments"},
    {"segments_without_overlap", "--ranks 4 --d 1 --c 1 --elements 8 --segments 2 --model no-overlap", "overlap"},
    {"elements_zero", "--ranks 4 --d 1 --c 1 --elements 0", "elements"},
    {"elements_not_a_number", "--ranks 4 --d 1 --c 1 --elements 1e6", "elements"},
    {"latency_above_d", "--ranks 4 --d 1 --c 1 --latency 2", "latency"},
    {"latency_negative", "--ranks 4 --d 1 --c 1 --latency -1e-6", "latency"},
    {"latency_nan", "--ranks 4 --d 1 --c 1 --latency nan", "latency"},
    {"latency_not_a_number", "--ranks 4 --d 1 --c 1 --latency short", "--latency"},
    {"recv_window_zero", "--ranks 4 --d 1 --c 1 --recv-window 0", "window"},
    {"flight_above_d", "--ranks 4 --d 1 --c 1 --flight 2", "flight"},
    {"flight_negative", "--ranks 4 --d 1 --c 1 --flight -1e-6", "flight"},
    {"flight_not_a_number", "--ranks 4 --d 1 --c 1 --flight long", "--flight"},
    {"c_call_above_c", "--ranks 4 --d 1 --c 1 --c-call 2", "per application"},
    {"c_call_negative", "--ranks 4 --d 1 --c 1 --c-call -1", "per application"},
};

void PrintTo(const BadCase& bad, std::ostream* out) { *out << "redux-plan " << bad.args; }

class BadArguments : public testing::TestWithParam<BadCase> {};

TEST_P(BadArguments, ExitWithStatus2AndSayWhy) {
    const BadCase& bad = GetParam();
    const CommandResult run = run_redux_plan(bad.args);
    EXPECT_EQ(run.exit_status, 2) << "redux-plan " << bad.args << "\nstderr: " << run.err;
    EXPECT_TRUE(run.out.empty()) << run.out;
    ASSERT_FALSE(run.err.empty());
    const std::string first_line = run.err.substr(0, run.err.find('\n'));
    EXPECT_EQ(first_line.rfind("redux-plan: ", 0), 0u) << first_line;
    EXPECT_NE(first_line.find(bad.stderr_mentions), std::string::npos)
        << "expected '" << bad.stderr_mentions << "' in: " << first_line;
    EXPECT_NE(run.err.find("--help"), std::string::npos) << run.err;
}

INSTANTIATE_TEST_SUITE_P(Cli, BadArguments, testing::ValuesIn(bad_cases),
                         [](const testing::TestParamInfo<BadCase>& info) { return std::string(info.param.name); });

TEST(ReduxPlanCli, HelpExitsZero) {
    const CommandResult run = run_redux_plan("--help");
    EXPECT_EQ(run.exit_status, 0) << run.err;
    for (const char* word :
         {"--ranks", "--d", "--c", "--strategy", "--limit", "--root", "--noncommutative", "--format",
          "transfers-limited", "--segments", "--elements", "--latency", "--recv-window", "chain", "binary", "ksss"}) {
        EXPECT_NE(run.out.find(word), std::string::npos) << word << " not in:\n" << run.out;
    }
}

// ---------------------------------------------------------------------------------------------------------
// Text and dot.

// Every "rank N" the text mentions.
std::set<int32_t> ranks_mentioned(const std::string& text) {
    std::set<int32_t> ranks;
    static const std::regex rank_word(R"(rank (\d+))");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), rank_word); it != std::sregex_iterator(); ++it) {
        ranks.insert(std::stoi((*it)[1].str()));
    }
    return ranks;
}

size_t count_lines_starting(const std::string& text, const std::string& prefix) {
    std::istringstream in(text);
    size_t count = 0;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind(prefix, 0) == 0) ++count;
    }
    return count;
}

const char* const shape_cases[] = {
    "--ranks 1 --d 1 --c 1",
    "--ranks 7 --d 1 --c 1",
    "--ranks 7 --d 1 --c 1 --root 3 --noncommutative",
    "--ranks 64 --d 1e-6 --c 4e-7 --strategy transfers-limited --limit 1 --root 5",
    "--ranks 64 --d 2 --c 1 --strategy reducers-limited --limit 3 --noncommutative --root 63",
    "--ranks 100 --d 1 --c 3 --strategy fibonacci --noncommutative --root 50",
    "--ranks 9 --d 1 --c 0.5 --strategy chain --noncommutative --root 4 --elements 1000 --latency 0.01 --segments 7",
    "--ranks 33 --d 1e-3 --c 1e-4 --strategy binary --elements 1000000 --latency 2e-6 --segments auto",
};

TEST(ReduxPlanCli, TextMentionsEveryRankAndEveryTransfer) {
    for (const char* args : shape_cases) {
        SCOPED_TRACE(args);
        const json j = json::parse(run_redux_plan(args).out);
        const auto n = j["ranks"].get<int32_t>();
        const CommandResult run = run_redux_plan(std::string(args) + " --format text");
        ASSERT_EQ(run.exit_status, 0) << run.err;
        const std::set<int32_t> mentioned = ranks_mentioned(run.out);
        for (int32_t r = 0; r < n; ++r) EXPECT_EQ(mentioned.count(r), 1u) << "rank " << r << " not in:\n" << run.out;
        const size_t transfers = static_cast<size_t>(n - 1) + (j["final_transfer"].get<bool>() ? 1 : 0);
        EXPECT_EQ(count_lines_starting(run.out, "  t="), transfers) << run.out;
        EXPECT_NE(run.out.find("makespan"), std::string::npos);
    }
}

// Runs Graphviz on `dot_text`; empty when it accepts it, else why not.
std::string graphviz_complaint(const std::string& dot_text) {
    const std::string dot_path = temp_path("plan.dot");
    std::ofstream(dot_path) << dot_text;
    const CommandResult svg = run_command(shell_quote(REDUX_DOT_EXE) + " -Tsvg " + shell_quote(dot_path));
    std::remove(dot_path.c_str());
    if (svg.exit_status != 0) return "dot exited with " + std::to_string(svg.exit_status) + ": " + svg.err;
    if (!svg.err.empty()) return "dot warned: " + svg.err;
    if (svg.out.find("<svg") == std::string::npos) return "dot wrote no svg";
    return {};
}

bool have_graphviz() {
    const std::string dot = REDUX_DOT_EXE;
    return !dot.empty() && access(dot.c_str(), X_OK) == 0;
}

TEST(ReduxPlanCli, DotIsAcceptedByGraphviz) {
    if (!have_graphviz()) GTEST_SKIP() << "Graphviz dot not found";
    for (const char* args : shape_cases) {
        SCOPED_TRACE(args);
        const json j = json::parse(run_redux_plan(args).out);
        const CommandResult run = run_redux_plan(std::string(args) + " --format dot");
        ASSERT_EQ(run.exit_status, 0) << run.err;
        EXPECT_EQ(run.out.rfind("digraph", 0), 0u);
        const size_t edges =
            static_cast<size_t>(j["ranks"].get<int32_t>() - 1) + (j["final_transfer"].get<bool>() ? 1 : 0);
        size_t arrows = 0;
        for (size_t at = run.out.find(" -> "); at != std::string::npos; at = run.out.find(" -> ", at + 1)) ++arrows;
        EXPECT_EQ(arrows, edges);

        EXPECT_EQ(graphviz_complaint(run.out), "");
    }
}

// A 7-rank plan whose sink (rank 0) is not the root (rank 4), as the non-commutative layout produces when no
// subset of the sink's subtrees adds up to the root.
redux::Plan plan_with_final_transfer() {
    redux::PlanRequest request;
    request.ranks = 7;
    request.costs = redux::Costs{1, 1};
    request.commutative = false;
    redux::Plan plan = redux::make_plan(request);
    plan.request.root = 4;
    plan.final_transfer = true;
    plan.makespan_s = plan.tree_makespan_s + request.costs.transfer_s;
    return plan;
}

TEST(PlanFormat, ShowsTheFinalTransferToTheRoot) {
    const redux::Plan plan = plan_with_final_transfer();
    ASSERT_EQ(plan.sink, 0);

    std::ostringstream json_out;
    redux::tools::write_plan_json(json_out, plan);
    const json j = json::parse(json_out.str());
    EXPECT_EQ(j["final_transfer"], true);
    EXPECT_EQ(j["sink"], 0);
    EXPECT_EQ(j["root"], 4);
    EXPECT_EQ(j["makespan"].get<double>(), plan.tree_makespan_s + 1);

    std::ostringstream text_out;
    redux::tools::write_plan_text(text_out, plan);
    const std::string text = text_out.str();
    EXPECT_EQ(count_lines_starting(text, "  t="), 7u) << text;
    EXPECT_NE(text.find("rank 0 -> rank 4  (arrives " + std::to_string(static_cast<int>(plan.makespan_s)) + " s)"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("[sink]"), std::string::npos) << text;
    EXPECT_NE(text.find("[root]"), std::string::npos) << text;
    EXPECT_NE(text.find("final transfer"), std::string::npos) << text;

    std::ostringstream dot_out;
    redux::tools::write_plan_dot(dot_out, plan);
    EXPECT_NE(dot_out.str().find("r0 -> r4"), std::string::npos) << dot_out.str();
    if (!have_graphviz()) GTEST_SKIP() << "Graphviz dot not found";
    EXPECT_EQ(graphviz_complaint(dot_out.str()), "");
}

// A chain 0 <- 1 <- ... <- n-1, built by hand: deeper than any builder goes.
redux::Plan chain_plan(int32_t n) {
    redux::Plan plan;
    plan.request.ranks = n;
    plan.request.costs = redux::Costs{1, 1};
    plan.parent.resize(static_cast<size_t>(n));
    plan.child_offset.resize(static_cast<size_t>(n) + 1);
    for (int32_t r = 0; r < n; ++r) {
        plan.parent[static_cast<size_t>(r)] = r - 1;
        plan.child_offset[static_cast<size_t>(r) + 1] = std::min(r + 1, n - 1);
        if (r + 1 < n) plan.child_rank.push_back(r + 1);
    }
    plan.child_joins_left.assign(plan.child_rank.size(), 0);
    const redux::Simulation sim = redux::simulate(plan.parent, plan.request.costs);
    plan.ready_s = sim.ready_s;
    plan.send_start_s = sim.send_start_s;
    plan.tree_makespan_s = plan.makespan_s = sim.makespan_s;
    return plan;
}

TEST(PlanFormat, DeepTreesStopIndentingAndStayReadable) {
    const int32_t n = 2000;
    const redux::Plan plan = chain_plan(n);
    std::ostringstream text_out;
    redux::tools::write_plan_text(text_out, plan);
    const std::string text = text_out.str();
    const std::set<int32_t> mentioned = ranks_mentioned(text);
    for (int32_t r = 0; r < n; ++r) EXPECT_EQ(mentioned.count(r), 1u) << r;
    EXPECT_NE(text.find("(depth 1999) rank 1999"), std::string::npos);
    EXPECT_LT(text.size(), 200u * static_cast<size_t>(n)) << "the text grows faster than the tree";

    std::ostringstream dot_out;
    redux::tools::write_plan_dot(dot_out, plan);
    if (!have_graphviz()) GTEST_SKIP() << "Graphviz dot not found";
    EXPECT_EQ(graphviz_complaint(dot_out.str()), "");
}

}  // namespace
