// libredux's configuration, read once from the environment (README.md, "Configuration").
#pragma once

#include "exec/executor.hpp"
#include "plan/planner.hpp"

#include <optional>
#include <string>

namespace redux {

// snf, hetero_greedy and two_level are per-call choices only (redux_options), not REDUX_ALGORITHM values.
enum class Algorithm { automatic, optimal, fibonacci, binomial, native, snf, hetero_greedy, two_level };

struct Config {
    Algorithm algorithm = Algorithm::automatic;
    std::optional<double> transfer_s;  // REDUX_D
    std::optional<double> compute_s;   // REDUX_C
    bool verbose = false;              // REDUX_VERBOSE
    std::string report_path;           // REDUX_REPORT: rank 0 appends a JSON line per decision
    std::string calibration_file;      // REDUX_CALIBRATION_FILE
    long long calibration_max_age_s = 7 * 86400;  // REDUX_CALIBRATION_MAX_AGE
    bool debug = false;                // REDUX_DEBUG=1: all ranks check they hold the same plan
    ExecKnobs knobs;                   // REDUX_RECV_WINDOW, REDUX_CHUNK_BYTES
    std::string problem;               // non-empty: an invalid value; libredux then stays out of the way
};

// Parses a configuration from a getenv-like lookup (tests pass their own).
Config parse_config(const char* (*lookup)(const char* name));

// The process's configuration: parsed on first use. An invalid value makes every reduce native and is
// reported once, on stderr, by the rank that is rank 0 of MPI_COMM_WORLD.
const Config& config();

}  // namespace redux
