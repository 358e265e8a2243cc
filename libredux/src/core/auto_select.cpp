#include "core/auto_select.hpp"

#include <algorithm>

namespace redux {
namespace {

double median(std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
}

// The sample at rank floor(q (n - 1)) of the sorted samples: q = 1/4, 1/2, 3/4 give the quartiles.
double quantile(std::vector<double> v, int numerator, int denominator) {
    const size_t at = (v.size() - 1) * static_cast<size_t>(numerator) / static_cast<size_t>(denominator);
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(at), v.end());
    return v[at];
}

}  // namespace

AutoSelect::Step AutoSelect::next() const {
    if (decided_) return {choice_, false, choice_ == Run::planned && !native_excluded_};
    const size_t done = trial_planned_.size() + trial_native_.size();
    return {done % 2 == 0 ? Run::planned : Run::native, true, false};
}

void AutoSelect::record(double seconds) {
    if (native_excluded_) return;
    if (!decided_) {
        (next().run == Run::planned ? trial_planned_ : trial_native_).push_back(seconds);
        return;
    }
    window_.push_back(seconds);
    ++calls_since_decision_;
}

void AutoSelect::count() {
    if (native_excluded_ || !decided_) return;
    if (++calls_since_decision_ >= kRecheckEvery && choice_ == Run::native) restart_trials();
}

bool AutoSelect::needs_agreement() const {
    if (native_excluded_) return false;
    if (!decided_) {
        return !trial_native_.empty() && trial_native_.size() == trial_planned_.size() &&
               trial_native_.size() % kTrials == 0;
    }
    return static_cast<int>(window_.size()) == kWindow;
}

std::vector<double> AutoSelect::local() const {
    if (!decided_) {
        return {quantile(trial_planned_, 1, 4), quantile(trial_planned_, 2, 4), quantile(trial_planned_, 3, 4),
                quantile(trial_native_, 1, 4),  quantile(trial_native_, 2, 4),  quantile(trial_native_, 3, 4)};
    }
    return {median(window_)};
}

bool AutoSelect::agree(const std::vector<double>& agreed) {
    if (!decided_) {
        const double planned_q1 = agreed[0], planned_q3 = agreed[2], native_q1 = agreed[3], native_q3 = agreed[5];
        const bool planned_clearly = planned_q3 < native_q1;
        const bool native_clearly = native_q3 < planned_q1;
        const bool last_round = static_cast<int>(trial_native_.size()) >= kTrials * kMaxRounds;
        if (!planned_clearly && !native_clearly && !last_round) return false;  // another round
        planned_s_ = agreed[1];
        native_s_ = agreed[4];
        trial_calls_ = static_cast<int>(trial_planned_.size() + trial_native_.size());
        choice_ = planned_clearly ? Run::planned : Run::native;
        decided_ = true;
        baseline_s_ = 0;
        calls_since_decision_ = 0;
        window_.clear();
        trial_planned_.clear();
        trial_native_.clear();
        return true;
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

void AutoSelect::exclude_native() {
    native_excluded_ = true;
    decided_ = true;
    choice_ = Run::planned;
    window_.clear();
    trial_planned_.clear();
    trial_native_.clear();
}

void AutoSelect::restart_trials() {
    decided_ = false;
    window_.clear();
    trial_planned_.clear();
    trial_native_.clear();
}

}  // namespace redux
