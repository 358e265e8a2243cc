#include "model/hetero_costs.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace redux {
namespace {

constexpr std::array<std::pair<TransferModel, std::string_view>, 2> kModelNames{{
    {TransferModel::overlap, "overlap"},
    {TransferModel::no_overlap, "no-overlap"},
}};

bool valid_cost(double s) { return std::isfinite(s) && s >= 0; }

}  // namespace

std::string_view transfer_model_name(TransferModel model) {
    for (const auto& [m, name] : kModelNames) {
        if (m == model) return name;
    }
    return "unknown";
}

std::optional<TransferModel> parse_transfer_model(std::string_view name) {
    for (const auto& [m, known] : kModelNames) {
        if (known == name) return m;
    }
    if (name == "no_overlap") return TransferModel::no_overlap;
    return std::nullopt;
}

HeteroCosts::HeteroCosts(std::vector<double> compute_s, std::vector<double> transfer_s, std::vector<double> flight_s)
    : compute_s_(std::move(compute_s)), transfer_s_(std::move(transfer_s)), flight_s_(std::move(flight_s)) {
    if (transfer_s_.size() != compute_s_.size() * compute_s_.size()) {
        throw std::invalid_argument("HeteroCosts: transfer_s must have n * n entries for n compute costs");
    }
    if (!flight_s_.empty() && flight_s_.size() != transfer_s_.size()) {
        throw std::invalid_argument("HeteroCosts: flight_s must be empty or have n * n entries");
    }
}

HeteroCosts HeteroCosts::uniform(int32_t n, const Costs& costs) {
    const auto count = static_cast<size_t>(std::max(n, 0));
    return {std::vector<double>(count, costs.compute_s), std::vector<double>(count * count, costs.transfer_s)};
}

HeteroCosts HeteroCosts::sender_only(const std::vector<double>& send_s, double compute_s) {
    const size_t n = send_s.size();
    std::vector<double> d(n * n);
    for (size_t i = 0; i < n; ++i)
        std::fill(d.begin() + static_cast<std::ptrdiff_t>(i * n), d.begin() + static_cast<std::ptrdiff_t>((i + 1) * n),
                  send_s[i]);
    return {std::vector<double>(n, compute_s), std::move(d)};
}

HeteroCosts HeteroCosts::from_classes(const std::vector<double>& compute_s, const std::vector<int32_t>& class_of,
                                      const std::vector<std::vector<double>>& class_transfer_s) {
    const size_t n = class_of.size();
    if (compute_s.size() != n) throw std::invalid_argument("HeteroCosts: one compute cost per rank is needed");
    for (const auto& row : class_transfer_s) {
        if (row.size() != class_transfer_s.size()) {
            throw std::invalid_argument("HeteroCosts: the class transfer matrix must be square");
        }
    }
    std::vector<double> d(n * n);
    for (size_t i = 0; i < n; ++i) {
        for (size_t j = 0; j < n; ++j) {
            const int32_t a = class_of[i], b = class_of[j];
            if (a < 0 || b < 0 || static_cast<size_t>(a) >= class_transfer_s.size() ||
                static_cast<size_t>(b) >= class_transfer_s.size()) {
                throw std::invalid_argument("HeteroCosts: class index out of range");
            }
            d[i * n + j] = class_transfer_s[static_cast<size_t>(a)][static_cast<size_t>(b)];
        }
    }
    return {compute_s, std::move(d)};
}

double HeteroCosts::min_transfer_s() const {
    const int32_t n = size();
    if (n < 2) return 0.0;
    double best = std::numeric_limits<double>::infinity();
    for (int32_t i = 0; i < n; ++i) {
        for (int32_t j = 0; j < n; ++j) {
            if (i != j) best = std::min(best, transfer_s(i, j));
        }
    }
    return best;
}

double HeteroCosts::max_transfer_s() const {
    const int32_t n = size();
    double most = 0.0;
    for (int32_t i = 0; i < n; ++i) {
        for (int32_t j = 0; j < n; ++j) {
            if (i != j) most = std::max(most, transfer_s(i, j));
        }
    }
    return most;
}

double HeteroCosts::mean_send_s(int32_t rank) const {
    const int32_t n = size();
    if (n < 2) return 0.0;
    double sum = 0.0;
    for (int32_t j = 0; j < n; ++j) {
        if (j != rank) sum += transfer_s(rank, j);
    }
    return sum / (n - 1);
}

double HeteroCosts::mean_transfer_s() const {
    const int32_t n = size();
    if (n < 2) return 0.0;
    double sum = 0.0;
    for (int32_t i = 0; i < n; ++i) sum += mean_send_s(i);
    return sum / n;
}

double HeteroCosts::min_compute_s() const {
    return compute_s_.empty() ? 0.0 : *std::min_element(compute_s_.begin(), compute_s_.end());
}

double HeteroCosts::max_compute_s() const {
    return compute_s_.empty() ? 0.0 : *std::max_element(compute_s_.begin(), compute_s_.end());
}

double HeteroCosts::mean_compute_s() const {
    if (compute_s_.empty()) return 0.0;
    double sum = 0.0;
    for (double c : compute_s_) sum += c;
    return sum / static_cast<double>(compute_s_.size());
}

std::string HeteroCosts::validate() const {
    const int32_t n = size();
    if (n < 1) return "the cost model has no ranks";
    for (int32_t i = 0; i < n; ++i) {
        if (!valid_cost(compute_s(i))) {
            return "c[" + std::to_string(i) + "] must be a finite number of seconds >= 0";
        }
        for (int32_t j = 0; j < n; ++j) {
            if (i != j && !valid_cost(transfer_s(i, j))) {
                return "d[" + std::to_string(i) + "][" + std::to_string(j) +
                       "] must be a finite number of seconds >= 0";
            }
            if (i != j && (!valid_cost(flight_s(i, j)) || flight_s(i, j) > transfer_s(i, j))) {
                return "L[" + std::to_string(i) + "][" + std::to_string(j) +
                       "] must be a finite number of seconds in [0, d[" + std::to_string(i) + "][" + std::to_string(j) +
                       "]]";
            }
        }
    }
    return {};
}

}  // namespace redux
