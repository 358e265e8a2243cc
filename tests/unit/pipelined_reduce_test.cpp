// The pipelined reductions of the encyclopedia entry "Reduce (parallel pattern)", under its own assumptions,
// against the segmented model (libredux/src/plan/predict/segments.cpp).
//
// The entry's assumptions: a vector of n bytes cut into m segments; one step moves one segment, in
// T_start + (n / m) T_byte; a rank sends one segment and receives one in the same step (full duplex, one port each
// way); folds cost nothing (c = 0). In our model a segment costs latency_s + (d - latency_s) / m to move, so
// T_start = latency_s and n T_byte = d - latency_s, and compute_s = 0. The formulas below are the entry's,
// written out here, never the planner's.
//
//   Linear pipeline of p ranks:  T(n, p, m) = (T_start + (n / m) T_byte)(p + m - 2), optimal at
//                                m = sqrt(n (p - 2) T_byte / T_start).
//   Pipelined Fibonacci tree:    T(n, p, m) ~ ((n / m) T_byte + T_start)(h + 2m - 2), h its height, printed
//                                optimal at m = sqrt(n (h - 3) T_byte / (3 T_start)).
//
// Where the model differs from the entry, the test asserts the difference and says why:
//   - the tree's formula is exact in the model (h >= 2) when every rank receives its shallower child's segment
//     first, which is the order Proposition 3 gives (the child ready first). Receiving the deeper child first at
//     every rank costs h - 1 steps more: each inner rank on the deepest path waits one step longer for its first
//     segment, whose deeper sender has it one step later than the shallower one, and the delay adds up level by
//     level (the entry's "the right child is received first" leaves open which child is on the right);
//   - a tree of height 1 (a rank and one child) is a linear pipeline of two ranks: m steps, not the formula's
//     2m - 1, which counts two receives per segment at every inner rank;
//   - the printed optimum of the tree is not the minimum of the printed T: d/dm of (a / m + b)(h + 2m - 2) is
//     -a (h - 2) / m^2 + 2b, zero at m = sqrt(a (h - 2) / (2 b)) = sqrt(n (h - 2) T_byte / (2 T_start)). The
//     printed value is smaller by the factor sqrt(2 (h - 3) / (3 (h - 2))) (0.71 at h = 6) and gives a longer
//     reduction; the planner finds the true minimum.
#include "plan/planner.hpp"
#include "plan/predict/segments.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace redux {
namespace {

// lcm(1, ..., 22): every segment count up to 22 cuts the vector into equal segments.
constexpr int64_t kElements = 232792560;

void expect_close(double actual, double expected, const std::string& what) {
    EXPECT_LE(std::abs(actual - expected), 1e-12 * std::max(std::abs(actual), std::abs(expected)))
        << what << ": " << actual << " vs " << expected;
}

// The entry's costs: one step, and the pipeline formulas.
struct Entry {
    double t_start;  // T_start
    double bytes_s;  // n T_byte
    double step_s(int32_t m) const { return t_start + bytes_s / m; }
    double pipeline_s(int32_t p, int32_t m) const { return step_s(m) * (p + m - 2); }
    double fibonacci_s(int32_t h, int32_t m) const { return step_s(m) * (h + 2 * m - 2); }
};

PlanRequest entry_request(const Entry& entry) {
    PlanRequest request;
    request.costs = {entry.t_start + entry.bytes_s, 0.0};
    request.latency_s = entry.t_start;
    request.elements = kElements;
    return request;
}

// The Fibonacci tree of height h as the entry describes it (the heights of a rank's two subtrees differ by one):
// ranks in depth-first order, the sink 0; each rank's children in the order given.
struct HandTree {
    std::vector<int32_t> parent;
    std::vector<std::vector<int32_t>> children;

    int32_t add(int32_t height, int32_t up, bool shallower_first) {
        const auto rank = static_cast<int32_t>(parent.size());
        parent.push_back(up);
        children.emplace_back();
        std::vector<int32_t> subtrees;
        if (height >= 2) subtrees.push_back(height - 2);
        if (height >= 1) subtrees.push_back(height - 1);
        if (!shallower_first) std::reverse(subtrees.begin(), subtrees.end());
        for (const int32_t sub : subtrees) {
            const int32_t child = add(sub, rank, shallower_first);
            children[rank].push_back(child);
        }
        return rank;
    }
};

Plan fibonacci_plan(const Entry& entry, int32_t height, bool shallower_first) {
    HandTree tree;
    tree.add(height, -1, shallower_first);
    Plan plan;
    plan.request = entry_request(entry);
    plan.request.ranks = static_cast<int32_t>(tree.parent.size());
    plan.parent = tree.parent;
    plan.child_offset.push_back(0);
    for (const std::vector<int32_t>& kids : tree.children) {
        plan.child_rank.insert(plan.child_rank.end(), kids.begin(), kids.end());
        plan.child_offset.push_back(static_cast<int32_t>(plan.child_rank.size()));
    }
    plan.child_joins_left.assign(plan.child_rank.size(), 0);
    const SegmentTimes whole = simulate_segments(plan, 1);  // what make_plan would hold for one segment
    plan.tree_makespan_s = whole.tree_makespan_s;
    plan.makespan_s = whole.makespan_s;
    return plan;
}

// The integer m in [1, most] where `t` is smallest.
template <typename T>
int32_t argmin(int32_t most, T t) {
    int32_t best = 1;
    for (int32_t m = 2; m <= most; ++m) {
        if (t(m) < t(best)) best = m;
    }
    return best;
}

const Entry kEntry{1e-5, 5e-4};

TEST(EntryPipeline, LinearPipelineTakesPPlusMMinus2Steps) {
    for (int32_t p = 1; p <= 24; ++p) {
        for (int32_t m = 1; m <= 22; ++m) {
            PlanRequest request = entry_request(kEntry);
            request.ranks = p;
            request.strategy = Strategy::chain;
            request.segments = m;
            const Plan plan = make_plan(request);
            const double expected = p == 1 ? 0.0 : kEntry.pipeline_s(p, m);
            expect_close(plan.makespan_s, expected, "p=" + std::to_string(p) + " m=" + std::to_string(m));
        }
    }
}

TEST(EntryPipeline, LinearPipelineOptimumIsTheEntrys) {
    for (const int32_t p : {3, 4, 6, 10}) {
        PlanRequest request = entry_request(kEntry);
        request.ranks = p;
        request.strategy = Strategy::chain;
        request.segments = 0;
        const Plan plan = make_plan(request);
        const double continuous = std::sqrt(kEntry.bytes_s * (p - 2) / kEntry.t_start);  // the entry's optimum
        ASSERT_LE(continuous, 21.0) << "keep the optimum where segments are equal";
        const int32_t best = argmin(22, [&](int32_t m) { return kEntry.pipeline_s(p, m); });
        EXPECT_EQ(plan.segments, best) << "p=" << p;
        EXPECT_LT(std::abs(plan.segments - continuous), 1.0) << "p=" << p;
        expect_close(plan.makespan_s, kEntry.pipeline_s(p, best), "p=" + std::to_string(p));
    }
}

TEST(EntryPipeline, FibonacciTreeTakesHPlus2MMinus2Steps) {
    for (int32_t h = 1; h <= 9; ++h) {
        const Plan shallower = fibonacci_plan(kEntry, h, true);
        const Plan deeper = fibonacci_plan(kEntry, h, false);
        for (int32_t m = 1; m <= 22; ++m) {
            const std::string what = "h=" + std::to_string(h) + " m=" + std::to_string(m);
            const double step = kEntry.step_s(m);
            if (h == 1) {  // a linear pipeline of two ranks
                expect_close(simulate_segments(shallower, m).makespan_s, m * step, what);
                continue;
            }
            expect_close(simulate_segments(shallower, m).makespan_s, kEntry.fibonacci_s(h, m), what);
            // The deeper child first at every rank: one step more per inner level.
            expect_close(simulate_segments(deeper, m).makespan_s, kEntry.fibonacci_s(h, m) + (h - 1) * step,
                         what + " deeper");
        }
    }
}

TEST(EntryPipeline, FibonacciTreeOptimumIsTheMinimumOfTheFormulaNotThePrintedOne) {
    for (const int32_t h : {5, 6, 8}) {
        // T_start and n T_byte such that the formula's minimum sits near m = 10.
        const Entry entry{1.0, 2.0 * 100 / (h - 2)};
        Plan plan = fibonacci_plan(entry, h, true);
        const SegmentChoice choice = choose_segments(plan);
        const int32_t best = argmin(22, [&](int32_t m) { return entry.fibonacci_s(h, m); });
        const double minimum = std::sqrt(entry.bytes_s * (h - 2) / (2 * entry.t_start));
        const double printed = std::sqrt(entry.bytes_s * (h - 3) / (3 * entry.t_start));
        EXPECT_EQ(choice.segments, best) << "h=" << h;
        EXPECT_LT(std::abs(choice.segments - minimum), 1.0) << "h=" << h;
        expect_close(choice.times.makespan_s, entry.fibonacci_s(h, best), "h=" + std::to_string(h));
        // The printed optimum, rounded, predicts longer -- in the formula and in the model alike.
        const auto at_printed = static_cast<int32_t>(std::lround(printed));
        EXPECT_LT(printed, minimum - 1.0) << "h=" << h;
        EXPECT_GT(entry.fibonacci_s(h, at_printed), entry.fibonacci_s(h, best));
        expect_close(simulate_segments(plan, at_printed).makespan_s, entry.fibonacci_s(h, at_printed),
                     "printed, h=" + std::to_string(h));
    }
}

}  // namespace
}  // namespace redux
