// Link classes and the d(bytes) = alpha + beta * bytes fit (libredux/src/model/link_costs.hpp).
#include "model/link_costs.hpp"

#include <gtest/gtest.h>

#include <random>

namespace {

using redux::LinkClass;

TEST(LinkCosts, Classes) {
    EXPECT_EQ(redux::link_class({0, 0}, {0, 0}), LinkClass::same_package);
    EXPECT_EQ(redux::link_class({0, 0}, {0, 1}), LinkClass::same_node);
    EXPECT_EQ(redux::link_class({0, -1}, {0, -1}), LinkClass::same_node) << "unknown packages are not the same";
    EXPECT_EQ(redux::link_class({0, 0}, {4, 0}), LinkClass::other_node);
}

TEST(LinkCosts, FitRecoversALineFromNoisySamples) {
    const double alpha = 2e-3, beta = 8e-9;  // 2 ms, 1 Gbit/s
    std::mt19937 random(7);
    std::uniform_real_distribution<double> noise(0.97, 1.03);
    std::vector<redux::PingSample> samples;
    for (size_t bytes : {8u, 32768u, 262144u}) samples.push_back({bytes, (alpha + beta * bytes) * noise(random)});
    const redux::LinkFit fit = redux::fit_link(samples);
    EXPECT_TRUE(fit.measured);
    EXPECT_NEAR(fit.alpha_s, alpha, 0.1 * alpha);
    EXPECT_NEAR(fit.beta_s_per_byte, beta, 0.1 * beta);
    // 4x beyond the largest sample, 3 % noise on each: within 10 %.
    EXPECT_NEAR(fit.at(1 << 20), alpha + beta * (1 << 20), 0.1 * (alpha + beta * (1 << 20)));
}

TEST(LinkCosts, FitClampsNoiseToNonNegative) {
    // Time falling with size (noise on a fast link): no negative bandwidth, the mean as latency.
    const redux::LinkFit flat = redux::fit_link({{8, 2e-6}, {32768, 1e-6}, {262144, 1.5e-6}});
    EXPECT_EQ(flat.beta_s_per_byte, 0);
    EXPECT_NEAR(flat.alpha_s, 1.5e-6, 1e-12);
    // A line through below the origin: no negative latency, the slope through the origin.
    const redux::LinkFit steep = redux::fit_link({{8, 1e-9}, {1000, 1e-6}, {2000, 3e-6}});
    EXPECT_EQ(steep.alpha_s, 0);
    EXPECT_GT(steep.beta_s_per_byte, 0);
    // One size: its mean, no slope.
    const redux::LinkFit one = redux::fit_link({{64, 1e-6}, {64, 3e-6}});
    EXPECT_NEAR(one.alpha_s, 2e-6, 1e-15);
    EXPECT_EQ(one.beta_s_per_byte, 0);
    EXPECT_FALSE(redux::fit_link({}).measured);
}

}  // namespace
