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

NonblockingTrials::NonblockingTrials(const std::vector<int>& trees)
    : trees_(trees.begin(), trees.size() > size_t{kMostTrees} ? trees.begin() + kMostTrees : trees.end()),
      times_(1 + trees_.size()),
      tree_(trees_.empty() ? -1 : trees_[0]) {}

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
    if (started_ >= most_calls()) return -1;
    mine_.push_back(kMissing);  // first: where it throws, the call is not counted
    trial = started_++;
    const size_t contender = static_cast<size_t>(trial) % times_.size();
    return contender == 0 ? -1 : trees_[contender - 1];
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
        if (agreed[i] < kMissing) times_[(static_cast<size_t>(agreed_) + i) % times_.size()].push_back(agreed[i]);
    }
    agreed_ += static_cast<int>(agreed.size());
    bool enough = true;
    for (const std::vector<double>& t : times_) enough = enough && static_cast<int>(t.size()) >= kSamples;
    if (!enough && started_ < most_calls()) return false;
    native_s_ = times_[0].empty() ? 0 : median(times_[0]);
    tree_s_ = 0;
    for (size_t k = 1; k < times_.size(); ++k) {
        if (times_[k].empty()) continue;
        const double m = median(times_[k]);
        if (tree_s_ == 0 || m < tree_s_) {
            tree_s_ = m;
            tree_ = trees_[k - 1];
        }
    }
    phase_ =
        enough && tree_s_ > 0 && tree_s_ < (1 - kTieMargin) * native_s_ ? Phase::tree : Phase::native;  // 0: no tree
    return true;
}

NonblockingTrials::Phase NonblockingTrials::phase() const {
    std::lock_guard<std::mutex> hold(lock_);
    return phase_;
}

}  // namespace redux
