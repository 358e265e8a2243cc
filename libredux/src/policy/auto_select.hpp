// REDUX_ALGORITHM=auto: for one plan key, run whichever was measured fastest of a few planned trees (the model's
// choice and its runners-up, plan/select.hpp) and the MPI library's own MPI_Reduce. No MPI here: the caller times
// the calls and makes the agreements this class asks for. Every "run the library's own reduce" that auto answers
// is answered here: api/ asks next() for each call, and its per-thread record of a settled key asks
// passes_through() (api/settled_native.hpp).
//
//   trials   rounds in which every contender still in the running (the trees, then native) runs kTrials
//            calls, taking turns call by call, each timed from a start the ranks make together; after each round
//            the quartiles of each contender (all the samples so far) are agreed (the caller's are the root's:
//            the reduction is done when the root has the result, api/run_plan.cpp). A contender whose first
//            quartile lies above another's third (the middle halves do not overlap: clearly slower) leaves the
//            running. The trials end when one is left, or after kMaxRounds rounds: then native if it is still
//            in the running (a tree must be clearly faster than the MPI library's own, which costs libredux
//            nothing), else the tree with the smallest median. 5 to 20 samples per contender, more where the
//            differences are small against the noise. With one tree this is "the tree only when its third
//            quartile lies below native's first";
//   confirm  a tree the trials chose then takes turns with native for kConfirmCalls calls each, timed from the
//            call's start where the program makes it (no start together); the agreed medians keep the tree only
//            if it is faster there too, else native. Trials start every rank together, which is not how a
//            program calls: on ranks that share cores a tree can win the trials and lose in the program's calls;
//   decided  calls run the choice untimed by any barrier. A planned tree: every kWindow calls the ranks
//            agree on the median of their last kWindow call times; the first window after a decision is the
//            baseline, a later one off it by more than kDriftFactor either way starts the trials again.
//            Native: the pass-through, not timed at all. Either way, kRecheckEvery calls after the decision
//            the trials start again, every tree back in the running;
//   excluded native is never run: tree 0 on every call, untimed, with no agreement ever again. From the start
//            for a key whose datatype is derived (Open MPI 4.1's reduce can leave the root's result unwritten
//            for an absolute-address datatype at MPI_BOTTOM after a planned call of the same key, and derived
//            datatypes are not where the library's own tuning is likely to win). On a key where the library's
//            reduce is known to fail when the root passes MPI_IN_PLACE (policy/native_failures.hpp), from the
//            first trial at which the ranks agree that it did: until then each trial asks for that agreement
//            (Step::agree_in_place), and a native call whose root passes MPI_IN_PLACE hands the library a copy
//            of the root's data (native_needs_copy).
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

    // `trees` planned trees (1 .. kMaxTrees), tree 0 the model's choice. `native_tried` false: native is
    // excluded from the start. `native_in_place_failure`: why the MPI library's reduce fails on this key when the
    // root passes MPI_IN_PLACE (policy/native_failures.hpp, the same on every rank), or null. Kept, not copied.
    explicit AutoSelect(int trees = 1, bool native_tried = true, const char* native_in_place_failure = nullptr);

    enum class Run { planned, native };
    struct Step {
        Run run = Run::planned;
        int tree = 0;          // which planned tree, when run is planned
        bool timed = false;    // a trial: start together first, then record the time
        bool watched = false;  // a decided planned call: record its time (no barrier)
        // Before the call, the ranks agree whether the root passed MPI_IN_PLACE; if it did, the caller runs
        // root_passed_in_place()'s step instead.
        bool agree_in_place = false;
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

    // From now on: tree 0, no trials, no agreements (native is not to be run on this key).
    void exclude_native();
    bool native_excluded() const { return native_excluded_; }
    // The ranks agreed that the root passed MPI_IN_PLACE on a call next() asked that of: native is excluded;
    // returns the step to take instead.
    Step root_passed_in_place();
    const char* native_in_place_failure() const { return native_in_place_failure_; }
    // Whether a native call whose root passes `root_in_place` must hand the library a copy of the root's data.
    bool native_needs_copy(bool root_in_place) const { return root_in_place && native_in_place_failure_ != nullptr; }

    bool decided() const { return decided_; }
    // Decided for native and nothing to time: the call is the pass-through, then count().
    bool settled_native() const { return decided_ && choice_ == Run::native; }
    // Settled on native for every call of the key as the caller passes it (MPI_IN_PLACE at the root included):
    // the answer a cache of next() may give, calling count_passed_through() for each call, while this holds.
    bool passes_through() const { return passes_through_; }
    // count() for a call that passes_through() sent to the library's reduce. Inline: the records call it.
    void count_passed_through() {
        if (++calls_since_decision_ >= kRecheckEvery) restart_trials();
    }
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
    bool passes_through_ = false;  // settled_native() and no native_in_place_failure_
    bool decided_ = false;
    bool native_excluded_ = false;
    Run choice_ = Run::planned;
    const char* native_in_place_failure_ = nullptr;
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
