// Link classes and the link model (libredux/src/model/link_costs.hpp): fit_link's piecewise-linear d through
// measured points, and fit_line's least-squares line. Expected values are written out from the points by hand,
// not computed with the code under test.
#include "model/link_costs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace {

using redux::LinkClass;
using redux::PingSample;

constexpr size_t KiB = 1024, MiB = 1024 * 1024;

TEST(LinkCosts, Classes) {
    EXPECT_EQ(redux::link_class({0, 0}, {0, 0}), LinkClass::same_package);
    EXPECT_EQ(redux::link_class({0, 0}, {0, 1}), LinkClass::same_node);
    EXPECT_EQ(redux::link_class({0, -1}, {0, -1}), LinkClass::same_node) << "unknown packages are not the same";
    EXPECT_EQ(redux::link_class({0, 0}, {4, 0}), LinkClass::other_node);
}

// A known piecewise line: 2 ms up to 8 B, then segments to 32 KiB, 256 KiB, 1 MiB and 4 MiB; 8 ns per byte (1
// Gbit/s) from 1 MiB on.
const std::vector<PingSample> kCurve = {
    {8, 2e-3}, {32 * KiB, 3e-3}, {256 * KiB, 8e-3}, {1 * MiB, 12e-3}, {4 * MiB, 12e-3 + 3 * MiB * 8e-9}};

TEST(LinkFit, ReproducesItsPointsExactly) {
    const redux::LinkFit fit = redux::fit_link(kCurve);
    ASSERT_TRUE(fit.measured);
    ASSERT_EQ(fit.points.size(), 5u);
    EXPECT_EQ(fit.at(8), 2e-3);
    EXPECT_EQ(fit.at(32 * KiB), 3e-3);
    EXPECT_EQ(fit.at(256 * KiB), 8e-3);
    EXPECT_EQ(fit.at(1 * MiB), 12e-3);
    EXPECT_DOUBLE_EQ(fit.at(4 * MiB), 0.037165824);
}

TEST(LinkFit, InterpolatesBetweenPoints) {
    const redux::LinkFit fit = redux::fit_link(kCurve);
    EXPECT_NEAR(fit.at(144 * KiB), 5.5e-3, 1e-15) << "halfway from 32 KiB (3 ms) to 256 KiB (8 ms)";
    EXPECT_NEAR(fit.at(448 * KiB), 9e-3, 1e-15) << "a quarter of the way from 256 KiB (8 ms) to 1 MiB (12 ms)";
    EXPECT_NEAR(fit.at(2 * MiB), 0.020388608, 1e-15) << "12 ms + 1 MiB at 8 ns";
    EXPECT_NEAR(fit.at(16388), 2.5e-3, 1e-15) << "halfway from 8 B to 32 KiB";
}

TEST(LinkFit, ExtrapolatesWithTheLastSegmentsSlope) {
    const redux::LinkFit fit = redux::fit_link(kCurve);
    EXPECT_NEAR(fit.beta_s_per_byte, 8e-9, 1e-20) << "the slope from 1 MiB to 4 MiB, not an average";
    EXPECT_NEAR(fit.at(64 * MiB), 0.540482304, 1e-12) << "12 ms + 63 MiB at 8 ns";
    EXPECT_NEAR(fit.at(8 * MiB), 0.070720256, 1e-12) << "12 ms + 7 MiB at 8 ns";
}

// The time in flight: flight_s at 8 B and below, linear to the flight points, the last one's beyond, never above d.
TEST(LinkFit, TheTimeInFlightFollowsItsPoints) {
    redux::LinkFit fit = redux::fit_link(kCurve);  // d: 2 ms at 8 B, 3 ms at 32 KiB
    fit.flight_s = 1.9e-3;
    EXPECT_EQ(fit.flight_at(8), 1.9e-3);
    EXPECT_EQ(fit.flight_at(4 * MiB), 1.9e-3) << "without points, the same at every size";
    fit.flight_points = {{8 * KiB, 2.1e-3}, {16 * KiB, 2.2e-3}};
    EXPECT_EQ(fit.flight_at(0), 1.9e-3);
    EXPECT_EQ(fit.flight_at(8), 1.9e-3);
    EXPECT_NEAR(fit.flight_at(4100), 2.0e-3, 1e-15) << "halfway from 8 B (1.9 ms) to 8 KiB (2.1 ms)";
    EXPECT_EQ(fit.flight_at(8 * KiB), 2.1e-3);
    EXPECT_NEAR(fit.flight_at(12 * KiB), 2.15e-3, 1e-15) << "halfway from 8 KiB to 16 KiB";
    EXPECT_EQ(fit.flight_at(16 * KiB), 2.2e-3);
    EXPECT_EQ(fit.flight_at(4 * MiB), 2.2e-3) << "beyond the last point, the last point's";
    fit.flight_s = 2.5e-3;  // above d(8 B) = 2 ms
    EXPECT_EQ(fit.flight_at(8), 2e-3) << "never above d";
    fit.flight_points = {{8 * KiB, -1e-3}};
    EXPECT_EQ(fit.flight_at(8 * KiB), 0.0) << "never below 0";
}

TEST(LinkFit, AlphaIsTheTimeOfAnEmptyMessage) {
    const redux::LinkFit fit = redux::fit_link(kCurve);
    EXPECT_EQ(fit.alpha_s, 2e-3) << "the smallest size's time";
    EXPECT_EQ(fit.at(0), 2e-3);
    EXPECT_EQ(fit.at(4), 2e-3) << "below the first point: alpha";
}

// Several round trips per size, in any order; noise only adds time, so the fastest per size is the link's.
TEST(LinkFit, KeepsTheFastestSamplePerSize) {
    std::vector<PingSample> samples;
    std::mt19937 random(11);
    std::uniform_real_distribution<double> delay(0, 5e-3);
    for (const PingSample& p : kCurve) {
        samples.push_back(p);
        for (int trip = 0; trip < 4; ++trip) samples.push_back({p.bytes, p.one_way_s + 1e-6 + delay(random)});
    }
    std::shuffle(samples.begin(), samples.end(), random);
    const redux::LinkFit fit = redux::fit_link(samples);
    ASSERT_EQ(fit.points.size(), kCurve.size());
    for (size_t i = 0; i < kCurve.size(); ++i) {
        EXPECT_EQ(fit.points[i].bytes, kCurve[i].bytes);
        EXPECT_EQ(fit.points[i].one_way_s, kCurve[i].one_way_s) << kCurve[i].bytes << " bytes";
    }
    EXPECT_EQ(fit.alpha_s, 2e-3);
    EXPECT_NEAR(fit.at(64 * MiB), 0.540482304, 1e-12);
}

// d never falls with the bytes: a size whose fastest time is above a larger size's (all its round trips
// delayed) is lowered to that time.
TEST(LinkFit, ATimeAboveALargerSizesIsLowered) {
    const redux::LinkFit fit = redux::fit_link({{8, 3e-6}, {32 * KiB, 2e-6}, {256 * KiB, 50e-6}, {1 * MiB, 40e-6}});
    ASSERT_EQ(fit.points.size(), 4u);
    EXPECT_EQ(fit.points[0].one_way_s, 2e-6);
    EXPECT_EQ(fit.points[1].one_way_s, 2e-6);
    EXPECT_EQ(fit.points[2].one_way_s, 40e-6);
    EXPECT_EQ(fit.points[3].one_way_s, 40e-6);
    EXPECT_EQ(fit.alpha_s, 2e-6);
    EXPECT_EQ(fit.beta_s_per_byte, 0) << "flat from 256 KiB to 1 MiB";
    for (size_t bytes = 0; bytes < 2 * MiB; bytes += 4 * KiB) {
        EXPECT_LE(fit.at(bytes), fit.at(bytes + 4 * KiB)) << bytes << " bytes";
    }
}

TEST(LinkFit, FewSamples) {
    const redux::LinkFit one = redux::fit_link({{64, 3e-6}, {64, 1e-6}});
    EXPECT_TRUE(one.measured);
    EXPECT_EQ(one.alpha_s, 1e-6) << "the fastest";
    EXPECT_EQ(one.beta_s_per_byte, 0);
    EXPECT_EQ(one.at(64 * MiB), 1e-6);
    const redux::LinkFit none = redux::fit_link({});
    EXPECT_FALSE(none.measured);
    EXPECT_EQ(none.at(1000), 0);
}

// What the file and the broadcast carry are the points: fitting them again gives the same fit.
TEST(LinkFit, RefittingItsPointsGivesTheSameFit) {
    const redux::LinkFit fit = redux::fit_link({{8, 5e-6}, {32 * KiB, 4e-6}, {1 * MiB, 300e-6}, {4 * MiB, 1.1e-3}});
    const redux::LinkFit again = redux::fit_link(fit.points);
    EXPECT_EQ(again.alpha_s, fit.alpha_s);
    EXPECT_EQ(again.beta_s_per_byte, fit.beta_s_per_byte);
    ASSERT_EQ(again.points.size(), fit.points.size());
    for (size_t i = 0; i < fit.points.size(); ++i) EXPECT_EQ(again.points[i].one_way_s, fit.points[i].one_way_s);
}

TEST(LinkFit, KeepsTheSmallestAndTheLargestOfManySizes) {
    std::vector<PingSample> samples;
    for (size_t i = 0; i < 40; ++i) samples.push_back({(i + 1) * 100, 1e-6 * static_cast<double>(i + 1)});
    const redux::LinkFit fit = redux::fit_link(samples);
    ASSERT_EQ(fit.points.size(), redux::kMaxLinkPoints);
    EXPECT_EQ(fit.points.front().bytes, 100u);
    EXPECT_EQ(fit.points[1].bytes, 1000u) << "sizes 200 .. 900 dropped";
    EXPECT_EQ(fit.points.back().bytes, 4000u);
    EXPECT_NEAR(fit.at(8000), 80e-6, 1e-15);
}

// A fit given as two numbers (no points) is the line.
TEST(LinkFit, WithoutPointsIsTheLine) {
    const redux::LinkFit line{1e-6, 2e-9, true, {}};
    EXPECT_EQ(line.at(0), 1e-6);
    EXPECT_NEAR(line.at(1000), 3e-6, 1e-18);
}

// Why the model is piecewise: fastest half round trips between two nodes of the emulated cluster (1 ms per node,
// so 2 ms one way, 1 Gbit/s). A line through 8 B .. 256 KiB puts 4 MiB at more than twice its time; the curve
// through the same points and 1 and 4 MiB holds at 64 MiB (whose half round trip there is 0.5668 s).
TEST(LinkFit, HoldsWhereALineThroughSmallSizesDoesNot) {
    const std::vector<PingSample> measured = {
        {8, 2.112e-3}, {32 * KiB, 2.672e-3}, {256 * KiB, 8.692e-3}, {1 * MiB, 13.285e-3}, {4 * MiB, 39.639e-3}};
    const redux::LinkFit line = redux::fit_line({measured.begin(), measured.begin() + 3});
    EXPECT_GT(line.at(4 * MiB), 2 * 39.639e-3);
    const redux::LinkFit curve = redux::fit_link(measured);
    EXPECT_NEAR(curve.at(64 * MiB), 0.5668, 0.05 * 0.5668);
    EXPECT_NEAR(curve.alpha_s, 2.112e-3, 1e-12);
}

TEST(LinkLine, RecoversALineFromNoisySamples) {
    const double alpha = 2e-3, beta = 8e-9;  // 2 ms, 1 Gbit/s
    std::mt19937 random(7);
    std::uniform_real_distribution<double> noise(0.97, 1.03);
    std::vector<PingSample> samples;
    for (size_t bytes : {8u, 32768u, 262144u}) samples.push_back({bytes, (alpha + beta * bytes) * noise(random)});
    const redux::LinkFit fit = redux::fit_line(samples);
    EXPECT_TRUE(fit.measured);
    EXPECT_TRUE(fit.points.empty());
    EXPECT_NEAR(fit.alpha_s, alpha, 0.1 * alpha);
    EXPECT_NEAR(fit.beta_s_per_byte, beta, 0.1 * beta);
    // 4x beyond the largest sample, 3 % noise on each: within 10 %.
    EXPECT_NEAR(fit.at(1 << 20), alpha + beta * (1 << 20), 0.1 * (alpha + beta * (1 << 20)));
}

TEST(LinkLine, ClampsNoiseToNonNegative) {
    // Time falling with size (noise on a fast link): no negative bandwidth, the mean as latency.
    const redux::LinkFit flat = redux::fit_line({{8, 2e-6}, {32768, 1e-6}, {262144, 1.5e-6}});
    EXPECT_EQ(flat.beta_s_per_byte, 0);
    EXPECT_NEAR(flat.alpha_s, 1.5e-6, 1e-12);
    // A line through below the origin: no negative latency, the slope through the origin.
    const redux::LinkFit steep = redux::fit_line({{8, 1e-9}, {1000, 1e-6}, {2000, 3e-6}});
    EXPECT_EQ(steep.alpha_s, 0);
    EXPECT_GT(steep.beta_s_per_byte, 0);
    // One size: its mean, no slope.
    const redux::LinkFit one = redux::fit_line({{64, 1e-6}, {64, 3e-6}});
    EXPECT_NEAR(one.alpha_s, 2e-6, 1e-15);
    EXPECT_EQ(one.beta_s_per_byte, 0);
    EXPECT_FALSE(redux::fit_line({}).measured);
}

}  // namespace
