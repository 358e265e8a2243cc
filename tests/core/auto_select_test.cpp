// AutoSelect (libredux/src/exec/auto_select.hpp): trials alternate planned and native, the faster agreed
// median wins, a drifting window or the periodic recheck restarts the trials.
#include "core/auto_select.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace {

using redux::AutoSelect;

// Runs the trials with the given times (the same on every call of a kind) and agrees on them as they are.
void run_trials(AutoSelect& select, double planned_s, double native_s) {
    for (int call = 0; call < 2 * AutoSelect::kTrials; ++call) {
        const AutoSelect::Step step = select.next();
        EXPECT_TRUE(step.timed);
        EXPECT_EQ(step.run, call % 2 == 0 ? AutoSelect::Run::planned : AutoSelect::Run::native) << "call " << call;
        EXPECT_EQ(select.decided(), false);
        select.record(step.run == AutoSelect::Run::planned ? planned_s : native_s);
        EXPECT_EQ(select.needs_agreement(), call == 2 * AutoSelect::kTrials - 1);
    }
    const std::vector<double> local = select.local();
    ASSERT_EQ(local.size(), 2u);
    EXPECT_EQ(local[0], planned_s);
    EXPECT_EQ(local[1], native_s);
    EXPECT_TRUE(select.agree(local));
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

TEST(AutoSelect, MediansIgnoreOneOutlier) {
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
    EXPECT_EQ(local[0], planned[planned.size() / 2]);
    EXPECT_LT(local[0], 2.0);
    EXPECT_EQ(local[1], native[native.size() / 2]);
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

}  // namespace
