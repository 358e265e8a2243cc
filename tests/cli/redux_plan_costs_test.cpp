// redux-plan --costs FILE and --model: heterogeneous costs from a JSON file, run as a user runs them. The JSON
// must keep the planner's keys, its makespan must be the simulator's on the printed tree under the file's costs
// and the requested model, the paper's examples must come out as worked by hand, the per-class form must mean
// the same as the per-pair form, and bad files or combinations must exit 2 with a message.
#include "model/hetero_costs.hpp"
#include "plan/predict/simulator.hpp"
#include "run_command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

namespace {

using nlohmann::json;
using redux::testing::CommandResult;
using redux::testing::run_command;
using redux::testing::run_redux_plan;
using redux::testing::shell_quote;
using redux::testing::temp_path;

// Writes `text` to a scratch file and returns its path.
std::string cost_file(const std::string& name, const std::string& text) {
    const std::string path = temp_path(name);
    std::ofstream(path) << text;
    return path;
}

json plan_json(const std::string& args) { return redux::testing::redux_plan_json(args); }

// Liu & Wang's Figure 1 cluster: transmission times 10, 5, 5, 5, 4, 2, 2 (d depends on the sender only), c = 0.
const std::string kSevenNodes = R"({"c": 0, "d": [[0,10,10,10,10,10,10],[5,0,5,5,5,5,5],[5,5,0,5,5,5,5],
    [5,5,5,0,5,5,5],[4,4,4,4,0,4,4],[2,2,2,2,2,0,2],[2,2,2,2,2,2,0]]})";

redux::HeteroCosts seven_nodes() {
    std::vector<double> d(49);
    const double t[] = {10, 5, 5, 5, 4, 2, 2};
    for (int i = 0; i < 7; ++i) {
        for (int j = 0; j < 7; ++j) d[i * 7 + j] = i == j ? 0 : t[i];
    }
    return {std::vector<double>(7, 0.0), d};
}

TEST(ReduxPlanCosts, SnfOnLiuAndWangsClusterTakesElevenWithoutOverlap) {
    const std::string path = cost_file("seven.json", kSevenNodes);
    const json j = plan_json("--costs " + shell_quote(path) + " --strategy snf --model no-overlap");
    EXPECT_EQ(j["ranks"], 7);
    EXPECT_EQ(j["model"], "no-overlap");
    EXPECT_EQ(j["heterogeneous"], true);
    EXPECT_EQ(j["sink"], 0);
    EXPECT_DOUBLE_EQ(j["makespan"].get<double>(), 11.0);  // worked by hand from their Figure 2 (snf_test.cpp)
}

TEST(ReduxPlanCosts, MakespanIsTheSimulatorsUnderTheFileAndTheModel) {
    const std::string path = cost_file("seven.json", kSevenNodes);
    const redux::HeteroCosts costs = seven_nodes();
    for (const std::string strategy : {"optimal", "fibonacci", "binomial", "snf", "hetero-greedy"}) {
        for (const auto model : {redux::TransferModel::overlap, redux::TransferModel::no_overlap}) {
            for (const int root : {0, 3}) {
                const std::string model_name(redux::transfer_model_name(model));
                const json j = plan_json("--costs " + shell_quote(path) + " --strategy " + strategy + " --model " +
                                         model_name + " --root " + std::to_string(root));
                for (const char* key : {"ranks", "strategy", "d", "c", "limit", "root", "commutative", "sink",
                                        "final_transfer", "makespan", "tree_makespan", "lower_bound", "upper_bound",
                                        "parent", "children", "ready", "send_start", "release"}) {
                    EXPECT_TRUE(j.contains(key)) << key;
                }
                const auto parent = j["parent"].get<std::vector<int32_t>>();
                const redux::Simulation sim = redux::simulate(parent, costs, model);
                EXPECT_DOUBLE_EQ(j["makespan"].get<double>(), sim.makespan_s) << strategy << " " << model_name;
                EXPECT_EQ(j["sink"], root);
                EXPECT_LE(j["lower_bound"].get<double>(), j["makespan"].get<double>());
            }
        }
    }
}

TEST(ReduxPlanCosts, LinkClassesMeanTheSameAsThePairsTheyExpandTo) {
    // Two nodes of three ranks: 1 inside a node, 4 from node 0 to node 1, 6 back; c per rank.
    const std::string classes = cost_file("classes.json", R"({"c": [1, 1, 1, 2, 2, 2], "class_of": [0, 0, 0, 1, 1, 1],
        "d_class": [[1, 4], [6, 1]]})");
    std::string rows;
    const int node[] = {0, 0, 0, 1, 1, 1};
    for (int i = 0; i < 6; ++i) {
        rows += i ? ",[" : "[";
        for (int k = 0; k < 6; ++k) {
            const int d = node[i] == node[k] ? 1 : (node[i] == 0 ? 4 : 6);
            rows += (k ? "," : "") + std::to_string(i == k ? 0 : d);
        }
        rows += "]";
    }
    const std::string pairs = cost_file("pairs.json", R"({"c": [1, 1, 1, 2, 2, 2], "d": [)" + rows + "]}");
    for (const std::string strategy : {"hetero-greedy", "snf", "optimal"}) {
        const std::string rest = " --strategy " + strategy + " --root 4";
        EXPECT_EQ(run_redux_plan("--costs " + shell_quote(classes) + rest).out,
                  run_redux_plan("--costs " + shell_quote(pairs) + rest).out)
            << strategy;
    }
    // A number for d: every pair alike, which is the homogeneous model of --d and --c.
    const std::string uniform = cost_file("uniform.json", R"({"c": [0.5, 0.5, 0.5, 0.5, 0.5], "d": 1})");
    const json from_file = plan_json("--costs " + shell_quote(uniform));
    const json from_flags = plan_json("--ranks 5 --d 1 --c 0.5");
    EXPECT_EQ(from_file["parent"], from_flags["parent"]);
    EXPECT_EQ(from_file["makespan"], from_flags["makespan"]);
}

TEST(ReduxPlanCosts, NoOverlapModelWithHomogeneousCosts) {
    // Three ranks, d = c = 1: the optimal tree is a star, d + max(d, c) + c = 3 with overlap; without overlap
    // the sink receives and folds one element after the other: 2 (d + c) = 4.
    EXPECT_DOUBLE_EQ(plan_json("--ranks 3 --d 1 --c 1")["makespan"].get<double>(), 3.0);
    const json j = plan_json("--ranks 3 --d 1 --c 1 --model no-overlap");
    EXPECT_EQ(j["model"], "no-overlap");
    EXPECT_DOUBLE_EQ(j["makespan"].get<double>(), 4.0);
}

TEST(ReduxPlanCosts, TextSaysTheCostsAreHeterogeneous) {
    const std::string path = cost_file("seven.json", kSevenNodes);
    const CommandResult r = run_redux_plan("--costs " + shell_quote(path) + " --strategy snf --format text");
    EXPECT_EQ(r.exit_status, 0);
    EXPECT_NE(r.out.find("heterogeneous costs"), std::string::npos) << r.out;
}

struct BadCostCase {
    const char* name;
    std::string file;  // empty: no file written, the arguments say it all
    std::string args;  // FILE stands for the file's path
};

TEST(ReduxPlanCosts, BadFilesAndCombinationsExitTwo) {
    const std::vector<BadCostCase> cases = {
        {"missing_file", "", "--costs /nonexistent/costs.json"},
        {"not_json", "{c: 1", "--costs FILE"},
        {"not_an_object", "[1, 2]", "--costs FILE"},
        {"no_c", R"({"d": [[0, 1], [1, 0]]})", "--costs FILE"},
        {"no_d", R"({"c": [1, 1]})", "--costs FILE"},
        {"not_square", R"({"c": [1, 1], "d": [[0, 1], [1]]})", "--costs FILE"},
        {"sizes_differ", R"({"c": [1, 1, 1], "d": [[0, 1], [1, 0]]})", "--costs FILE"},
        {"negative", R"({"c": [1, 1], "d": [[0, -1], [1, 0]]})", "--costs FILE"},
        {"not_a_number", R"({"c": [1, "x"], "d": 1})", "--costs FILE"},
        {"class_out_of_range", R"({"c": 1, "class_of": [0, 2], "d_class": [[1, 2], [2, 1]]})", "--costs FILE"},
        {"class_without_matrix", R"({"c": 1, "class_of": [0, 1]})", "--costs FILE"},
        {"both_forms", R"({"c": 1, "d": 1, "class_of": [0], "d_class": [[1]]})", "--costs FILE"},
        {"unknown_field", R"({"c": 1, "d": 1, "ranks": 4})", "--costs FILE"},
        {"size_not_given", R"({"c": 1, "d": 1})", "--costs FILE"},
        {"ranks_disagree", R"({"c": [1, 1], "d": 1})", "--costs FILE --ranks 3"},
        {"costs_and_d", R"({"c": [1, 1], "d": 1})", "--costs FILE --d 1"},
        {"snf_noncommutative", R"({"c": [1, 1], "d": 1})", "--costs FILE --strategy snf --noncommutative"},
        {"snf_without_costs", "", "--ranks 4 --d 1 --c 1 --strategy snf"},
        {"greedy_without_costs", "", "--ranks 4 --d 1 --c 1 --strategy hetero-greedy"},
        {"unknown_model", "", "--ranks 4 --d 1 --c 1 --model sometimes"},
        {"no_costs_at_all", "", "--ranks 4"},
    };
    for (const BadCostCase& c : cases) {
        std::string args = c.args;
        if (!c.file.empty()) args.replace(args.find("FILE"), 4, shell_quote(cost_file("bad.json", c.file)));
        const CommandResult r = run_redux_plan(args);
        EXPECT_EQ(r.exit_status, 2) << c.name << ": " << r.err;
        EXPECT_EQ(r.out, "") << c.name;
        EXPECT_NE(r.err.find("redux-plan: "), std::string::npos) << c.name;
    }
}

}  // namespace
