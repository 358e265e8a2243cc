// AutoSelect (policy/auto_select.hpp), what follows the trials: settling on a choice (or first weighing tree-dyn
// against it), the decision, a start from what an earlier job decided, native excluded, and the trials started
// again (a second look, a re-check). The trials themselves are in auto_select.cpp.
#include "policy/auto_select.hpp"

#include "util/median.hpp"

#include <algorithm>
#include <limits>

namespace redux {

// The trials are over (a decision or a confirmation follows): what the decision log reports of them.
void AutoSelect::end_trials(TrialsEnd why) {
    trials_end_ = why;
    pending_ = -1;
    trial_calls_ = 0;
    for (const std::vector<double>& s : samples_) trial_calls_ += static_cast<int>(s.size());
    confirmed_ = false;
}

// Decides for `choice` (and `tree`), unless tree-dyn or the arrival tree is to be weighed against it first (the class
// comment says when): then the two take turns from the next call, and the decision follows their agreement.
bool AutoSelect::settle(Run choice, int tree) {
    spread_s_ = spreads_.empty() ? 0.0 : median(spreads_);
    arrivals_repeat_ = arrivals_ && arrival_pattern_.repeats();
    arrival_pattern_spread_s_ = arrival_pattern_.spread_s();
    arrival_wait_s_ = arrival_pattern_.wait_s(arrival_root_);
    arrival_starts_ = arrival_pattern_.starts();
    arrival_held_ = arrival_pattern_.held();
    dynamic_weighed_ = false;
    // Arrivals that repeat: the arrival tree, weighed on the spread the root's lateness included; else tree-dyn.
    dynamic_tree_ = arrivals_repeat_ ? arrival_tree() : trees_;
    const double spread_s = arrivals_repeat_ ? arrival_pattern_spread_s_ : spread_s_;
    const double choice_s = medians_[static_cast<size_t>(choice == Run::native ? native_arm() : tree)];
    const bool weighs = arrivals_repeat_ || dynamic_;
    const double factor = arrivals_repeat_ ? kArrivalShare : kSpreadFactor;
    if (!weighs || native_excluded_ || !(spread_s > factor * choice_s)) {
        decide(choice, tree);
        return true;
    }
    arrival_tree_due_ = dynamic_tree_ == arrival_tree();
    choice_ = choice;
    weighed_tree_ = tree;
    weighing_dynamic_ = true;
    dynamic_samples_[0].clear();
    dynamic_samples_[1].clear();
    return false;
}

// planned_s and native_s are the trials' medians: of `tree`, and of native (tree-dyn: its median in place).
void AutoSelect::decide(Run choice, int tree) {
    choice_ = choice;
    planned_s_ = tree < trees_ ? medians_[static_cast<size_t>(tree)] : dynamic_s_[1];
    native_s_ = medians_[static_cast<size_t>(native_arm())];
    tree_ = choice == Run::native ? 0 : tree;
    decided_ = true;
    recheck_s_ = 0;
    passes_through_ = native_passes_through(choice);
    baseline_s_ = 0;
    calls_since_decision_ = 0;
    window_.clear();
    if (choice == Run::planned) window_.reserve(kWindow);  // decided calls allocate nothing
}

double AutoSelect::choice_in_place_s() const {
    if (recheck_s_ > 0) return recheck_s_;
    const bool native = choice_ == Run::native;
    if (dynamic_weighed_) return !native && tree_ == dynamic_tree() ? dynamic_s_[1] : dynamic_s_[0];
    if (confirmed_) return !native && tree_ == confirmed_tree_ ? confirm_s_[0] : confirm_s_[1];
    return incumbent_in_place_s_;
}

void AutoSelect::start_from(Run choice, int tree, double chosen_s, double native_s, bool second_look) {
    decide(choice, tree);
    second_look_ = second_look;
    // planned_s is what a call of the choice took (native's median where native was chosen), re-checked below.
    planned_s_ = chosen_s;
    native_s_ = native_s;
    passes_through_ = false;  // timed until the re-check ends
    rechecking_ = !native_excluded_;
    window_.reserve(kRecheckCalls);
}

void AutoSelect::exclude_native() {
    native_excluded_ = true;
    passes_through_ = false;
    confirming_ = false;
    weighing_dynamic_ = false;
    decided_ = true;
    choice_ = Run::planned;
    tree_ = 0;
    pending_ = -1;
    window_.clear();
}

AutoSelect::Step AutoSelect::root_passed_in_place() {
    exclude_native();
    return next();
}

void AutoSelect::look_again() {
    // A second look after a tree the first round found clearly faster than native: that tree is the incumbent.
    if (second_look_ && choice_ == Run::planned && tree_ < trees_) {
        restart_trials(/*staged=*/false, tree_);
    } else {
        restart_trials(/*staged=*/!second_look_);
    }
}

void AutoSelect::restart_trials(bool staged, int incumbent) {
    const double native_s = native_s_;
    incumbent_ = incumbent < 0 ? native_arm() : incumbent;
    incumbent_in_place_s_ = incumbent_ == native_arm() ? 0.0 : choice_in_place_s();
    decided_ = false;
    rechecking_ = false;
    since_challenger_ = 0;
    passes_through_ = false;
    confirming_ = false;
    weighing_dynamic_ = false;
    spreads_.clear();
    arrival_pattern_.clear();
    start_wait_s_ = -1;
    window_.clear();
    running_.clear();
    running_.push_back(incumbent_);  // the incumbent first: its time is the best seen from the trials' first call
    held_.clear();
    for (int arm = 0; arm < native_arm(); ++arm) {
        if (arm == incumbent_) continue;
        // staged: the model's choice, the runners-up waiting for the first round's end
        (staged && arm > 0 ? held_ : running_).push_back(arm);
    }
    second_look_ = false;
    const size_t contenders = static_cast<size_t>(native_arm()) + 1;
    samples_.assign(contenders, {});
    agreed_.assign(contenders, {});
    medians_.assign(contenders, std::numeric_limits<double>::infinity());
    if (incumbent_ != native_arm()) medians_[static_cast<size_t>(native_arm())] = native_s;  // the last decision's
    round_calls_.assign(contenders, 0);
    turn_ = 0;
    rounds_ = 0;
    pending_ = -1;
    best_s_ = 0;
    tree_sum_s_ = 0;
    tree_calls_ = 0;
    extra_s_ = 0;
    extra_spent_ = false;
    drops_.clear();
    if (incumbent_ != native_arm()) drops_.push_back({native_arm(), DropReason::slower_before, 0.0, 0.0});
}

}  // namespace redux
