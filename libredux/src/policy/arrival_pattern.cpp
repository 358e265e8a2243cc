// ArrivalPattern (arrival_pattern.hpp).
#include "policy/arrival_pattern.hpp"

#include "util/median.hpp"

#include <algorithm>
#include <cmath>

namespace redux {
namespace {

double largest(const std::vector<double>& v) { return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()); }

}  // namespace

std::vector<double> ArrivalPattern::predicted_s() const {
    if (starts_.empty()) return {};
    std::vector<double> predicted(starts_.front().size());
    std::vector<double> seen(starts_.size());
    for (size_t r = 0; r < predicted.size(); ++r) {
        for (size_t s = 0; s < starts_.size(); ++s) seen[s] = starts_[s][r];
        predicted[r] = median(seen);
    }
    return predicted;
}

double ArrivalPattern::spread_s() const { return largest(predicted_s()); }

double ArrivalPattern::wait_s(int root) const {
    const std::vector<double> predicted = predicted_s();
    if (predicted.empty()) return 0.0;
    if (root < 0) return largest(predicted) - *std::min_element(predicted.begin(), predicted.end());
    if (static_cast<size_t>(root) >= predicted.size()) return 0.0;
    return largest(predicted) - predicted[static_cast<size_t>(root)];
}

int ArrivalPattern::held() const {
    const std::vector<double> predicted = predicted_s();
    const double spread = largest(predicted);
    if (!(spread > 0)) return 0;
    int held = 0;
    for (const std::vector<double>& start : starts_) {
        double furthest = 0;  // the furthest a rank came from its prediction
        for (size_t r = 0; r < predicted.size(); ++r) furthest = std::max(furthest, std::abs(start[r] - predicted[r]));
        if (furthest <= kRepeatShare * spread) ++held;
    }
    return held;
}

}  // namespace redux
