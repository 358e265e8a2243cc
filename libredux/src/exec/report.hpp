// The decision log: what libredux planned and chose for a key, as a JSON line (REDUX_REPORT) or in words
// (REDUX_VERBOSE). Written by rank 0 of the communicator. See report.cpp.
#pragma once

#include <optional>
#include <string>

namespace redux {

struct PlanReport {
    int comm_size = 0;
    int root = 0;
    int count = 0;
    long long bytes = 0;
    bool commutative = true;
    std::string requested;  // the algorithm asked for: auto, optimal, ...
    double d_s = 0, c_s = 0;
    std::string costs_source;  // where d came from: call, environment, process, file, measured
    std::string strategy;      // the one chosen: optimal, fibonacci, binomial or native
    double predicted_s = 0;    // of the planned tree
    double optimal_s = 0, fibonacci_s = 0, binomial_s = 0;  // the model's prediction for each
    double snf_s = 0, hetero_greedy_s = 0, two_level_s = 0;  // (0: not a candidate)
    std::optional<double> native_s, planned_s;              // medians measured by auto
    double calibration_s = 0;                               // spent measuring for this key (links and c)
};

std::string report_json(const PlanReport& report);   // one line, no newline
// One line, no newline, starting "libredux: <what> for ..." (what: "new plan", "auto decision").
std::string report_words(const PlanReport& report, const char* what);

// Appends line + '\n' to `path` with one write(2) on an O_APPEND descriptor, so lines of concurrent writers
// do not interleave. Returns false if the file cannot be written.
bool append_line(const std::string& path, const std::string& line);

}  // namespace redux
