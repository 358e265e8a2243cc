// libredux's configuration, parsed from the environment (README.md, "Configuration"). No MPI: the library
// reads it once per process (api/process_config.cpp).
#pragma once

#include "plan/exec_limits.hpp"
#include "redux/algorithms.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace redux {

// Knobs of the executor that a plan request can set (tests force tiny chunks and a single receive buffer).
struct ExecKnobs {
    int recv_window = kExecLimits.recv_window;  // receives posted ahead of the fold (>= 1)
    size_t chunk_bytes = size_t{1} << 16;       // the op is applied this many bytes at a time, polling in between
    // REDUX_CHUNK_BYTES was set: chunk_bytes as given; otherwise a plan may make chunks longer, where the op's cost per
    // application asks for it (op_piece_bytes, plan/exec_limits.hpp)
    bool chunk_bytes_asked = false;
};

struct Config {
    redux_algorithm algorithm = REDUX_ALGORITHM_AUTO;  // REDUX_ALGORITHM: auto, native or a library strategy
    std::optional<double> transfer_s;                  // REDUX_D
    std::optional<double> compute_s;                   // REDUX_C
    bool verbose = false;                              // REDUX_VERBOSE
    std::string report_path;                           // REDUX_REPORT: rank 0 appends a JSON line per decision
    std::string timeline_prefix;   // REDUX_TIMELINE: every process records its executions (exec/timeline.hpp)
    std::string calibration_file;  // REDUX_CALIBRATION_FILE
    long long calibration_max_age_s = 7 * 86400;  // REDUX_CALIBRATION_MAX_AGE
    bool debug = false;                           // REDUX_DEBUG=1: all ranks check they hold the same plan
    ExecKnobs knobs;                              // REDUX_RECV_WINDOW, REDUX_CHUNK_BYTES
    long long segment_bytes = -1;  // REDUX_SEGMENT_BYTES: -1 (auto) the model's count, 0 unsegmented, else forced
    std::string wisdom_path;       // REDUX_WISDOM: auto's decisions kept between jobs (rank 0 reads and writes);
                                   // unset: default_wisdom_path(), "off": none (empty)
    bool wisdom = false;           // rank 0 has a wisdom file: every rank takes part in using it (shared)
    std::string problem;           // non-empty: an invalid value; libredux then stays out of the way
};

// Parses a configuration from a getenv-like lookup (tests pass their own). An unset or empty variable keeps
// its default; the first invalid value is `problem`, and makes the algorithm native.
Config parse_config(const char* (*lookup)(const char* name));

// The wisdom file where REDUX_WISDOM is unset: $XDG_CACHE_HOME/libredux/wisdom.json, else
// $HOME/.cache/libredux/wisdom.json (absolute paths only), else none.
std::string default_wisdom_path(const char* (*lookup)(const char* name));

// The calibration file in effect: REDUX_CALIBRATION_FILE, else beside the wisdom file ("<REDUX_WISDOM>.links", so
// that a job starting from wisdom measures no links either), else none.
std::string calibration_path(const Config& config);

// Every REDUX_* variable, in one table: parse_config reads the variables through it, in its order, and
// redux-info and the start-up line under REDUX_VERBOSE=1 list them from it. A new variable is a new row here
// (config.cpp) and a field of Config; nothing else names the variables.
struct SettingInfo {
    const char* name;     // "REDUX_D"
    std::string values;   // what it accepts: "seconds >= 0"
    const char* meaning;  // one line, for people
    // Takes a set, non-empty value into `cfg`; returns why the value is invalid, or "" (then `cfg` is changed).
    std::string (*apply)(Config& cfg, const char* value);
    // The value in effect in `cfg`, as text: "optimal", "1e-06", "65536", "measured" (REDUX_D unset).
    std::string (*show)(const Config& cfg);
};

const std::vector<SettingInfo>& settings_table();

// One variable, as a lookup has it and as parse_config takes it.
struct SettingState {
    const SettingInfo* info = nullptr;
    bool set = false;               // the lookup has the variable (an empty value counts as unset)
    std::string raw;                // its value, when set
    bool from_environment = false;  // set, not empty and valid: its value is in effect; else the default is
    std::string value;              // in effect: info->show of the whole configuration
    std::string default_value;      // info->show of the defaults
    std::string problem;            // why `raw` is invalid ("" when valid or unset)
    std::string overridden;         // why `value` is not what this variable alone gives (an invalid other variable
                                    // makes the algorithm native): that variable's problem, or ""
    // Worth saying: set to something invalid, or in effect other than the default.
    bool differs_from_default() const { return !problem.empty() || value != default_value; }
};

// Every row of settings_table(), in order, for `lookup`; `parsed` is parse_config(lookup).
std::vector<SettingState> describe_settings(const char* (*lookup)(const char* name), const Config& parsed);

// The settings that change what the ranks of a communicator do together -- which tree (REDUX_ALGORITHM, and
// native after an invalid value), the costs it is planned with (REDUX_D, REDUX_C), how the executor moves data
// (REDUX_CHUNK_BYTES, REDUX_RECV_WINDOW, REDUX_SEGMENT_BYTES) and the collective plan check (REDUX_DEBUG) -- as
// numbers, so that rank 0's can be broadcast and every rank uses them (api/comm_state.cpp). A setting added later that
// changes what ranks do together belongs here. The others (REDUX_VERBOSE, REDUX_REPORT, the calibration file) are used
// by rank 0 alone.
struct SharedSettings {
    static constexpr int kSize = 8;
    double value[kSize] = {};
};
SharedSettings shared_settings(const Config& config);

// `local` with its shared settings replaced by `agreed` (rank 0's). Returns a bit per variable that differs.
uint32_t adopt_shared_settings(Config& local, const SharedSettings& agreed);

// "REDUX_ALGORITHM, REDUX_D" for the bits of adopt_shared_settings().
std::string shared_setting_names(uint32_t differing);

}  // namespace redux
