// NonblockingTrials (libredux/src/policy/nonblocking_trials.hpp): a key's nonblocking calls take turns, the
// library's own first, at most kMostCalls of them; the agreed times of complete calls decide once each side has
// kSamples (the tree only where its median is more than kTieMargin below the library's), a call some rank had not
// completed is left out, and after kMostCalls calls with too few the library's own is kept. Each expectation is
// computed here from the times the test gives.
#include "policy/nonblocking_trials.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {

using redux::NonblockingTrials;

constexpr int kTree = 2;  // the key's tree the trials weigh

// Starts `calls` calls and gives each the time `native_s` or `tree_s` by what it runs; returns what each ran.
std::vector<int> run_calls(NonblockingTrials& t, int calls, double native_s, double tree_s) {
    std::vector<int> ran;
    for (int i = 0; i < calls; ++i) {
        int trial = -1;
        const int tree = t.start(trial);
        ran.push_back(tree);
        if (trial >= 0) t.completed(trial, tree < 0 ? native_s : tree_s);
    }
    return ran;
}

TEST(NonblockingTrials, CallsTakeTurnsNativeFirst) {
    NonblockingTrials t(kTree);
    for (int i = 0; i < NonblockingTrials::kMostCalls; ++i) {
        int trial = -1;
        EXPECT_EQ(t.start(trial), i % 2 == 0 ? -1 : kTree) << "call " << i;
        EXPECT_EQ(trial, i);
    }
    int trial = 0;
    EXPECT_EQ(t.start(trial), -1);  // beyond kMostCalls: the library's own, not weighed
    EXPECT_EQ(trial, -1);
    EXPECT_EQ(t.phase(), NonblockingTrials::Phase::weighing);
}

TEST(NonblockingTrials, AFasterTreeIsKept) {
    NonblockingTrials t(kTree);
    run_calls(t, 2 * NonblockingTrials::kSamples, 0.010, 0.006);
    ASSERT_TRUE(t.to_agree());
    EXPECT_TRUE(t.agree(t.local()));
    EXPECT_EQ(t.phase(), NonblockingTrials::Phase::tree);
    EXPECT_DOUBLE_EQ(t.native_s(), 0.010);
    EXPECT_DOUBLE_EQ(t.tree_s(), 0.006);
    int trial = 0;
    EXPECT_EQ(t.start(trial), kTree);
    EXPECT_EQ(trial, -1);  // decided: untimed
    EXPECT_FALSE(t.to_agree());
}

TEST(NonblockingTrials, ATieKeepsTheLibrarysOwn) {
    const double native_s = 0.010;
    const double tied_s = native_s * (1 - NonblockingTrials::kTieMargin / 2);
    NonblockingTrials t(kTree);
    run_calls(t, 2 * NonblockingTrials::kSamples, native_s, tied_s);
    EXPECT_TRUE(t.agree(t.local()));
    EXPECT_EQ(t.phase(), NonblockingTrials::Phase::native);
    int trial = 0;
    EXPECT_EQ(t.start(trial), -1);
    EXPECT_EQ(trial, -1);
}

TEST(NonblockingTrials, TheSlowestRankDecides) {
    // This rank saw the tree faster; another rank saw every tree call slower than native: the maximum says native.
    NonblockingTrials t(kTree);
    run_calls(t, 2 * NonblockingTrials::kSamples, 0.010, 0.005);
    std::vector<double> agreed = t.local();
    for (size_t i = 1; i < agreed.size(); i += 2) agreed[i] = 0.020;
    EXPECT_TRUE(t.agree(agreed));
    EXPECT_EQ(t.phase(), NonblockingTrials::Phase::native);
    EXPECT_DOUBLE_EQ(t.tree_s(), 0.020);
}

TEST(NonblockingTrials, CallsNotCompleteAreLeftOutAndTheWeighingGoesOn) {
    NonblockingTrials t(kTree);
    // Eight calls started, the last two not complete at this rank when agreed.
    for (int i = 0; i < 2 * NonblockingTrials::kSamples; ++i) {
        int trial = -1;
        const int tree = t.start(trial);
        if (i < 2 * NonblockingTrials::kSamples - 2) t.completed(trial, tree < 0 ? 0.010 : 0.006);
    }
    const std::vector<double> mine = t.local();
    EXPECT_EQ(mine.back(), NonblockingTrials::kMissing);
    EXPECT_FALSE(t.agree(mine));  // three of each side: too few
    EXPECT_FALSE(t.to_agree());
    t.completed(2 * NonblockingTrials::kSamples - 1, 0.006);  // agreed already: not taken
    // The next two calls make four of each side.
    EXPECT_EQ(run_calls(t, 2, 0.010, 0.006), (std::vector<int>{-1, kTree}));
    ASSERT_TRUE(t.to_agree());
    EXPECT_EQ(t.local().size(), 2u);
    EXPECT_TRUE(t.agree(t.local()));
    EXPECT_EQ(t.phase(), NonblockingTrials::Phase::tree);
    EXPECT_EQ(t.calls(), 2 * NonblockingTrials::kSamples + 2);
}

TEST(NonblockingTrials, TooFewCallsCompleteKeepTheLibrarysOwn) {
    NonblockingTrials t(kTree);
    for (int i = 0; i < NonblockingTrials::kMostCalls; ++i) {
        int trial = -1;
        t.start(trial);
        if (i < 2) t.completed(trial, i == 0 ? 0.010 : 0.001);  // one call of each side, the tree's far faster
    }
    EXPECT_TRUE(t.agree(t.local()));
    EXPECT_EQ(t.phase(), NonblockingTrials::Phase::native);
}

}  // namespace
