// Relabelling for the operator (Canon & Antoniu, Section 4.1): the per-rank programs, run in one process on
// symbolic values, give exactly the rank-order result for non-commutative operators and put the result on
// the root for commutative ones -- for every n <= 64, every root, every strategy.
#include "plan/layout.hpp"
#include "plan/planner.hpp"
#include "plan/predict/simulator.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

namespace redux {
namespace {

using Word = std::vector<int32_t>;  // a symbolic value: the ranks folded into it, in operand order

// An interpreter for the executor's view of a plan: every rank runs program_for(plan, rank).
struct Interpreter {
    const Plan& plan;
    std::vector<RankProgram> programs;
    std::vector<Word> partial;
    std::vector<uint8_t> done;

    explicit Interpreter(const Plan& p) : plan(p) {
        const int32_t n = p.request.ranks;
        for (int32_t r = 0; r < n; ++r) programs.push_back(program_for(p, r));
        partial.resize(static_cast<size_t>(n));
        done.assign(static_cast<size_t>(n), 0);
    }

    // The value rank r sends to its parent: its own element folded with its children's, in fold order.
    const Word& run(int32_t r, int depth = 0) {
        if (depth > plan.request.ranks) throw std::runtime_error("cycle in the programs");
        if (done[r]) return partial[r];
        Word acc{r};
        for (const ChildStep& child : programs[r].children) {
            if (programs[child.rank].parent != r) throw std::runtime_error("child does not send to its parent");
            const Word& value = run(child.rank, depth + 1);
            Word joined = child.joins_left ? value : acc;
            const Word& right = child.joins_left ? acc : value;
            joined.insert(joined.end(), right.begin(), right.end());
            acc = std::move(joined);
        }
        done[r] = 1;
        return partial[r] = std::move(acc);
    }

    // What the root holds at the end.
    Word result() {
        const int32_t root = plan.request.root;
        int32_t sinks = 0, sink = -1;
        for (int32_t r = 0; r < plan.request.ranks; ++r) {
            if (programs[r].parent < 0) ++sinks, sink = r;
        }
        if (sinks != 1) throw std::runtime_error("not exactly one sink");
        const Word value = run(sink);
        if (sink == root) return value;
        if (programs[sink].send_result_to != root || programs[root].receive_result_from != sink) {
            throw std::runtime_error("the result does not reach the root");
        }
        return value;
    }
};

struct Case {
    Strategy strategy;
    int32_t limit;
};

const std::vector<Case> kCases{{Strategy::optimal, 0},
                               {Strategy::fibonacci, 0},
                               {Strategy::binomial, 0},
                               {Strategy::transfers_limited, 1},
                               {Strategy::transfers_limited, 3},
                               {Strategy::reducers_limited, 1},
                               {Strategy::reducers_limited, 2},
                               {Strategy::chain, 0},
                               {Strategy::binary, 0},
                               {Strategy::ksss, 0}};
const std::vector<Costs> kCosts{{1.0, 1.0}, {1.0, 0.0}, {0.0, 1.0}, {1.0, 3.0}, {3.0, 1.0}};

class Relabelling : public ::testing::TestWithParam<bool> {};

TEST_P(Relabelling, ProgramsGiveTheRankOrderResultOnTheRoot) {
    const bool commutative = GetParam();
    int final_transfers = 0, plans = 0;
    for (const Case& c : kCases) {
        for (const Costs& costs : kCosts) {
            for (int32_t n = 1; n <= 64; ++n) {
                Word in_order(static_cast<size_t>(n));
                std::iota(in_order.begin(), in_order.end(), 0);
                for (int32_t root = 0; root < n; ++root) {
                    const Plan plan = make_plan({n, costs, c.strategy, c.limit, root, commutative});
                    Word got = Interpreter(plan).result();
                    if (commutative) {
                        ASSERT_EQ(plan.sink, root);
                        ASSERT_FALSE(plan.final_transfer);
                        std::sort(got.begin(), got.end());
                    }
                    ASSERT_EQ(got, in_order) << strategy_name(c.strategy) << " n=" << n << " root=" << root;
                    ASSERT_EQ(plan.final_transfer, plan.sink != root);
                    const double expected = simulate(plan.parent, costs, plan.release_s).makespan_s +
                                            (plan.final_transfer ? costs.transfer_s : 0.0);
                    ASSERT_DOUBLE_EQ(plan.makespan_s, expected);
                    final_transfers += plan.final_transfer;
                    ++plans;
                }
            }
        }
    }
    RecordProperty("final_transfers", final_transfers);
    RecordProperty("plans", plans);
}
INSTANTIATE_TEST_SUITE_P(CommutativeOrNot, Relabelling, ::testing::Bool());

TEST(Relabelling, LayoutDoesNotChangeTheTreeLength) {
    for (const Costs& costs : kCosts) {
        for (int32_t n = 1; n <= 200; ++n) {
            const Plan at_zero = make_plan({n, costs, Strategy::optimal, 0, 0, true});
            for (int32_t root : {0, n / 3, n - 1}) {
                const Plan plan = make_plan({n, costs, Strategy::optimal, 0, root, false});
                ASSERT_DOUBLE_EQ(plan.tree_makespan_s, at_zero.tree_makespan_s) << "n=" << n;
            }
        }
    }
}

TEST(Relabelling, BinomialTreesReachEveryRootWithoutAFinalTransfer) {
    for (int32_t n : {2, 4, 8, 16, 64, 1024}) {
        for (int32_t root = 0; root < n; root += std::max(1, n / 37)) {
            const Plan plan = make_plan({n, {1.0, 0.0}, Strategy::binomial, 0, root, false});
            EXPECT_FALSE(plan.final_transfer) << "n=" << n << " root=" << root;
            EXPECT_EQ(plan.sink, root);
        }
    }
}

TEST(Relabelling, AChainCannotEndOnAMiddleRankSoItPaysOneTransfer) {
    // The builders' trees have sink subtrees whose sizes reach every root (none of the plans above needed a
    // final transfer), so lay a chain 2 -> 1 -> 0 out by hand: the sink's only child covers two ranks, so the
    // sink sits at rank 0 or 2, never 1.
    const std::vector<int32_t> chain{-1, 0, 1};
    const Layout at_middle = lay_out(chain, child_lists(chain), 1, false);
    EXPECT_TRUE(at_middle.final_transfer);
    EXPECT_EQ(at_middle.sink_rank, 0);
    EXPECT_EQ(at_middle.rank_of, (std::vector<int32_t>{0, 1, 2}));
    const Layout at_end = lay_out(chain, child_lists(chain), 2, false);
    EXPECT_FALSE(at_end.final_transfer);
    EXPECT_EQ(at_end.sink_rank, 2);
    EXPECT_EQ(at_end.joins_left, (std::vector<uint8_t>{0, 1, 0}));  // node 1's subtree {0, 1} joins on the left
    // Commutative operators never need it: the sink is the root.
    const Layout commutative = lay_out(chain, child_lists(chain), 1, true);
    EXPECT_FALSE(commutative.final_transfer);
    EXPECT_EQ(commutative.sink_rank, 1);
}

TEST(Relabelling, TwoRanksEndOnEitherRank) {
    const Plan two = make_plan({2, {1.0, 1.0}, Strategy::optimal, 0, 1, false});
    EXPECT_FALSE(two.final_transfer);
    EXPECT_EQ(two.sink, 1);
    ASSERT_EQ(program_for(two, 1).children.size(), 1U);
    EXPECT_TRUE(program_for(two, 1).children[0].joins_left);
}

TEST(Relabelling, LargePlansKeepTheLayoutInvariants) {
    const int32_t n = 100000;
    const Plan plan = make_plan({n, {1.0, 2.0}, Strategy::optimal, 0, n / 2 + 1, false});
    // Every rank but the sink has a parent; the root gets the result.
    int32_t sinks = 0;
    for (int32_t p : plan.parent) sinks += p < 0;
    EXPECT_EQ(sinks, 1);
    EXPECT_EQ(plan.final_transfer, plan.sink != n / 2 + 1);
    EXPECT_GE(plan.makespan_s, plan.lower_bound_s);
}

}  // namespace
}  // namespace redux
