// Where the simulator gets the cost of each operation it performs: the cost of the transfer from one rank to
// another when that transfer starts, and the cost of a fold on a rank when that fold is scheduled.
//
// Fixed costs answer the same for the same ranks every time (UniformCosts: the homogeneous model; FixedCosts: a
// HeteroCosts matrix). A random sampler (gamma_noise.hpp) draws a fresh cost for each operation, so the k-th
// transfer the simulation starts gets the k-th draw whatever the algorithm: the way Benoit, Canon & Marchal
// (RR-8315, Section 6) compare algorithms under the same noise.
#pragma once

#include "model/costs.hpp"
#include "model/hetero_costs.hpp"

#include <cstdint>

namespace redux {

class CostSampler {
public:
    virtual ~CostSampler() = default;
    virtual double transfer_s(int32_t from, int32_t to) = 0;
    virtual double compute_s(int32_t rank) = 0;
    // The part of transfer_s(from, to) during which the receiver's port is free (costs.hpp); at most transfer_s.
    virtual double flight_s(int32_t /*from*/, int32_t /*to*/) { return 0.0; }
};

class UniformCosts final : public CostSampler {
public:
    explicit UniformCosts(const Costs& costs) : costs_(costs) {}
    double transfer_s(int32_t, int32_t) override { return costs_.transfer_s; }
    double compute_s(int32_t) override { return costs_.compute_s; }
    double flight_s(int32_t, int32_t) override { return costs_.flight_s; }

private:
    Costs costs_;
};

// Refers to `costs`, which must outlive it.
class FixedCosts final : public CostSampler {
public:
    explicit FixedCosts(const HeteroCosts& costs) : costs_(costs) {}
    double transfer_s(int32_t from, int32_t to) override { return costs_.transfer_s(from, to); }
    double compute_s(int32_t rank) override { return costs_.compute_s(rank); }
    double flight_s(int32_t from, int32_t to) override { return costs_.flight_s(from, to); }

private:
    const HeteroCosts& costs_;
};

}  // namespace redux
