// Statistics of a sample of timings: what the benchmark reports. The median is the latency (the table's
// number, the CSV's median_us); the mean, the quartiles, min and max show how the samples spread.
#pragma once

#include <algorithm>
#include <numeric>
#include <vector>

namespace redux_bench {

struct Summary {
    int samples = 0;
    double median_s = 0;
    double mean_s = 0;
    double q1_s = 0;  // first and third quartiles
    double q3_s = 0;
    double p90_s = 0;  // 90th percentile
    double min_s = 0;
    double max_s = 0;
};

// The p-quantile of sorted samples, interpolated linearly between the order statistics around (n - 1) p
// (Hyndman and Fan's type 7, numpy's default): for p = 1/2 the usual median (the mean of the two middle
// samples when n is even).
inline double quantile_sorted(const std::vector<double>& sorted, double p) {
    if (sorted.empty()) return 0;
    const double position = p * static_cast<double>(sorted.size() - 1);
    const size_t below = static_cast<size_t>(position);
    if (below + 1 >= sorted.size()) return sorted.back();
    const double above_weight = position - static_cast<double>(below);
    return sorted[below] + above_weight * (sorted[below + 1] - sorted[below]);
}

// Zeros when empty.
inline Summary summarize(std::vector<double> samples_s) {
    Summary summary;
    if (samples_s.empty()) return summary;
    std::sort(samples_s.begin(), samples_s.end());
    summary.samples = static_cast<int>(samples_s.size());
    summary.median_s = quantile_sorted(samples_s, 0.5);
    summary.q1_s = quantile_sorted(samples_s, 0.25);
    summary.q3_s = quantile_sorted(samples_s, 0.75);
    summary.p90_s = quantile_sorted(samples_s, 0.9);
    summary.mean_s = std::accumulate(samples_s.begin(), samples_s.end(), 0.0) / static_cast<double>(samples_s.size());
    summary.min_s = samples_s.front();
    summary.max_s = samples_s.back();
    return summary;
}

inline double median(std::vector<double> samples_s) { return summarize(std::move(samples_s)).median_s; }

}  // namespace redux_bench
