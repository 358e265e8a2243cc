#include "model/link_costs.hpp"

#include <algorithm>

namespace redux {

std::string_view link_class_name(LinkClass c) {
    switch (c) {
        case LinkClass::same_package:
            return "same_package";
        case LinkClass::same_node:
            return "same_node";
        case LinkClass::other_node:
            return "other_node";
    }
    return "unknown";
}

LinkClass link_class(const RankPlace& a, const RankPlace& b) {
    if (a.node != b.node) return LinkClass::other_node;
    if (a.package >= 0 && a.package == b.package) return LinkClass::same_package;
    return LinkClass::same_node;
}

bool thread_per_rank(const std::vector<RankPlace>& place, size_t r) {
    const RankPlace& at = place[r];
    if (at.node_cpus <= 0) return false;
    const auto ranks = std::count_if(place.begin(), place.end(), [&](const RankPlace& p) { return p.node == at.node; });
    return ranks <= at.node_cpus;
}

namespace {

// The line from `left` to `right` at `bytes` (left.bytes <= bytes <= right.bytes).
double between(const PingSample& left, const PingSample& right, size_t bytes) {
    const double share = static_cast<double>(bytes - left.bytes) /
                         static_cast<double>(right.bytes - left.bytes);  // 0 at left, 1 at right
    return left.one_way_s + share * (right.one_way_s - left.one_way_s);
}

}  // namespace

double LinkFit::at(size_t bytes) const {
    const double x = static_cast<double>(bytes);
    if (points.empty()) return alpha_s + beta_s_per_byte * x;
    if (bytes <= points.front().bytes) return alpha_s;
    const PingSample& last = points.back();
    if (bytes >= last.bytes) return last.one_way_s + beta_s_per_byte * (x - static_cast<double>(last.bytes));
    // The segment [left, right] that holds `bytes`: right is the first point above it.
    const auto right = std::upper_bound(points.begin(), points.end(), bytes,
                                        [](size_t b, const PingSample& p) { return b < p.bytes; });
    return between(*(right - 1), *right, bytes);
}

double LinkFit::flight_at(size_t bytes) const {
    PingSample left{8, flight_s};  // flight_s is measured at 8 B
    for (const PingSample& right : flight_points) {
        if (bytes < right.bytes) {
            const double flight = bytes > left.bytes ? between(left, right, bytes) : left.one_way_s;
            return std::clamp(flight, 0.0, at(bytes));
        }
        left = right;
    }
    return std::clamp(left.one_way_s, 0.0, at(bytes));
}

LinkFit fit_link(const std::vector<PingSample>& samples) {
    LinkFit fit;
    if (samples.empty()) return fit;
    fit.measured = true;
    std::vector<PingSample> sorted = samples;
    std::sort(sorted.begin(), sorted.end(), [](const PingSample& a, const PingSample& b) {
        return a.bytes != b.bytes ? a.bytes < b.bytes : a.one_way_s < b.one_way_s;
    });
    for (const PingSample& s : sorted) {  // the fastest per size comes first
        if (fit.points.empty() || fit.points.back().bytes != s.bytes) fit.points.push_back(s);
    }
    if (fit.points.size() > kMaxLinkPoints) {  // the smallest and the largest ones
        fit.points.erase(fit.points.begin() + 1, fit.points.end() - static_cast<std::ptrdiff_t>(kMaxLinkPoints - 1));
    }
    std::vector<PingSample>& points = fit.points;
    points.back().one_way_s = std::max(0.0, points.back().one_way_s);
    for (size_t i = points.size() - 1; i-- > 0;) {
        points[i].one_way_s = std::clamp(points[i].one_way_s, 0.0, points[i + 1].one_way_s);
    }
    fit.alpha_s = points.front().one_way_s;
    if (points.size() >= 2) {
        const PingSample& a = points[points.size() - 2];
        const PingSample& b = points.back();
        fit.beta_s_per_byte = (b.one_way_s - a.one_way_s) / static_cast<double>(b.bytes - a.bytes);
    }
    return fit;
}

LinkFit fit_line(const std::vector<PingSample>& samples) {
    LinkFit fit;
    if (samples.empty()) return fit;
    fit.measured = true;
    double mean_x = 0, mean_y = 0;
    for (const PingSample& s : samples) {
        mean_x += static_cast<double>(s.bytes);
        mean_y += s.one_way_s;
    }
    mean_x /= static_cast<double>(samples.size());
    mean_y /= static_cast<double>(samples.size());
    double sxx = 0, sxy = 0, sx2 = 0, sx2y = 0;
    for (const PingSample& s : samples) {
        const double x = static_cast<double>(s.bytes);
        sxx += (x - mean_x) * (x - mean_x);
        sxy += (x - mean_x) * (s.one_way_s - mean_y);
        sx2 += x * x;
        sx2y += x * s.one_way_s;
    }
    if (sxx <= 0) {  // one distinct size
        fit.alpha_s = std::max(0.0, mean_y);
        return fit;
    }
    fit.beta_s_per_byte = sxy / sxx;
    fit.alpha_s = mean_y - fit.beta_s_per_byte * mean_x;
    if (fit.beta_s_per_byte < 0) {
        fit.beta_s_per_byte = 0;
        fit.alpha_s = mean_y;
    } else if (fit.alpha_s < 0) {
        fit.alpha_s = 0;
        fit.beta_s_per_byte = sx2 > 0 ? std::max(0.0, sx2y / sx2) : 0;
    }
    fit.alpha_s = std::max(0.0, fit.alpha_s);
    return fit;
}

}  // namespace redux
