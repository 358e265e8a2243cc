// What the root writes: the OSU-style table on stdout, the CSV files and the progress lines on stderr.
//
// Table: '#' comment lines saying what was run (the first names the collective: the CSV has no column for it, as
// plot.py and the sweeps read its columns by name), then "# Size" and one column per algorithm, "median ±s%"
// (s: half the interquartile range in % of the median) or "=NAME" for the same plan as NAME (with --full, also
// NAME:min and NAME:max; with --arrival other than together NAME:last, the median time after the last arrival,
// and with --full NAME:last-p90 and NAME:last-mean), the speedup native / auto, the d and c planned with and the
// plans with their segment counts (comparison.hpp), and for MPI_Reduce with --arrival the floor d + c; one row per
// size, flushed as each size completes; then, from finish(), the verdict lines (auto against native per size range).
// CSV (--csv): one row per (algorithm, op, size), header kCsvHeader, new columns added at its end. Costs CSV
// (--costs-csv): one row per size with the d and c the planned algorithms used.
#pragma once

#include "options.hpp"
#include "runner.hpp"

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace redux_bench {

constexpr const char* kCsvHeader =
    "algorithm,op,ranks,bytes,count,iterations,median_us,mean_us,q1_us,q3_us,min_us,max_us,predicted_us,segments,ran,"
    "same_plan_as,speedup_vs_native,arrival,op_cost_cv,after_last_median_us,after_last_p90_us,after_last_mean_us,"
    "p90_us";
constexpr const char* kCostsCsvHeader = "op,ranks,bytes,count,transfer_us,compute_us,source";

class Report {
public:
    Report(const BenchOptions& options, int ranks, int element_bytes);
    ~Report();
    Report(const Report&) = delete;
    Report& operator=(const Report&) = delete;

    // Opens the CSV files and writes their headers; false with `error` set when one cannot be written.
    bool open(std::string& error);
    void print_header(const std::string& skipped_sizes);
    void add(const SizeResult& result, size_t index, size_t total);
    // After the last size: the verdict lines.
    void finish();

private:
    // A column an algorithm has after its latency: the header's suffix to its name and the cell's value.
    struct ExtraColumn {
        const char* suffix;
        double (*value_s)(const AlgorithmResult&);
    };
    std::vector<ExtraColumn> extra_columns() const;
    void print_dynamic_header() const;
    // Whether the table has the floor column: MPI_Reduce with --arrival other than together.
    bool shows_floor() const;
    void print_row(const SizeResult& result, const std::vector<int>& shown_as, const std::vector<AlgorithmPlan>& plans);
    void print_progress(const SizeResult& result, size_t index, size_t total);
    void write_csv(const SizeResult& result, const std::vector<int>& shown_as);
    int find(AlgorithmKind kind) const;

    const BenchOptions& options_;
    int ranks_;
    int element_bytes_;
    std::FILE* csv_ = nullptr;
    std::FILE* costs_csv_ = nullptr;
    std::chrono::steady_clock::time_point start_;
    std::vector<AutoAgainstNative> auto_against_native_;
};

}  // namespace redux_bench
