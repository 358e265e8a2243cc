#include "core/auto_select.hpp"

#include <algorithm>

namespace redux {
namespace {

double median(std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
}

}  // namespace

AutoSelect::Step AutoSelect::next() const {
    if (decided_) return {choice_, false};
    const size_t done = trial_planned_.size() + trial_native_.size();
    return {done % 2 == 0 ? Run::planned : Run::native, true};
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

bool AutoSelect::needs_agreement() const {
    if (native_excluded_) return false;
    if (!decided_) return static_cast<int>(trial_native_.size()) == kTrials;
    return static_cast<int>(window_.size()) == kWindow;
}

std::vector<double> AutoSelect::local() const {
    if (!decided_) return {median(trial_planned_), median(trial_native_)};
    return {median(window_)};
}

bool AutoSelect::agree(const std::vector<double>& agreed) {
    if (!decided_) {
        planned_s_ = agreed[0];
        native_s_ = agreed[1];
        choice_ = planned_s_ <= native_s_ ? Run::planned : Run::native;
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
