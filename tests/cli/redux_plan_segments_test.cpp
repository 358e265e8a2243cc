// redux-plan --elements E --latency L --segments auto|M [--recv-window W]: segmented plans from the command line.
// The JSON must carry the segment count and the segmented predictions of redux::make_plan asked in-process, the
// unsegmented makespan of the same tree, and, for a chain with free folds, the encyclopedia's (p + m - 2) steps of
// one segment, written out here; text and dot must say how many segments.
#include "plan/planner.hpp"
#include "run_command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <string>
#include <vector>

namespace {

using nlohmann::json;
using redux::testing::CommandResult;
using redux::testing::run_redux_plan;

json plan_json(const std::string& args) { return redux::testing::redux_plan_json(args, /*quiet=*/true); }

struct SegmentCase {
    const char* strategy;
    int32_t ranks;
    int32_t root;
    bool commutative;
    int64_t elements;
    double latency_s;
    int32_t segments;  // 0: auto
    int32_t window;
};

const SegmentCase kCases[] = {
    {"optimal", 16, 0, true, 1 << 20, 2e-6, 0, 2}, {"binary", 33, 5, true, 1 << 20, 2e-6, 0, 2},
    {"chain", 9, 4, false, 1000, 1e-5, 0, 1},      {"chain", 9, 8, false, 1000, 1e-5, 7, 2},
    {"fibonacci", 20, 3, false, 77, 0, 200, 3},    {"binomial", 64, 63, true, 100000, 1e-6, 12, 2},
    {"binomial", 5, 0, true, 1 << 20, 4e-4, 0, 2},  // latency = d: one segment
};

TEST(ReduxPlanSegments, MatchTheLibrary) {
    for (const SegmentCase& c : kCases) {
        const double d = 4e-4, compute = 1e-4;
        std::string args = "--ranks " + std::to_string(c.ranks) + " --d 4e-4 --c 1e-4 --strategy " + c.strategy +
                           " --root " + std::to_string(c.root) + " --elements " + std::to_string(c.elements) +
                           " --latency " + json(c.latency_s).dump() + " --recv-window " + std::to_string(c.window) +
                           " --segments " + (c.segments == 0 ? std::string("auto") : std::to_string(c.segments));
        if (!c.commutative) args += " --noncommutative";
        SCOPED_TRACE("redux-plan " + args);
        const json j = plan_json(args);

        redux::PlanRequest request{c.ranks, {d, compute}, *redux::parse_strategy(c.strategy), 0, c.root, c.commutative};
        request.elements = c.elements;
        request.latency_s = c.latency_s;
        request.segments = c.segments;
        request.recv_window = c.window;
        const redux::Plan plan = redux::make_plan(request);
        EXPECT_EQ(j["elements"], c.elements);
        EXPECT_EQ(j["latency"].get<double>(), c.latency_s);
        EXPECT_EQ(j["recv_window"], c.window);
        if (c.segments == 0) {
            EXPECT_EQ(j["segments_requested"], "auto");
        } else {
            EXPECT_EQ(j["segments_requested"], c.segments);
        }
        EXPECT_EQ(j["segments"], plan.segments);
        if (c.segments > 0) {
            EXPECT_EQ(plan.segments, std::min<int64_t>(c.segments, c.elements));
        }
        EXPECT_EQ(j["makespan"].get<double>(), plan.makespan_s);
        EXPECT_EQ(j["tree_makespan"].get<double>(), plan.tree_makespan_s);

        request.segments = 1;
        const redux::Plan whole = redux::make_plan(request);
        EXPECT_EQ(j["unsegmented_makespan"].get<double>(), whole.makespan_s);
        EXPECT_EQ(j["parent"].get<std::vector<int32_t>>(), whole.parent) << "segments never change the tree";
        if (c.segments == 0) {
            EXPECT_LE(j["makespan"].get<double>(), whole.makespan_s) << "auto never loses to one segment";
            if (c.latency_s == d) {
                EXPECT_EQ(j["segments"], 1) << "every segment would cost the whole d";
            }
        }
    }
}

// A chain of p ranks, free folds, m equal segments: (p + m - 2) steps of latency + (d - latency) / m.
TEST(ReduxPlanSegments, ChainTakesPPlusMMinus2Steps) {
    for (const int32_t m : {1, 2, 5, 10}) {
        const json j = plan_json("--ranks 6 --d 1 --c 0 --strategy chain --elements 100 --latency 0.05 --segments " +
                                 std::to_string(m));
        const double step = 0.05 + 0.95 / m;
        EXPECT_NEAR(j["makespan"].get<double>(), (6 + m - 2) * step, 1e-12) << "m=" << m;
        EXPECT_EQ(j["segments"], m);
    }
}

TEST(ReduxPlanSegments, TextAndDotSayHowManySegments) {
    const std::string args = "--ranks 12 --d 1 --c 0.2 --strategy binary --elements 64 --latency 0.01 --segments 8";
    const CommandResult text = run_redux_plan(args + " --format text");
    ASSERT_EQ(text.exit_status, 0) << text.err;
    EXPECT_NE(text.out.find("64 elements, latency 0.01 s, 8 segments"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find(" in 8 segments  (whole vector in one piece: "), std::string::npos) << text.out;
    const CommandResult automatic = run_redux_plan(
        "--ranks 12 --d 1 --c 0.2 --strategy binary --elements 64 --latency 0.01 --segments auto --format text");
    EXPECT_NE(automatic.out.find("(chosen by the model)"), std::string::npos) << automatic.out;
    const CommandResult dot = run_redux_plan(args + " --format dot");
    ASSERT_EQ(dot.exit_status, 0) << dot.err;
    EXPECT_NE(dot.out.find(" in 8 segments"), std::string::npos) << dot.out;
    // Unsegmented requests print as before: no word of segments.
    const CommandResult plain = run_redux_plan("--ranks 12 --d 1 --c 0.2 --format text");
    EXPECT_EQ(plain.out.find("segment"), std::string::npos) << plain.out;
}

}  // namespace
