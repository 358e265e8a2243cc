// The numbers that bound what auto (policy/auto_select.hpp) spends on a key: calls per trial round and per
// weighing, the margins its decisions take, and the most calls before a decision. AutoSelect derives from this, so
// each is read as AutoSelect::kName; docs/design.md ("auto") explains them to users.
#pragma once

#include <cstdint>

namespace redux {

struct AutoLimits {
    static constexpr int kTrials = 4;     // calls of each contender per round
    static constexpr int kMaxRounds = 4;  // then native, if no tree is clearly faster
    static constexpr int kMaxTrees = 5;   // the model's tree and at most four runners-up (plan/select.hpp)
    // After a round, native is kept at once unless a tree's median lies more than this share below native's, and
    // where native has left, the best tree where the others lie within this share above it: a tie costs one round.
    static constexpr double kTieMargin = 0.03;
    // In the trials a tree not seen faster than native runs at most one call in this many (the planner's AutoSelect;
    // others pass 1): the calls between run the library's own (its trial calls, and untimed calls where it has
    // none), so that the median over any window of calls stays the library's own until a tree is found faster.
    static constexpr int kExploreEvery = 4;
    // The most trial calls before a decision: with one tree, and with the most trees.
    static constexpr int kMaxTrialCalls = 2 * kTrials * kMaxRounds;
    static constexpr int kMaxTrialCallsAnyTrees = (kMaxTrees + 1) * kTrials * kMaxRounds;
    // The most calls the trials take, untimed calls of the library's own between the trees' included.
    static constexpr int kMaxTrialsCallsAnyTrees = kMaxTrees * kTrials * kMaxRounds * kExploreEvery;
    static constexpr int kConfirmCalls = 8;   // per side: the tree the trials chose, and native
    static constexpr int kDynamicCalls = 16;  // per side: the choice so far, and tree-dyn
    // The arrival tree's weighing ends after this many calls per side where they do not overlap: every call of the
    // arrival tree, less the root's predicted wait, a kDynamicMargin below every call of the choice less the same
    // (kept), or every call of the arrival tree slower than every call of the choice (not kept).
    static constexpr int kArrivalEarlyCalls = 4;
    // Tree-dyn is weighed where the ranks' median spread at the trials' starts exceeds this many of the choice's
    // median trial call.
    static constexpr double kSpreadFactor = 1.0;
    static constexpr double kDynamicMargin =
        0.9;  // in place: tree-dyn's median below 0.9x, mean below 1/0.9x the choice's
    // The arrival tree is weighed where the latest rank's predicted lateness exceeds this share of the choice's median
    // trial call: what a plan made for the arrivals saves is the others' work done while they wait, at most the
    // lateness, and it is kept only where it saves 1 - kDynamicMargin of the call, so a lateness below that share
    // cannot pay, and one above it may, however long the call.
    static constexpr double kArrivalShare = 1 - kDynamicMargin;
    // The most ranks whose arrivals the trials learn: each trial start carries one double per rank.
    static constexpr int kArrivalRanks = 64;
    // A key's first calls go to the library's own collective before the key is planned or tried (api/first_calls.hpp,
    // native_before_planning): a key called once or twice (set-up, a check, a test of every count) costs nothing; the
    // third plans the key while the library's collective runs.
    static constexpr int kNativeFirstCalls = 3;
    // Calls after a decision the first round made without the runners-up before the trials start again with them.
    static constexpr int kSecondLookCalls = 32;
    // The most calls before the last decision, whatever the trees and the trials: the first calls; a first round,
    // its confirmation, tree-dyn's turns and the second look's wait; then the trials with every tree, a
    // confirmation and tree-dyn's turns.
    static constexpr int kMaxCallsToDecide = kNativeFirstCalls + 2 * kTrials * kExploreEvery + kSecondLookCalls +
                                             kMaxTrialsCallsAnyTrees + 2 * (2 * kConfirmCalls + 2 * kDynamicCalls);
    static constexpr int kWindow = 1024;
    static constexpr double kDriftFactor = 2.0;
    static constexpr int64_t kRecheckEvery = 1 << 16;
    // A contender whose first trial call takes more than this times the best agreed trial call so far leaves.
    static constexpr double kFirstCallFactor = 2.0;
    // The trials end once the trees' calls have taken more than this many of native's median calls in all
    // beyond native's median (their extra time).
    static constexpr double kExtraNativeCalls = 1.0;
    // A key an earlier job decided (AutoSelect::start_from): its first calls timed in place, and how far their
    // median may lie from the earlier job's either way.
    static constexpr int kRecheckCalls = 8;
    static constexpr double kRecheckFactor = 4.0;
};

}  // namespace redux
