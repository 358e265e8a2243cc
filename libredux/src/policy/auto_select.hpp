// REDUX_ALGORITHM=auto: for one plan key, run whichever was measured fastest of a few planned trees (the model's
// choice and its runners-up, plan/select.hpp) and the MPI library's own MPI_Reduce. No MPI here: the caller times
// the calls and makes the agreements this class asks for.
//
//   trials   rounds in which every contender still in the running (the trees, then native) runs kTrials
//            calls, taking turns call by call, each timed from a start the ranks make together; after each round
//            the quartiles of each contender (all the samples so far) are agreed (the caller's are the root's:
//            the reduction is done when the root has the result, api/reduce.cpp). A contender whose first
//            quartile lies above another's third (the middle halves do not overlap: clearly slower) leaves the
//            running. The trials end when one is left, or after kMaxRounds rounds: then native if it is still
//            in the running (a tree must be clearly faster than the MPI library's own, which costs libredux
//            nothing), else the tree with the smallest median. 5 to 20 samples per contender, more where the
//            differences are small against the noise. With one tree this is "the tree only when its third
//            quartile lies below native's first";
//   confirm  a tree the trials chose then takes turns with native for kConfirmCalls calls each, timed from the
//            call's start where the program makes it (no start together); the agreed medians keep the tree only
//            if it is faster there too, else native. Trials start every rank together, which is not how a program
//            calls: 4 ranks on 2 cores, a star tree measured 20 % faster than native in trials ran about 20 %
//            slower in the benchmark's calls, in up to half the runs at sizes from 8 B to 2 KiB;
//   decided  calls run the choice untimed by any barrier. A planned tree: every kWindow calls the ranks
//            agree on the median of their last kWindow call times; the first window after a decision is the
//            baseline, a later one off it by more than kDriftFactor either way starts the trials again.
//            Native: the pass-through, not timed at all. Either way, kRecheckEvery calls after the decision
//            the trials start again, every tree back in the running;
//   excluded the MPI library's reduce is known to fail on a call of the key (policy/native_failures.hpp): the
//            caller says so with exclude_native() at a step the ranks agreed on, and from then on every call
//            runs the model's tree (tree 0), untimed, with no agreement ever again.
// All of it depends only on call counts and agreed numbers, so every rank takes every step at the same call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace redux {

class AutoSelect {
public:
    static constexpr int kTrials = 5;     // calls of each contender per round
    static constexpr int kMaxRounds = 4;  // then native, if no tree is clearly faster
    static constexpr int kMaxTrees = 5;   // the model's tree and at most four runners-up (plan/select.hpp)
    // The most trial calls before a decision: with one tree, and with the most trees.
    static constexpr int kMaxTrialCalls = 2 * kTrials * kMaxRounds;
    static constexpr int kMaxTrialCallsAnyTrees = (kMaxTrees + 1) * kTrials * kMaxRounds;
    static constexpr int kConfirmCalls = 16;  // per side: the tree the trials chose, and native
    // The most calls before a decision, whatever the trees and the trials: trials, then a confirmation.
    static constexpr int kMaxCallsToDecide = kMaxTrialCallsAnyTrees + 2 * kConfirmCalls;
    static constexpr int kWindow = 1024;
    static constexpr double kDriftFactor = 2.0;
    static constexpr int64_t kRecheckEvery = 1 << 16;

    // `trees` planned trees (1 .. kMaxTrees), tree 0 the model's choice.
    explicit AutoSelect(int trees = 1);

    enum class Run { planned, native };
    struct Step {
        Run run = Run::planned;
        int tree = 0;          // which planned tree, when run is planned
        bool timed = false;    // a trial: start together first, then record the time
        bool watched = false;  // a decided planned call: record its time (no barrier)
    };

    int trees() const { return trees_; }
    Step next() const;
    void record(double seconds);  // this rank's time for the call next() described, when timed or watched
    // A call next() described as neither timed nor watched. Inline: the settled pass-through calls it.
    void count() {
        if (native_excluded_ || !decided_) return;
        if (++calls_since_decision_ >= kRecheckEvery && choice_ == Run::native) restart_trials();
    }

    // True after record() when the ranks must agree: the caller reduces local() with MPI_MAX and passes the
    // result to agree(). In trials local() is {q1, median, q3} of each contender in the running (trees in order,
    // then native); decided, {median of the window}.
    bool needs_agreement() const;
    std::vector<double> local() const;
    // Returns true when this agreement made (or re-made) a decision.
    bool agree(const std::vector<double>& agreed);

    // From now on: tree 0, no trials, no agreements (the native reduce is known to fail on this key).
    void exclude_native();
    bool native_excluded() const { return native_excluded_; }

    bool decided() const { return decided_; }
    // Decided for native and nothing to time: the call is the pass-through, then count().
    bool settled_native() const { return decided_ && choice_ == Run::native; }
    Run choice() const { return choice_; }
    int tree() const { return tree_; }  // the tree decided for (or tree 0)
    // Agreed trial medians of the last decision: of the tree chosen (or, when native was, of the tree with the
    // smallest median), and of native.
    double planned_s() const { return planned_s_; }
    double native_s() const { return native_s_; }
    int trial_calls() const { return trial_calls_; }  // trial calls the last decision took
    // Whether the last decision went through a confirmation, and its agreed medians (tree, native).
    bool confirmed() const { return confirmed_; }
    double confirm_planned_s() const { return confirm_s_[0]; }
    double confirm_native_s() const { return confirm_s_[1]; }
    // Agreed trial median of tree t (0 .. trees() - 1) at the last round it ran in, this decision or the last.
    double tree_median_s(int t) const { return medians_[static_cast<std::size_t>(t)]; }

private:
    int native_arm() const { return trees_; }  // contenders: trees 0 .. trees_ - 1, then native
    void restart_trials();
    void decide(Run choice, int tree);
    std::size_t confirm_calls() const { return confirm_[0].size() + confirm_[1].size(); }  // tree and native alternate

    // What a settled call reads and writes first, together (api/settled_native.hpp).
    bool decided_ = false;
    bool native_excluded_ = false;
    Run choice_ = Run::planned;
    int64_t calls_since_decision_ = 0;
    int trees_ = 1;
    int tree_ = 0;
    double planned_s_ = 0, native_s_ = 0;
    int trial_calls_ = 0;
    std::vector<int> running_;                  // contenders still in the trials, in order
    std::vector<std::vector<double>> samples_;  // by contender, this decision's trials
    std::vector<double> medians_;               // by contender, agreed at its last round
    int round_calls_ = 0, rounds_ = 0;
    bool confirming_ = false;         // the trials chose tree_: it and native now take turns, timed in place
    std::vector<double> confirm_[2];  // tree, native
    double confirm_s_[2] = {0, 0};
    bool confirmed_ = false;
    std::vector<double> window_;
    double baseline_s_ = 0;  // 0: the next window sets it
};

}  // namespace redux
