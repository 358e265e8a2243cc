// Bounds on reduction lengths from Canon & Antoniu (INRIA RR-7898): Lemma 5, Proposition 6, Proposition 8 and
// Corollary 11. Pure arithmetic.
#pragma once

#include "model/costs.hpp"

#include <cstdint>

namespace redux {

// ceil(log2(n)) for n >= 1.
int32_t ceil_log2(int64_t n);

// Lemma 5: no schedule reduces n elements faster than ceil(log2 n) max(d, c).
double lower_bound_s(int64_t n, const Costs& costs);

// Proposition 6: the optimum is at most ceil(log2 n)(d + c) (a binomial schedule achieves it).
double upper_bound_s(int64_t n, const Costs& costs);

// Proposition 8 (Algorithm 2, at most K transfers) and Corollary 11 (Algorithm 3, at most K reducers), for
// 1 <= K <= floor(n / 2). The paper prints (floor(log2(K) + 1) + ceil(n / K - 2)) (d + c); that is too small
// when K is not a power of two (n = 6, K = 3, c = 0 gives 2d, below Lemma 5's 3d) because its proof takes
// n - 2^(floor(log2 K) + 1) < n - 2K, which is backwards. Counting the proof's own construction -- a doubling
// phase of floor(log2 K) + 1 steps that leaves P = 2^(floor(log2 K) + 1) machines with data, then K more per
// step -- gives the bound returned here: (floor(log2 K) + 1 + ceil((n - P) / K)) (d + c). It equals the
// printed one whenever K is a power of two.
double limited_upper_bound_s(int64_t n, int64_t limit, const Costs& costs);

// The bound exactly as printed in Proposition 8, kept for the tests that document the discrepancy.
double limited_upper_bound_as_printed_s(int64_t n, int64_t limit, const Costs& costs);

}  // namespace redux
