// The platform of the steady-state program (steady_state.hpp): participants, the one-port links between them and
// their fold times, checked; and the busy fractions a solution's rates give each port and processor.
#include "plan/steady_state/steady_state.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace redux {
namespace {
constexpr double kInfinity = std::numeric_limits<double>::infinity();
}  // namespace

SteadyStatePlatform::SteadyStatePlatform(int32_t participants, int32_t target) : target_(target) {
    if (participants < 0 || target < 0 || target >= std::max(participants, 1)) {
        throw std::invalid_argument("SteadyStatePlatform: target out of range");
    }
    const auto count = static_cast<size_t>(participants);
    transfer_s_.assign(count * count, kInfinity);
    fold_s_.assign(count, 0.0);
}

SteadyStatePlatform SteadyStatePlatform::complete(const std::vector<double>& transfer_s,
                                                  const std::vector<double>& fold_s, int32_t target) {
    const auto p = static_cast<int32_t>(fold_s.size());
    if (transfer_s.size() != fold_s.size() * fold_s.size()) {
        throw std::invalid_argument("SteadyStatePlatform::complete: transfer_s must have p * p entries");
    }
    SteadyStatePlatform platform(p, target);
    for (int32_t i = 0; i < p; ++i) {
        platform.set_fold_s(i, fold_s[static_cast<size_t>(i)]);
        for (int32_t j = 0; j < p; ++j) {
            if (i != j) platform.set_transfer_s(i, j, transfer_s[static_cast<size_t>(i * p + j)]);
        }
    }
    return platform;
}

void SteadyStatePlatform::set_transfer_s(int32_t from, int32_t to, double transfer_s) {
    if (from < 0 || from >= size() || to < 0 || to >= size() || from == to) {
        throw std::invalid_argument("SteadyStatePlatform::set_transfer_s: no such edge");
    }
    transfer_s_[static_cast<size_t>(from) * fold_s_.size() + static_cast<size_t>(to)] = transfer_s;
}

void SteadyStatePlatform::set_fold_s(int32_t node, double fold_s) {
    if (node < 0 || node >= size()) throw std::invalid_argument("SteadyStatePlatform::set_fold_s: no such node");
    fold_s_[static_cast<size_t>(node)] = fold_s;
}

double SteadyStatePlatform::largest_time_s() const {
    double largest_s = 0;
    for (int32_t i = 0; i < size(); ++i) {
        largest_s = std::max(largest_s, fold_s(i));
        for (int32_t j = 0; j < size(); ++j) {
            if (has_edge(i, j)) largest_s = std::max(largest_s, transfer_s(i, j));
        }
    }
    return largest_s;
}

bool SteadyStatePlatform::has_edge(int32_t from, int32_t to) const {
    return from != to && transfer_s(from, to) < kInfinity;
}

std::string SteadyStatePlatform::validate() const {
    if (target_ < 0 || target_ >= size()) return "the target is not a participant";
    for (int32_t i = 0; i < size(); ++i) {
        const double c = fold_s(i);
        if (!(c >= 0) || !std::isfinite(c)) return "fold_s(" + std::to_string(i) + ") is not a finite time >= 0";
        for (int32_t j = 0; j < size(); ++j) {
            const double d = transfer_s(i, j);
            if (i != j && !(d >= 0)) {
                return "transfer_s(" + std::to_string(i) + ", " + std::to_string(j) + ") is not a time >= 0";
            }
        }
    }
    return "";
}

std::string to_string(PartialResult v) { return "v[" + std::to_string(v.first) + "," + std::to_string(v.last) + "]"; }

BusyFractions busy_fractions(const SteadyStatePlatform& platform, const std::vector<TransferRate>& transfers,
                             const std::vector<FoldRate>& folds) {
    const auto p = static_cast<size_t>(platform.size());
    BusyFractions busy{std::vector<double>(p, 0.0), std::vector<double>(p, 0.0), std::vector<double>(p, 0.0)};
    for (const auto& rate : transfers) {
        const auto& t = rate.transfer;
        const double time_s = rate.per_s * platform.transfer_s(t.from, t.to);
        busy.send[static_cast<size_t>(t.from)] += time_s;
        busy.receive[static_cast<size_t>(t.to)] += time_s;
    }
    for (const auto& rate : folds) {
        busy.compute[static_cast<size_t>(rate.fold.node)] += rate.per_s * platform.fold_s(rate.fold.node);
    }
    return busy;
}

}  // namespace redux
