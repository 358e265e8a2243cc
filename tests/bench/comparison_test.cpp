// mpi_bench's comparison.hpp without MPI: which algorithms are shown as one plan, the plans column, the
// verdict lines, the cells, and the statistics behind them (stats.hpp).
#include "comparison.hpp"
#include "stats.hpp"

#include <gtest/gtest.h>

namespace redux_bench {
namespace {

constexpr int kRanks = 4;

PlanReport plan(double predicted_s, double compute_s = 3e-8, int segments = 1) {
    return {true, 4e-6, compute_s, predicted_s, segments};
}

AlgorithmPlan strategy(const std::string& name, const PlanReport& report) {
    return {name, AlgorithmKind::strategy, report, true};
}

Summary latency(double median_us, double q1_us, double q3_us) {
    Summary s;
    s.samples = 10;
    s.median_s = s.mean_s = median_us * 1e-6;
    s.q1_s = s.min_s = q1_us * 1e-6;
    s.q3_s = s.max_s = q3_us * 1e-6;
    return s;
}

TEST(SamePlan, NeedsPlannedCallsWithTheSameSegmentsAndTransferCost) {
    EXPECT_TRUE(same_plan(plan(8e-6), plan(8e-6), kRanks));
    EXPECT_FALSE(same_plan(plan(8e-6), PlanReport{false, 4e-6, 3e-8, 8e-6, 1}, kRanks));
    EXPECT_FALSE(same_plan(plan(8e-6, 3e-8, 1), plan(8e-6, 3e-8, 4), kRanks));
    PlanReport other_d = plan(8e-6);
    other_d.transfer_s = 5e-6;
    EXPECT_FALSE(same_plan(plan(8e-6), other_d, kRanks));
}

TEST(SamePlan, PredictionsMayDifferByWhatTheMeasuredCExplains) {
    // One tree, 2d + 2c, planned with c measured as 30 ns and as 40 ns: 20 ns apart, within 4 x 10 ns.
    EXPECT_TRUE(same_plan(plan(8e-6 + 6e-8, 3e-8), plan(8e-6 + 8e-8, 4e-8), kRanks));
    // The same c: a tree one fold longer is another plan.
    EXPECT_FALSE(same_plan(plan(8e-6 + 6e-8, 3e-8), plan(8e-6 + 9e-8, 3e-8), kRanks));
    // 3d + 3c (a chain) against 2d + 2c: far more than c explains.
    EXPECT_FALSE(same_plan(plan(1.2e-5 + 1.2e-7, 4e-8), plan(8e-6 + 6e-8, 3e-8), kRanks));
}

TEST(SamePlanAs, StrategiesPointToTheFirstEarlierStrategyWithTheirPlan) {
    const std::vector<AlgorithmPlan> algorithms = {
        {"native", AlgorithmKind::native, {}, false},
        strategy("optimal", plan(8e-6)),
        strategy("fibonacci", plan(8e-6)),
        strategy("chain", plan(1.2e-5)),
        strategy("binomial", plan(8e-6)),
        {"auto", AlgorithmKind::automatic, plan(8e-6), true},
    };
    EXPECT_EQ(same_plan_as(algorithms, kRanks), (std::vector<int>{-1, -1, 1, -1, 1, 1}));
    EXPECT_EQ(plans_text(algorithms, same_plan_as(algorithms, kRanks)), "optimal=fibonacci=binomial=auto[1] chain[1]");
}

TEST(SamePlanAs, AutoThatChoseNativeIsShownAsNative) {
    const std::vector<AlgorithmPlan> algorithms = {
        {"auto", AlgorithmKind::automatic, plan(8e-6), false},
        strategy("optimal", plan(8e-6)),
        {"native", AlgorithmKind::native, {}, false},
    };
    const std::vector<int> shown_as = same_plan_as(algorithms, kRanks);
    EXPECT_EQ(shown_as, (std::vector<int>{2, -1, -1}));
    EXPECT_EQ(plans_text(algorithms, shown_as), "optimal[1] native=auto");
}

TEST(SamePlanAs, AutoWithAPlanOfItsOwnAndCallsPassedThrough) {
    const std::vector<AlgorithmPlan> algorithms = {
        strategy("optimal", plan(8e-6, 3e-8, 1)),
        {"auto", AlgorithmKind::automatic, plan(8e-6, 3e-8, 16), true},
    };
    EXPECT_EQ(plans_text(algorithms, same_plan_as(algorithms, kRanks)), "optimal[1] auto[16]");
    // One rank: every call goes to PMPI_Reduce, no plan at all.
    const std::vector<AlgorithmPlan> one_rank = {{"optimal", AlgorithmKind::strategy, {}, false},
                                                 {"binomial", AlgorithmKind::strategy, {}, false}};
    EXPECT_EQ(same_plan_as(one_rank, 1), (std::vector<int>{-1, -1}));
    EXPECT_EQ(plans_text(one_rank, same_plan_as(one_rank, 1)), "-");
}

TEST(Verdict, OneLinePerRangeOfTheSameOutcome) {
    const std::vector<AutoAgainstNative> sizes = {
        {8, latency(10.0, 9.5, 10.5), latency(10.1, 9.6, 10.6), "native"},
        {16, latency(10.0, 9.5, 10.5), latency(9.9, 9.4, 10.4), "native"},
        {1024, latency(20.0, 19.0, 21.0), latency(10.0, 9.5, 10.5), "optimal"},
        {4096, latency(30.0, 29.0, 31.0), latency(20.0, 19.0, 21.0), "binary"},
        {1L << 26, latency(10.0, 9.8, 10.2), latency(12.0, 11.0, 13.0), "optimal"},
    };
    EXPECT_EQ(verdict_lines(sizes), (std::vector<std::string>{
                                        "8 B-16 B: auto 0.99-1.01x native (noise; auto ran native)",
                                        "1 KiB-4 KiB: auto 1.50-2.00x native (faster; auto ran optimal, binary)",
                                        "64 MiB: auto 0.83x native (slower; auto ran optimal)",
                                    }));
    EXPECT_TRUE(verdict_lines({}).empty());
}

TEST(Cells, MedianAndHalfTheInterquartileRange) {
    EXPECT_EQ(latency_cell(latency(17.15, 16.5, 17.87)), "17.15 \u00b14.0%");
    EXPECT_EQ(latency_cell(latency(100, 70, 130)), "100.00 \u00b130%");
    EXPECT_EQ(right_aligned("1.00 \u00b14.0%", 12), "  1.00 \u00b14.0%");
    EXPECT_EQ(size_text(8), "8 B");
    EXPECT_EQ(size_text(1000), "1000 B");
    EXPECT_EQ(size_text(1536), "1536 B");
    EXPECT_EQ(size_text(4096), "4 KiB");
    EXPECT_EQ(size_text(64L << 20), "64 MiB");
}

TEST(Summary, MedianMeanAndQuartilesInterpolated) {
    const Summary odd = summarize({5, 1, 3, 2, 4});
    EXPECT_EQ(odd.samples, 5);
    EXPECT_DOUBLE_EQ(odd.median_s, 3);
    EXPECT_DOUBLE_EQ(odd.mean_s, 3);
    EXPECT_DOUBLE_EQ(odd.q1_s, 2);
    EXPECT_DOUBLE_EQ(odd.q3_s, 4);
    EXPECT_DOUBLE_EQ(odd.min_s, 1);
    EXPECT_DOUBLE_EQ(odd.max_s, 5);
    const Summary even = summarize({1, 2, 3, 10});
    EXPECT_DOUBLE_EQ(even.median_s, 2.5);
    EXPECT_DOUBLE_EQ(even.mean_s, 4);
    EXPECT_DOUBLE_EQ(even.q1_s, 1.75);
    EXPECT_DOUBLE_EQ(even.q3_s, 4.75);
    const Summary one = summarize({7});
    EXPECT_DOUBLE_EQ(one.q1_s, 7);
    EXPECT_DOUBLE_EQ(one.q3_s, 7);
    EXPECT_EQ(summarize({}).samples, 0);
}

}  // namespace
}  // namespace redux_bench
