// The two-level tree (libredux/src/plan/trees/two_level.hpp): every rank reaches the root, exactly one transfer per
// node other than the root's crosses nodes (its leader's), the root leads its node, and on nodes joined by
// slow links it takes the minimum number of inter-node rounds.
#include "plan/trees/two_level.hpp"
#include "plan/planner.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace redux {
namespace {

// Ranks dealt to nodes round-robin (so a rank-order layout crosses nodes often): node_of[r] = r % nodes.
struct Cluster {
    std::vector<int32_t> node_of;
    std::shared_ptr<const HeteroCosts> costs;
};

Cluster round_robin(int32_t n, int32_t nodes, double intra_d, double inter_d, double c) {
    Cluster cluster;
    std::vector<double> transfer(static_cast<size_t>(n) * n, 0.0);
    for (int32_t r = 0; r < n; ++r) cluster.node_of.push_back(r % nodes);
    for (int32_t i = 0; i < n; ++i) {
        for (int32_t j = 0; j < n; ++j) {
            if (i != j) transfer[static_cast<size_t>(i) * n + j] = i % nodes == j % nodes ? intra_d : inter_d;
        }
    }
    cluster.costs = std::make_shared<const HeteroCosts>(std::vector<double>(n, c), std::move(transfer));
    return cluster;
}

TEST(TwoLevel, OneCrossingPerNodeAndEveryRankReachesTheRoot) {
    for (int32_t n : {2, 3, 7, 12, 30}) {
        for (int32_t nodes : {1, 2, 3, 5}) {
            if (nodes > n) continue;
            const Cluster cluster = round_robin(n, nodes, 1e-6, 1e-3, 1e-7);
            for (int32_t root : {0, n - 1, n / 2}) {
                SCOPED_TRACE("n " + std::to_string(n) + ", nodes " + std::to_string(nodes) + ", root " +
                             std::to_string(root));
                const RankTree tree = two_level_tree(*cluster.costs, cluster.node_of, root);
                EXPECT_EQ(tree.sink, root);
                EXPECT_EQ(tree.parent[root], -1);
                int crossings = 0;
                for (int32_t r = 0; r < n; ++r) {
                    int32_t at = r, steps = 0;
                    while (tree.parent[at] >= 0 && steps <= n) at = tree.parent[at], ++steps;
                    EXPECT_EQ(at, root) << "rank " << r << " does not reach the root";
                    if (tree.parent[r] >= 0 && cluster.node_of[r] != cluster.node_of[tree.parent[r]]) ++crossings;
                }
                EXPECT_EQ(crossings, nodes - 1);
            }
        }
    }
}

TEST(TwoLevel, FasterThanTheFlatTreeAcrossSlowLinks) {
    const int32_t n = 16;
    const Cluster cluster = round_robin(n, 4, 1e-6, 1e-3, 1e-7);
    PlanRequest flat{n, cluster.costs->mean_costs(), Strategy::optimal, 0, 0, true};
    flat.hetero_costs = cluster.costs;
    PlanRequest two = flat;
    two.strategy = Strategy::two_level;
    two.node_of = cluster.node_of;
    const Plan flat_plan = make_plan(flat), two_plan = make_plan(two);
    // Results from 4 nodes need at least ceil(log2 4) = 2 rounds of 1 ms transfers between nodes; the two-level
    // tree takes exactly those, plus microseconds inside the nodes, and so no more than the flat tree.
    EXPECT_GE(two_plan.makespan_s, 2e-3);
    EXPECT_LT(two_plan.makespan_s, 2.01e-3);
    EXPECT_LE(two_plan.makespan_s, flat_plan.makespan_s + 1e-9);
    EXPECT_EQ(two_plan.sink, 0);
}

TEST(TwoLevel, NeedsNodesAndACommutativeOperator) {
    const Cluster cluster = round_robin(6, 2, 1e-6, 1e-3, 0);
    PlanRequest request{6, cluster.costs->mean_costs(), Strategy::two_level, 0, 0, true};
    request.hetero_costs = cluster.costs;
    EXPECT_NE(validate(request), "");  // no node_of
    request.node_of = cluster.node_of;
    EXPECT_EQ(validate(request), "");
    request.commutative = false;
    EXPECT_NE(validate(request), "");
}

}  // namespace
}  // namespace redux
