// The MPI libraries' trees (study/library_trees.cpp): their shapes against the libraries' own small examples and
// definitions, hand-worked predictions, and the binomial tree's prediction against libredux's own binomial
// strategy, which is built independently (Canon & Antoniu's relabelled binomial, planner.cpp).
#include "study/library_trees.hpp"
#include "plan/planner.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace redux {
namespace {

std::vector<int32_t> parents(const char* name, int32_t ranks, int32_t root = 0, bool commutative = true) {
    const std::optional<LibraryTree> tree = library_tree(name, ranks, root, commutative);
    EXPECT_TRUE(tree.has_value()) << name;
    return tree ? tree->parent : std::vector<int32_t>{};
}

TEST(LibraryTrees, BinomialClearsTheLowestSetBitRelativeToTheRoot) {
    EXPECT_EQ(parents("binomial", 8), (std::vector<int32_t>{-1, 0, 0, 2, 0, 4, 4, 6}));
    // root 3: v = rank - 3 mod 5; v 1, 2, 4 send to v 0 (rank 3); v 3 (rank 1) to v 2 (rank 0)
    EXPECT_EQ(parents("binomial", 5, 3), (std::vector<int32_t>{3, 0, 3, -1, 3}));
}

TEST(LibraryTrees, KnomialClearsTheLowestNonZeroDigit) {
    // base 4: 1..3 -> 0; 5..7 -> 4; 9..11 -> 8; 13..15 -> 12; 4, 8, 12 -> 0; 16 -> 0; 17 -> 16
    EXPECT_EQ(parents("knomial:4", 18),
              (std::vector<int32_t>{-1, 0, 0, 0, 0, 4, 4, 4, 0, 8, 8, 8, 0, 12, 12, 12, 0, 16}));
    EXPECT_EQ(parents("knomial:2", 40), parents("binomial", 40));
}

TEST(LibraryTrees, InOrderBinaryIsOpenMpisExampleOfNine) {
    // Open MPI's comment: 8 -> (7, 3), 7 -> (6, 5), 5 -> 4, 3 -> (2, 1), 1 -> 0; it ends on rank n - 1.
    const std::optional<LibraryTree> tree = library_tree("in-order-binary", 9, 0);
    ASSERT_TRUE(tree.has_value());
    EXPECT_EQ(tree->parent, (std::vector<int32_t>{1, 3, 3, 8, 5, 7, 7, 8, -1}));
    EXPECT_EQ(tree->sink, 8);
    EXPECT_EQ(tree->root, 0);
    EXPECT_EQ(parents("in-order-binary", 2), (std::vector<int32_t>{1, -1}));
    EXPECT_EQ(parents("in-order-binary", 3), (std::vector<int32_t>{2, 2, -1}));
}

TEST(LibraryTrees, NonCommutativeBinomialEndsOnRankZero) {
    const std::optional<LibraryTree> tree = library_tree("binomial", 4, 2, false);
    ASSERT_TRUE(tree.has_value());
    EXPECT_EQ(tree->parent, (std::vector<int32_t>{-1, 0, 0, 2}));
    EXPECT_EQ(tree->sink, 0);
    EXPECT_EQ(tree->root, 2);
}

TEST(LibraryTrees, RefusesUnknownNamesAndRoots) {
    for (const char* name : {"binary", "knomial:", "knomial:1", "knomial:x", "knomial:4x", "knomial:2000", ""}) {
        EXPECT_FALSE(library_tree(name, 8, 0).has_value()) << name;
    }
    EXPECT_FALSE(library_tree("binomial", 8, 8).has_value());
    EXPECT_FALSE(library_tree("binomial", 0, 0).has_value());
}

TEST(LibraryTrees, HandWorkedPredictions) {
    const Costs unit{1.0, 1.0};
    // in-order binary on 3: rank 2 receives ranks 1 and 0 ([0, 1], [1, 2]), folds [1, 2] and [2, 3], then sends
    // the result to the root, rank 0: 4.
    EXPECT_DOUBLE_EQ(predict_library_tree(*library_tree("in-order-binary", 3, 0), unit), 4.0);
    EXPECT_DOUBLE_EQ(predict_library_tree(*library_tree("in-order-binary", 3, 2), unit), 3.0);
    // binomial on 4: rank 2 is ready at 2 (receive 3, fold), the root receives 1 at [0, 1] and 2 at [2, 3]: 4.
    EXPECT_DOUBLE_EQ(predict_library_tree(*library_tree("binomial", 4, 0), unit), 4.0);
    // knomial:4 on 4 with d = 1, c = 2: three receives [0, 3], folds [1, 3], [3, 5], [5, 7]: 7.
    EXPECT_DOUBLE_EQ(predict_library_tree(*library_tree("knomial:4", 4, 0), Costs{1.0, 2.0}), 7.0);
    // the same under per-link costs: the final transfer takes d(sink, root).
    const HeteroCosts hetero({1, 1, 1}, {0, 5, 7, 5, 0, 1, 7, 1, 0});
    // rank 2 receives 1 ([0, 1]) and 0 ([1, 8]), folds [1, 2], [8, 9], sends to rank 0 in 7: 16.
    EXPECT_DOUBLE_EQ(predict_library_tree(*library_tree("in-order-binary", 3, 0), hetero), 16.0);
}

Plan planned(Strategy strategy, int32_t n, const Costs& costs) {
    PlanRequest request;
    request.ranks = n;
    request.costs = costs;
    request.strategy = strategy;
    return make_plan(request);
}

const Costs kCostSet[] = {Costs{1.0, 1.0}, Costs{1.0, 0.0}, Costs{0.3, 1.7}, Costs{2.0, 0.5, 1.5}};

// Where n is a power of two both are the binomial tree B_k. (Elsewhere libredux trims the tree its own way.)
TEST(LibraryTrees, BinomialPredictsWhatLibreduxsBinomialPlanPredicts) {
    for (const Costs& costs : kCostSet) {
        for (int32_t n = 1; n <= 1024; n *= 2) {
            EXPECT_NEAR(predict_library_tree(*library_tree("binomial", n, 0), costs),
                        planned(Strategy::binomial, n, costs).makespan_s, 1e-9)
                << n << " ranks, d " << costs.transfer_s << " c " << costs.compute_s;
        }
    }
}

// Algorithm 1 is optimal in the model (Canon & Antoniu, Theorem 1; with a time in flight, ksss.cpp), so no
// library tree that ends on the root predicts less.
TEST(LibraryTrees, NoneBeatsTheOptimalTree) {
    for (const Costs& costs : kCostSet) {
        for (int32_t n = 1; n <= 300; n += (n < 40 ? 1 : 37)) {
            const double optimal = planned(Strategy::optimal, n, costs).makespan_s;
            for (const char* name : {"binomial", "knomial:3", "knomial:4", "in-order-binary"}) {
                const int32_t root = std::string(name) == "in-order-binary" ? n - 1 : 0;
                EXPECT_GE(predict_library_tree(*library_tree(name, n, root), costs), optimal - 1e-9)
                    << name << ", " << n << " ranks, d " << costs.transfer_s << " c " << costs.compute_s;
            }
        }
    }
}

}  // namespace
}  // namespace redux
