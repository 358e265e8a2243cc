// Order statistics of a sample of timings: what the benchmark reports (median as the latency, min, max).
#pragma once

#include <algorithm>
#include <vector>

namespace redux_bench {

struct Summary {
    double median_s = 0;
    double min_s = 0;
    double max_s = 0;
};

// The median (for an even number of samples, the mean of the two middle ones), min and max; zeros when empty.
inline Summary summarize(std::vector<double> samples_s) {
    Summary summary;
    if (samples_s.empty()) return summary;
    std::sort(samples_s.begin(), samples_s.end());
    const size_t n = samples_s.size();
    summary.median_s = n % 2 == 1 ? samples_s[n / 2] : (samples_s[n / 2 - 1] + samples_s[n / 2]) / 2;
    summary.min_s = samples_s.front();
    summary.max_s = samples_s.back();
    return summary;
}

inline double median(std::vector<double> samples_s) { return summarize(std::move(samples_s)).median_s; }

}  // namespace redux_bench
