// What the root writes: the OSU-style table on stdout, the CSV files and the progress lines on stderr.
//
// Table: '#' comment lines saying what was run, then "# Size" and one median-latency column per algorithm
// (with --full, also NAME:min and NAME:max), then the d and c planned with, one row per size, flushed as
// each size completes. CSV (--csv): one row per (algorithm, op, size), header kCsvHeader. Costs CSV
// (--costs-csv): one row per size with the d and c the planned algorithms used.
#pragma once

#include "options.hpp"
#include "runner.hpp"

#include <chrono>
#include <cstdio>
#include <string>

namespace redux_bench {

constexpr const char* kCsvHeader = "algorithm,op,ranks,bytes,count,avg_us,min_us,max_us,predicted_us,speedup_vs_native";
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

private:
    void write_csv(const SizeResult& result);

    const BenchOptions& options_;
    int ranks_;
    int element_bytes_;
    std::FILE* csv_ = nullptr;
    std::FILE* costs_csv_ = nullptr;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace redux_bench
