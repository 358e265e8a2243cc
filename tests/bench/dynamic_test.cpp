// mpi_bench's dynamic.hpp without MPI: the arrival patterns every rank draws for itself, and the op cost draws.
#include "dynamic.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace redux_bench {
namespace {

ArrivalSpec arrival(const std::string& text) {
    std::string error;
    const auto spec = parse_arrival(text, error);
    EXPECT_TRUE(spec.has_value()) << text << ": " << error;
    return spec.value_or(ArrivalSpec{});
}

// Iteration `iteration`'s delays of `ranks` ranks, each computed as that rank computes its own, from rank 0 up
// (reverse: from the last rank down).
std::vector<double> pattern(const ArrivalSpec& spec, int ranks, long iteration, bool reverse = false, int root = 0) {
    std::vector<double> delays_s(static_cast<size_t>(ranks));
    for (int k = 0; k < ranks; ++k) {
        const int rank = reverse ? ranks - 1 - k : k;
        delays_s[static_cast<size_t>(rank)] = arrival_delay_s(spec, ranks, iteration, rank, root);
    }
    return delays_s;
}

TEST(ArrivalPattern, EveryRankDrawsTheSamePatternWhateverItDrewBefore) {
    for (const char* text : {"one-late:2", "exp:1", "each-late:1"}) {
        const ArrivalSpec spec = arrival(text);
        for (long iteration = -160; iteration < 40; ++iteration) {
            EXPECT_EQ(pattern(spec, 7, iteration), pattern(spec, 7, iteration, true)) << text << " " << iteration;
        }
        EXPECT_NE(pattern(spec, 7, 0), pattern(spec, 7, 1)) << text << ": the pattern changes between iterations";
    }
}

TEST(ArrivalPattern, OneLatePicksExactlyOneRankUniformly) {
    const ArrivalSpec spec = arrival("one-late:2");
    for (const int ranks : {1, 3, 7}) {
        std::vector<int> picked(static_cast<size_t>(ranks), 0);
        const int iterations = 700;
        for (long iteration = -100; iteration < iterations - 100; ++iteration) {
            int late = 0;
            const std::vector<double> delays_s = pattern(spec, ranks, iteration);
            for (int rank = 0; rank < ranks; ++rank) {
                const double delay_s = delays_s[static_cast<size_t>(rank)];
                EXPECT_TRUE(delay_s == 0 || delay_s == 2e-3) << delay_s;
                if (delay_s > 0) {
                    ++late;
                    ++picked[static_cast<size_t>(rank)];
                }
            }
            EXPECT_EQ(late, 1) << ranks << " ranks, iteration " << iteration;
        }
        for (int rank = 0; rank < ranks; ++rank) {  // about iterations / ranks each, the root (rank 0) included
            EXPECT_NEAR(picked[static_cast<size_t>(rank)], iterations / ranks, 0.3 * iterations / ranks) << rank;
        }
    }
}

TEST(ArrivalPattern, ExpDelaysEveryRankIndependentlyWithTheMean) {
    const ArrivalSpec spec = arrival("exp:1.5");
    double sum_s = 0, both_late_s = 0;
    const int ranks = 7, iterations = 2000;
    for (long iteration = 0; iteration < iterations; ++iteration) {
        const std::vector<double> delays_s = pattern(spec, ranks, iteration);
        for (const double delay_s : delays_s) {
            EXPECT_GT(delay_s, 0);
            sum_s += delay_s;
        }
        both_late_s += delays_s[0] * delays_s[1];
    }
    const double mean_s = sum_s / (ranks * iterations);
    EXPECT_NEAR(mean_s, 1.5e-3, 0.05 * 1.5e-3);
    // Independent ranks: E[d0 d1] = E[d0] E[d1].
    EXPECT_NEAR(both_late_s / iterations, mean_s * mean_s, 0.15 * mean_s * mean_s);
}

TEST(ArrivalPattern, SameLateAndRootLateRepeatEveryCall) {
    for (const int ranks : {1, 2, 7, 8}) {
        for (int root = 0; root < ranks; ++root) {
            std::vector<double> same(static_cast<size_t>(ranks), 0.0), at_root = same;
            if (ranks > 1) same[static_cast<size_t>((root + ranks / 2) % ranks)] = 20e-3;
            at_root[static_cast<size_t>(root)] = 20e-3;
            for (long iteration = -3; iteration < 5; ++iteration) {
                EXPECT_EQ(pattern(arrival("same-late:20"), ranks, iteration, false, root), same);
                EXPECT_EQ(pattern(arrival("root-late:20"), ranks, iteration, false, root), at_root);
            }
        }
    }
}

TEST(ArrivalPattern, EachLateKeepsEveryRanksLatenessWithinTheJitter) {
    // Every rank's delay stays within kEachLateJitter of the first iteration's draw, scaled: within (1 +- j) / (1 -+
    // j).
    const ArrivalSpec spec = arrival("each-late:20");
    const int ranks = 8;
    const std::vector<double> first = pattern(spec, ranks, 0);
    double sum_s = 0;
    for (long iteration = 1; iteration < 200; ++iteration) {
        const std::vector<double> delays_s = pattern(spec, ranks, iteration);
        for (int rank = 0; rank < ranks; ++rank) {
            const double ratio = delays_s[static_cast<size_t>(rank)] / first[static_cast<size_t>(rank)];
            EXPECT_GE(ratio, (1 - kEachLateJitter) / (1 + kEachLateJitter));
            EXPECT_LE(ratio, (1 + kEachLateJitter) / (1 - kEachLateJitter));
            sum_s += delays_s[static_cast<size_t>(rank)];
        }
    }
    // The ranks differ: not one lateness for all.
    EXPECT_NE(*std::min_element(first.begin(), first.end()), *std::max_element(first.begin(), first.end()));
    EXPECT_GT(sum_s, 0);
}

TEST(ArrivalPattern, TogetherAndZeroDelaysAreNone) {
    for (const char* text : {"together", "one-late:0", "exp:0", "same-late:0", "root-late:0", "each-late:0"}) {
        EXPECT_EQ(pattern(arrival(text), 5, 3), std::vector<double>(5, 0.0)) << text;
    }
}

TEST(ArrivalPattern, ParsesAndLabels) {
    EXPECT_EQ(arrival_label(arrival("together")), "together");
    EXPECT_EQ(arrival_label(arrival("one-late:2")), "one-late:2");
    EXPECT_EQ(arrival_label(arrival("exp:0.5")), "exp:0.5");
    EXPECT_EQ(arrival_label(arrival("same-late:20")), "same-late:20");
    EXPECT_EQ(arrival_label(arrival("root-late:2")), "root-late:2");
    EXPECT_EQ(arrival_label(arrival("each-late:0.5")), "each-late:0.5");
    for (const char* bad : {"", "late", "one-late", "one-late:", "one-late:-1", "exp:x", "exp:1.2.3", "exp:nan",
                            "together:1", "same-late", "root-late:-2"}) {
        std::string error;
        EXPECT_FALSE(parse_arrival(bad, error).has_value()) << bad;
        EXPECT_EQ(error.rfind("--arrival: ", 0), 0u) << error;
    }
    std::string error;
    EXPECT_EQ(parse_cost_cv("0.25", error), 0.25);
    EXPECT_FALSE(parse_cost_cv("-1", error).has_value());
}

TEST(OpCostDraws, ZeroCvIsTheNominalCost) {
    OpCostDraws draws(0);
    draws.seed(3, 7);
    for (const long nominal_ns : {0L, 1L, 1000L, 123456789L}) EXPECT_EQ(draws.cost_ns(nominal_ns), nominal_ns);
}

TEST(OpCostDraws, ReseededDrawsRepeatPerRankAndIteration) {
    auto draws_of = [](int rank, long iteration) {
        OpCostDraws draws(1);
        draws.seed(0, 0);
        draws.cost_ns(1000);  // whatever came before
        draws.seed(rank, iteration);
        std::vector<long> costs;
        for (int i = 0; i < 20; ++i) costs.push_back(draws.cost_ns(1000 + 10 * i));
        return costs;
    };
    EXPECT_EQ(draws_of(2, 5), draws_of(2, 5));
    EXPECT_NE(draws_of(2, 5), draws_of(3, 5));
    EXPECT_NE(draws_of(2, 5), draws_of(2, 6));
}

TEST(OpCostDraws, GammaWithTheNominalMeanAndTheCv) {
    for (const double cv : {0.5, 1.0, 2.0}) {
        OpCostDraws draws(cv);
        draws.seed(1, 0);
        const int n = 100000;
        const double nominal_ns = 1e6;
        double sum = 0, sum_squares = 0;
        for (int i = 0; i < n; ++i) {
            const double cost = static_cast<double>(draws.cost_ns(static_cast<long>(nominal_ns)));
            EXPECT_GE(cost, 0);
            sum += cost;
            sum_squares += cost * cost;
        }
        const double mean = sum / n;
        const double sd = std::sqrt(sum_squares / n - mean * mean);
        EXPECT_NEAR(mean, nominal_ns, 0.03 * nominal_ns) << cv;
        EXPECT_NEAR(sd / mean, cv, 0.05 * cv) << cv;
    }
}

}  // namespace
}  // namespace redux_bench
