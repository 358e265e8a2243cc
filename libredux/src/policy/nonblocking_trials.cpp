// auto's weighing of nonblocking calls (nonblocking_trials.hpp).
#include "policy/nonblocking_trials.hpp"

#include <algorithm>

namespace redux {
namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

int NonblockingTrials::start(int& trial) {
    std::lock_guard<std::mutex> hold(lock_);
    trial = -1;
    switch (phase_) {
        case Phase::native:
            return -1;
        case Phase::tree:
            return tree_;
        case Phase::weighing:
            break;
    }
    if (started_ >= kMostCalls) return -1;
    trial = started_++;
    mine_.push_back(kMissing);
    return trial % 2 == 0 ? -1 : tree_;
}

void NonblockingTrials::completed(int trial, double seconds) {
    std::lock_guard<std::mutex> hold(lock_);
    if (trial >= agreed_ && trial < started_) mine_[static_cast<size_t>(trial)] = seconds;
}

bool NonblockingTrials::to_agree() const {
    std::lock_guard<std::mutex> hold(lock_);
    return phase_ == Phase::weighing && started_ > agreed_;
}

std::vector<double> NonblockingTrials::local() const {
    std::lock_guard<std::mutex> hold(lock_);
    return {mine_.begin() + agreed_, mine_.begin() + started_};
}

bool NonblockingTrials::agree(const std::vector<double>& agreed) {
    std::lock_guard<std::mutex> hold(lock_);
    for (size_t i = 0; i < agreed.size(); ++i) {
        if (agreed[i] >= kMissing) continue;
        (static_cast<size_t>(agreed_) + i) % 2 == 0 ? native_.push_back(agreed[i]) : trees_.push_back(agreed[i]);
    }
    agreed_ += static_cast<int>(agreed.size());
    const bool enough = static_cast<int>(native_.size()) >= kSamples && static_cast<int>(trees_.size()) >= kSamples;
    if (!enough && started_ < kMostCalls) return false;
    if (!native_.empty()) native_s_ = median(native_);
    if (!trees_.empty()) tree_s_ = median(trees_);
    phase_ = enough && tree_s_ < (1 - kTieMargin) * native_s_ ? Phase::tree : Phase::native;
    return true;
}

NonblockingTrials::Phase NonblockingTrials::phase() const {
    std::lock_guard<std::mutex> hold(lock_);
    return phase_;
}

}  // namespace redux
