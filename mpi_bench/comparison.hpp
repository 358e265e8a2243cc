// What the table says beyond the latencies, computed without MPI (tests/bench/comparison_test.cpp):
//
//   same plan   which algorithms ran the same plan at one size. libredux has no public plan hash, so this is
//               judged from what it reports of each call (redux_call_info): both planned, in the same number
//               of segments, with the same d, and predicted makespans that differ by no more than the c they
//               were planned with explains. (Unless c is given, libredux measures c anew for every plan, so
//               one tree planned twice gets two slightly different predictions; a makespan holds at most
//               `ranks` folds, hence |predicted_a - predicted_b| <= ranks |c_a - c_b|, plus rounding.) The
//               trees of optimal, fibonacci and binomial coincide at small rank counts, and strategies that do
//               not apply plan the optimal tree: those are one plan. Two trees whose predictions are equal
//               within that margin are shown as one even if their shapes differ (isomorphic trees with
//               other ranks at the nodes, or trees a fold of c apart when c is small and noisy); their own
//               rows stay in the CSV.
//   verdict     auto against native over ranges of sizes: the speedup native / auto, and whether the
//               difference is more than noise (the two interquartile ranges do not overlap).
//   cells       a latency as "median ±s%", s = half the interquartile range in % of the median.
#pragma once

#include "stats.hpp"

#include <string>
#include <vector>

namespace redux_bench {

// What libredux reported of a call, as far as identity goes.
struct PlanReport {
    bool planned = false;  // false: the call went to PMPI_Reduce
    double transfer_s = 0;
    double compute_s = 0;
    double predicted_s = 0;
    int segments = 0;
};

// Both planned, in the same segments, with the same d and predictions equal up to what c explains (above).
bool same_plan(const PlanReport& a, const PlanReport& b, int ranks);

enum class AlgorithmKind { native, automatic, strategy };

struct AlgorithmPlan {
    std::string name;
    AlgorithmKind kind = AlgorithmKind::strategy;
    PlanReport plan;           // a planned call's report; plan.planned false when every call went to PMPI_Reduce
    bool ran_planned = false;  // the last timed call ran the plan (auto: false once it chose native)
};

// For each algorithm, the index of the algorithm it is shown as, or -1 when it is shown itself. A strategy
// points to the first earlier strategy with the same plan; auto to the strategy whose plan it ran, or to
// native when it chose native (and native is in the list); native points nowhere.
std::vector<int> same_plan_as(const std::vector<AlgorithmPlan>& algorithms, int ranks);

// The table's last column: every plan once, its algorithms joined by '=' and its segment count in
// brackets ("optimal=fibonacci=binomial=auto[1] chain[1]"), then "native=auto" when auto chose native.
std::string plans_text(const std::vector<AlgorithmPlan>& algorithms, const std::vector<int>& shown_as);

// "17.15 ±4.0%": the median in us and half the interquartile range in % of it.
std::string latency_cell(const Summary& latency);

// "8 B", "4 KiB", "64 MiB", and plain bytes ("1000 B") for sizes that are not whole KiB or MiB.
std::string size_text(long bytes);

// Pads `text` on the left to `width` characters (counting UTF-8 characters, not bytes).
std::string right_aligned(const std::string& text, int width);

struct AutoAgainstNative {
    long bytes = 0;
    Summary native;
    Summary automatic;
    std::string auto_ran;  // "native" or the strategy auto's last timed call ran
};

// One line per range of consecutive sizes with the same outcome (faster, slower or noise):
// "8 B-256 B: auto 0.97-1.01x native (noise; auto ran native)".
std::vector<std::string> verdict_lines(const std::vector<AutoAgainstNative>& sizes);

}  // namespace redux_bench
