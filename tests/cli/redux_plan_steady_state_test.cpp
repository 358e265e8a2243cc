// redux-plan --steady-state: the throughput of a series of reductions of one segment each, run as a user runs it.
// The printed TP must be the one derived by hand below, the tree weights must sum to it, each tree's throughput
// alone must be its own bottleneck recomputed here from the printed transfers and folds, the predicted time the
// fill plus the further segments at TP; per-link costs must give what the library gives in-process; and what the
// solvers cannot do (too many ranks, no segment count, other options) must exit 2 with a message.
#include "model/cost_file.hpp"
#include "plan/steady_state/steady_state_costs.hpp"
#include "plan/steady_state/tree_packing.hpp"
#include "run_command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace {

using nlohmann::json;
using redux::testing::CommandResult;
using redux::testing::run_redux_plan;
using redux::testing::shell_quote;
using redux::testing::temp_path;

json steady_state_json(const std::string& args) {
    return redux::testing::redux_plan_json("--steady-state " + args, /*quiet=*/true);
}

// 4 ranks, d = 2.5 s of which 0.5 s latency, c = 12 s, a vector of 4000 elements in 4 segments of 1000: one
// segment moves in d_e = 0.5 + 2 / 4 = 1 s and folds in c_e = 12 / 4 = 3 s.
//
// TP by hand. A reduction of 4 values takes 3 folds (each joins two partial results into one), 3 s each on some
// rank; the 4 ranks fold at most 4 s per second together, so TP <= 4 / (3 x 3) = 4/9. (Ranks 1-3 must each send
// at least once a reduction, TP <= 1 / d_e = 1: not what binds.) Four trees at 1/9 per second each reach it, each
// leaving a different rank without a fold:
//     no fold on 3:  3 -> 2 -> 1 -> 0, folds v[2,3] on 2, v[1,3] on 1, v[0,3] on 0;
//     no fold on 2:  2 -> 3 (v[2,3] on 3), 3 -> 1 (v[1,3] on 1), 1 -> 0 (v[0,3] on 0);
//     no fold on 1:  1 -> 2 (v[1,2] on 2), 2 -> 3 (v[1,3] on 3), 3 -> 0 (v[0,3] on 0);
//     no fold on 0:  0 -> 1 (v[0,1] on 1), 2 -> 3 (v[2,3] on 3), 1 -> 2 and 3 -> 2 (v[0,3] on 2), 2 -> 0.
// Each rank folds in three of them, 3 x 1/9 x 3 s = 1 s per second: all of its time; the busiest port, rank 2's
// send (once in three trees, twice in the last), is busy 5/9. So TP = 4/9 segments per second: 4000/9 elements
// per second, 32000/9 B/s with 8-byte elements. No single tree alone does better than 1/3 per second: some rank
// does at least one of its folds, 3 s a reduction.
const char* const kHandDerived =
    "--ranks 4 --d 2.5 --latency 0.5 --c 12 --elements 4000 --segments 4 --element-bytes 8";
constexpr double kTransferS = 1.0;  // d_e
constexpr double kFoldS = 3.0;      // c_e
constexpr double kThroughput = 4.0 / 9;

// A tree's busiest port or folding per reduction, from its printed transfers and folds, with every transfer
// kTransferS and every fold kFoldS: 1 over it is what the tree can do alone.
double alone_throughput(const json& tree, int ranks) {
    const auto n = static_cast<size_t>(ranks);
    std::vector<double> send(n, 0.0), receive(n, 0.0), fold(n, 0.0);
    for (const json& transfer : tree["transfers"]) {
        send[transfer["from"].get<size_t>()] += kTransferS;
        receive[transfer["to"].get<size_t>()] += kTransferS;
    }
    for (const json& f : tree["folds"]) fold[f["node"].get<size_t>()] += kFoldS;
    double busiest = 0;
    for (const std::vector<double>* busy : {&send, &receive, &fold}) {
        busiest = std::max(busiest, *std::max_element(busy->begin(), busy->end()));
    }
    return 1.0 / busiest;
}

void expect_hand_derived(const json& j) {
    EXPECT_EQ(j["ranks"], 4);
    EXPECT_EQ(j["segments"], 4);
    EXPECT_EQ(j["segment_elements"].get<double>(), 1000.0);
    for (const json& row : j["segment_transfer"]) {
        for (const json& d : row) {
            if (!d.is_null()) {
                EXPECT_DOUBLE_EQ(d.get<double>(), kTransferS);
            }
        }
    }
    for (const json& c : j["segment_fold"]) EXPECT_DOUBLE_EQ(c.get<double>(), kFoldS);

    const double tp = j["throughput"].get<double>();
    EXPECT_NEAR(tp, kThroughput, 1e-9);
    EXPECT_NEAR(j["elements_per_second"].get<double>(), 4000.0 / 9, 1e-6);
    EXPECT_NEAR(j["bytes_per_second"].get<double>(), 32000.0 / 9, 1e-5);
    EXPECT_GE(j["upper_bound"].get<double>(), tp - 1e-12);

    double weights = 0, longest_s = 0, best = 0;
    ASSERT_FALSE(j["trees"].empty());
    for (const json& tree : j["trees"]) {
        weights += tree["weight"].get<double>();
        const double alone = tree["alone_throughput"].get<double>();
        EXPECT_NEAR(alone, alone_throughput(tree, 4), 1e-12) << tree.dump();
        EXPECT_LE(alone, 1.0 / 3 + 1e-12);
        best = std::max(best, alone);
        longest_s = std::max(longest_s, tree["alone_makespan"].get<double>());
    }
    EXPECT_NEAR(weights, tp, 1e-9 * tp);
    EXPECT_EQ(j["best_tree_throughput"].get<double>(), best);
    EXPECT_EQ(j["trees"][j["best_tree"].get<size_t>()]["alone_throughput"].get<double>(), best);
    EXPECT_EQ(j["fill"].get<double>(), longest_s);
    EXPECT_NEAR(j["predicted_time"].get<double>(), longest_s + 3 / kThroughput, 1e-9);
}

TEST(ReduxPlanSteadyState, HandDerivedThroughputByTreePacking) {
    const json j = steady_state_json(kHandDerived);
    EXPECT_EQ(j["solver"], "packing");
    expect_hand_derived(j);
}

TEST(ReduxPlanSteadyState, HandDerivedThroughputByTheLinearProgram) {
    const json j = steady_state_json(std::string(kHandDerived) + " --steady-state-solver lp");
    EXPECT_EQ(j["solver"], "lp");
    EXPECT_GT(j["lp_columns"].get<int>(), 0);
    expect_hand_derived(j);  // the weights come from decompose_into_trees here, not from the solver
}

// The same ranks with c = 2 s: c_e = 0.5 s, and now the transfers bind. Ranks 1-3 must each send at least once a
// reduction (their values must leave them), so TP <= 1 / d_e = 1 per second; the chain 3 -> 2 -> 1 -> 0 reaches
// it (every port busy 1 s and every folding 0.5 s a reduction). A segment cost without its latency (2.5 / 4 =
// 0.625 s) would give 1.6.
TEST(ReduxPlanSteadyState, HandDerivedTransferBoundThroughput) {
    for (const char* solver : {"packing", "lp"}) {
        const json j = steady_state_json(
            std::string("--ranks 4 --d 2.5 --latency 0.5 --c 2 --elements 4000 --segments 4 --steady-state-solver ") +
            solver);
        const double tp = j["throughput"].get<double>();
        EXPECT_NEAR(tp, 1.0, 1e-9) << solver;
        double weights = 0;
        for (const json& tree : j["trees"]) weights += tree["weight"].get<double>();
        EXPECT_NEAR(weights, tp, 1e-9) << solver;
    }
}

TEST(ReduxPlanSteadyState, TextSaysTheThroughputAndTheTrees) {
    const CommandResult r = run_redux_plan(std::string("--steady-state ") + kHandDerived + " --format text");
    ASSERT_EQ(r.exit_status, 0) << r.err;
    for (const char* text :
         {"one segment (1000 elements): transfer 1 s, fold 3 s",
          "TP 0.444444444 reductions of one segment per second = 444.444444 elements/s = "
          "3555.55556 B/s",
          "tree 0: ", "transfers ", "folds     ", "best single tree: tree ", "predicted time for 4 segments: "}) {
        EXPECT_NE(r.out.find(text), std::string::npos) << text << " not in:\n" << r.out;
    }
}

TEST(ReduxPlanSteadyState, PerLinkCostsMatchTheLibrary) {
    // Two nodes of three ranks: fast links within a node, slow across; uneven folds; the root on the second node.
    const std::string path = temp_path("steady_costs.json");
    std::ofstream(path) << R"({"c": [1e-4, 1e-4, 2e-4, 2e-4, 1e-4, 3e-4], "class_of": [0, 0, 0, 1, 1, 1],
                               "d_class": [[1e-4, 8e-4], [8e-4, 2e-4]]})";
    const json j = steady_state_json("--costs " + shell_quote(path) +
                                     " --root 4 --elements 65536 --segments 16 --latency 2e-5 --noncommutative");
    EXPECT_EQ(j["heterogeneous"], true);
    EXPECT_EQ(j["commutative"], false);

    redux::PlanRequest request;
    request.hetero_costs = std::make_shared<const redux::HeteroCosts>(redux::read_cost_file(path));
    request.ranks = 6;
    request.costs = request.hetero_costs->mean_costs();
    request.root = 4;
    request.commutative = false;
    request.elements = 65536;
    request.segments = 16;
    request.latency_s = 2e-5;
    const auto platform = redux::steady_state_platform(request, redux::kTreePackingMaxParticipants);
    ASSERT_TRUE(platform);
    const auto packing = redux::pack_reduction_trees(*platform);
    ASSERT_TRUE(packing);
    const double tp = j["throughput"].get<double>();
    EXPECT_NEAR(tp, packing->solution.throughput_per_s, 1e-9 * tp);
    EXPECT_EQ(j["segment_transfer"][3][4].get<double>(), platform->transfer_s(3, 4));
    EXPECT_EQ(j["segment_transfer"][0][5].get<double>(), platform->transfer_s(0, 5));
    EXPECT_EQ(j["segment_fold"][5].get<double>(), platform->fold_s(5));
    double weights = 0;
    for (const json& tree : j["trees"]) weights += tree["weight"].get<double>();
    EXPECT_NEAR(weights, tp, 1e-9 * tp);
    EXPECT_TRUE(j["bytes_per_second"].is_null());
}

struct Refusal {
    const char* args;
    const char* says;
};

TEST(ReduxPlanSteadyState, RefusesWithAMessage) {
    const Refusal refusals[] = {
        {"--steady-state --ranks 65 --d 1 --c 1", "65 ranks, above the limit of 64 participants"},
        {"--steady-state --ranks 13 --d 1 --c 1 --steady-state-solver lp", "above the limit of 12"},
        {"--steady-state --ranks 4 --d 1 --c 1 --segments auto", "segment count"},
        {"--steady-state --ranks 4 --d 1 --c 1 --elements 2 --segments 3", "no element"},
        {"--steady-state --ranks 4 --d 1 --c 1 --strategy chain", "--strategy does not go with --steady-state"},
        {"--steady-state --ranks 4 --d 1 --c 1 --recv-window 3", "--recv-window does not go"},
        {"--steady-state --ranks 4 --d 1 --c 1 --format dot", "--format dot does not go"},
        {"--steady-state --ranks 4 --d 1 --c 1 --model no-overlap", "overlap model"},
        {"--steady-state --ranks 4 --d 1 --c 1 --flight 0.5", "in flight"},
        {"--steady-state --ranks 1 --d 1 --c 1", "at least two participants"},
        {"--steady-state --ranks 4 --d 0 --c 0", "unbounded"},
        {"--steady-state --ranks 4 --d 1 --c 1 --steady-state-solver simplex", "unknown solver 'simplex'"},
        {"--steady-state --ranks 4 --d 1 --c 1 --element-bytes 0", "--element-bytes: B must be at least 1"},
        {"--ranks 4 --d 1 --c 1 --element-bytes 8", "--element-bytes goes with --steady-state"},
    };
    for (const Refusal& refusal : refusals) {
        const CommandResult r = run_redux_plan(refusal.args);
        EXPECT_EQ(r.exit_status, 2) << refusal.args;
        EXPECT_TRUE(r.out.empty()) << refusal.args << "\n" << r.out;
        EXPECT_NE(r.err.find(refusal.says), std::string::npos) << refusal.args << "\n" << r.err;
    }
}

TEST(ReduxPlanSteadyState, HelpMentionsIt) {
    const CommandResult r = run_redux_plan("--help");
    EXPECT_EQ(r.exit_status, 0);
    for (const char* word : {"--steady-state", "--steady-state-solver", "--element-bytes"}) {
        EXPECT_NE(r.out.find(word), std::string::npos) << word;
    }
}

}  // namespace
