#include "exec/report.hpp"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

namespace redux {

std::string report_json(const PlanReport& r) {
    nlohmann::ordered_json predicted = {{"optimal", r.optimal_s}, {"fibonacci", r.fibonacci_s}, {"binomial", r.binomial_s}};
    if (r.snf_s > 0) predicted["snf"] = r.snf_s;
    if (r.hetero_greedy_s > 0) predicted["hetero-greedy"] = r.hetero_greedy_s;
    if (r.two_level_s > 0) predicted["two-level"] = r.two_level_s;
    nlohmann::ordered_json j = {
        {"comm_size", r.comm_size},   {"root", r.root},           {"count", r.count},
        {"bytes", r.bytes},           {"commutative", r.commutative}, {"requested", r.requested},
        {"d_s", r.d_s},               {"c_s", r.c_s},             {"costs_source", r.costs_source},
        {"strategy", r.strategy},     {"predicted_s", r.predicted_s},
        {"predicted_by_strategy_s", predicted},
        {"native_s", r.native_s ? nlohmann::ordered_json(*r.native_s) : nlohmann::ordered_json()},
        {"planned_s", r.planned_s ? nlohmann::ordered_json(*r.planned_s) : nlohmann::ordered_json()},
        {"calibration_s", r.calibration_s},
    };
    return j.dump();
}

std::string report_words(const PlanReport& r, const char* what) {
    char measured[160] = "";
    if (r.native_s && r.planned_s) {
        std::snprintf(measured, sizeof measured, "; measured: planned %.3g s, native %.3g s", *r.planned_s,
                      *r.native_s);
    }
    char line[640];
    std::snprintf(line, sizeof line,
                  "libredux: %s for comm_size=%d root=%d count=%d bytes=%lld %s, %s: d=%.3g s (%s) c=%.3g s, "
                  "predicted optimal %.3g s, fibonacci %.3g s, binomial %.3g s, snf %.3g s, hetero-greedy %.3g s, "
                  "two-level %.3g s; chose %s "
                  "(predicted %.3g s)%s; "
                  "calibration %.3g s",
                  what, r.comm_size, r.root, r.count, r.bytes, r.commutative ? "commutative" : "non-commutative",
                  r.requested.c_str(), r.d_s, r.costs_source.c_str(), r.c_s, r.optimal_s, r.fibonacci_s, r.binomial_s,
                  r.snf_s, r.hetero_greedy_s, r.two_level_s, r.strategy.c_str(), r.predicted_s, measured, r.calibration_s);
    return line;
}

bool append_line(const std::string& path, const std::string& line) {
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return false;
    const std::string text = line + '\n';
    const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    close(fd);
    return ok;
}

}  // namespace redux
