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

}  // namespace

AutoSelect::AutoSelect(int trees, bool native_tried, const char* native_in_place_failure)
    : native_in_place_failure_(native_in_place_failure), trees_(std::clamp(trees, 1, kMaxTrees)) {
    restart_trials();
    if (!native_tried) exclude_native();
}

AutoSelect::Step AutoSelect::next() const {
    if (confirming_) {
        const bool native = confirm_calls() % 2 == 1;
        return {native ? Run::native : Run::planned, native ? 0 : tree_, false, true};
    }
    if (decided_) return {choice_, tree_, false, choice_ == Run::planned && !native_excluded_};
    const int arm = running_[static_cast<size_t>(round_calls_) % running_.size()];
    // Asked of trial calls only, which start every rank together anyway; other native calls take a copy of the
    // root's data (native_needs_copy).
    const bool agree_in_place = native_in_place_failure_ != nullptr;
    if (arm == native_arm()) return {Run::native, 0, true, false, agree_in_place};
    return {Run::planned, arm, true, false, agree_in_place};
}

void AutoSelect::record(double seconds) {
    if (native_excluded_) return;
    if (confirming_) {
        confirm_[confirm_calls() % 2].push_back(seconds);
        return;
    }
    if (!decided_) {
        samples_[static_cast<size_t>(running_[static_cast<size_t>(round_calls_) % running_.size()])].push_back(seconds);
        ++round_calls_;
        return;
    }
    window_.push_back(seconds);
    ++calls_since_decision_;
}

bool AutoSelect::needs_agreement() const {
    if (native_excluded_) return false;
    if (confirming_) return static_cast<int>(confirm_calls()) == 2 * kConfirmCalls;
    if (!decided_) return round_calls_ == kTrials * static_cast<int>(running_.size());
    return static_cast<int>(window_.size()) == kWindow;
}

std::vector<double> AutoSelect::local() const {
    if (confirming_) return {median(confirm_[0]), median(confirm_[1])};
    if (decided_) return {median(window_)};
    std::vector<double> quartiles;
    for (int arm : running_) {
        const std::vector<double>& s = samples_[static_cast<size_t>(arm)];
        quartiles.insert(quartiles.end(), {quantile(s, 1, 4), quantile(s, 2, 4), quantile(s, 3, 4)});
    }
    return quartiles;
}

bool AutoSelect::agree(const std::vector<double>& agreed) {
    if (confirming_) {  // agreed: {median of the tree, median of native}, timed in place
        confirming_ = false;
        confirmed_ = true;
        confirm_s_[0] = agreed[0];
        confirm_s_[1] = agreed[1];
        decide(agreed[1] <= agreed[0] ? Run::native : Run::planned, tree_);
        return true;
    }
    if (!decided_) {
        // agreed: {q1, median, q3} of each contender in running_, in order.
        const size_t n = running_.size();
        std::vector<int> kept;
        for (size_t i = 0; i < n; ++i) {
            medians_[static_cast<size_t>(running_[i])] = agreed[3 * i + 1];
            bool clearly_slower = false;
            for (size_t j = 0; j < n; ++j) clearly_slower = clearly_slower || agreed[3 * i] > agreed[3 * j + 2];
            if (!clearly_slower) kept.push_back(running_[i]);
        }
        running_ = kept;
        round_calls_ = 0;
        ++rounds_;
        if (running_.size() > 1 && rounds_ < kMaxRounds) return false;  // another round
        trial_calls_ = 0;
        for (const std::vector<double>& s : samples_) trial_calls_ += static_cast<int>(s.size());
        confirmed_ = false;
        const bool native_running = std::find(running_.begin(), running_.end(), native_arm()) != running_.end();
        if (native_running) {
            int best_tree = 0;
            for (int t = 1; t < trees_; ++t) {
                if (medians_[static_cast<size_t>(t)] < medians_[static_cast<size_t>(best_tree)]) best_tree = t;
            }
            decide(Run::native, best_tree);
            return true;
        }
        tree_ = running_.front();
        for (int arm : running_) {
            if (medians_[static_cast<size_t>(arm)] < medians_[static_cast<size_t>(tree_)]) tree_ = arm;
        }
        confirming_ = true;  // the tree must also be as fast as native where the calls are made
        confirm_[0].clear();
        confirm_[1].clear();
        return false;
    }
    const double now = agreed[0];
    window_.clear();
    if (baseline_s_ == 0) {
        baseline_s_ = now > 0 ? now : 1e-12;
    } else if (now > kDriftFactor * baseline_s_ || now * kDriftFactor < baseline_s_ ||
               calls_since_decision_ >= kRecheckEvery) {
        restart_trials();
    }
    return false;
}

// planned_s and native_s are the trials' medians: of `tree`, and of native.
void AutoSelect::decide(Run choice, int tree) {
    choice_ = choice;
    planned_s_ = medians_[static_cast<size_t>(tree)];
    native_s_ = medians_[static_cast<size_t>(native_arm())];
    tree_ = choice == Run::native ? 0 : tree;
    decided_ = true;
    passes_through_ = choice == Run::native && native_in_place_failure_ == nullptr;
    baseline_s_ = 0;
    calls_since_decision_ = 0;
    window_.clear();
}

void AutoSelect::exclude_native() {
    native_excluded_ = true;
    passes_through_ = false;
    confirming_ = false;
    decided_ = true;
    choice_ = Run::planned;
    tree_ = 0;
    window_.clear();
}

AutoSelect::Step AutoSelect::root_passed_in_place() {
    exclude_native();
    return next();
}

void AutoSelect::restart_trials() {
    decided_ = false;
    passes_through_ = false;
    confirming_ = false;
    window_.clear();
    running_.clear();
    for (int arm = 0; arm <= native_arm(); ++arm) running_.push_back(arm);
    samples_.assign(static_cast<size_t>(native_arm()) + 1, {});
    medians_.assign(static_cast<size_t>(native_arm()) + 1, std::numeric_limits<double>::infinity());
    round_calls_ = 0;
    rounds_ = 0;
}

}  // namespace redux
