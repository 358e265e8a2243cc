#include "policy/config.hpp"

#include "plan/family.hpp"

#include "plan/strategy.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string_view>

namespace redux {
namespace {

bool parse_seconds(const char* text, double& out) {
    char* end = nullptr;
    errno = 0;
    out = std::strtod(text, &end);
    return end != text && *end == '\0' && errno == 0 && std::isfinite(out) && out >= 0;
}

bool parse_positive(const char* text, long long max, long long& out) {
    char* end = nullptr;
    errno = 0;
    out = std::strtoll(text, &end, 10);
    return end != text && *end == '\0' && errno == 0 && out >= 1 && out <= max;
}

// Shortest text that reads back as the same double: "2.5e-06", not "2.4999999999999998e-06".
std::string show_seconds(double seconds) {
    char text[32];
    for (int precision = 6; precision <= 17; ++precision) {
        std::snprintf(text, sizeof text, "%.*g", precision, seconds);
        if (std::strtod(text, nullptr) == seconds) break;
    }
    return text;
}

std::string show_flag(bool on) { return on ? "1" : "0"; }

// A 0/1 variable into `flag`.
std::string apply_flag(const char* name, const char* v, bool& flag) {
    if (!std::strcmp(v, "1"))
        flag = true;
    else if (!std::strcmp(v, "0"))
        flag = false;
    else
        return std::string(name) + "=" + v + " is not 0 or 1";
    return "";
}

std::string apply_seconds(const char* name, const char* v, std::optional<double>& slot) {
    double seconds = 0;
    if (!parse_seconds(v, seconds)) return std::string(name) + "=" + v + " is not a number of seconds >= 0";
    slot = seconds;
    return "";
}

// The family algorithms' names, as REDUX_ALGORITHM takes them, each after ", ".
#define REDUX_FAMILY_NAME_(ENUM, name, text, value) ", " text
constexpr const char* kFamilyNames = REDUX_FAMILY_ALGORITHMS(REDUX_FAMILY_NAME_);
#undef REDUX_FAMILY_NAME_

// REDUX_ALGORITHM into cfg.algorithm: auto, native, a tree or a family algorithm.
std::string apply_algorithm(Config& cfg, const char* a) {
    const std::optional<Strategy> strategy = parse_strategy(a);
    if (!std::strcmp(a, "auto"))
        cfg.algorithm = REDUX_ALGORITHM_AUTO;
    else if (!std::strcmp(a, "native"))
        cfg.algorithm = REDUX_ALGORITHM_NATIVE;
    else if (strategy && library_strategy(strategy_info(*strategy)))
        cfg.algorithm = public_algorithm(*strategy);
    else if (const std::optional<FamilyAlgorithm> family = parse_family(a))
        cfg.algorithm = public_family(*family);
    else
        return std::string("REDUX_ALGORITHM=") + a + " is not one of auto, native, " +
               strategy_names(", ", library_strategy) + kFamilyNames;
    return "";
}

// cfg.algorithm as REDUX_ALGORITHM names it.
std::string show_algorithm(const Config& cfg) {
    if (cfg.algorithm == REDUX_ALGORITHM_AUTO) return "auto";
    if (cfg.algorithm == REDUX_ALGORITHM_NATIVE) return "native";
    const std::optional<Strategy> strategy = strategy_of(cfg.algorithm);
    if (const std::optional<FamilyAlgorithm> family = family_of(cfg.algorithm)) {
        return std::string(family_name(*family));
    }
    return strategy ? std::string(strategy_name(*strategy)) : std::to_string(cfg.algorithm);
}

// The table. Its order is parse_config's (which problem is reported first) and redux-info's.
std::vector<SettingInfo> make_settings_table() {
    return {
        {"REDUX_ALGORITHM", "auto, native, " + strategy_names(", ", library_strategy) + kFamilyNames,
         "the algorithm to plan (a tree; recursive-doubling and reduce-scatter: MPI_Allreduce and "
         "MPI_Reduce_scatter_block only); native: every call goes to the MPI library's own",
         apply_algorithm, show_algorithm},
        {"REDUX_D", "seconds >= 0", "transfer cost to plan with (unset: measured per link class)",
         [](Config& cfg, const char* v) { return apply_seconds("REDUX_D", v, cfg.transfer_s); },
         [](const Config& cfg) -> std::string { return cfg.transfer_s ? show_seconds(*cfg.transfer_s) : "measured"; }},
        {"REDUX_C", "seconds >= 0", "compute cost to plan with (unset: the op is timed on rank 0)",
         [](Config& cfg, const char* v) { return apply_seconds("REDUX_C", v, cfg.compute_s); },
         [](const Config& cfg) -> std::string { return cfg.compute_s ? show_seconds(*cfg.compute_s) : "measured"; }},
        {"REDUX_VERBOSE", "0, 1", "1: rank 0 prints the start-up line, each new plan and each auto decision",
         [](Config& cfg, const char* v) { return apply_flag("REDUX_VERBOSE", v, cfg.verbose); },
         [](const Config& cfg) { return show_flag(cfg.verbose); }},
        {"REDUX_DEBUG", "0, 1", "1: the ranks compare a hash of every new plan",
         [](Config& cfg, const char* v) { return apply_flag("REDUX_DEBUG", v, cfg.debug); },
         [](const Config& cfg) { return show_flag(cfg.debug); }},
        {"REDUX_REPORT", "a path", "rank 0 appends a JSON line per plan and auto decision to this file",
         [](Config& cfg, const char* v) -> std::string {
             cfg.report_path = v;
             return "";
         },
         [](const Config& cfg) { return cfg.report_path; }},
        {"REDUX_TIMELINE", "a path prefix",
         "every process writes what its planned calls do, and when, to PREFIX.HOST.PID.csv (mpi_bench/timeline.py)",
         [](Config& cfg, const char* v) -> std::string {
             cfg.timeline_prefix = v;
             return "";
         },
         [](const Config& cfg) { return cfg.timeline_prefix; }},
        {"REDUX_CALIBRATION_FILE", "a path", "measured link costs are read from and written to this file",
         [](Config& cfg, const char* v) -> std::string {
             cfg.calibration_file = v;
             return "";
         },
         [](const Config& cfg) { return cfg.calibration_file; }},
        {"REDUX_WISDOM", "a path, off",
         "auto's decisions are read from and kept in this file, for the next jobs (off: none)",
         [](Config& cfg, const char* v) -> std::string {
             cfg.wisdom_path = std::string_view(v) == "off" ? "" : v;
             cfg.wisdom = !cfg.wisdom_path.empty();
             return "";
         },
         [](const Config& cfg) { return cfg.wisdom_path.empty() ? std::string("off") : cfg.wisdom_path; }},
        {"REDUX_CALIBRATION_MAX_AGE", "seconds >= 1", "older calibrations in the file are measured again",
         [](Config& cfg, const char* v) -> std::string {
             long long value = 0;
             if (!parse_positive(v, 1LL << 40, value))
                 return std::string("REDUX_CALIBRATION_MAX_AGE=") + v + " is not a positive number of seconds";
             cfg.calibration_max_age_s = value;
             return "";
         },
         [](const Config& cfg) { return std::to_string(cfg.calibration_max_age_s); }},
        {"REDUX_RECV_WINDOW", "1 .. 64", "children's partial results received ahead of the fold",
         [](Config& cfg, const char* v) -> std::string {
             long long value = 0;
             if (!parse_positive(v, 64, value))
                 return std::string("REDUX_RECV_WINDOW=") + v + " is not an integer in [1, 64]";
             cfg.knobs.recv_window = static_cast<int>(value);
             return "";
         },
         [](const Config& cfg) { return std::to_string(cfg.knobs.recv_window); }},
        {"REDUX_CHUNK_BYTES", "integer >= 1", "the op is applied this many bytes at a time",
         [](Config& cfg, const char* v) -> std::string {
             long long value = 0;
             if (!parse_positive(v, 1LL << 40, value))
                 return std::string("REDUX_CHUNK_BYTES=") + v + " is not a positive integer";
             cfg.knobs.chunk_bytes = static_cast<size_t>(value);
             cfg.knobs.chunk_bytes_asked = true;
             return "";
         },
         [](const Config& cfg) { return std::to_string(cfg.knobs.chunk_bytes); }},
        {"REDUX_SEGMENT_BYTES", "auto | 0 | integer >= 1",
         "long vectors are pipelined in segments of about this many bytes (0: never; auto: as the model says)",
         [](Config& cfg, const char* v) -> std::string {
             long long value = 0;
             if (std::string_view(v) == "auto") {
                 value = -1;
             } else if (std::string_view(v) != "0" && !parse_positive(v, 1LL << 40, value)) {
                 return std::string("REDUX_SEGMENT_BYTES=") + v + " is not auto, 0 or a positive integer";
             }
             cfg.segment_bytes = value;
             return "";
         },
         [](const Config& cfg) {
             return cfg.segment_bytes < 0 ? std::string("auto") : std::to_string(cfg.segment_bytes);
         }},
    };
}

}  // namespace

const std::vector<SettingInfo>& settings_table() {
    static const std::vector<SettingInfo> table = make_settings_table();
    return table;
}

std::string default_wisdom_path(const char* (*lookup)(const char* name)) {
    const char* cache = lookup("XDG_CACHE_HOME");
    if (cache != nullptr && *cache == '/') return std::string(cache) + "/libredux/wisdom.json";
    const char* home = lookup("HOME");
    if (home != nullptr && *home == '/') return std::string(home) + "/.cache/libredux/wisdom.json";
    return "";
}

namespace {

// What every setting is when its variable is unset: Config's defaults, and the wisdom file's path.
Config unset_config(const char* (*lookup)(const char* name)) {
    Config cfg;
    cfg.wisdom_path = default_wisdom_path(lookup);
    cfg.wisdom = !cfg.wisdom_path.empty();
    return cfg;
}

}  // namespace

Config parse_config(const char* (*lookup)(const char* name)) {
    Config cfg = unset_config(lookup);
    for (const SettingInfo& setting : settings_table()) {
        const char* v = lookup(setting.name);
        if (v == nullptr || *v == '\0') continue;
        std::string problem = setting.apply(cfg, v);
        if (!problem.empty() && cfg.problem.empty()) cfg.problem = std::move(problem);
    }
    if (!cfg.problem.empty()) cfg.algorithm = REDUX_ALGORITHM_NATIVE;
    return cfg;
}

std::vector<SettingState> describe_settings(const char* (*lookup)(const char* name), const Config& parsed) {
    const Config defaults = unset_config(lookup);
    std::vector<SettingState> states;
    for (const SettingInfo& setting : settings_table()) {
        SettingState state;
        state.info = &setting;
        const char* v = lookup(setting.name);
        state.set = v != nullptr;
        if (state.set) state.raw = v;
        Config alone = defaults;  // this variable by itself
        if (state.set && *v != '\0') {
            state.problem = setting.apply(alone, v);
            state.from_environment = state.problem.empty();
        }
        state.value = setting.show(parsed);
        state.default_value = setting.show(defaults);
        if (state.value != setting.show(alone)) state.overridden = parsed.problem;
        states.push_back(std::move(state));
    }
    return states;
}

namespace {

// The variable behind each shared setting (a bit each in adopt_shared_settings' answer).
constexpr const char* kSharedNames[] = {"REDUX_ALGORITHM",     "REDUX_D",           "REDUX_C",
                                        "REDUX_CHUNK_BYTES",   "REDUX_RECV_WINDOW", "REDUX_DEBUG",
                                        "REDUX_SEGMENT_BYTES", "REDUX_WISDOM"};
constexpr int kShared = static_cast<int>(std::size(kSharedNames));
static_assert(kShared <= SharedSettings::kSize, "SharedSettings has room for every shared setting");

}  // namespace

std::string calibration_path(const Config& config) {
    if (!config.calibration_file.empty() || config.wisdom_path.empty()) return config.calibration_file;
    return config.wisdom_path + ".links";
}

SharedSettings shared_settings(const Config& c) {
    SharedSettings s;
    s.value[0] = c.algorithm;
    s.value[1] = c.transfer_s ? *c.transfer_s : -1.0;
    s.value[2] = c.compute_s ? *c.compute_s : -1.0;
    s.value[3] = c.knobs.chunk_bytes_asked ? static_cast<double>(c.knobs.chunk_bytes) : -1.0;  // -1: not asked
    s.value[4] = c.knobs.recv_window;
    s.value[5] = c.debug ? 1.0 : 0.0;
    s.value[6] = static_cast<double>(c.segment_bytes);
    s.value[7] = c.wisdom ? 1.0 : 0.0;
    return s;
}

uint32_t adopt_shared_settings(Config& local, const SharedSettings& agreed) {
    const SharedSettings mine = shared_settings(local);
    uint32_t differing = 0;
    for (int i = 0; i < kShared; ++i) {
        if (mine.value[i] != agreed.value[i]) differing |= 1u << i;
    }
    local.algorithm = static_cast<redux_algorithm>(static_cast<int>(agreed.value[0]));
    local.transfer_s = agreed.value[1] >= 0 ? std::optional<double>(agreed.value[1]) : std::nullopt;
    local.compute_s = agreed.value[2] >= 0 ? std::optional<double>(agreed.value[2]) : std::nullopt;
    local.knobs.chunk_bytes_asked = agreed.value[3] >= 0;
    local.knobs.chunk_bytes =
        local.knobs.chunk_bytes_asked ? static_cast<size_t>(agreed.value[3]) : ExecKnobs{}.chunk_bytes;
    local.knobs.recv_window = static_cast<int>(agreed.value[4]);
    local.debug = agreed.value[5] != 0;
    local.segment_bytes = static_cast<long long>(agreed.value[6]);
    local.wisdom = agreed.value[7] != 0;
    return differing;
}

std::string shared_setting_names(uint32_t differing) {
    std::string names;
    for (int i = 0; i < kShared; ++i) {
        if (!(differing & (1u << i))) continue;
        if (!names.empty()) names += ", ";
        names += kSharedNames[i];
    }
    return names;
}

}  // namespace redux
