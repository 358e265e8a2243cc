// The tree for known arrivals (plan/trees/arrival_tree.hpp): a valid tree on the root, the ranks' order kept under a
// non-commutative op whatever the arrivals, a late rank's cost worked out by hand, and its timing against the model
// simulator, which is written independently of it.
#include "plan/trees/arrival_tree.hpp"
#include "plan/predict/simulator.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace redux {
namespace {

// What rank r holds once it has folded its children in their order, each value a string of ranks: an operator that
// is associative and not commutative, computed from the tree alone.
std::string folded(const ArrivalTree& tree, int32_t r) {
    std::string acc(1, static_cast<char>('a' + r));
    for (const ChildStep& child : tree.children[static_cast<size_t>(r)]) {
        const std::string theirs = folded(tree, child.rank);
        acc = child.joins_left ? theirs + acc : acc + theirs;
    }
    return acc;
}

// Every rank but the root sends once, to a rank that lists it as a child, and the root ends with every rank.
void expect_tree(const ArrivalTree& tree, int32_t root) {
    const auto n = static_cast<int32_t>(tree.parent.size());
    EXPECT_EQ(tree.parent[static_cast<size_t>(root)], -1);
    int32_t children = 0;
    for (int32_t r = 0; r < n; ++r) {
        for (const ChildStep& child : tree.children[static_cast<size_t>(r)]) {
            EXPECT_EQ(tree.parent[static_cast<size_t>(child.rank)], r);
            ++children;
        }
    }
    EXPECT_EQ(children, n - 1);
    std::string all = folded(tree, root);
    std::sort(all.begin(), all.end());
    std::string expected;
    for (int32_t r = 0; r < n; ++r) expected += static_cast<char>('a' + r);
    EXPECT_EQ(all, expected);
}

TEST(ArrivalTree, NonCommutativeKeepsTheRanksOrderForAnyArrivals) {
    std::mt19937 generator(7);
    std::exponential_distribution<double> late(1.0);
    for (int32_t n = 1; n <= 9; ++n) {
        for (int draw = 0; draw < 20; ++draw) {
            std::vector<double> ready(static_cast<size_t>(n));
            for (double& r : ready) r = draw == 0 ? 0.0 : late(generator);
            const int32_t root = draw % n;
            const ArrivalTree tree = arrival_tree(ready, root, {1.0, 0.5}, /*commutative=*/false);
            expect_tree(tree, root);
            std::string expected;
            for (int32_t r = 0; r < n; ++r) expected += static_cast<char>('a' + r);
            EXPECT_EQ(folded(tree, root), expected) << "n " << n << " draw " << draw;
        }
    }
}

TEST(ArrivalTree, ALateRootFoldsOnceWhenItComes) {
    // d = 1, c = 2, eight ranks: the seven others are done long before the root comes at 100; their result is
    // waiting for it, and it folds it once.
    for (const bool commutative : {true, false}) {
        std::vector<double> ready(8, 0.0);
        ready[3] = 100.0;
        const ArrivalTree tree = arrival_tree(ready, 3, {1.0, 2.0}, commutative);
        expect_tree(tree, 3);
        EXPECT_EQ(tree.children[3].size(), commutative ? 1u : 2u);  // in rank order: the ranks left of 3, then right
        EXPECT_DOUBLE_EQ(tree.done_s[3], commutative ? 102.0 : 104.0);
    }
}

TEST(ArrivalTree, ALateRankCostsOneTransferAndOneFold) {
    // d = 1, c = 2, the root at once and one rank of 8 at 100: everything else is folded into the root before, and
    // the late value is the last transfer and the last fold. Under a non-commutative op the last rank can be; a rank
    // in the middle cannot: the interval on its right must be folded into it, which costs one more transfer and fold.
    struct Case {
        int32_t late;
        bool commutative;
        double done_s;
    };
    for (const Case c : {Case{5, true, 103.0}, Case{7, false, 103.0}, Case{5, false, 105.0}}) {
        std::vector<double> ready(8, 0.0);
        ready[static_cast<size_t>(c.late)] = 100.0;
        const ArrivalTree tree = arrival_tree(ready, 0, {1.0, 2.0}, c.commutative);
        expect_tree(tree, 0);
        EXPECT_DOUBLE_EQ(tree.done_s[0], c.done_s) << "late " << c.late << " commutative " << c.commutative;
    }
}

TEST(ArrivalTree, RanksTogetherAsTheSimulatorTimesTheTree) {
    // Ranks that come together, every d, L and c here: the builder's time for its tree is the simulator's.
    for (const Costs costs : {Costs{1.0, 1.0}, Costs{1.0, 0.25}, Costs{0.25, 1.0}, Costs{1.0, 0.5, 0.75}}) {
        for (int32_t n = 1; n <= 12; ++n) {
            const ArrivalTree tree = arrival_tree(std::vector<double>(static_cast<size_t>(n), 0.0), 0, costs, true);
            const Simulation sim = simulate(tree.parent, costs);
            EXPECT_DOUBLE_EQ(tree.done_s[0], sim.makespan_s) << "n " << n << " d " << costs.transfer_s;
        }
    }
}

TEST(ArrivalTree, LateLeavesAsTheSimulatorTimesThem) {
    // Late ranks that the tree makes leaves send once they come: the simulator's release times.
    // Two ranks of eight late by draws of mean 2 (d = 1, c = 0.5), the others at once.
    std::mt19937 generator(11);
    std::exponential_distribution<double> late(0.5);
    std::uniform_int_distribution<int32_t> rank(1, 7);
    const Costs costs{1.0, 0.5};
    int compared = 0;
    for (int draw = 0; draw < 50; ++draw) {
        std::vector<double> ready(8, 0.0);
        ready[static_cast<size_t>(rank(generator))] = late(generator);
        ready[static_cast<size_t>(rank(generator))] = late(generator);
        const ArrivalTree tree = arrival_tree(ready, 0, costs, true);
        bool late_leaves = true;
        for (size_t r = 1; r < 8; ++r) late_leaves = late_leaves && (ready[r] == 0.0 || tree.children[r].empty());
        if (!late_leaves) continue;
        ++compared;
        EXPECT_DOUBLE_EQ(tree.done_s[0], simulate(tree.parent, costs, ready).makespan_s) << "draw " << draw;
    }
    EXPECT_GE(compared, 10);
}

}  // namespace
}  // namespace redux
