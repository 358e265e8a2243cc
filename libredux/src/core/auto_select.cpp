#include "core/auto_select.hpp"

#include <algorithm>
#include <limits>

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

AutoSelect::AutoSelect(int trees) : trees_(std::clamp(trees, 1, kMaxTrees)) { restart_trials(); }

AutoSelect::Step AutoSelect::next() const {
    if (decided_) return {choice_, tree_, false, choice_ == Run::planned && !native_excluded_};
    const int arm = running_[static_cast<size_t>(round_calls_) % running_.size()];
    if (arm == native_arm()) return {Run::native, 0, true, false};
    return {Run::planned, arm, true, false};
}

void AutoSelect::record(double seconds) {
    if (native_excluded_) return;
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
    if (!decided_) return round_calls_ == kTrials * static_cast<int>(running_.size());
    return static_cast<int>(window_.size()) == kWindow;
}

std::vector<double> AutoSelect::local() const {
    if (decided_) return {median(window_)};
    std::vector<double> quartiles;
    for (int arm : running_) {
        const std::vector<double>& s = samples_[static_cast<size_t>(arm)];
        quartiles.insert(quartiles.end(), {quantile(s, 1, 4), quantile(s, 2, 4), quantile(s, 3, 4)});
    }
    return quartiles;
}

bool AutoSelect::agree(const std::vector<double>& agreed) {
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
        int best_tree = 0;
        for (int t = 1; t < trees_; ++t) {
            if (medians_[static_cast<size_t>(t)] < medians_[static_cast<size_t>(best_tree)]) best_tree = t;
        }
        const bool native_running = std::find(running_.begin(), running_.end(), native_arm()) != running_.end();
        if (native_running) {
            choice_ = Run::native;
            tree_ = best_tree;
        } else {
            choice_ = Run::planned;
            tree_ = running_.front();
            for (int arm : running_) {
                if (medians_[static_cast<size_t>(arm)] < medians_[static_cast<size_t>(tree_)]) tree_ = arm;
            }
        }
        planned_s_ = medians_[static_cast<size_t>(tree_)];
        native_s_ = medians_[static_cast<size_t>(native_arm())];
        trial_calls_ = 0;
        for (const std::vector<double>& s : samples_) trial_calls_ += static_cast<int>(s.size());
        if (choice_ == Run::native) tree_ = 0;
        decided_ = true;
        baseline_s_ = 0;
        calls_since_decision_ = 0;
        window_.clear();
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
    tree_ = 0;
    window_.clear();
}

void AutoSelect::restart_trials() {
    decided_ = false;
    window_.clear();
    running_.clear();
    for (int arm = 0; arm <= native_arm(); ++arm) running_.push_back(arm);
    samples_.assign(static_cast<size_t>(native_arm()) + 1, {});
    medians_.assign(static_cast<size_t>(native_arm()) + 1, std::numeric_limits<double>::infinity());
    round_calls_ = 0;
    rounds_ = 0;
}

}  // namespace redux
