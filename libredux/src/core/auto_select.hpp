// REDUX_ALGORITHM=auto: for one plan key, run the planned tree or the MPI library's own MPI_Reduce, whichever
// was measured faster. No MPI here: the caller times the calls and makes the agreements this class asks for.
//
//   trials   rounds of 2 * kTrials calls alternating planned, native, planned, ... each timed after a barrier;
//            after each round every rank's quartiles of each (all the round's samples so far) are agreed (the
//            caller takes the maximum over ranks: the reduction is done when its slowest rank is). The planned
//            tree is kept only when it is clearly faster: its third quartile below native's first (the middle
//            halves do not overlap). Native is kept when it is clearly faster, or still overlapping after
//            kMaxRounds rounds (as fast: the MPI library's own, which costs libredux nothing). Otherwise
//            another round: 5 to 20 samples per side, more where the difference is small against the noise;
//   decided  calls run the choice untimed by any barrier. The planned tree: every kWindow calls the ranks
//            agree on the median of their last kWindow call times; the first window after a decision is the
//            baseline, a later one off it by more than kDriftFactor either way starts the trials again.
//            Native: the pass-through, not timed at all. Either way, kRecheckEvery calls after the decision
//            the trials start again;
//   excluded the MPI library's reduce is known to fail on a call of the key (core/native_failures.hpp): the
//            caller says so with exclude_native() at a step the ranks agreed on, and from then on every call
//            runs the planned tree, untimed, with no agreement ever again.
// All of it depends only on call counts and agreed numbers, so every rank takes every step at the same call.
#pragma once

#include <cstdint>
#include <vector>

namespace redux {

class AutoSelect {
public:
    static constexpr int kTrials = 5;                                // calls of each side per round
    static constexpr int kMaxRounds = 4;                             // then native, if the tree is not clearly faster
    static constexpr int kMaxTrialCalls = 2 * kTrials * kMaxRounds;  // the most trial calls before a decision
    static constexpr int kWindow = 1024;
    static constexpr double kDriftFactor = 2.0;
    static constexpr int64_t kRecheckEvery = 1 << 16;

    enum class Run { planned, native };
    struct Step {
        Run run = Run::planned;
        bool timed = false;    // a trial: barrier first, then record the time
        bool watched = false;  // a decided planned call: record its time (no barrier)
    };

    Step next() const;
    void record(double seconds);  // this rank's time for the call next() described, when timed or watched
    void count();                 // a call next() described as neither timed nor watched

    // True after record() when the ranks must agree: the caller reduces local() with MPI_MAX and passes the
    // result to agree(). In trials local() is {q1, median, q3} of the planned times, then of the native ones;
    // decided, {median of the window}.
    bool needs_agreement() const;
    std::vector<double> local() const;
    // Returns true when this agreement made (or re-made) a decision.
    bool agree(const std::vector<double>& agreed);

    // From now on: the planned tree, no trials, no agreements (the native reduce is known to fail on this key).
    void exclude_native();
    bool native_excluded() const { return native_excluded_; }

    bool decided() const { return decided_; }
    // Decided for native and nothing to time: the call is the pass-through, then count().
    bool settled_native() const { return decided_ && choice_ == Run::native; }
    Run choice() const { return choice_; }
    double planned_s() const { return planned_s_; }   // agreed trial medians of the last decision
    int trial_calls() const { return trial_calls_; }  // trial calls the last decision took
    double native_s() const { return native_s_; }

private:
    void restart_trials();

    bool decided_ = false;
    bool native_excluded_ = false;
    Run choice_ = Run::planned;
    double planned_s_ = 0, native_s_ = 0;
    int trial_calls_ = 0;
    std::vector<double> trial_planned_, trial_native_;
    std::vector<double> window_;
    double baseline_s_ = 0;  // 0: the next window sets it
    int64_t calls_since_decision_ = 0;
};

}  // namespace redux
