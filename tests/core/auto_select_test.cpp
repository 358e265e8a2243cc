// AutoSelect (libredux/src/policy/auto_select.hpp): trials alternate native and planned in rounds; the planned
// tree wins only when clearly faster (the middle halves of the agreed samples do not overlap), native when
// clearly faster or still overlapping after the last round; a tree the trials chose takes turns with native,
// timed in place, and stays only if its median is below native's there too; a drifting window or the periodic
// recheck restarts the trials; decided native calls are not timed. Native excluded once the root passed
// MPI_IN_PLACE where the library's reduce fails so; what a cache of next() may answer (passes_through). Each trial
// call's agreed time (agree_call): a first call over twice the best leaves at once, the trees' extra time over
// native ends the trials; ranks with different times take the same steps on the same agreed numbers. The first
// round is native and tree 0 alone: the runners-up join only where tree 0 is neither clearly faster nor tied.
#include "policy/auto_select.hpp"
#include "policy/report.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace {

using redux::ArrivalPattern;
using redux::AutoSelect;

// Runs one round of trials with the given times (the same on every call of a kind) and agrees on them as they
// are, without the per-call agreement (agree_call). Returns what agree() returned.
bool run_round(AutoSelect& select, double planned_s, double native_s) {
    for (int call = 0; call < 2 * AutoSelect::kTrials; ++call) {
        const AutoSelect::Step step = select.next();
        EXPECT_TRUE(step.timed);
        EXPECT_EQ(step.run, call % 2 == 0 ? AutoSelect::Run::native : AutoSelect::Run::planned) << "call " << call;
        EXPECT_EQ(select.decided(), false);
        select.record(step.run == AutoSelect::Run::planned ? planned_s : native_s);
        EXPECT_EQ(select.needs_agreement(), call == 2 * AutoSelect::kTrials - 1);
    }
    return select.agree(select.local());
}

// The confirmation after the trials chose a tree: it and native take turns for kConfirmCalls calls each, timed in
// place (watched, not started together), with the given times. Returns what agree() returned.
bool confirm(AutoSelect& select, double planned_s, double native_s) {
    EXPECT_FALSE(select.decided());
    const int tree = select.tree();
    for (int call = 0; call < 2 * AutoSelect::kConfirmCalls; ++call) {
        const AutoSelect::Step step = select.next();
        EXPECT_FALSE(step.timed) << "call " << call;
        EXPECT_TRUE(step.watched) << "call " << call;
        EXPECT_EQ(step.run, call % 2 == 0 ? AutoSelect::Run::planned : AutoSelect::Run::native) << "call " << call;
        if (step.run == AutoSelect::Run::planned) {
            EXPECT_EQ(step.tree, tree);
        }
        EXPECT_FALSE(select.needs_agreement());
        select.record(step.run == AutoSelect::Run::planned ? planned_s : native_s);
    }
    EXPECT_TRUE(select.needs_agreement());
    const std::vector<double> local = select.local();
    EXPECT_EQ(local, (std::vector<double>{planned_s, native_s})) << "the medians in place: tree, native";
    return select.agree(local);
}

// Trials with constant times: clearly apart, so one round decides; a tree they choose is confirmed in place with
// the same times.
void run_trials(AutoSelect& select, double planned_s, double native_s) {
    const bool tree = planned_s < native_s;
    EXPECT_EQ(run_round(select, planned_s, native_s), !tree) << "a tree is only chosen after its confirmation";
    if (tree) {
        EXPECT_TRUE(confirm(select, planned_s, native_s));
    }
    EXPECT_TRUE(select.decided());
}

TEST(AutoSelect, TheFasterMedianWins) {
    AutoSelect a;
    run_trials(a, 1.0, 2.0);
    EXPECT_EQ(a.choice(), AutoSelect::Run::planned);
    EXPECT_EQ(a.next().run, AutoSelect::Run::planned);
    EXPECT_FALSE(a.next().timed);
    AutoSelect b;
    run_trials(b, 3.0, 2.0);
    EXPECT_EQ(b.choice(), AutoSelect::Run::native);
    EXPECT_EQ(b.planned_s(), 3.0);
    EXPECT_EQ(b.native_s(), 2.0);
}

TEST(AutoSelect, QuartilesIgnoreOneOutlier) {
    AutoSelect select;
    std::vector<double> planned, native;
    for (int i = 0; i < AutoSelect::kTrials; ++i) {
        planned.push_back(i == 1 ? 100.0 : 1.0 + 0.1 * i);  // one call hit by noise
        native.push_back(1.5 - 0.01 * i);
        select.record(native.back());
        select.record(planned.back());
    }
    std::sort(planned.begin(), planned.end());
    std::sort(native.begin(), native.end());
    static_assert(AutoSelect::kTrials == 4, "the quartiles below are of 4 samples");
    const std::vector<double> local = select.local();  // in turn order: native, then the tree
    ASSERT_EQ(local.size(), 6u);
    EXPECT_EQ(local[3], planned[0]);  // floor((4 - 1) / 4) = 0
    EXPECT_EQ(local[4], planned[1]);  // floor((4 - 1) / 2) = 1
    EXPECT_EQ(local[5], planned[2]);  // floor(3 (4 - 1) / 4) = 2
    EXPECT_LT(local[5], 2.0) << "the outlier is beyond the third quartile";
    EXPECT_EQ(local[0], native[0]);
    EXPECT_EQ(local[1], native[1]);
    EXPECT_EQ(local[2], native[2]);
}

// Overlapping samples: another round, up to kMaxRounds; then native, the MPI library's own.
TEST(AutoSelect, OverlappingSamplesTakeMoreRoundsThenNative) {
    AutoSelect select;
    auto noisy_round = [&](double planned_centre) {
        for (int i = 0; i < AutoSelect::kTrials; ++i) {
            const double jitter = 0.2 * (i % 3) - 0.2;  // -0.2, 0, 0.2: the middle halves overlap
            select.record(1.0 + jitter);
            select.record(planned_centre + jitter);
        }
        EXPECT_TRUE(select.needs_agreement());
        return select.agree(select.local());
    };
    for (int round = 1; round < AutoSelect::kMaxRounds; ++round) {
        EXPECT_FALSE(noisy_round(0.95)) << "round " << round << " decided on noise";
        EXPECT_FALSE(select.decided());
        EXPECT_TRUE(select.next().timed);
    }
    EXPECT_TRUE(noisy_round(0.95));
    EXPECT_EQ(select.choice(), AutoSelect::Run::native) << "5 % apart within 40 % of noise is no win";
    EXPECT_EQ(select.trial_calls(), AutoSelect::kMaxTrialCalls);
    const AutoSelect::Step step = select.next();
    EXPECT_FALSE(step.timed);
    EXPECT_FALSE(step.watched) << "decided native calls are not timed";
}

// A difference that the second round makes clear: the samples accumulate over the rounds.
TEST(AutoSelect, ASecondRoundCanDecide) {
    AutoSelect select;
    // Round 1: planned 1.0 with one slow sample per side, native 1.3 and 1.0: the middle halves touch.
    const double planned1[] = {1.0, 1.0, 1.4, 1.0, 1.0}, native1[] = {1.3, 1.3, 1.0, 1.3, 1.0};
    for (int i = 0; i < AutoSelect::kTrials; ++i) {
        select.record(native1[i]);
        select.record(planned1[i]);
    }
    EXPECT_FALSE(select.agree(select.local()));
    for (int i = 0; i < AutoSelect::kTrials; ++i) {
        select.record(1.3);
        select.record(1.0);
    }
    EXPECT_FALSE(select.agree(select.local())) << "the trials chose the tree: its confirmation follows";
    EXPECT_TRUE(confirm(select, 1.0, 1.3));
    EXPECT_EQ(select.choice(), AutoSelect::Run::planned);
    EXPECT_EQ(select.trial_calls(), 4 * AutoSelect::kTrials);
}

// The trials (started together) say tree, the calls timed in place say native: native, settled.
TEST(AutoSelect, ConfirmationInPlaceCanOverturnTheTrials) {
    AutoSelect select;
    EXPECT_FALSE(run_round(select, 1.0, 2.0));
    EXPECT_TRUE(confirm(select, 2.0, 1.5));
    EXPECT_TRUE(select.decided());
    EXPECT_EQ(select.choice(), AutoSelect::Run::native);
    EXPECT_TRUE(select.settled_native());
    EXPECT_TRUE(select.confirmed());
    EXPECT_EQ(select.confirm_planned_s(), 2.0);
    EXPECT_EQ(select.confirm_incumbent_s(), 1.5);
    EXPECT_EQ(select.incumbent(), select.trees()) << "native";
    EXPECT_EQ(select.planned_s(), 1.0) << "the trials' medians are kept for the report";
    EXPECT_EQ(select.native_s(), 2.0);
    const AutoSelect::Step step = select.next();
    EXPECT_FALSE(step.timed || step.watched);
}

// A tie in place goes to native (libredux costs nothing there); one slow call in place does not move a median.
TEST(AutoSelect, ConfirmationTieGoesToNativeAndOneOutlierDoesNotCount) {
    AutoSelect tie;
    EXPECT_FALSE(run_round(tie, 1.0, 2.0));
    EXPECT_TRUE(confirm(tie, 1.0, 1.0));
    EXPECT_EQ(tie.choice(), AutoSelect::Run::native);

    AutoSelect select;
    EXPECT_FALSE(run_round(select, 1.0, 2.0));
    for (int call = 0; call < 2 * AutoSelect::kConfirmCalls; ++call) {
        const bool native = select.next().run == AutoSelect::Run::native;
        select.record(native ? 1.2 : (call == 4 ? 50.0 : 1.0));  // one call of the tree hit by noise
    }
    ASSERT_TRUE(select.needs_agreement());
    EXPECT_TRUE(select.agree(select.local()));
    EXPECT_EQ(select.choice(), AutoSelect::Run::planned);
    EXPECT_TRUE(select.confirmed());
    EXPECT_EQ(select.confirm_planned_s(), 1.0);
}

// After a decision: windows of kWindow calls; the first sets the baseline, a later one beyond the drift
// factor restarts the trials.
TEST(AutoSelect, DriftRestartsTheTrials) {
    AutoSelect select;
    run_trials(select, 1.0, 2.0);
    auto window = [&](double seconds) {
        for (int i = 0; i < AutoSelect::kWindow; ++i) {
            EXPECT_FALSE(select.needs_agreement());
            select.record(seconds);
        }
        EXPECT_TRUE(select.needs_agreement());
        EXPECT_FALSE(select.agree(select.local()));
    };
    window(1.0);  // baseline
    window(1.5);  // within the factor
    EXPECT_TRUE(select.decided());
    window(1.0 * AutoSelect::kDriftFactor * 1.01);
    EXPECT_FALSE(select.decided());
    EXPECT_TRUE(select.next().timed);
    run_trials(select, 5.0, 2.0);
    EXPECT_EQ(select.choice(), AutoSelect::Run::native);
}

TEST(AutoSelect, RecheckAfterManyCalls) {
    AutoSelect select;
    run_trials(select, 1.0, 2.0);
    int64_t calls = 0;
    while (select.decided() && calls < 2 * AutoSelect::kRecheckEvery) {
        select.record(1.0);
        ++calls;
        if (select.needs_agreement()) select.agree(select.local());
    }
    EXPECT_FALSE(select.decided());
    EXPECT_GE(calls, AutoSelect::kRecheckEvery);
    EXPECT_LT(calls, AutoSelect::kRecheckEvery + AutoSelect::kWindow + 1);
}

// Native, decided: counted, never timed, never agreed on; the trials come back after kRecheckEvery calls.
TEST(AutoSelect, DecidedNativeIsCountedOnlyThenRechecked) {
    AutoSelect select;
    run_trials(select, 2.0, 1.0);
    ASSERT_EQ(select.choice(), AutoSelect::Run::native);
    for (int64_t call = 0; call < AutoSelect::kRecheckEvery; ++call) {
        ASSERT_TRUE(select.decided()) << "call " << call;
        const AutoSelect::Step step = select.next();
        ASSERT_FALSE(step.timed || step.watched);
        select.count();
        ASSERT_FALSE(select.needs_agreement());
    }
    EXPECT_FALSE(select.decided());
    EXPECT_TRUE(select.next().timed);
}

// Several trees (the model's and its runners-up): every contender in the running takes one call in turn, native
// first, then the trees in order.

// Runs one round with a time per contender (trees in order, native last; only those `next()` asks for are
// used), checking the turns against `running`, without the per-call agreement. Returns what agree() returned.
bool run_round_of(AutoSelect& select, const std::vector<int>& running, const std::vector<double>& seconds) {
    const int native = select.trees();
    const int calls = AutoSelect::kTrials * static_cast<int>(running.size());
    for (int call = 0; call < calls; ++call) {
        const AutoSelect::Step step = select.next();
        EXPECT_TRUE(step.timed);
        const int expected = running[static_cast<size_t>(call) % running.size()];
        const int arm = step.run == AutoSelect::Run::native ? native : step.tree;
        EXPECT_EQ(arm, expected) << "call " << call;
        select.record(seconds[static_cast<size_t>(arm)]);
        EXPECT_EQ(select.needs_agreement(), call == calls - 1) << "call " << call;
    }
    EXPECT_EQ(select.local().size(), 3 * running.size()) << "quartiles of each contender in the running";
    return select.agree(select.local());
}

// The first round is native and the model's tree alone; the model's tree clearly slower than native, the runners-up
// join from the second round, and the fastest of them wins in one round where all are clearly apart.
TEST(AutoSelect, TheModelsTreeClearlySlowerBringsTheRunnersUpAndTheFastestWins) {
    AutoSelect select(3);
    EXPECT_FALSE(run_round_of(select, {3, 0}, {5.0, 1.0, 2.0, 4.0}));
    EXPECT_FALSE(run_round_of(select, {3, 1, 2}, {5.0, 1.0, 2.0, 4.0}));
    EXPECT_EQ(select.tree(), 1) << "the tree confirmed is the trials' choice";
    EXPECT_TRUE(confirm(select, 1.0, 4.0));
    ASSERT_TRUE(select.decided());
    EXPECT_EQ(select.choice(), AutoSelect::Run::planned);
    EXPECT_EQ(select.tree(), 1) << "the runner-up the model ranked second was measured fastest";
    EXPECT_EQ(select.planned_s(), 1.0);
    EXPECT_EQ(select.native_s(), 4.0);
    EXPECT_EQ(select.trial_calls(), 5 * AutoSelect::kTrials);
    EXPECT_EQ(select.tree_median_s(0), 5.0);
    EXPECT_EQ(select.tree_median_s(2), 2.0);
    const AutoSelect::Step step = select.next();
    EXPECT_EQ(step.run, AutoSelect::Run::planned);
    EXPECT_EQ(step.tree, 1);
    EXPECT_TRUE(step.watched);
}

// The model's tree clearly faster than native in the first round: the trials end there, the runners-up never run
// ("not needed", no median), and the model's tree is confirmed. A tie ends them there too, on native.
TEST(AutoSelect, TheModelsTreeClearlyFasterOrTiedEndsTheTrialsWithoutTheRunnersUp) {
    AutoSelect select(3);
    EXPECT_FALSE(run_round_of(select, {3, 0}, {1.0, 0.5, 0.5, 4.0}));
    EXPECT_EQ(select.tree(), 0);
    EXPECT_EQ(select.trials_end(), AutoSelect::TrialsEnd::one_left);
    EXPECT_TRUE(confirm(select, 1.0, 4.0));
    EXPECT_EQ(select.choice(), AutoSelect::Run::planned);
    EXPECT_EQ(select.trial_calls(), 2 * AutoSelect::kTrials);
    ASSERT_EQ(select.dropped().size(), 3u);
    EXPECT_EQ(select.dropped()[0].contender, 3);
    EXPECT_EQ(select.dropped()[0].reason, AutoSelect::DropReason::clearly_slower);
    for (int tree : {1, 2}) {
        EXPECT_EQ(select.dropped()[static_cast<size_t>(tree)].contender, tree);
        EXPECT_EQ(select.dropped()[static_cast<size_t>(tree)].reason, AutoSelect::DropReason::not_needed);
        EXPECT_EQ(select.dropped()[static_cast<size_t>(tree)].first_s, 0.0);
        EXPECT_FALSE(select.tree_median_s(tree) < 1e300) << "not measured";
    }
    EXPECT_STREQ(redux::drop_reason_name(AutoSelect::DropReason::not_needed), "not needed");
    // The second look: kSecondLookCalls calls of the decision, then the trials with every tree from their first
    // round, the model's tree (kept) first in native's place and native sitting out; a runner-up clearly faster
    // than the model's tree is found, confirmed in place against it and kept; no second look after that.
    EXPECT_TRUE(select.second_look_pending());
    for (int call = 0; call < AutoSelect::kSecondLookCalls; ++call) {
        ASSERT_TRUE(select.decided()) << "call " << call;
        const AutoSelect::Step step = select.next();
        ASSERT_TRUE(step.watched);
        ASSERT_EQ(step.tree, 0);
        select.record(1.0);
        ASSERT_FALSE(select.needs_agreement());
    }
    EXPECT_FALSE(select.decided());
    EXPECT_EQ(select.incumbent(), 0);
    EXPECT_FALSE(run_round_of(select, {0, 1, 2}, {1.0, 0.5, 2.0, 4.0}));
    EXPECT_EQ(select.tree(), 1);
    for (int call = 0; call < 2 * AutoSelect::kConfirmCalls; ++call) {  // tree 1, then tree 0 (not native)
        const AutoSelect::Step step = select.next();
        ASSERT_TRUE(step.watched && !step.timed);
        ASSERT_EQ(step.run, AutoSelect::Run::planned);
        ASSERT_EQ(step.tree, call % 2 == 0 ? 1 : 0) << "call " << call;
        select.record(call % 2 == 0 ? 0.5 : 1.0);
    }
    ASSERT_TRUE(select.needs_agreement());
    EXPECT_TRUE(select.agree(select.local()));
    EXPECT_EQ(select.choice(), AutoSelect::Run::planned);
    EXPECT_EQ(select.tree(), 1);
    EXPECT_EQ(select.confirm_planned_s(), 0.5);
    EXPECT_EQ(select.confirm_incumbent_s(), 1.0) << "the model's tree, in place";
    EXPECT_EQ(select.choice_in_place_s(), 0.5);
    EXPECT_EQ(select.native_s(), 4.0) << "native's median from the first round, not measured again";
    EXPECT_FALSE(select.second_look_pending());
    ASSERT_FALSE(select.dropped().empty());
    EXPECT_EQ(select.dropped().front().contender, 3);
    EXPECT_EQ(select.dropped().front().reason, AutoSelect::DropReason::slower_before);
    EXPECT_STREQ(redux::drop_reason_name(AutoSelect::DropReason::slower_before), "clearly slower before");

    AutoSelect tie(3);
    for (int i = 0; i < AutoSelect::kTrials; ++i) {
        tie.record(1.0 + 0.2 * (i % 2));   // native: 1.0, 1.2
        tie.record(0.99 + 0.2 * (i % 2));  // tree 0: 1 % ahead, the middle halves overlap
    }
    ASSERT_TRUE(tie.needs_agreement());
    EXPECT_TRUE(tie.agree(tie.local()));
    EXPECT_TRUE(tie.settled_native());
    EXPECT_EQ(tie.trials_end(), AutoSelect::TrialsEnd::tie);
    EXPECT_EQ(tie.trial_calls(), 2 * AutoSelect::kTrials);
    EXPECT_EQ(tie.dropped().size(), 2u) << "the runners-up, not needed";
    // Native settled, its calls untimed (the pass-through's count): the second look comes all the same.
    EXPECT_TRUE(tie.second_look_pending());
    for (int call = 0; call < AutoSelect::kSecondLookCalls; ++call) {
        ASSERT_TRUE(tie.passes_through()) << "call " << call;
        tie.count_passed_through();
    }
    EXPECT_FALSE(tie.decided());
    EXPECT_TRUE(run_round_of(tie, {3, 0, 1, 2}, {2.0, 2.0, 2.0, 1.0}));
    EXPECT_TRUE(tie.settled_native()) << "no tree faster: native, for good";
    EXPECT_FALSE(tie.second_look_pending());
}

// A clearly slower tree leaves the running after the round it joined; the two left overlap until the last round (the
// tree's median 5 % below native's: more than a tie), and then native stays (no tree was clearly faster than it).
TEST(AutoSelect, ClearlySlowerTreesLeaveAndOverlapEndsWithNative) {
    AutoSelect select(2);
    auto noisy_round = [&](const std::vector<int>& running, bool expect_decision) {
        const int calls = AutoSelect::kTrials * static_cast<int>(running.size());
        for (int call = 0; call < calls; ++call) {
            const AutoSelect::Step step = select.next();
            const int arm = step.run == AutoSelect::Run::native ? 2 : step.tree;
            EXPECT_EQ(arm, running[static_cast<size_t>(call) % running.size()]) << "call " << call;
            const double jitter = 0.2 * ((call / static_cast<int>(running.size())) % 3);  // 0, 0.2, 0.4: overlapping
            select.record(arm == 1 ? 10.0 : 1.0 + jitter - (arm == 0 ? 0.05 : 0.0));
        }
        ASSERT_TRUE(select.needs_agreement());
        EXPECT_EQ(select.agree(select.local()), expect_decision);
    };
    noisy_round({2, 0}, false);     // the first round: the model's tree not clearly apart from native, no tie
    noisy_round({2, 0, 1}, false);  // the runner-up joins and leaves
    for (int round = 2; round < AutoSelect::kMaxRounds - 1; ++round) noisy_round({2, 0}, false);
    noisy_round({2, 0}, true);
    EXPECT_EQ(select.choice(), AutoSelect::Run::native);
    EXPECT_EQ(select.trial_calls(), 3 * AutoSelect::kTrials + 2 * AutoSelect::kTrials * (AutoSelect::kMaxRounds - 1));
    EXPECT_FALSE(select.next().timed) << "decided native: the pass-through";
    EXPECT_TRUE(select.settled_native());
}

// The model's tree overlaps native in the first round (the runner-up joins), native is clearly slower than both
// trees from the second and leaves; the two trees overlap to the last round, and the smaller median wins.
TEST(AutoSelect, OverlappingTreesEndWithTheSmallerMedian) {
    AutoSelect select(2);
    const std::vector<double> tree0 = {1.0, 1.3, 1.1, 1.4, 1.2}, tree1 = {1.25, 1.0, 1.35, 1.05, 1.15};
    std::vector<size_t> taken(3, 0);
    const std::vector<std::vector<int>> rounds = {{2, 0}, {2, 0, 1}, {0, 1}, {0, 1}};
    for (const std::vector<int>& running : rounds) {
        for (int call = 0; call < AutoSelect::kTrials * static_cast<int>(running.size()); ++call) {
            const AutoSelect::Step step = select.next();
            const int arm = step.run == AutoSelect::Run::native ? 2 : step.tree;
            ASSERT_EQ(arm, running[static_cast<size_t>(call) % running.size()]);
            const size_t k = taken[static_cast<size_t>(arm)]++;
            select.record(arm == 2 ? (k == 0 ? 1.2 : 5.0) : arm == 0 ? tree0[k % 5] : tree1[k % 5]);
        }
        ASSERT_TRUE(select.needs_agreement());
        EXPECT_FALSE(select.agree(select.local())) << "round of " << running.size();
    }
    EXPECT_TRUE(confirm(select, 1.15, 5.0)) << "native left the trials; the tree is still confirmed against it";
    EXPECT_EQ(select.choice(), AutoSelect::Run::planned);
    EXPECT_EQ(select.tree(), 1) << "median 1.15 against 1.2";
    EXPECT_EQ(select.native_s(), 5.0);
}

// A restart (drift) puts every tree back in the running; exclude_native runs the model's tree.
TEST(AutoSelect, RestartBringsEveryTreeBackAndExclusionRunsTreeZero) {
    AutoSelect select(3);
    EXPECT_FALSE(run_round_of(select, {3, 0}, {5.0, 1.0, 2.0, 4.0}));
    EXPECT_FALSE(run_round_of(select, {3, 1, 2}, {5.0, 1.0, 2.0, 4.0}));
    EXPECT_TRUE(confirm(select, 1.0, 4.0));
    EXPECT_FALSE(select.second_look_pending()) << "every tree was looked at";
    auto window = [&](double seconds) {
        for (int i = 0; i < AutoSelect::kWindow; ++i) select.record(seconds);
        EXPECT_FALSE(select.agree(select.local()));
    };
    window(1.0);
    window(1.0 * AutoSelect::kDriftFactor * 1.01);
    ASSERT_FALSE(select.decided());
    EXPECT_FALSE(run_round_of(select, {3, 0}, {3.0, 4.0, 1.0, 2.0}));
    EXPECT_FALSE(run_round_of(select, {3, 1, 2}, {3.0, 4.0, 1.0, 2.0})) << "the runners-up held back again";
    EXPECT_EQ(select.tree(), 2);
    select.exclude_native();
    const AutoSelect::Step step = select.next();
    EXPECT_EQ(step.run, AutoSelect::Run::planned);
    EXPECT_EQ(step.tree, 0);
    EXPECT_FALSE(step.timed || step.watched);
}

// Native ruled out during the confirmation: the model's tree, untimed.
TEST(AutoSelect, ExclusionDuringTheConfirmationRunsTreeZero) {
    AutoSelect select(2);
    EXPECT_FALSE(run_round_of(select, {2, 0}, {4.0, 1.0, 3.0}));
    EXPECT_FALSE(run_round_of(select, {2, 1}, {4.0, 1.0, 3.0}));
    ASSERT_EQ(select.tree(), 1);
    select.record(1.0);  // a first confirming call
    select.exclude_native();
    const AutoSelect::Step step = select.next();
    EXPECT_EQ(step.run, AutoSelect::Run::planned);
    EXPECT_EQ(step.tree, 0);
    EXPECT_FALSE(step.timed || step.watched);
    EXPECT_FALSE(select.needs_agreement());
}

// Native excluded: tree 0 on every call, untimed, never an agreement, never native.
TEST(AutoSelect, ExcludedNativeRunsTreeZero) {
    AutoSelect select(3);
    select.exclude_native();
    EXPECT_TRUE(select.native_excluded());
    for (int call = 0; call < 2 * AutoSelect::kWindow; ++call) {
        const AutoSelect::Step step = select.next();
        ASSERT_EQ(step.run, AutoSelect::Run::planned);
        ASSERT_EQ(step.tree, 0);
        ASSERT_FALSE(step.timed || step.watched || step.agree_in_place);
        select.count();
        ASSERT_FALSE(select.needs_agreement());
    }
    EXPECT_FALSE(select.settled_native());
    EXPECT_FALSE(select.passes_through());
}

// Where the library's reduce fails with MPI_IN_PLACE at the root: every trial asks for the agreement on it; once
// the root passed it, the model's tree, untimed, and never native again.
TEST(AutoSelect, InPlaceFailureAsksEveryTrialAndExcludesNativeOnceAgreed) {
    const char* why = "fails in place";
    AutoSelect select(2, {why, nullptr});
    EXPECT_EQ(select.native_in_place_failure(), why);
    for (int call = 0; call < 3; ++call) {
        const AutoSelect::Step step = select.next();
        EXPECT_TRUE(step.timed && step.agree_in_place) << "call " << call;
        select.record(1.0);
    }
    ASSERT_TRUE(select.next().agree_in_place);
    const AutoSelect::Step instead = select.root_passed_in_place();
    EXPECT_EQ(instead.run, AutoSelect::Run::planned);
    EXPECT_EQ(instead.tree, 0);
    EXPECT_FALSE(instead.timed || instead.watched || instead.agree_in_place);
    EXPECT_TRUE(select.native_excluded());
    EXPECT_FALSE(select.needs_agreement());
}

// Settled on native where the library fails in place: native, with a copy of the root's data where the root
// passes MPI_IN_PLACE, and never a pass-through a cache may answer. Without the failure: a pass-through.
TEST(AutoSelect, PassesThroughOnlyWhereNativeTakesEveryCall) {
    AutoSelect fails(1, {"fails in place", nullptr});
    EXPECT_TRUE(fails.next().agree_in_place);
    run_trials(fails, 3.0, 2.0);
    ASSERT_TRUE(fails.settled_native());
    const AutoSelect::Step step = fails.next();
    EXPECT_EQ(step.run, AutoSelect::Run::native);
    EXPECT_FALSE(step.timed || step.watched || step.agree_in_place) << "decided: no agreement";
    EXPECT_TRUE(fails.native_needs_copy(true));
    EXPECT_FALSE(fails.native_needs_copy(false));
    EXPECT_FALSE(fails.passes_through());

    AutoSelect takes;
    EXPECT_FALSE(takes.next().agree_in_place);
    EXPECT_FALSE(takes.passes_through()) << "undecided";
    run_trials(takes, 3.0, 2.0);
    EXPECT_TRUE(takes.passes_through());
    EXPECT_FALSE(takes.native_needs_copy(true));
    AutoSelect tree;
    run_trials(tree, 1.0, 2.0);
    EXPECT_FALSE(tree.passes_through()) << "decided for a tree";

    // Where the library leaves a root's result at MPI_BOTTOM unwritten: native all the same, the root receiving
    // into a buffer of libredux's; no agreement, and no pass-through.
    AutoSelect bottom(1, {nullptr, "fails at MPI_BOTTOM"});
    EXPECT_FALSE(bottom.next().agree_in_place);
    run_trials(bottom, 3.0, 2.0);
    ASSERT_TRUE(bottom.settled_native());
    EXPECT_TRUE(bottom.native_needs_recv_copy(true));
    EXPECT_FALSE(bottom.native_needs_recv_copy(false));
    EXPECT_FALSE(bottom.native_needs_copy(true));
    EXPECT_FALSE(bottom.passes_through());
    EXPECT_FALSE(takes.native_needs_recv_copy(true));
}

// The per-call agreement, as api/run_plan.cpp makes it: one call on `ranks` ranks, each rank with its own
// AutoSelect. A trial call's start agrees on the previous trial call's time (the largest of the ranks' pending
// times), a round's agreement (the largest of each number) follows where asked, then the call runs what next()
// says and takes `seconds(rank, step)`. Returns the step every rank took (checked to be the same) and whether a
// decision was made.
struct Ranks {
    std::vector<AutoSelect> select;
    // The agreed spread of the ranks' arrivals at each trial call's start (negative: unknown).
    double spread_s = -1.0;
    // With arrivals: by rank, how late each came to the n-th trial start (counted from 0) after the first rank.
    std::function<std::vector<double>(int)> lateness_s;
    int starts = 0;
    explicit Ranks(int ranks, int trees = 1, bool dynamic = false, int explore_every = 1, bool arrivals = false)
        : select(static_cast<size_t>(ranks), AutoSelect(trees, {}, dynamic, explore_every, arrivals)) {}

    bool agree_all() {
        std::vector<double> agreed = select.front().local();
        for (const AutoSelect& s : select) {
            const std::vector<double> mine = s.local();
            EXPECT_EQ(mine.size(), agreed.size());
            for (size_t i = 0; i < agreed.size() && i < mine.size(); ++i) agreed[i] = std::max(agreed[i], mine[i]);
        }
        bool decided = false;
        for (AutoSelect& s : select) decided = s.agree(agreed);
        return decided;
    }

    template <typename Seconds>
    AutoSelect::Step call(Seconds seconds, bool* decision = nullptr) {
        bool decided = false;
        AutoSelect::Step step = select.front().next();
        if (step.timed) {
            double largest = 0;
            for (const AutoSelect& s : select) largest = std::max(largest, s.pending_s());
            if (lateness_s) {
                const std::vector<double> late = lateness_s(starts++);
                for (AutoSelect& s : select) s.learn_arrivals(late, 0);
            }
            for (AutoSelect& s : select) decided = s.agree_call(largest, spread_s) || decided;
            if (select.front().needs_agreement()) decided = agree_all() || decided;
        }
        step = select.front().next();
        for (size_t r = 0; r < select.size(); ++r) {
            AutoSelect& s = select[r];
            const AutoSelect::Step mine = s.next();
            EXPECT_EQ(mine.run, step.run);
            EXPECT_EQ(mine.tree, step.tree);
            EXPECT_EQ(mine.timed, step.timed);
            EXPECT_EQ(mine.watched, step.watched);
            if (step.timed || step.watched) {
                s.record(seconds(static_cast<int>(r), step));
            } else {
                s.count();
            }
        }
        for (const AutoSelect& s : select) EXPECT_EQ(s.needs_agreement(), select.front().needs_agreement());
        if (select.front().needs_agreement()) decided = agree_all() || decided;
        if (decision != nullptr) *decision = decided;
        return step;
    }
    AutoSelect& operator*() { return select.front(); }
    AutoSelect* operator->() { return &select.front(); }
};

// The contender a step runs: a tree, or trees() for native.
int contender(const AutoSelect& select, const AutoSelect::Step& step) {
    return step.run == AutoSelect::Run::native ? select.trees() : step.tree;
}

static_assert(AutoSelect::kMaxCallsToDecide == 483, "docs/usage.md and docs/benchmark.md say 483 calls");

TEST(AutoSelect, NativeRunsTheFirstTrialCall) {
    AutoSelect select(3);
    const AutoSelect::Step step = select.next();
    EXPECT_EQ(step.run, AutoSelect::Run::native);
    EXPECT_TRUE(step.timed);
    EXPECT_EQ(select.pending_s(), 0.0) << "nothing to agree on before the first trial call";
}

// A first call over twice the best seen so far leaves at once: the contender never runs again, and the trials go
// on with the others; where that is the model's tree in the first round, the runners-up join at once.
TEST(AutoSelect, AFirstCallOverTwiceTheBestLeavesAtOnce) {
    Ranks ranks(1, 3);
    const std::vector<double> times = {2.5, 0.9, 0.6, 1.0};  // trees 0, 1, 2, native
    std::vector<int> calls(4, 0);
    auto seconds = [&](int, const AutoSelect::Step& step) {
        return times[static_cast<size_t>(contender(*ranks, step))];
    };
    for (int call = 0; call < 5; ++call) ++calls[static_cast<size_t>(contender(*ranks, ranks.call(seconds)))];
    EXPECT_EQ(calls, (std::vector<int>{1, 1, 1, 2})) << "native, tree 0, then native and the runners-up in order";
    ASSERT_EQ(ranks->dropped().size(), 1u) << "tree 0 left at the start of the call after its first";
    const AutoSelect::Drop drop = ranks->dropped().front();
    EXPECT_EQ(drop.contender, 0);
    EXPECT_EQ(drop.reason, AutoSelect::DropReason::first_call);
    EXPECT_EQ(drop.first_s, 2.5);
    EXPECT_EQ(drop.best_s, 1.0) << "native's first call was the best then";
    bool decided = false;
    for (int call = 4; call < 100 && !decided; ++call) {
        const AutoSelect::Step step = ranks.call(seconds, &decided);
        EXPECT_NE(contender(*ranks, step), 0) << "call " << call;
    }
    ASSERT_TRUE(decided);
    EXPECT_EQ(ranks->choice(), AutoSelect::Run::planned);
    EXPECT_EQ(ranks->tree(), 2) << "the trials chose the fastest tree, and its confirmation kept it";
    EXPECT_EQ(ranks->trial_calls(), 2 + 3 * AutoSelect::kTrials)
        << "tree 0 ran once; native twice before the runners-up joined, then in turn with them";
    EXPECT_EQ(std::string(drop_reason_name(drop.reason)), "first call over 2x the best");
}

// A tree 10x slower than native costs one call: with one tree, native is left alone and decided at once.
TEST(AutoSelect, ATenTimesSlowerTreeCostsOneCall) {
    Ranks ranks(1, 1);
    auto seconds = [&](int, const AutoSelect::Step& step) { return step.run == AutoSelect::Run::native ? 1.0 : 10.0; };
    EXPECT_EQ(ranks.call(seconds).run, AutoSelect::Run::native);
    EXPECT_EQ(ranks.call(seconds).run, AutoSelect::Run::planned);
    bool decided = false;
    const AutoSelect::Step third = ranks.call(seconds, &decided);
    EXPECT_TRUE(decided);
    EXPECT_EQ(third.run, AutoSelect::Run::native);
    EXPECT_FALSE(third.timed || third.watched) << "decided native: the pass-through";
    EXPECT_TRUE(ranks->settled_native());
    EXPECT_EQ(ranks->trial_calls(), 2);
    EXPECT_EQ(ranks->trials_end(), AutoSelect::TrialsEnd::one_left);
    EXPECT_EQ(ranks->native_s(), 1.0);
    EXPECT_EQ(ranks->tree_median_s(0), 10.0);
}

// Trees slower than native but under twice its time: their extra time, summed, ends the trials once it passes one
// native call's worth; native stays.
TEST(AutoSelect, TheExtraTimeBoundEndsTheTrials) {
    Ranks ranks(1, 2);
    auto seconds = [&](int, const AutoSelect::Step& step) { return step.run == AutoSelect::Run::native ? 1.0 : 1.3; };
    bool decided = false;
    int calls = 0;
    while (!decided && calls < 100) {
        ranks.call(seconds, &decided);
        ++calls;
    }
    EXPECT_TRUE(ranks->settled_native());
    // N T0 N T0 N T0 N T0: the fourth tree call's 0.3 s brings the extra time to 1.2 s, over 1.0 s: agreed at the
    // next call's start, which is then decided; tree 1, held back for the first round's end, is not reached.
    EXPECT_EQ(ranks->trial_calls(), 8);
    EXPECT_EQ(calls, 9);
    EXPECT_EQ(ranks->trials_end(), AutoSelect::TrialsEnd::extra_time);
    EXPECT_NEAR(ranks->trial_extra_s(), 1.2, 1e-12);
    EXPECT_NEAR(ranks->trial_extra_bound_s(), 1.0, 1e-12);
}

// Spent within the first turns: the trees not reached leave without a call (the runners-up held back for the first
// round's end among them), the others are judged on what they ran; a tree clearly faster than native still wins
// (and is then confirmed).
TEST(AutoSelect, ExtraTimeSpentEarlyLeavesTheTreesNotReached) {
    Ranks slow(1, 5);
    auto all_slower = [&](int, const AutoSelect::Step& step) {
        return step.run == AutoSelect::Run::native ? 1.0 : 1.5;
    };
    bool decided = false;
    int calls = 0;
    while (!decided && calls < 100) {
        slow.call(all_slower, &decided);
        ++calls;
    }
    EXPECT_TRUE(slow->settled_native());
    EXPECT_EQ(slow->trials_end(), AutoSelect::TrialsEnd::extra_time);
    EXPECT_EQ(slow->trial_calls(), 6) << "N T0 N T0 N T0: 1.5 s extra after tree 0's third call";
    ASSERT_EQ(slow->dropped().size(), 5u);
    for (int tree = 1; tree < 5; ++tree) {
        const AutoSelect::Drop& drop = slow->dropped()[static_cast<size_t>(tree - 1)];
        EXPECT_EQ(drop.contender, tree);
        EXPECT_EQ(drop.reason, AutoSelect::DropReason::not_reached);
        EXPECT_EQ(drop.first_s, 0.0);
    }
    EXPECT_EQ(slow->dropped()[4].contender, 0);
    EXPECT_EQ(slow->dropped()[4].reason, AutoSelect::DropReason::clearly_slower);

    // Tree 0 leaves on its first call, the runners-up join: tree 1 is faster than native, trees 2 and 3 at 1.6x
    // the best (under the 2x of a first call). Extra time: N, 0 (left: not counted), N, 1 (-0.2 s), 2 (+0.4 s),
    // 3 (+1.0 s), N, 1 (+0.8 s), 2 (+1.4 s), agreed at the next call's start, which then confirms tree 1.
    Ranks one_fast(1, 4);
    const std::vector<double> times = {2.5, 0.8, 1.6, 1.6, 1.0};
    auto one_faster = [&](int, const AutoSelect::Step& step) {
        return times[static_cast<size_t>(contender(*one_fast, step))];
    };
    for (int call = 0; call < 9; ++call) one_fast.call(one_faster);
    EXPECT_EQ(one_fast->dropped().size(), 1u) << "tree 0, on its first call";
    const AutoSelect::Step tenth = one_fast.call(one_faster);
    EXPECT_FALSE(one_fast->decided());
    EXPECT_TRUE(tenth.watched) << "the confirmation's first call";
    EXPECT_EQ(one_fast->tree(), 1) << "clearly faster than native on its samples";
    EXPECT_EQ(one_fast->trials_end(), AutoSelect::TrialsEnd::extra_time);
}

// A decision read from the wisdom file whose second look was still to come (the earlier job's first round decided
// without the runners-up): re-checked, decided but not final, and kSecondLookCalls calls after the start the trials
// begin again with every tree in their first round, native first (or, after a tree, that tree, native sitting out).
TEST(AutoSelect, WisdomWithASecondLookToComeTakesIt) {
    for (const bool native : {false, true}) {
        SCOPED_TRACE(native ? "native" : "tree 1");
        Ranks ranks(1, 3);
        ranks->start_from(native ? AutoSelect::Run::native : AutoSelect::Run::planned, 1, 1.0, 1.0,
                          /*second_look=*/true);
        const auto one_second = [](int, const AutoSelect::Step&) { return 1.0; };
        int calls = 0;
        while (ranks->rechecking() && calls < 2 * AutoSelect::kRecheckCalls) {
            ranks.call(one_second);
            ++calls;
        }
        EXPECT_EQ(calls, AutoSelect::kRecheckCalls);
        EXPECT_TRUE(ranks->decided()) << "the re-check holds";
        EXPECT_FALSE(ranks->decision_final()) << "the second look is still to come";
        while (ranks->decided() && calls < 4 * AutoSelect::kSecondLookCalls) {
            ranks.call(one_second);
            ++calls;
        }
        EXPECT_EQ(calls, AutoSelect::kSecondLookCalls);
        std::vector<int> first_round;  // -1: native
        for (int k = 0; k < (native ? 4 : 3); ++k) {
            const AutoSelect::Step step = ranks.call(one_second);
            EXPECT_TRUE(step.timed);
            first_round.push_back(step.run == AutoSelect::Run::native ? -1 : step.tree);
        }
        // After a tree, native sits the look out and the tree kept runs first, in its place.
        EXPECT_EQ(first_round, native ? (std::vector<int>{-1, 0, 1, 2}) : (std::vector<int>{1, 0, 2}));
    }
}

// Runs calls until a decision (at most kMaxCallsToDecide); returns how many each contender ran: by the step's tree
// (tree-dyn: dynamic_tree()), native last.
std::vector<int> calls_to_decide(Ranks& ranks, const std::vector<double>& times) {
    std::vector<int> calls(times.size(), 0);
    bool decided = false;
    for (int call = 0; call < AutoSelect::kMaxCallsToDecide && !decided; ++call) {
        const AutoSelect::Step step = ranks.call(
            [&](int, const AutoSelect::Step& s) {
                return times[static_cast<size_t>(s.run == AutoSelect::Run::native ? times.size() - 1 : s.tree)];
            },
            &decided);
        ++calls[static_cast<size_t>(step.run == AutoSelect::Run::native ? times.size() - 1 : step.tree)];
    }
    EXPECT_TRUE(decided) << "within kMaxCallsToDecide";
    return calls;
}

// Ranks that come to the trials' starts further apart than the choice takes: after the trials (and the tree's
// confirmation) the choice and tree-dyn take turns in place, kDynamicCalls each, and tree-dyn is kept only where
// its median is below 0.9 times the choice's (and its mean below the choice's / 0.9: the same here, constant times).
TEST(AutoSelect, SpreadArrivalsWeighTreeDynInPlace) {
    const int dyn = 1;  // one contender tree: tree-dyn is tree 1
    for (double dyn_s : {0.5, 0.89, 0.91, 1.5}) {
        Ranks ranks(1, 1, /*dynamic=*/true);
        ranks.spread_s = 5.0;
        const std::vector<int> calls = calls_to_decide(ranks, {1.0, dyn_s, 2.0});  // tree 0, tree-dyn, native
        EXPECT_EQ(calls[dyn], AutoSelect::kDynamicCalls);
        EXPECT_EQ(calls[0], AutoSelect::kTrials + AutoSelect::kConfirmCalls + AutoSelect::kDynamicCalls);
        EXPECT_TRUE(ranks->dynamic_weighed());
        EXPECT_EQ(ranks->arrival_spread_s(), 5.0);
        EXPECT_EQ(ranks->dynamic_choice_s(), 1.0);
        EXPECT_EQ(ranks->dynamic_s(), dyn_s);
        EXPECT_EQ(ranks->choice(), AutoSelect::Run::planned);
        EXPECT_EQ(ranks->tree(), dyn_s < 0.9 ? dyn : 0) << dyn_s;
        const AutoSelect::Step decided = ranks->next();
        EXPECT_FALSE(decided.timed);
        EXPECT_TRUE(decided.watched) << "a decided planned tree, tree-dyn too, is watched for drift";
    }
}

// Calls of two kinds (a late root costs tree-dyn more than a static tree): tree-dyn's median well below the
// choice's but its mean above it: the choice stays.
TEST(AutoSelect, TreeDynWithTheLowerMedianButTheHigherMeanIsNotKept) {
    for (double rare_s : {3.0, 1.5}) {
        Ranks ranks(1, 1, /*dynamic=*/true);
        ranks.spread_s = 5.0;
        int dyn_calls = 0;
        bool decided = false;
        for (int call = 0; call < AutoSelect::kMaxCallsToDecide && !decided; ++call) {
            ranks.call(
                [&](int, const AutoSelect::Step& s) {
                    if (s.run == AutoSelect::Run::native) return 2.0;
                    if (s.tree == 0) return 1.0;
                    return dyn_calls++ % 4 == 0 ? rare_s : 0.5;  // a quarter of tree-dyn's calls at rare_s
                },
                &decided);
        }
        ASSERT_TRUE(decided);
        EXPECT_TRUE(ranks->dynamic_weighed());
        EXPECT_EQ(ranks->dynamic_s(), 0.5);
        // Means: tree-dyn 0.75 * 0.5 + 0.25 * rare_s (1.125 s at 3.0, 0.75 s at 1.5), the choice 1.0 (kept
        // below 1.0 / 0.9 = 1.11 s).
        EXPECT_EQ(ranks->tree(), rare_s > 2.0 ? 0 : 1) << rare_s;
    }
}

// Native chosen, arrivals spread: native and tree-dyn take turns; tree-dyn, slower, leaves native settled.
TEST(AutoSelect, SpreadArrivalsWeighTreeDynAgainstNative) {
    Ranks ranks(1, 1, /*dynamic=*/true);
    ranks.spread_s = 5.0;
    const std::vector<int> calls = calls_to_decide(ranks, {3.0, 2.5, 1.0});
    EXPECT_EQ(calls[1], AutoSelect::kDynamicCalls);
    EXPECT_TRUE(ranks->dynamic_weighed());
    EXPECT_TRUE(ranks->settled_native());
    EXPECT_EQ(ranks->planned_s(), 3.0) << "the trials' tree, as without tree-dyn";
}

// Arrivals that repeat from one trial start to the next (the same rank late by about the same): the arrival tree
// takes tree-dyn's part, built by the caller as its weighing begins; a late root counts, where tree-dyn's spread leaves
// it out. It is kept where it saves a tenth of what follows the root's wait for the late rank (0.5 against 1.0 after
// a wait of 5: kept, after kArrivalEarlyCalls calls each, every call a tenth faster; 0.95: not, after kDynamicCalls,
// the calls overlapping within the margin; 1.5: not, after kArrivalEarlyCalls, every call slower). Arrivals that
// do not repeat (a different rank late at each start) leave tree-dyn's part to tree-dyn, weighed kDynamicCalls.
TEST(AutoSelect, RepeatingArrivalsWeighTheArrivalTree) {
    struct Case {
        int32_t late;      // the rank late at every start, or -1: a different one at each start
        double spread_s;   // tree-dyn's: the ranks but the root
        double arrival_s;  // the arrival tree's time in place
        int weighed;       // the contender weighed: 1 tree-dyn, 2 the arrival tree
        int decided;
        int weighed_calls;  // per side
    };
    constexpr int kEarly = AutoSelect::kArrivalEarlyCalls, kFull = AutoSelect::kDynamicCalls;
    for (const Case c :
         {Case{2, 5.0, 0.5, 2, 2, kEarly}, Case{2, 5.0, 0.95, 2, 0, kFull}, Case{2, 5.0, 1.5, 2, 0, kEarly},
          Case{0, 0.0, 0.5, 2, 2, kEarly}, Case{-1, 5.0, 0.5, 1, 1, kFull}}) {
        Ranks ranks(1, 1, /*dynamic=*/true, 1, /*arrivals=*/true);
        ranks.spread_s = c.spread_s;
        ranks.lateness_s = [&](int start) {
            std::vector<double> late(3, 0.0);
            late[static_cast<size_t>(c.late >= 0 ? c.late : start % 3)] = 5.0 + 0.1 * (start % 2);  // a little jitter
            return late;
        };
        bool due = false;
        std::vector<int> calls(4, 0);  // tree 0, tree-dyn, the arrival tree, native
        bool decided = false;
        for (int call = 0; call < AutoSelect::kMaxCallsToDecide && !decided; ++call) {
            const AutoSelect::Step step = ranks.call(
                [&](int, const AutoSelect::Step& st) {
                    // In place (not a trial, whose ranks start together) the root waits for a late rank other than
                    // itself, whatever runs.
                    const double wait_s = !st.timed && c.late > 0 ? 5.0 : 0.0;
                    if (st.run == AutoSelect::Run::native) return 2.0 + wait_s;
                    return (st.tree == 0 ? 1.0 : st.tree == 1 ? 0.7 : c.arrival_s) + wait_s;
                },
                &decided);
            if (ranks->arrival_tree_due()) {
                due = true;
                ranks->arrival_tree_built();
            }
            ++calls[step.run == AutoSelect::Run::native ? 3 : static_cast<size_t>(step.tree)];
        }
        ASSERT_TRUE(decided);
        EXPECT_EQ(ranks->arrivals_repeat(), c.late >= 0);
        EXPECT_EQ(ranks->dynamic_tree(), c.weighed);
        EXPECT_EQ(due, c.weighed == 2) << "the caller builds the arrival tree where it is weighed";
        EXPECT_EQ(calls[static_cast<size_t>(c.weighed)], c.weighed_calls) << "arrival tree " << c.arrival_s;
        EXPECT_EQ(ranks->dynamic_weighed_calls(), c.weighed_calls);
        EXPECT_EQ(calls[static_cast<size_t>(3 - c.weighed)], 0) << "the other one never runs";
        EXPECT_EQ(ranks->tree(), c.decided) << "late " << c.late << " arrival tree " << c.arrival_s;
        if (c.late >= 0) {
            std::vector<double> expected(3, 0.0);
            expected[static_cast<size_t>(c.late)] = 5.1;  // the upper median of 5.0 and 5.1
            EXPECT_EQ(ranks->arrival_lateness_s(), expected);
        }
    }
}

// The pattern of the trials' starts: each rank's median lateness, the root's predicted wait, and whether the starts
// repeat it. The same rank late by about the same repeats; a different rank each start predicts no lateness and does
// not; a start far off (one in four here) does not stop a pattern from repeating.
TEST(ArrivalPattern, RepeatsWhereMostStartsHoldTheMedians) {
    ArrivalPattern same;
    for (int start = 0; start < 8; ++start) {
        same.add({0.0, start == 3 ? 0.0 : 20.0 + 0.5 * (start % 3), 1.0});  // start 3: rank 1 came on time
    }
    EXPECT_EQ(same.predicted_s(), (std::vector<double>{0.0, 20.5, 1.0}));
    EXPECT_EQ(same.spread_s(), 20.5);
    EXPECT_EQ(same.wait_s(0), 20.5);
    EXPECT_EQ(same.wait_s(2), 19.5);
    EXPECT_EQ(same.wait_s(-1), 20.5);  // the earliest rank's: an allreduce's
    EXPECT_EQ(same.wait_s(3), 0.0);    // no such rank
    EXPECT_EQ(same.held(), 7);
    EXPECT_TRUE(same.repeats());

    ArrivalPattern turns;
    for (int start = 0; start < 8; ++start) {
        std::vector<double> late(4, 0.0);
        late[static_cast<size_t>(start % 4)] = 20.0;
        turns.add(late);
    }
    EXPECT_EQ(turns.spread_s(), 0.0);
    EXPECT_EQ(turns.held(), 0);
    EXPECT_FALSE(turns.repeats());

    ArrivalPattern few;
    few.add({0.0, 20.0});
    few.add({0.0, 20.0});
    EXPECT_EQ(few.held(), 2);
    EXPECT_FALSE(few.repeats()) << "fewer than kLeastStarts";
}

// Ranks that come together (a spread under the choice's median, or none agreed): tree-dyn never runs, and the
// decision and its calls are those of an AutoSelect without it.
TEST(AutoSelect, ArrivalsTogetherNeverRunTreeDyn) {
    for (double spread_s : {-1.0, 0.0, 0.9}) {
        for (const std::vector<double>& times :
             {std::vector<double>{1.0, 0.1, 2.0}, std::vector<double>{3.0, 0.1, 1.0}}) {
            Ranks with(1, 1, /*dynamic=*/true), without(1, 1);
            with.spread_s = without.spread_s = spread_s;
            const std::vector<int> calls = calls_to_decide(with, times);
            EXPECT_EQ(calls[1], 0) << "spread " << spread_s;
            EXPECT_EQ(calls, calls_to_decide(without, times));
            EXPECT_EQ(with->choice(), without->choice());
            EXPECT_FALSE(with->dynamic_weighed());
        }
    }
}

// Ranks with different times (the root's real, the others' zero, as for MPI_Reduce; or each its own, as for an
// allreduce) take every step at the same call, through trials, drops, confirmation, decided windows and restarts.
TEST(AutoSelect, EveryRankTakesTheSameStepsOnTheSameAgreedNumbers) {
    for (bool reduce : {true, false}) {
        Ranks ranks(4, 4);
        uint64_t state = 12345;
        auto noise = [&] {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            return static_cast<double>(state >> 11) / static_cast<double>(1ull << 53);
        };
        // trees 0 .. 3, native: tree 0 ahead of native by more than a tie, not clearly, so the runners-up run
        const std::vector<double> base = {0.9, 3.5, 0.7, 1.1, 1.0};
        int decisions = 0;
        for (int call = 0; call < 4 * AutoSelect::kWindow; ++call) {
            bool decided = false;
            const double drift = call > 2 * AutoSelect::kWindow ? 3.0 : 1.0;  // a drift restarts the trials
            ranks.call(
                [&](int rank, const AutoSelect::Step& step) {
                    if (reduce && rank != 0) return 0.0;
                    return drift * base[static_cast<size_t>(contender(*ranks, step))] * (1.0 + 0.3 * noise());
                },
                &decided);
            decisions += decided ? 1 : 0;
            for (const AutoSelect& s : ranks.select) {
                ASSERT_EQ(s.decided(), ranks->decided()) << "call " << call;
                ASSERT_EQ(s.dropped().size(), ranks->dropped().size()) << "call " << call;
            }
        }
        EXPECT_GE(decisions, 2) << (reduce ? "reduce" : "allreduce");
    }
}

// A tie (a tree's median within kTieMargin of native's) ends the trials after their first round, on native: with
// one tree, kTrials calls of each, 8 in all. A tree further ahead than the margin, its quartiles still
// overlapping native's, takes another round.
TEST(AutoSelect, ATieEndsTheTrialsAfterOneRoundOnNative) {
    static_assert(2 * AutoSelect::kTrials <= 8, "a tie is decided within 8 trial calls");
    for (double tree_s : {1.02, 0.985, 1.0}) {  // 2 % slower, 1.5 % faster, equal: the quartiles overlap
        SCOPED_TRACE(tree_s);
        Ranks ranks(2, 1);
        bool decided = false;
        int calls = 0;
        while (!decided && calls < 100) {
            ranks.call(
                [&](int rank, const AutoSelect::Step& step) {
                    const double jitter = 0.05 * ((calls / 2 + rank) % 3);
                    return (step.run == AutoSelect::Run::native ? 1.0 : tree_s) + jitter;
                },
                &decided);
            ++calls;
        }
        EXPECT_TRUE(ranks->settled_native());
        EXPECT_EQ(ranks->trial_calls(), 2 * AutoSelect::kTrials);
        EXPECT_EQ(ranks->trials_end(), AutoSelect::TrialsEnd::tie);
        EXPECT_STREQ(redux::trials_end_name(ranks->trials_end()), "no tree faster");
    }
    AutoSelect ahead;
    for (int i = 0; i < AutoSelect::kTrials; ++i) {
        ahead.record(1.0 + 0.2 * (i % 2));   // native: 1.0, 1.2
        ahead.record(0.95 + 0.2 * (i % 2));  // the tree: 5 % ahead, the middle halves overlap
    }
    EXPECT_FALSE(ahead.agree(ahead.local())) << "another round";
    EXPECT_FALSE(ahead.decided());
}

// Where the library's reduce fails when the root passes MPI_IN_PLACE, the library's own untimed calls between the
// trees' ask the agreement too: native is excluded from the first in-place call, whatever its step.
TEST(AutoSelect, CallsBetweenTheTreesAskWhetherTheRootPassedInPlace) {
    redux::KnownNativeFailures failures;
    failures.root_in_place = "fails in place";
    AutoSelect select(1, failures, false, AutoSelect::kExploreEvery);
    select.record(1.0);  // native's first trial call
    const AutoSelect::Step between = select.next();
    EXPECT_EQ(between.run, AutoSelect::Run::native);
    EXPECT_FALSE(between.timed);
    EXPECT_TRUE(between.agree_in_place);
    const AutoSelect::Step instead = select.root_passed_in_place();
    EXPECT_EQ(instead.run, AutoSelect::Run::planned);
    EXPECT_TRUE(select.native_excluded());
}

// The model's tree not clearly apart from native in the first round (the runner-up joins); native clearly slower
// after the second, the two trees within kTieMargin of each other: the smaller median, confirmed.
TEST(AutoSelect, TreesWithinTheTieMarginEndTheTrialsOnTheSmallerMedian) {
    AutoSelect select(2);
    std::vector<int> taken(3, 0);
    for (int call = 0; call < 5 * AutoSelect::kTrials; ++call) {
        const AutoSelect::Step step = select.next();
        const int arm = step.run == AutoSelect::Run::native ? 2 : step.tree;
        const int k = taken[static_cast<size_t>(arm)]++;
        const double jitter = 0.1 * (k % 2);
        select.record(arm == 2 ? (k == 0 ? 1.1 : 5.0) : (arm == 0 ? 1.02 : 1.0) + jitter);
        if (call == 2 * AutoSelect::kTrials - 1) {
            ASSERT_TRUE(select.needs_agreement());
            EXPECT_FALSE(select.agree(select.local())) << "another round, the runner-up in it";
        }
    }
    ASSERT_TRUE(select.needs_agreement());
    EXPECT_FALSE(select.agree(select.local())) << "the confirmation comes first";
    EXPECT_EQ(select.trials_end(), AutoSelect::TrialsEnd::tie);
    EXPECT_EQ(select.tree(), 1);
    EXPECT_TRUE(confirm(select, 1.0, 5.0));
    EXPECT_EQ(select.choice(), AutoSelect::Run::planned);
    EXPECT_EQ(select.trial_calls(), 5 * AutoSelect::kTrials);
}

// In the trials the call of a tree not seen faster than native comes at most once in explore_every calls: the calls
// between are the library's own, native's trial calls among them, the others untimed; a tree seen faster runs at
// its turn. The decision is the same as without the spacing.
TEST(AutoSelect, TreesRunAtMostOneCallInExploreEvery) {
    const int every = AutoSelect::kExploreEvery;
    for (const std::vector<double>& times : {std::vector<double>{0.5, 0.7, 1.0}, std::vector<double>{1.5, 2.0, 1.0}}) {
        Ranks paced(1, 2, false, every), unpaced(1, 2);
        auto seconds = [&](int, const AutoSelect::Step& step) {
            return times[static_cast<size_t>(step.run == AutoSelect::Run::native ? 2 : step.tree)];
        };
        std::vector<AutoSelect::Step> steps;
        bool decided = false;
        while (!decided && static_cast<int>(steps.size()) < AutoSelect::kMaxCallsToDecide) {
            steps.push_back(paced.call(seconds, &decided));
        }
        ASSERT_TRUE(decided);
        decided = false;
        for (int call = 0; !decided && call < AutoSelect::kMaxCallsToDecide; ++call) unpaced.call(seconds, &decided);
        ASSERT_TRUE(decided);
        EXPECT_EQ(paced->choice(), unpaced->choice());
        EXPECT_EQ(paced->tree(), unpaced->tree());
        EXPECT_EQ(paced->trial_calls(), unpaced->trial_calls());
        const bool slower = times[0] > times[2];
        int last_tree = -every, trees = 0, untimed = 0, close = 0;
        std::vector<bool> seen(2, false);
        for (int call = 0; call < static_cast<int>(steps.size()); ++call) {
            const AutoSelect::Step& step = steps[static_cast<size_t>(call)];
            if (step.watched) break;  // the confirmation: tree and native take turns in place
            if (step.run == AutoSelect::Run::planned) {
                EXPECT_TRUE(step.timed);
                if (slower || !seen[static_cast<size_t>(step.tree)]) {
                    EXPECT_GE(call - last_tree, every) << "call " << call;
                }
                close += call - last_tree < every;
                seen[static_cast<size_t>(step.tree)] = true;
                last_tree = call;
                ++trees;
            } else if (!step.timed) {
                ++untimed;
            }
        }
        EXPECT_EQ(close > 0, !slower) << "trees seen faster run at their turn";
        EXPECT_GT(trees, 0);
        EXPECT_GT(untimed, 0) << "the library's own between the trees' calls";
    }
}

// A second look after the first round kept a tree, with calls spaced as the planner's AutoSelect spaces them: the
// kept tree is the incumbent, running first and on every call between the runners-up's; runners-up slower than it
// leave; it is kept without a confirmation, with its time in place and native's median from before. Native never
// runs in the look.
TEST(AutoSelect, ASecondLookAfterATreeRunsThatTreeBetweenTheRunnersUpAndNeverNative) {
    const std::vector<double> times{1.0, 1.6, 3.0, 4.0};  // trees 0, 1, 2; native
    Ranks ranks(2, 3, false, AutoSelect::kExploreEvery);
    auto seconds = [&](int, const AutoSelect::Step& step) {
        return times[static_cast<size_t>(contender(*ranks, step))];
    };
    bool decided = false;
    int calls = 0;
    while (!(decided && ranks->decided()) && calls < AutoSelect::kMaxCallsToDecide) {
        ranks.call(seconds, &decided);
        ++calls;
    }
    ASSERT_TRUE(ranks->second_look_pending()) << "the first round kept tree 0";
    ASSERT_EQ(ranks->tree(), 0);
    const double in_place_s = ranks->choice_in_place_s();
    EXPECT_EQ(in_place_s, 1.0) << "its confirmation";
    std::vector<AutoSelect::Step> look;
    decided = false;
    for (int call = 0; call < 4 * AutoSelect::kSecondLookCalls && !(decided && ranks->decided()); ++call) {
        const AutoSelect::Step step = ranks.call(seconds, &decided);
        if (!ranks->second_look_pending() && !(decided && ranks->decided())) look.push_back(step);
    }
    ASSERT_TRUE(ranks->decided());
    EXPECT_TRUE(ranks->decision_final());
    EXPECT_EQ(ranks->choice(), AutoSelect::Run::planned);
    EXPECT_EQ(ranks->tree(), 0);
    EXPECT_FALSE(ranks->confirmed()) << "the incumbent was confirmed before";
    EXPECT_EQ(ranks->choice_in_place_s(), in_place_s);
    EXPECT_EQ(ranks->native_s(), 4.0);
    std::vector<int> by_tree(3, 0);
    for (const AutoSelect::Step& step : look) {
        EXPECT_EQ(step.run, AutoSelect::Run::planned) << "native sits the look out";
        ++by_tree[static_cast<size_t>(step.tree)];
    }
    EXPECT_EQ(by_tree[2], 1) << "over 2x the best on its first call: it leaves";
    EXPECT_EQ(by_tree[1], 2) << "0.6 over the incumbent a call: its second call spends one incumbent call's worth";
    EXPECT_GE(by_tree[0], 3 * (by_tree[1] + by_tree[2]) - 1) << "the incumbent runs between them";
    ASSERT_EQ(ranks->dropped().size(), 3u);
    EXPECT_EQ(ranks->dropped()[0].reason, AutoSelect::DropReason::slower_before);
}

}  // namespace
