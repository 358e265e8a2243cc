// Random costs from gamma distributions, as in Benoit, Canon & Marchal (RR-8315, Section 6): positive, with a
// given mean and coefficient of variation (CV = standard deviation / mean). A gamma law of shape k = 1 / CV^2 and
// scale mean * CV^2 has exactly that mean and CV; CV = 1 is the exponential law of their Section 5.
//
// Two uses:
//   GammaNoise     a CostSampler that draws every operation afresh around base costs (each transfer i -> j costs
//                  d_ij * X, each fold on i costs c_i * Y, X and Y of mean 1 and the given CVs). Transfers and
//                  folds draw from two separate streams, so the k-th transfer any algorithm starts gets the same
//                  X: the "same seed for each method" of their Section 6.
//   draw_gamma_costs  one fixed heterogeneous platform: every d_ij and c_i drawn once.
// Everything is reproducible from the seed (std::mt19937_64 and libstdc++'s gamma_distribution).
#pragma once

#include "model/cost_sampler.hpp"
#include "model/hetero_costs.hpp"

#include <cstdint>
#include <random>

namespace redux {

struct GammaLaw {
    double mean = 1.0;
    double cv = 0.0;  // 0: the mean itself, no draw
};

// One draw from `law` (0 when the mean is 0).
double draw_gamma(const GammaLaw& law, std::mt19937_64& engine);

class GammaNoise final : public CostSampler {
public:
    // Refers to `base`, which must outlive it.
    GammaNoise(const HeteroCosts& base, double transfer_cv, double compute_cv, uint64_t seed);
    double transfer_s(int32_t from, int32_t to) override;
    double compute_s(int32_t rank) override;

private:
    const HeteroCosts& base_;
    GammaLaw transfer_factor_, compute_factor_;
    std::mt19937_64 transfer_engine_, compute_engine_;
};

// d_ij (i != j) drawn from `transfer`, c_i from `compute`, the diagonal 0.
HeteroCosts draw_gamma_costs(int32_t n, const GammaLaw& transfer, const GammaLaw& compute, uint64_t seed);

}  // namespace redux
