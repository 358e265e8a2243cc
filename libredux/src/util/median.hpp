// The median of timed samples: the upper one of an even count (the sample at n / 2 in sorted order). Used where
// a handful of timings decides something (auto's trials, calibration's calls), so one disturbed sample cannot.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace redux {

// v must not be empty.
inline double median(std::vector<double> v) {
    const auto middle = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), middle, v.end());
    return *middle;
}

}  // namespace redux
