// REDUX_ALGORITHM=auto: for one plan key, run whichever was measured fastest of a few planned trees (the model's
// choice and its runners-up, plan/select.hpp) and the MPI library's own MPI_Reduce. No MPI here: the caller times
// the calls and makes the agreements this class asks for. Every "run the library's own reduce" that auto answers
// is answered here: api/ asks next() for each call, and its per-thread record of a settled key asks
// passes_through() (api/settled_native.hpp).
//
//   trials   rounds in which every contender still in the running (native first, then the trees) runs kTrials
//            calls, taking turns call by call, each timed from a start the ranks make together. The first round is
//            native and tree 0 (the model's choice) alone: where tree 0 is clearly faster than native there (native
//            leaves) or ties with it, the trials end on that round and the runners-up never run ("not needed"; a
//            tie or a clear win is what the model said or nearly, and a short job's calls are few) until the
//            second look: kSecondLookCalls calls after that decision the trials start again with every tree from
//            the first round, for the runners-up the model can rank wrongly. Where that decision was a tree (native
//            clearly slower, the tree confirmed in place), native sits the look out ("slower before") and the tree
//            is the incumbent: it plays native's part below (it runs first, between the others' calls and on a
//            tie, and what beats it is confirmed against it), so that the look costs the program a few calls of
//            the runners-up, not calls of the slower native; otherwise (tree 0 clearly slower, or
//            faster by more than the tie margin but not clearly) the runners-up join from the second round, and at
//            once where tree 0 leaves on its first call. The call of a tree
//            not seen faster than native yet (its last agreed trial call not below native's median) comes at most
//            once in kExploreEvery calls, the calls between running the library's own, untimed where they are not
//            its trial calls (so that a program's calls stay the library's own in the median while the trials look
//            at slower trees; a faster tree's calls cost nothing). Each trial call's
//            time is agreed at the next trial call's start (agree_call: the root's for MPI_Reduce, the slowest
//            rank's otherwise; api/run_plan.cpp), so native's first call sets the best time seen from the
//            start, and:
//              - a contender whose first call takes more than kFirstCallFactor times the best agreed time seen so
//                far leaves the running at once;
//              - the trials' extra time, the sum over the trees' trial calls of (agreed time - native's agreed
//                median so far), may reach kExtraNativeCalls of native's median; beyond it the trials end at once,
//                on the samples so far (contenders not yet reached leave), as after the last round. A tree that
//                left on its first call has cost that one call, which the extra time does not count.
//            After each round the quartiles of each contender (all the samples so far) are agreed. A contender
//            whose first quartile lies above another's third (the middle halves do not overlap: clearly slower)
//            leaves the running. A tie ends the trials at once: native is kept where no tree's median lies more
//            than kTieMargin below native's (a tie, or every tree slower), and where native has left, the tree with
//            the smallest median where every tree left lies within kTieMargin of it ("no tree faster" in the log
//            for both). The trials end when one is left, or after kMaxRounds
//            rounds: then native if it is still in the running (a tree must be clearly faster than the MPI library's
//            own, which costs libredux nothing), else the tree with the smallest median. 4 to 16 samples per contender,
//            more where the differences are small against the noise. With one tree this is "the tree only when its
//            third quartile lies below native's first";
//   confirm  a tree the trials chose then takes turns with native for kConfirmCalls calls each, timed from the
//            call's start where the program makes it (no start together); the agreed medians keep the tree only
//            if it is faster there too, else native. Trials start every rank together, which is not how a
//            program calls: on ranks that share cores a tree can win the trials and lose in the program's calls;
//   decided  calls run the choice untimed by any barrier. A planned tree: every kWindow calls the ranks
//            agree on the median of their last kWindow call times; the first window after a decision is the
//            baseline, a later one off it by more than kDriftFactor either way starts the trials again.
//            Native: the pass-through, not timed at all. Either way, kRecheckEvery calls after the decision
//            the trials start again, every tree back in the running;
//   excluded native is never run: tree 0 on every call, untimed, with no agreement ever again. On a key where
//            the library's reduce is known to fail when the root passes MPI_IN_PLACE (policy/native_failures.hpp),
//            from the first trial at which the ranks agree that it did: until then each trial asks for that
//            agreement (Step::agree_in_place), and a native call whose root passes MPI_IN_PLACE hands the library a
//            copy of the root's data (native_needs_copy).
//   dynamic where the key also has tree-dyn (MPI_Reduce on 3 or more ranks; exec/tree_dyn.hpp), the pairs of which are
//            chosen as the ranks arrive: trials start the ranks together, so they cannot see what it is for. What
//            they see is how far apart the ranks came to each trial's start: each rank's wait there (from its
//            arrival to its release) goes to the root with the next trial call's start, and the spread (the
//            longest wait of a rank other than the root less the shortest) is agreed with the call's time. The
//            root is left out: a late root is no reason to pair at run time (every static tree waits for it
//            alone), and in a loop of reduces the root comes to the next call last by its own part. Where the
//            median spread of the trials exceeds kSpreadFactor times the median of the trials' choice (ranks come
//            further apart than a reduction takes), the choice and tree-dyn take turns for kDynamicCalls calls
//            each, timed in place, and tree-dyn is kept only where its median is below kDynamicMargin times the
//            choice's and its mean below the choice's divided by kDynamicMargin. The mean is what the program pays,
//            and a late root costs tree-dyn more than a static tree (its matchmaker), so where a few calls cost it
//            much more the mean says so; the margin because each side draws its own calls, and 16 calls of two
//            kinds hold a few of the rarer kind more or less. Elsewhere tree-dyn never runs: ranks that arrive
//            together pay nothing for it;
//   arrivals where the key also has an arrival tree (MPI_Reduce: after tree-dyn, on kArrivalRanks ranks or fewer;
//            MPI_Allreduce of a commutative op on 3 to kArrivalRanks ranks: late-rank, exec/exchanges.hpp, made for
//            the rank predicted latest; "the root" below is then the earliest rank, which waits longest): each trial
//            start also tells every rank how late each rank came after the first one there (learn_arrivals;
//            policy/arrival_pattern.hpp). Where that repeats from one start to the next (the same ranks late by
//            about the same, as a program's load imbalance makes them), the arrival tree takes tree-dyn's part
//            above, weighed where the predicted lateness of the latest rank, the root included, exceeds
//            kArrivalShare times the choice's median: its pairs are made before the call for the arrivals
//            predicted (plan/trees/arrival_tree.hpp: a late root finds the others' result waiting), so it pays no
//            matchmaker. It is kept where its mean in place, less the root's predicted wait for the last rank (which
//            no tree shortens, and which in a margin of the whole call would hide what the tree saves after the
//            last arrival), is below kDynamicMargin times the choice's less the same (the mean: with arrivals that
//            repeat no rare kind of call hides in it, and a late rank's jitter moves 16 calls' medians more). After
//            kArrivalEarlyCalls calls each the weighing ends where the two sides' calls do not overlap (the constant
//            says how), so that a short job runs the arrival tree from about its 36th call. An arrival tree kept
//            ends a second look still pending (every static tree waits for the late ranks alike). The caller builds
//            it when arrival_tree_due() says so, from arrival_lateness_s().
//            Arrivals that do not repeat leave tree-dyn's part as it was;
//   wisdom  a key an earlier job decided (api/wisdom.hpp) starts decided (start_from): its first kRecheckCalls calls
//            are timed in place, native's too, and their agreed median kept within kDriftFactor of what the earlier
//            job measured, else the trials start;
// Where the library's reduce is known to leave the root's result unwritten when the root's recvbuf is MPI_BOTTOM
// (an absolute-address datatype), native stays a contender: only the root acts, handing the library a receive
// buffer of libredux's and copying the result into place (native_needs_recv_copy), so nothing is agreed.
// All of it depends only on call counts and agreed numbers, so every rank takes every step at the same call.
#pragma once

#include "policy/arrival_pattern.hpp"
#include "policy/auto_limits.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace redux {

// Why the MPI library's reduce fails on a key (policy/native_failures.hpp, the same on every rank), or null. The
// texts are kept, not copied.
struct KnownNativeFailures {
    const char* root_in_place = nullptr;        // when the root passes MPI_IN_PLACE
    const char* root_recv_at_bottom = nullptr;  // when the root's recvbuf is MPI_BOTTOM
};

class AutoSelect : public AutoLimits {
public:
    // Why a contender left the trials.
    enum class DropReason {
        first_call,      // its first call took more than kFirstCallFactor times the best so far
        clearly_slower,  // its first quartile lay above another's third after a round
        not_reached,     // the extra time was spent before its first call
        not_needed,      // a runner-up: the first round, native and tree 0 alone, decided without it
        slower_before,   // native in a second look: the first round found it clearly slower (look_again)
    };
    struct Drop {
        int contender = 0;  // a tree (0 .. trees() - 1), or trees() for native
        DropReason reason = DropReason::first_call;
        double first_s = 0;  // its first trial call's agreed time (0 when not reached)
        double best_s = 0;   // the best agreed trial call when it left
    };
    // Why the last trials ended.
    enum class TrialsEnd { one_left, last_round, extra_time, tie };

    // `trees` planned trees (1 .. kMaxTrees), tree 0 the model's choice; with `dynamic`, tree-dyn is the caller's
    // tree number `trees` (dynamic_tree()), weighed after the trials where the ranks' arrivals are spread. In the
    // trials a tree's call comes at most once in `explore_every` calls (kExploreEvery).
    // With `arrivals`, the arrival tree (MPI_Allreduce's: late-rank) is the caller's tree number after them (and
    // after tree-dyn).
    explicit AutoSelect(int trees = 1, KnownNativeFailures native_failures = {}, bool dynamic = false,
                        int explore_every = 1, bool arrivals = false);

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
    bool dynamic() const { return dynamic_; }
    // The dynamic contender weighed or decided last: tree-dyn (trees()), or the arrival tree (arrival_tree()).
    int dynamic_tree() const { return dynamic_tree_; }
    bool arrivals() const { return arrivals_; }
    int arrival_tree() const { return trees_ + (dynamic_ ? 1 : 0); }
    Step next() const;
    void record(double seconds);  // this rank's time for the call next() described, when timed or watched

    // At a trial call's start (a timed step): this rank's time for the last trial call, not agreed yet (0 when
    // there is none); the caller takes the largest over the ranks as the ranks start together and passes it to
    // agree_call() before asking next() again. Returns true when it made a decision (one contender left).
    // spread_s: the agreed spread of the ranks' waits at that call's start (negative where unknown).
    double pending_s() const { return pending_ >= 0 ? pending_s_ : 0.0; }
    bool agree_call(double agreed_s, double spread_s = -1.0);
    // This rank's wait at the last trial call's start (from its arrival to its release), sent with the next one;
    // negative when no trial call of these trials has started yet.
    void record_start_wait(double seconds) { start_wait_s_ = seconds; }
    double start_wait_s() const { return start_wait_s_; }
    // With arrivals(): at a trial start, before agree_call, by rank how late each came to the last one after the
    // first rank there (agreed), and which rank is the root (-1: none, the call is done when its last rank is).
    void learn_arrivals(std::vector<double> lateness_s, int root) {
        arrival_pattern_.add(std::move(lateness_s));
        arrival_root_ = root;
    }
    // Whether the caller is to build the arrival tree now, from arrival_lateness_s(), before the next call (the
    // weighing it runs in has just begun); then arrival_tree_built().
    bool arrival_tree_due() const { return arrival_tree_due_; }
    void arrival_tree_built() { arrival_tree_due_ = false; }
    std::vector<double> arrival_lateness_s() const { return arrival_pattern_.predicted_s(); }
    // Whether the last trials' arrivals repeated (arrival_pattern.hpp), and their spread then, the root's included.
    bool arrivals_repeat() const { return arrivals_repeat_; }
    // The last trials' starts that told the arrivals, and how many of them held the prediction.
    int arrival_starts() const { return arrival_starts_; }
    int arrival_held() const { return arrival_held_; }
    double arrival_pattern_spread_s() const { return arrival_pattern_spread_s_; }
    // A call next() described as neither timed nor watched. Inline: the settled pass-through calls it.
    void count() {
        if (native_excluded_) return;
        if (!decided_) {  // in the trials: an incumbent's call between the challengers' (kExploreEvery)
            ++since_challenger_;
            return;
        }
        if (++calls_since_decision_ >= calls_before_trials() && choice_ == Run::native) look_again();
    }

    // True after record() or agree_call() when the ranks must agree: the caller reduces local() with MPI_MAX and
    // passes the result to agree(). In trials local() is {q1, median, q3} of each contender in the running (in
    // turn order); decided, {median of the window}.
    bool needs_agreement() const;
    std::vector<double> local() const;
    // Returns true when this agreement made (or re-made) a decision.
    bool agree(const std::vector<double>& agreed);

    // Starts decided, as an earlier job decided (api/wisdom.hpp): `choice` (and `tree`, when planned), whose agreed
    // median call then took `chosen_s` timed in place (0: not measured so; native's trial median `native_s`). Its
    // first kRecheckCalls calls are timed in place; where their agreed median is more than kRecheckFactor away from
    // chosen_s either way, the decision no longer holds: the trials start (rechecking() was true before the
    // agreement, decided() is false after it). Jobs time alike only so far: on ranks that share cores the same
    // job's calls move by 2x from one run to the next. With `second_look` (the earlier job's decision was its first
    // round's, the runners-up not measured), kSecondLookCalls calls after the start the trials start again with every
    // tree, as they would have in the earlier job.
    void start_from(Run choice, int tree, double chosen_s, double native_s, bool second_look = false);
    // The agreed median of the choice timed in place (from the call's start, as the program calls) where the last
    // decision measured one: its confirmation, tree-dyn's weighing or a re-check; 0 where it measured none.
    double choice_in_place_s() const;
    bool rechecking() const { return rechecking_; }
    // The agreed median of the re-check's calls (0 before it ended).
    double recheck_s() const { return recheck_s_; }

    // From now on: tree 0, no trials, no agreements (native is not to be run on this key).
    void exclude_native();
    bool native_excluded() const { return native_excluded_; }
    // The ranks agreed that the root passed MPI_IN_PLACE on a call next() asked that of: native is excluded;
    // returns the step to take instead.
    Step root_passed_in_place();
    const char* native_in_place_failure() const { return failures_.root_in_place; }
    // Whether a native call whose root passes `root_in_place` must hand the library a copy of the root's data.
    bool native_needs_copy(bool root_in_place) const { return root_in_place && failures_.root_in_place != nullptr; }
    // Whether a native call whose root's recvbuf is MPI_BOTTOM (`root_recv_at_bottom`, asked at the root only)
    // must hand the library a receive buffer of libredux's and copy the result into place.
    bool native_needs_recv_copy(bool root_recv_at_bottom) const {
        return root_recv_at_bottom && failures_.root_recv_at_bottom != nullptr;
    }

    bool decided() const { return decided_; }
    // Decided, and the trials will start again kSecondLookCalls calls after (the runners-up not measured yet).
    bool second_look_pending() const { return decided_ && second_look_; }
    // Decided for native and nothing to time: the call is the pass-through, then count().
    bool settled_native() const { return decided_ && choice_ == Run::native; }
    // Decided, with no look ahead that may change it: no second look pending, no wisdom re-check running
    // (redux_call_info.deciding is its negation).
    bool decision_final() const { return decided_ && !second_look_ && !rechecking_; }
    // Settled on native for every call of the key as the caller passes it (MPI_IN_PLACE at the root included):
    // the answer a cache of next() may give, calling count_passed_through() for each call, while this holds.
    bool passes_through() const { return passes_through_; }
    // count() for a call that passes_through() sent to the library's reduce. Inline: the records call it.
    void count_passed_through() {
        if (++calls_since_decision_ >= calls_before_trials()) look_again();
    }
    Run choice() const { return choice_; }
    int tree() const { return tree_; }  // the tree decided for (or tree 0)
    // Agreed trial medians of the last decision: of the tree chosen (or, when native was, of the tree with the
    // smallest median), and of native.
    double planned_s() const { return planned_s_; }
    double native_s() const { return native_s_; }
    int trial_calls() const { return trial_calls_; }  // trial calls the last decision took
    // Whether the last decision went through a confirmation, and its agreed medians: of the trials' choice, and of
    // the incumbent it was confirmed against (native, or in a second look the tree decided before: incumbent()).
    bool confirmed() const { return confirmed_; }
    double confirm_planned_s() const { return confirm_s_[0]; }
    double confirm_incumbent_s() const { return confirm_s_[1]; }
    // The contender the last trials measured the others against: trees() for native, else the tree a second look
    // started from.
    int incumbent() const { return incumbent_; }
    // The median spread of the ranks' arrivals at the last trials' starts (0 when none was agreed), whether the
    // last decision weighed tree-dyn or the arrival tree (dynamic_tree()), and then the agreed medians and means in
    // place: of the choice before it, of the dynamic contender.
    double arrival_spread_s() const { return spread_s_; }
    bool dynamic_weighed() const { return dynamic_weighed_; }
    double dynamic_choice_s() const { return dynamic_s_[0]; }
    double dynamic_s() const { return dynamic_s_[1]; }
    double dynamic_choice_mean_s() const { return dynamic_mean_s_[0]; }
    double dynamic_mean_s() const { return dynamic_mean_s_[1]; }
    int dynamic_weighed_calls() const { return dynamic_weighed_calls_; }  // per side
    // Agreed trial median of tree t (0 .. trees() - 1) at the last round it ran in, this decision or the last
    // (a tree that left after its first call: that call's time).
    double tree_median_s(int t) const { return medians_[static_cast<std::size_t>(t)]; }
    // The contenders that left the last trials, in the order they left, and why the trials ended.
    const std::vector<Drop>& dropped() const { return drops_; }
    TrialsEnd trials_end() const { return trials_end_; }
    // The last trials' agreed extra time over native (see kExtraNativeCalls), and its bound then.
    double trial_extra_s() const { return extra_s_; }
    double trial_extra_bound_s() const { return kExtraNativeCalls * incumbent_median_s(); }

private:
    int native_arm() const { return trees_; }  // contenders: trees 0 .. trees_ - 1, then native
    // Whether a decision for `choice` sends every call of the key to the library's reduce as the caller passes it
    // (passes_through): native, with no failure known on the key.
    bool native_passes_through(Run choice) const {
        return choice == Run::native && failures_.root_in_place == nullptr && failures_.root_recv_at_bottom == nullptr;
    }
    // The trials from their first round, against `incumbent` (a tree; -1: native): native and tree 0 (staged), the
    // runners-up held back; or every tree.
    void restart_trials(bool staged = true, int incumbent = -1);
    // Calls after a decision before the trials start again (count(), count_passed_through(), record()), and then.
    int64_t calls_before_trials() const { return second_look_ ? kSecondLookCalls : kRecheckEvery; }
    void look_again();
    // The incumbent's step: its trial call (timed), its confirmation call (watched), or a call between the
    // challengers' (neither).
    Step incumbent_step(bool timed, bool watched) const;
    // Whether a trial step asks if the root passed MPI_IN_PLACE: where native is in the trials and fails so.
    bool native_in_trials_agree() const { return failures_.root_in_place != nullptr && incumbent_ == native_arm(); }
    bool settle_on_incumbent();  // settle() on the incumbent: the trials found no challenger clearly faster
    void decide(Run choice, int tree);
    bool settle(Run choice, int tree);  // decide (true), or first weigh tree-dyn against the choice (false)
    bool agree_weighing(const std::vector<double>& agreed);  // agree()'s parts
    bool agree_round(const std::vector<double>& agreed);
    std::size_t dynamic_calls() const { return dynamic_samples_[0].size() + dynamic_samples_[1].size(); }
    void end_trials(TrialsEnd why);
    void drop(int contender, DropReason reason);
    void join_held();                   // the runners-up held back join the running
    void drop_held(DropReason reason);  // or leave without a call
    bool round_done() const;
    double incumbent_median_s() const;
    std::size_t confirm_calls() const { return confirm_[0].size() + confirm_[1].size(); }  // tree and native alternate

    // What a settled call reads and writes first, together (api/settled_native.hpp).
    bool passes_through_ = false;  // settled_native() and no native failure known on the key
    bool decided_ = false;
    bool native_excluded_ = false;
    Run choice_ = Run::planned;
    KnownNativeFailures failures_;
    int64_t calls_since_decision_ = 0;
    int trees_ = 1;
    int tree_ = 0;
    int explore_every_ = 1;
    int since_challenger_ = 0;         // in the trials: the incumbent's calls since a challenger's last trial call
    int incumbent_ = 0;                // the contender the trials measure the others against: native_arm(), or a tree
    double incumbent_in_place_s_ = 0;  // a tree incumbent's agreed median in place when its look began
    double planned_s_ = 0, native_s_ = 0;
    int trial_calls_ = 0;
    std::vector<int> running_;                  // contenders still in the trials, in turn order: native first
    bool second_look_ = false;                  // the last first round decided without the runners-up: they get a look
    std::vector<int> held_;                     // runners-up waiting for the first round's end (the class comment)
    size_t turn_ = 0;                           // index in running_ of the next trial call's contender
    std::vector<std::vector<double>> samples_;  // by contender, this decision's trials: this rank's times
    std::vector<std::vector<double>> agreed_;   // by contender, this decision's trials: the agreed times
    std::vector<double> medians_;               // by contender, agreed at its last round
    std::vector<int> round_calls_;              // by contender, its calls in this round
    int rounds_ = 0;
    int pending_ = -1;  // the contender whose last trial call's time awaits agree_call(), or -1
    double pending_s_ = 0;
    double best_s_ = 0;      // the best agreed trial call so far (0: none yet)
    double tree_sum_s_ = 0;  // agreed times of the trees' trial calls, summed
    int tree_calls_ = 0;     // and counted
    double extra_s_ = 0;     // tree_sum_s_ - tree_calls_ * native's median
    bool extra_spent_ = false;
    std::vector<Drop> drops_;
    TrialsEnd trials_end_ = TrialsEnd::one_left;
    bool confirming_ = false;         // the trials chose tree_: it and native now take turns, timed in place
    std::vector<double> confirm_[2];  // tree, native
    double confirm_s_[2] = {0, 0};
    bool confirmed_ = false;
    int confirmed_tree_ = 0;  // the trials' choice the last confirmation measured
    bool dynamic_ = false;
    bool arrivals_ = false;
    int dynamic_tree_ = 0;
    ArrivalPattern arrival_pattern_;  // learnt at this decision's trial starts
    bool arrivals_repeat_ = false;
    double arrival_pattern_spread_s_ = 0;
    double arrival_wait_s_ = 0;  // the root's predicted wait for the last rank
    int arrival_root_ = 0;
    int arrival_starts_ = 0, arrival_held_ = 0;
    bool arrival_tree_due_ = false;
    std::vector<double> spreads_;  // agreed at this decision's trial starts
    double spread_s_ = 0;
    double start_wait_s_ = -1;
    bool weighing_dynamic_ = false;  // the choice (choice_, weighed_tree_) and dynamic_tree_ take turns, in place
    int weighed_tree_ = 0;
    std::vector<double> dynamic_samples_[2];  // the choice, dynamic_tree_
    double dynamic_s_[2] = {0, 0};
    double dynamic_mean_s_[2] = {0, 0};
    int dynamic_weighed_calls_ = 0;
    bool dynamic_weighed_ = false;
    std::vector<double> window_;
    double baseline_s_ = 0;    // 0: the next window sets it
    bool rechecking_ = false;  // decided by an earlier job: the first kRecheckCalls calls are timed (start_from)
    double recheck_s_ = 0;
};

}  // namespace redux
