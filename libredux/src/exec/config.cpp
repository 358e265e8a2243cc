#include "exec/config.hpp"

#include <mpi.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

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

const char* real_getenv(const char* name) { return std::getenv(name); }

}  // namespace

Config parse_config(const char* (*lookup)(const char* name)) {
    Config cfg;
    auto fail = [&](const std::string& message) {
        if (cfg.problem.empty()) cfg.problem = message;
    };
    if (const char* a = lookup("REDUX_ALGORITHM"); a != nullptr && *a != '\0') {
        if (!std::strcmp(a, "auto"))
            cfg.algorithm = Algorithm::automatic;
        else if (!std::strcmp(a, "optimal"))
            cfg.algorithm = Algorithm::optimal;
        else if (!std::strcmp(a, "fibonacci"))
            cfg.algorithm = Algorithm::fibonacci;
        else if (!std::strcmp(a, "binomial"))
            cfg.algorithm = Algorithm::binomial;
        else if (!std::strcmp(a, "native"))
            cfg.algorithm = Algorithm::native;
        else
            fail(std::string("REDUX_ALGORITHM=") + a + " is not one of auto, optimal, fibonacci, binomial, native");
    }
    for (auto [name, slot] : {std::pair{"REDUX_D", &cfg.transfer_s}, std::pair{"REDUX_C", &cfg.compute_s}}) {
        if (const char* v = lookup(name); v != nullptr && *v != '\0') {
            double seconds = 0;
            if (parse_seconds(v, seconds))
                *slot = seconds;
            else
                fail(std::string(name) + "=" + v + " is not a number of seconds >= 0");
        }
    }
    if (const char* v = lookup("REDUX_VERBOSE"); v != nullptr && *v != '\0') {
        if (!std::strcmp(v, "1"))
            cfg.verbose = true;
        else if (std::strcmp(v, "0") != 0)
            fail(std::string("REDUX_VERBOSE=") + v + " is not 0 or 1");
    }
    if (const char* v = lookup("REDUX_DEBUG"); v != nullptr && *v != '\0') {
        if (!std::strcmp(v, "1"))
            cfg.debug = true;
        else if (std::strcmp(v, "0") != 0)
            fail(std::string("REDUX_DEBUG=") + v + " is not 0 or 1");
    }
    if (const char* v = lookup("REDUX_REPORT"); v != nullptr) cfg.report_path = v;
    if (const char* v = lookup("REDUX_CALIBRATION_FILE"); v != nullptr) cfg.calibration_file = v;
    long long value = 0;
    if (const char* v = lookup("REDUX_CALIBRATION_MAX_AGE"); v != nullptr && *v != '\0') {
        if (parse_positive(v, 1LL << 40, value))
            cfg.calibration_max_age_s = value;
        else
            fail(std::string("REDUX_CALIBRATION_MAX_AGE=") + v + " is not a positive number of seconds");
    }
    if (const char* v = lookup("REDUX_RECV_WINDOW"); v != nullptr && *v != '\0') {
        if (parse_positive(v, 64, value))
            cfg.knobs.recv_window = static_cast<int>(value);
        else
            fail(std::string("REDUX_RECV_WINDOW=") + v + " is not an integer in [1, 64]");
    }
    if (const char* v = lookup("REDUX_CHUNK_BYTES"); v != nullptr && *v != '\0') {
        if (parse_positive(v, 1LL << 40, value))
            cfg.knobs.chunk_bytes = static_cast<size_t>(value);
        else
            fail(std::string("REDUX_CHUNK_BYTES=") + v + " is not a positive integer");
    }
    if (!cfg.problem.empty()) cfg.algorithm = Algorithm::native;
    return cfg;
}

const Config& config() {
    static const Config cfg = [] {
        Config parsed = parse_config(real_getenv);
        if (!parsed.problem.empty()) {
            int rank = 0;
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
            if (rank == 0) {
                std::fprintf(stderr, "libredux: %s; using the MPI library's own MPI_Reduce\n", parsed.problem.c_str());
            }
        }
        return parsed;
    }();
    return cfg;
}

}  // namespace redux
