// The two-tree reduction (plan/trees/two_tree.cpp): the trees' shape (both span the ranks, no rank is an inner node of
// both, logarithmic height), every fold order checked by folding symbols (the sink ends with every rank's value
// once, in rank order when the operator is not commutative), the segment-major simulation against the
// single-tree one, a hand-worked pipeline, and the full bandwidth that is the point of two trees.
#include "plan/trees/two_tree.hpp"

#include "plan/planner.hpp"
#include "plan/predict/segments.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

namespace redux {
namespace {

// The partial result of every rank in `tree` as the list of ranks folded into it, in operand order, following
// the fold order and sides as the executor does (a left join puts the child's list before the accumulator's).
std::vector<int32_t> fold_symbols(const TreeShape& tree, int32_t rank) {
    std::vector<int32_t> acc{rank};
    for (int32_t k = tree.child_offset[rank]; k < tree.child_offset[rank + 1]; ++k) {
        std::vector<int32_t> child = fold_symbols(tree, tree.child_rank[k]);
        if (tree.child_joins_left[k]) {
            child.insert(child.end(), acc.begin(), acc.end());
            acc = std::move(child);
        } else {
            acc.insert(acc.end(), child.begin(), child.end());
        }
    }
    return acc;
}

int32_t height(const TreeShape& tree, int32_t rank) {
    int32_t h = 0;
    for (int32_t k = tree.child_offset[rank]; k < tree.child_offset[rank + 1]; ++k) {
        h = std::max(h, 1 + height(tree, tree.child_rank[k]));
    }
    return h;
}

TEST(TwoTree, InOrderTreesPutInnerNodesOnOneParity) {
    for (int32_t count = 1; count <= 300; ++count) {
        for (int32_t parity : {0, 1}) {
            const std::vector<int32_t> parent = in_order_tree(count, parity);
            std::vector<int32_t> children(static_cast<size_t>(count), 0);
            int32_t roots = 0;
            for (int32_t i = 0; i < count; ++i) {
                if (parent[i] < 0)
                    ++roots;
                else
                    ++children[static_cast<size_t>(parent[i])];
            }
            ASSERT_EQ(roots, 1) << count;
            for (int32_t i = 0; i < count; ++i) {
                ASSERT_LE(children[i], 2) << count << " " << i;
                if (children[i] > 0) {
                    ASSERT_EQ(i % 2, parity) << "count " << count << " inner node " << i;
                }
            }
        }
    }
}

TEST(TwoTree, TreesSpanTheRanksFoldInRankOrderAndShareNoInnerNode) {
    int plans = 0;
    for (int32_t ranks = 1; ranks <= 130; ++ranks) {
        for (const bool commutative : {true, false}) {
            for (const int32_t root : {0, ranks / 2, ranks - 1}) {
                const RankTrees trees = two_tree(ranks, root, commutative);
                const std::string what = "ranks " + std::to_string(ranks) + " root " + std::to_string(root) +
                                         (commutative ? " commutative" : " not commutative");
                ASSERT_EQ(trees.trees.size(), 2u) << what;
                EXPECT_EQ(trees.final_transfer, trees.sink != root) << what;
                if (commutative || root == 0 || root == ranks - 1) {
                    EXPECT_EQ(trees.sink, root) << what;
                }
                std::vector<int32_t> expected(static_cast<size_t>(ranks));
                std::iota(expected.begin(), expected.end(), 0);
                std::vector<int32_t> inner(static_cast<size_t>(ranks), 0);
                for (const TreeShape& tree : trees.trees) {
                    ASSERT_EQ(tree.parent[trees.sink], -1) << what;
                    std::vector<int32_t> got = fold_symbols(tree, trees.sink);
                    if (commutative) std::sort(got.begin(), got.end());
                    ASSERT_EQ(got, expected) << what;  // every rank once (in rank order when it matters)
                    for (int32_t r = 0; r < ranks; ++r) {
                        if (r != trees.sink) {
                            EXPECT_GE(tree.parent[r], 0) << what;
                        }
                        if (tree.child_offset[r + 1] > tree.child_offset[r] && r != trees.sink) ++inner[r];
                    }
                    // One collector above an in-order tree of ranks - 1 positions: its height is within two of a
                    // complete binary tree's.
                    if (ranks > 1) {
                        EXPECT_LE(height(tree, trees.sink),
                                  1 + static_cast<int32_t>(std::floor(std::log2(ranks - 1))) + 2)
                            << what;
                    }
                }
                for (int32_t r = 0; r < ranks; ++r) EXPECT_LE(inner[r], 1) << what << " rank " << r;
                ++plans;
            }
        }
    }
    RecordProperty("plans", plans);
}

// The segment-major simulation (how several trees are simulated) is the single-tree simulation on one tree.
TEST(TwoTree, SegmentMajorSimulationIsTheSingleTreeOne) {
    for (const Strategy strategy : {Strategy::optimal, Strategy::fibonacci, Strategy::binomial, Strategy::chain,
                                    Strategy::binary, Strategy::ksss}) {
        for (const Costs& costs : {Costs{1.0, 0.3}, Costs{1.0, 2.0}, Costs{1.0, 0.0}}) {
            for (int32_t n : {1, 2, 3, 7, 8, 13, 33}) {
                for (const bool commutative : {true, false}) {
                    PlanRequest request{n, costs, strategy, 0, n / 2, commutative};
                    request.elements = 1000;
                    request.latency_s = 0.1;
                    const Plan plan = make_plan(request);
                    for (int32_t m : {1, 2, 5, 64}) {
                        const SegmentTimes a = simulate_segments(plan, m), b = simulate_segments_segment_major(plan, m);
                        EXPECT_NEAR(a.makespan_s, b.makespan_s, 1e-12) << strategy_name(strategy) << " n " << n;
                        EXPECT_NEAR(a.tree_makespan_s, b.tree_makespan_s, 1e-12);
                    }
                }
            }
        }
    }
}

// Three ranks, root 0, d = 1, c = 0, no latency, two segments of 1/2: tree 0 is 1 -> 2 -> 0 and tree 1 is
// 2 -> 1 -> 0. Segment 0: 1 -> 2 over [0, 1/2], 2 -> 0 over [1/2, 1]. Segment 1: rank 2 is a leaf of tree 1 and
// sends its own part ahead, 2 -> 1 over [0, 1/2] (while it receives segment 0); rank 1 forwards it when the
// root's receive port is free, [1, 3/2]. Makespan 3/2 where one tree pipelined takes 3/2 too and unsegmented 2.
TEST(TwoTree, HandWorkedThreeRanks) {
    PlanRequest request{3, Costs{1.0, 0.0}, Strategy::two_tree, 0, 0, true};
    request.elements = 2;
    request.segments = 2;
    const Plan plan = make_plan(request);
    ASSERT_EQ(plan.more_trees.size(), 1u);
    EXPECT_EQ(plan.parent, (std::vector<int32_t>{-1, 2, 0}));
    EXPECT_EQ(plan.more_trees[0].parent, (std::vector<int32_t>{-1, 0, 1}));
    EXPECT_DOUBLE_EQ(plan.makespan_s, 1.5);
    EXPECT_DOUBLE_EQ(simulate_segments(plan, 1).makespan_s, 2.0);
}

// Bandwidth: with many segments, no latency and free folds, a single pipelined binary tree takes about 2d (an inner
// rank receives two segments per segment it sends). Each rank of the two trees receives and sends one segment per
// segment time, which one d would carry; but its sends in the two trees share its link, and where they overlap
// each moves at half the bandwidth, so the model has them take about 1.4-1.5 d (simulated ranks at 4 MiB took
// 1.6 d).
TEST(TwoTree, BeatsOneBinaryTreeThoughItsSendsShareALink) {
    for (int32_t n : {7, 8, 15, 16, 31, 64}) {
        PlanRequest request{n, Costs{1.0, 0.0}, Strategy::two_tree, 0, 0, true};
        request.elements = 1 << 20;
        request.segments = 1000;
        const double two = make_plan(request).makespan_s;
        request.strategy = Strategy::binary;
        const double one = make_plan(request).makespan_s;
        const double h = std::log2(n) + 3;
        EXPECT_GE(two, 1.0) << n;
        EXPECT_LE(two, 1.5 + 2 * h / 1000) << n;
        EXPECT_GE(one, 2.0 * (1 - 1e-9)) << n;
        EXPECT_LT(two, 0.8 * one) << n;
    }
}

}  // namespace
}  // namespace redux
