// AutoSelect (policy/auto_select.hpp), its trials: which call runs what (next), the times recorded and agreed, and
// the rounds that end in a choice. What follows a choice (settling it, tree-dyn's weighing, a decision, a second
// look, a start from wisdom) is in auto_decisions.cpp.
#include "policy/auto_select.hpp"

#include "util/median.hpp"

#include <algorithm>
#include <limits>

namespace redux {
namespace {

// The sample at rank floor(q (n - 1)) of the sorted samples: q = 1/4, 1/2, 3/4 give the quartiles.
double quantile(std::vector<double> v, int numerator, int denominator) {
    const size_t at = (v.size() - 1) * static_cast<size_t>(numerator) / static_cast<size_t>(denominator);
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(at), v.end());
    return v[at];
}

double mean(const std::vector<double>& v) {
    double sum = 0;
    for (double x : v) sum += x;
    return sum / static_cast<double>(v.size());
}

}  // namespace

AutoSelect::AutoSelect(int trees, KnownNativeFailures native_failures, bool dynamic, int explore_every, bool arrivals)
    : failures_(native_failures),
      trees_(std::clamp(trees, 1, kMaxTrees)),
      explore_every_(std::max(explore_every, 1)),
      dynamic_(dynamic),
      arrivals_(arrivals),
      dynamic_tree_(trees_) {
    restart_trials();
}

AutoSelect::Step AutoSelect::next() const {
    if (confirming_) {  // the trials' choice, then the incumbent
        return confirm_calls() % 2 == 1 ? incumbent_step(false, true) : Step{Run::planned, tree_, false, true};
    }
    if (weighing_dynamic_) {
        if (dynamic_calls() % 2 == 1) return {Run::planned, dynamic_tree(), false, true};
        return {choice_, choice_ == Run::native ? 0 : weighed_tree_, false, true};
    }
    if (decided_) return {choice_, tree_, false, rechecking_ || (choice_ == Run::planned && !native_excluded_)};
    const int arm = running_[turn_];
    // The turn of a challenger not seen faster than the incumbent yet (its last agreed trial call above the
    // incumbent's median, or none agreed), too soon after the last challenger's call: the incumbent, untimed
    // (count()). A challenger whose last call was faster costs nothing to run, and runs at its turn.
    if (arm != incumbent_ && since_challenger_ < explore_every_ - 1) {
        const std::vector<double>& seen = agreed_[static_cast<size_t>(arm)];
        if (seen.empty() || !(seen.back() < incumbent_median_s())) return incumbent_step(false, false);
    }
    if (arm == incumbent_) return incumbent_step(true, false);
    return {Run::planned, arm, true, false, native_in_trials_agree()};
}

AutoSelect::Step AutoSelect::incumbent_step(bool timed, bool watched) const {
    if (incumbent_ == native_arm()) return {Run::native, 0, timed, watched, native_in_trials_agree()};
    return {Run::planned, incumbent_, timed, watched, false};
}

void AutoSelect::record(double seconds) {
    if (native_excluded_) return;
    if (confirming_) {
        confirm_[confirm_calls() % 2].push_back(seconds);
        return;
    }
    if (weighing_dynamic_) {
        dynamic_samples_[dynamic_calls() % 2].push_back(seconds);
        return;
    }
    if (!decided_) {
        const int arm = running_[turn_];
        since_challenger_ = arm == incumbent_ ? since_challenger_ + 1 : 0;
        samples_[static_cast<size_t>(arm)].push_back(seconds);
        ++round_calls_[static_cast<size_t>(arm)];
        pending_ = arm;
        pending_s_ = seconds;
        turn_ = (turn_ + 1) % running_.size();
        return;
    }
    window_.push_back(seconds);
    if (++calls_since_decision_ >= kSecondLookCalls && second_look_) look_again();
}

double AutoSelect::incumbent_median_s() const {
    const std::vector<double>& times = agreed_[static_cast<size_t>(incumbent_)];
    return times.empty() ? 0.0 : median(times);
}

bool AutoSelect::agree_call(double agreed_s, double spread_s) {
    if (decided_ || confirming_ || pending_ < 0) return false;
    if (spread_s >= 0) spreads_.push_back(spread_s);
    const int arm = pending_;
    pending_ = -1;
    std::vector<double>& times = agreed_[static_cast<size_t>(arm)];
    times.push_back(agreed_s);
    const bool running = std::find(running_.begin(), running_.end(), arm) != running_.end();
    // A contender that leaves on its first call has cost that call: the extra time counts the others'.
    const bool leaves = times.size() == 1 && best_s_ > 0 && agreed_s > kFirstCallFactor * best_s_ && running;
    if (leaves) {
        medians_[static_cast<size_t>(arm)] = agreed_s;
        drop(arm, DropReason::first_call);
    }
    if (best_s_ <= 0 || agreed_s < best_s_) best_s_ = agreed_s;
    if (arm != incumbent_ && !leaves) {
        tree_sum_s_ += agreed_s;
        ++tree_calls_;
    }
    const double incumbent_s = incumbent_median_s();
    extra_s_ = tree_sum_s_ - tree_calls_ * incumbent_s;
    if (incumbent_s > 0 && extra_s_ > kExtraNativeCalls * incumbent_s && !extra_spent_) {
        extra_spent_ = true;
        // The quartiles agreed next cover the contenders that ran; the others leave now.
        for (size_t i = running_.size(); i-- > 0;) {
            if (samples_[static_cast<size_t>(running_[i])].empty()) drop(running_[i], DropReason::not_reached);
        }
        drop_held(DropReason::not_reached);
    }
    if (running_.size() == 1 && !held_.empty()) join_held();  // tree 0 left on its first call
    if (running_.size() == 1) {  // the first calls left the incumbent alone (it runs first, never dropped so)
        medians_[static_cast<size_t>(incumbent_)] = incumbent_s;
        end_trials(extra_spent_ ? TrialsEnd::extra_time : TrialsEnd::one_left);
        return settle_on_incumbent();
    }
    return false;
}

bool AutoSelect::settle_on_incumbent() {
    if (incumbent_ != native_arm()) return settle(Run::planned, incumbent_);
    int best_tree = 0;
    for (int t = 1; t < trees_; ++t) {
        if (medians_[static_cast<size_t>(t)] < medians_[static_cast<size_t>(best_tree)]) best_tree = t;
    }
    return settle(Run::native, best_tree);
}

void AutoSelect::join_held() {
    running_.insert(running_.end(), held_.begin(), held_.end());
    held_.clear();
}

void AutoSelect::drop_held(DropReason reason) {
    for (int arm : held_) drops_.push_back({arm, reason, 0.0, best_s_});
    held_.clear();
}

void AutoSelect::drop(int contender, DropReason reason) {
    const std::vector<double>& times = agreed_[static_cast<size_t>(contender)];
    drops_.push_back({contender, reason, times.empty() ? 0.0 : times.front(), best_s_});
    const auto at = std::find(running_.begin(), running_.end(), contender);
    const size_t index = static_cast<size_t>(at - running_.begin());
    running_.erase(at);
    if (index < turn_) --turn_;
    if (turn_ >= running_.size()) turn_ = 0;
}

bool AutoSelect::round_done() const {
    return std::all_of(running_.begin(), running_.end(),
                       [&](int arm) { return round_calls_[static_cast<size_t>(arm)] >= kTrials; });
}

bool AutoSelect::needs_agreement() const {
    if (native_excluded_) return false;
    if (confirming_) return static_cast<int>(confirm_calls()) == 2 * kConfirmCalls;
    if (weighing_dynamic_) {
        const int calls = static_cast<int>(dynamic_calls());
        return calls == 2 * kDynamicCalls || (calls == 2 * kArrivalEarlyCalls && dynamic_tree_ == arrival_tree());
    }
    if (!decided_) return extra_spent_ || round_done();
    return static_cast<int>(window_.size()) == (rechecking_ ? kRecheckCalls : kWindow);
}

std::vector<double> AutoSelect::local() const {
    if (confirming_) return {median(confirm_[0]), median(confirm_[1])};
    if (weighing_dynamic_) {
        const std::vector<double>& choice = dynamic_samples_[0];
        const std::vector<double>& dynamic = dynamic_samples_[1];
        const auto [choice_min, choice_max] = std::minmax_element(choice.begin(), choice.end());
        const auto [dynamic_min, dynamic_max] = std::minmax_element(dynamic.begin(), dynamic.end());
        return {median(choice), mean(choice), median(dynamic), mean(dynamic),
                *choice_min,    *choice_max,  *dynamic_min,    *dynamic_max};
    }
    if (decided_) return {median(window_)};
    std::vector<double> quartiles;
    for (int arm : running_) {
        const std::vector<double>& s = samples_[static_cast<size_t>(arm)];
        quartiles.insert(quartiles.end(), {quantile(s, 1, 4), quantile(s, 2, 4), quantile(s, 3, 4)});
    }
    return quartiles;
}

bool AutoSelect::agree(const std::vector<double>& agreed) {
    if (confirming_) {  // agreed: {median of the trials' choice, median of the incumbent}, timed in place
        confirming_ = false;
        confirmed_ = true;
        confirmed_tree_ = tree_;
        confirm_s_[0] = agreed[0];
        confirm_s_[1] = agreed[1];
        if (agreed[1] > agreed[0]) return settle(Run::planned, tree_);
        if (incumbent_ == native_arm()) return settle(Run::native, tree_);
        return settle(Run::planned, incumbent_);
    }
    if (weighing_dynamic_) return agree_weighing(agreed);
    if (!decided_) return agree_round(agreed);
    const double now = agreed[0];
    window_.clear();
    if (rechecking_) {
        rechecking_ = false;
        recheck_s_ = now;
        if (planned_s_ > 0 && (now > kRecheckFactor * planned_s_ || now * kRecheckFactor < planned_s_)) {
            restart_trials();
            return false;
        }
        passes_through_ = native_passes_through(choice_);
        baseline_s_ = now > 0 ? now : 1e-12;
        return false;
    }
    if (baseline_s_ == 0) {
        baseline_s_ = now > 0 ? now : 1e-12;
    } else if (now > kDriftFactor * baseline_s_ || now * kDriftFactor < baseline_s_ ||
               calls_since_decision_ >= kRecheckEvery) {
        restart_trials();
    }
    return false;
}

// agree() while tree-dyn or the arrival tree takes turns with the choice (weighing_dynamic_).
bool AutoSelect::agree_weighing(const std::vector<double>& agreed) {
    // agreed: {median, mean} of the choice, then of tree-dyn or the arrival tree, in place; then {min, max} of
    // the choice, then of the other (the largest over the ranks of each).
    const bool arrival = dynamic_tree_ == arrival_tree();
    const bool early = static_cast<int>(dynamic_calls()) < 2 * kDynamicCalls;  // the arrival tree's early look
    const double wait_s = arrival_wait_s_;
    const bool clearly_faster = agreed[7] - wait_s < kDynamicMargin * (agreed[4] - wait_s);
    const bool clearly_slower = agreed[6] > agreed[5];
    if (early && !clearly_faster && !clearly_slower) return false;  // the turns go on
    weighing_dynamic_ = false;
    dynamic_weighed_ = true;
    dynamic_weighed_calls_ = static_cast<int>(dynamic_calls() / 2);
    dynamic_s_[0] = agreed[0];
    dynamic_s_[1] = agreed[2];
    dynamic_mean_s_[0] = agreed[1];
    dynamic_mean_s_[1] = agreed[3];
    // The arrival tree: both sides less the root's predicted wait for the last rank, which neither can shorten
    // and which would otherwise hide the difference in the margin; the mean decides (the arrivals repeat, so no
    // rare kind of call hides in it, and a late rank's jitter moves 16 calls' medians more than their mean).
    const bool faster = early     ? clearly_faster
                        : arrival ? agreed[3] - wait_s < kDynamicMargin * (agreed[1] - wait_s)
                                  : agreed[2] < kDynamicMargin * agreed[0] && agreed[3] < agreed[1] / kDynamicMargin;
    if (faster) {
        decide(Run::planned, dynamic_tree());
        // Every static tree waits for the late ranks the arrival tree was made for: the runners-up need no look.
        if (arrival) second_look_ = false;
    } else {
        decide(choice_, weighed_tree_);
    }
    return true;
}

// agree() at the end of a round of the trials.
bool AutoSelect::agree_round(const std::vector<double>& agreed) {
    // agreed: {q1, median, q3} of each contender in running_, in order.
    const size_t n = running_.size();
    for (size_t i = 0; i < n; ++i) medians_[static_cast<size_t>(running_[i])] = agreed[3 * i + 1];
    std::vector<int> slower;
    for (size_t i = 0; i < n; ++i) {
        bool clearly_slower = false;
        for (size_t j = 0; j < n; ++j) clearly_slower = clearly_slower || agreed[3 * i] > agreed[3 * j + 2];
        if (clearly_slower) slower.push_back(running_[i]);
    }
    for (int arm : slower) drop(arm, DropReason::clearly_slower);
    std::fill(round_calls_.begin(), round_calls_.end(), 0);
    turn_ = 0;
    ++rounds_;
    const bool incumbent_running = std::find(running_.begin(), running_.end(), incumbent_) != running_.end();
    const double incumbent_median = medians_[static_cast<size_t>(incumbent_)];
    double best_other_s = std::numeric_limits<double>::infinity();
    for (int arm : running_) {
        if (arm != incumbent_) best_other_s = std::min(best_other_s, medians_[static_cast<size_t>(arm)]);
    }
    // A tie: the incumbent's median within the margin of the best challenger's (the incumbent kept), or, the
    // incumbent out of the running, the challengers' medians all within the margin of the best one (the best
    // one kept): another round could only tell apart what costs the program next to nothing.
    const bool tie =
        running_.size() > 1 &&
        (incumbent_running ? !(best_other_s < (1.0 - kTieMargin) * incumbent_median)
                           : std::all_of(running_.begin(), running_.end(), [&](int arm) {
                                 return medians_[static_cast<size_t>(arm)] <= (1.0 + kTieMargin) * best_other_s;
                             }));
    if (!held_.empty()) {  // the first round: native and tree 0
        if (incumbent_running && !tie) {
            join_held();
            return false;  // another round, the runners-up in it
        }
        drop_held(DropReason::not_needed);  // tree 0 clearly faster than native, or a tie
        second_look_ = true;
    }
    if (running_.size() > 1 && rounds_ < kMaxRounds && !extra_spent_ && !tie) return false;  // another round
    end_trials(extra_spent_           ? TrialsEnd::extra_time
               : tie                  ? TrialsEnd::tie
               : running_.size() == 1 ? TrialsEnd::one_left
                                      : TrialsEnd::last_round);
    if (incumbent_running) return settle_on_incumbent();
    tree_ = running_.front();
    for (int arm : running_) {
        if (medians_[static_cast<size_t>(arm)] < medians_[static_cast<size_t>(tree_)]) tree_ = arm;
    }
    confirming_ = true;  // the tree must also be as fast as the incumbent where the calls are made
    confirm_[0].clear();
    confirm_[1].clear();
    return false;
}

}  // namespace redux
