// redux-plan --library-tree: the prediction for an MPI library's tree, run as a user runs it. The printed time must
// be the simulator's on the library's tree (built here from study/library_trees.hpp, simulated with the model), the
// options that make no sense with it must exit 2, and an unknown tree must say which ones exist.
#include "run_command.hpp"
#include "study/library_trees.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace {

using nlohmann::json;
using redux::testing::CommandResult;
using redux::testing::run_redux_plan;

json library_json(const std::string& args) { return redux::testing::redux_plan_json(args); }

TEST(ReduxPlanLibraryTree, PrintsTheModelsTimeForTheTree) {
    const redux::Costs costs{2e-6, 3e-6, 1e-6};
    for (const char* name : {"binomial", "knomial:4", "in-order-binary"}) {
        for (const bool commutative : {true, false}) {
            const json j = library_json(std::string("--library-tree ") + name +
                                        " --ranks 37 --root 5 --d 2e-6 --c 3e-6 --flight 1e-6" +
                                        (commutative ? "" : " --noncommutative"));
            const redux::LibraryTree tree = *redux::library_tree(name, 37, 5, commutative);
            EXPECT_EQ(j["library_tree"], name);
            EXPECT_EQ(j["ranks"], 37);
            EXPECT_EQ(j["root"], 5);
            EXPECT_EQ(j["sink"], tree.sink);
            EXPECT_NEAR(j["predicted_s"].get<double>(), redux::predict_library_tree(tree, costs), 1e-14) << name;
        }
    }
}

TEST(ReduxPlanLibraryTree, InOrderBinaryOnThreeRanksAsWorkedByHand) {
    // rank 2 receives ranks 1 and 0 in [0, 2], folds until 3, sends to rank 0 until 4 (library_trees_test.cpp)
    const json j = library_json("--library-tree in-order-binary --ranks 3 --d 1 --c 1 --noncommutative");
    EXPECT_EQ(j["sink"], 2);
    EXPECT_DOUBLE_EQ(j["predicted_s"].get<double>(), 4.0);
    const CommandResult text = run_redux_plan("--library-tree in-order-binary --ranks 3 --d 1 --c 1 --format text");
    EXPECT_EQ(text.exit_status, 0);
    EXPECT_NE(text.out.find("sends the result to rank 0: predicted 4 s"), std::string::npos) << text.out;
}

TEST(ReduxPlanLibraryTree, RefusesWhatDoesNotGoWithIt) {
    for (const char* extra :
         {"--strategy binomial", "--segments 2 --elements 4", "--steady-state", "--limit 2", "--format dot"}) {
        const CommandResult r = run_redux_plan(std::string("--library-tree binomial --ranks 4 --d 1 --c 1 ") + extra);
        EXPECT_EQ(r.exit_status, 2) << extra << "\n" << r.out;
        EXPECT_NE(r.err.find("--library-tree"), std::string::npos) << extra << ": " << r.err;
    }
    const CommandResult unknown = run_redux_plan("--library-tree binary --ranks 4 --d 1 --c 1");
    EXPECT_EQ(unknown.exit_status, 2);
    EXPECT_NE(unknown.err.find("knomial:K"), std::string::npos) << unknown.err;
}

}  // namespace
