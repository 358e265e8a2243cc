// AutoSelect (libredux/src/core/auto_select.hpp): trials alternate planned and native in rounds; the planned
// tree wins only when clearly faster (the middle halves of the agreed samples do not overlap), native when
// clearly faster or still overlapping after the last round; a drifting window or the periodic recheck
// restarts the trials; decided native calls are not timed.
#include "core/auto_select.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace {

using redux::AutoSelect;

// Runs one round of trials with the given times (the same on every call of a kind) and agrees on them as they
// are. Returns what agree() returned.
bool run_round(AutoSelect& select, double planned_s, double native_s) {
    for (int call = 0; call < 2 * AutoSelect::kTrials; ++call) {
        const AutoSelect::Step step = select.next();
        EXPECT_TRUE(step.timed);
        EXPECT_EQ(step.run, call % 2 == 0 ? AutoSelect::Run::planned : AutoSelect::Run::native) << "call " << call;
        EXPECT_EQ(select.decided(), false);
        select.record(step.run == AutoSelect::Run::planned ? planned_s : native_s);
        EXPECT_EQ(select.needs_agreement(), call == 2 * AutoSelect::kTrials - 1);
    }
    return select.agree(select.local());
}

// Trials with constant times: clearly apart, so one round decides.
void run_trials(AutoSelect& select, double planned_s, double native_s) {
    EXPECT_TRUE(run_round(select, planned_s, native_s));
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
        select.record(planned.back());
        select.record(native.back());
    }
    std::sort(planned.begin(), planned.end());
    std::sort(native.begin(), native.end());
    const std::vector<double> local = select.local();
    ASSERT_EQ(local.size(), 6u);
    EXPECT_EQ(local[0], planned[1]);  // floor((5 - 1) / 4) = 1
    EXPECT_EQ(local[1], planned[2]);
    EXPECT_EQ(local[2], planned[3]);
    EXPECT_LT(local[2], 2.0) << "the outlier is beyond the third quartile";
    EXPECT_EQ(local[3], native[1]);
    EXPECT_EQ(local[4], native[2]);
    EXPECT_EQ(local[5], native[3]);
}

// Overlapping samples: another round, up to kMaxRounds; then native, the MPI library's own.
TEST(AutoSelect, OverlappingSamplesTakeMoreRoundsThenNative) {
    AutoSelect select;
    auto noisy_round = [&](double planned_centre) {
        for (int i = 0; i < AutoSelect::kTrials; ++i) {
            const double jitter = 0.2 * (i % 3) - 0.2;  // -0.2, 0, 0.2: the middle halves overlap
            select.record(planned_centre + jitter);
            select.record(1.0 + jitter);
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
        select.record(planned1[i]);
        select.record(native1[i]);
    }
    EXPECT_FALSE(select.agree(select.local()));
    for (int i = 0; i < AutoSelect::kTrials; ++i) {
        select.record(1.0);
        select.record(1.3);
    }
    EXPECT_TRUE(select.agree(select.local()));
    EXPECT_EQ(select.choice(), AutoSelect::Run::planned);
    EXPECT_EQ(select.trial_calls(), 4 * AutoSelect::kTrials);
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

}  // namespace
