// NonblockingTrials (libredux/src/policy/nonblocking_trials.hpp): a key's nonblocking calls take turns, the
// library's own first, then each tree, at most kRounds x kSamples calls of each; the agreed times of complete calls
// decide once every contender has kSamples (the tree of the smallest median, only where that median is more than
// kTieMargin below the library's), a call some rank had not completed is left out, and after the most calls with
// too few the library's own is kept. Each expectation is computed here from the times the test gives.
#include "policy/nonblocking_trials.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {

using redux::NonblockingTrials;

const std::vector<int> kTrees = {2, 0, 1};  // the key's trees weighed, in turn
constexpr int kContenders = 4;              // the library's own and kTrees

// Starts `calls` calls and gives each the time its contender takes in `times_s` (the library's own first, then by
// tree index); returns what each ran.
std::vector<int> run_calls(NonblockingTrials& t, int calls, const std::vector<double>& times_s) {
    std::vector<int> ran;
    for (int i = 0; i < calls; ++i) {
        int trial = -1;
        const int tree = t.start(trial);
        ran.push_back(tree);
        if (trial >= 0) t.completed(trial, times_s[static_cast<size_t>(tree + 1)]);
    }
    return ran;
}

TEST(NonblockingTrials, CallsTakeTurnsNativeFirst) {
    NonblockingTrials t(kTrees);
    ASSERT_EQ(t.most_calls(), NonblockingTrials::kRounds * NonblockingTrials::kSamples * kContenders);
    for (int i = 0; i < t.most_calls(); ++i) {
        int trial = -1;
        const int k = i % kContenders;
        EXPECT_EQ(t.start(trial), k == 0 ? -1 : kTrees[static_cast<size_t>(k - 1)]) << "call " << i;
        EXPECT_EQ(trial, i);
    }
    int trial = 0;
    EXPECT_EQ(t.start(trial), -1);  // beyond the most calls: the library's own, not weighed
    EXPECT_EQ(trial, -1);
    EXPECT_EQ(t.phase(), NonblockingTrials::Phase::weighing);
}

TEST(NonblockingTrials, TheFastestTreeIsKept) {
    NonblockingTrials t(kTrees);
    // The library's own 10 ms; trees 0, 1, 2: 7, 6 and 8 ms.
    run_calls(t, NonblockingTrials::kSamples * kContenders, {0.010, 0.007, 0.006, 0.008});
    ASSERT_TRUE(t.to_agree());
    EXPECT_TRUE(t.agree(t.local()));
    EXPECT_EQ(t.phase(), NonblockingTrials::Phase::tree);
    EXPECT_EQ(t.tree(), 1);
    EXPECT_DOUBLE_EQ(t.native_s(), 0.010);
    EXPECT_DOUBLE_EQ(t.tree_s(), 0.006);
    int trial = 0;
    EXPECT_EQ(t.start(trial), 1);
    EXPECT_EQ(trial, -1);  // decided: untimed
    EXPECT_FALSE(t.to_agree());
}

TEST(NonblockingTrials, ATieKeepsTheLibrarysOwn) {
    const double native_s = 0.010;
    const double tied_s = native_s * (1 - NonblockingTrials::kTieMargin / 2);
    NonblockingTrials t(kTrees);
    run_calls(t, NonblockingTrials::kSamples * kContenders, {native_s, 0.02, tied_s, 0.03});
    EXPECT_TRUE(t.agree(t.local()));
    EXPECT_EQ(t.phase(), NonblockingTrials::Phase::native);
    EXPECT_EQ(t.tree(), 1);  // the fastest tree, not kept
    int trial = 0;
    EXPECT_EQ(t.start(trial), -1);
    EXPECT_EQ(trial, -1);
}

// No tree to weigh (a job whose wisdom says the library's own, with no tree decided by blocking calls): the library's
// own is timed kSamples times and kept; nothing names a tree.
TEST(NonblockingTrials, WithNoTreeTheLibrarysOwnIsKept) {
    NonblockingTrials t({});
    ASSERT_EQ(t.most_calls(), NonblockingTrials::kRounds * NonblockingTrials::kSamples);
    const std::vector<int> ran = run_calls(t, NonblockingTrials::kSamples, {0.010});
    EXPECT_EQ(ran, std::vector<int>(NonblockingTrials::kSamples, -1));
    EXPECT_TRUE(t.agree(t.local()));
    EXPECT_EQ(t.phase(), NonblockingTrials::Phase::native);
    EXPECT_EQ(t.tree(), -1);
    int trial = 0;
    EXPECT_EQ(t.start(trial), -1);
    EXPECT_EQ(trial, -1);
}

TEST(NonblockingTrials, TheSlowestRankDecides) {
    // This rank saw tree 2 fastest; another rank saw every call of tree 2 at 20 ms: the maximum says tree 0.
    NonblockingTrials t(kTrees);
    run_calls(t, NonblockingTrials::kSamples * kContenders, {0.010, 0.007, 0.009, 0.005});
    std::vector<double> agreed = t.local();
    for (size_t i = 1; i < agreed.size(); i += kContenders) agreed[i] = 0.020;  // kTrees[0] == 2
    EXPECT_TRUE(t.agree(agreed));
    EXPECT_EQ(t.phase(), NonblockingTrials::Phase::tree);
    EXPECT_EQ(t.tree(), 0);
    EXPECT_DOUBLE_EQ(t.tree_s(), 0.007);
}

TEST(NonblockingTrials, CallsNotCompleteAreLeftOutAndTheWeighingGoesOn) {
    NonblockingTrials t(kTrees);
    const std::vector<double> times_s = {0.010, 0.007, 0.006, 0.008};
    const int first = NonblockingTrials::kSamples * kContenders;
    // A round of kSamples calls of each, the last call (of the last tree) not complete at this rank when agreed.
    for (int i = 0; i < first; ++i) {
        int trial = -1;
        const int tree = t.start(trial);
        if (i < first - 1) t.completed(trial, times_s[static_cast<size_t>(tree + 1)]);
    }
    const std::vector<double> mine = t.local();
    EXPECT_EQ(mine.back(), NonblockingTrials::kMissing);
    EXPECT_FALSE(t.agree(mine));  // one tree has a call too few
    EXPECT_FALSE(t.to_agree());
    t.completed(first - 1, 0.001);  // agreed already: not taken
    // The next round's calls up to that tree's make four of each.
    EXPECT_EQ(run_calls(t, kContenders, times_s), (std::vector<int>{-1, 2, 0, 1}));
    ASSERT_TRUE(t.to_agree());
    EXPECT_EQ(t.local().size(), static_cast<size_t>(kContenders));
    EXPECT_TRUE(t.agree(t.local()));
    EXPECT_EQ(t.phase(), NonblockingTrials::Phase::tree);
    EXPECT_EQ(t.tree(), 1);
    EXPECT_EQ(t.calls(), first + kContenders);
}

TEST(NonblockingTrials, TooFewCallsCompleteKeepTheLibrarysOwn) {
    NonblockingTrials t(kTrees);
    for (int i = 0; i < t.most_calls(); ++i) {
        int trial = -1;
        t.start(trial);
        if (i < kContenders) t.completed(trial, i == 0 ? 0.010 : 0.001);  // one call of each, the trees far faster
    }
    EXPECT_TRUE(t.agree(t.local()));
    EXPECT_EQ(t.phase(), NonblockingTrials::Phase::native);
}

TEST(NonblockingTrials, AtMostKMostTreesAreWeighed) {
    std::vector<int> trees;
    for (int k = 0; k < NonblockingTrials::kMostTrees + 2; ++k) trees.push_back(k);
    NonblockingTrials t(trees);
    EXPECT_EQ(t.most_calls(),
              NonblockingTrials::kRounds * NonblockingTrials::kSamples * (1 + NonblockingTrials::kMostTrees));
}

}  // namespace
