#include "plan/predict/bounds.hpp"

namespace redux {

int32_t ceil_log2(int64_t n) {
    int32_t k = 0;
    while ((int64_t{1} << k) < n) ++k;
    return k;
}

// At most one fold per c and one arrival per port time on each rank: the partial results at most halve per
// max(d - L, c) (max(d, c) without latency).
double lower_bound_s(int64_t n, const Costs& costs) { return ceil_log2(n) * costs.pace_s(); }

double upper_bound_s(int64_t n, const Costs& costs) { return ceil_log2(n) * costs.step_s(); }

namespace {

int64_t floor_log2(int64_t k) {
    int64_t f = 0;
    while ((int64_t{2} << f) <= k) ++f;
    return f;
}

int64_t ceil_div(int64_t a, int64_t b) { return a <= 0 ? 0 : (a + b - 1) / b; }

}  // namespace

double limited_upper_bound_s(int64_t n, int64_t limit, const Costs& costs) {
    const int64_t doubling_steps = floor_log2(limit) + 1;
    const int64_t reached = int64_t{1} << doubling_steps;
    return static_cast<double>(doubling_steps + ceil_div(n - reached, limit)) * costs.step_s();
}

double limited_upper_bound_as_printed_s(int64_t n, int64_t limit, const Costs& costs) {
    return static_cast<double>(floor_log2(limit) + 1 + ceil_div(n, limit) - 2) * costs.step_s();
}

}  // namespace redux
