#include "study/gamma_noise.hpp"

#include <stdexcept>
#include <vector>

namespace redux {
namespace {

std::mt19937_64 seeded(uint64_t seed, uint64_t stream) {
    std::seed_seq sequence{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
                           static_cast<uint32_t>(stream)};
    return std::mt19937_64(sequence);
}

}  // namespace

double draw_gamma(const GammaLaw& law, std::mt19937_64& engine) {
    if (!(law.mean >= 0) || !(law.cv >= 0)) throw std::invalid_argument("draw_gamma: mean and cv must be >= 0");
    if (law.mean == 0 || law.cv == 0) return law.mean;
    const double shape = 1.0 / (law.cv * law.cv);
    std::gamma_distribution<double> gamma(shape, law.mean / shape);
    return gamma(engine);
}

GammaNoise::GammaNoise(const HeteroCosts& base, double transfer_cv, double compute_cv, uint64_t seed)
    : base_(base),
      transfer_factor_{1.0, transfer_cv},
      compute_factor_{1.0, compute_cv},
      transfer_engine_(seeded(seed, 1)),
      compute_engine_(seeded(seed, 2)) {}

double GammaNoise::transfer_s(int32_t from, int32_t to) {
    return base_.transfer_s(from, to) * draw_gamma(transfer_factor_, transfer_engine_);
}

double GammaNoise::compute_s(int32_t rank) {
    return base_.compute_s(rank) * draw_gamma(compute_factor_, compute_engine_);
}

HeteroCosts draw_gamma_costs(int32_t n, const GammaLaw& transfer, const GammaLaw& compute, uint64_t seed) {
    std::mt19937_64 engine = seeded(seed, 3);
    const auto count = static_cast<size_t>(n);
    std::vector<double> c(count), d(count * count, 0.0);
    for (auto& c_i : c) c_i = draw_gamma(compute, engine);
    for (size_t i = 0; i < count; ++i) {
        for (size_t j = 0; j < count; ++j) {
            if (i != j) d[i * count + j] = draw_gamma(transfer, engine);
        }
    }
    return {std::move(c), std::move(d)};
}

}  // namespace redux
