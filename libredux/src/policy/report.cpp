#include "policy/report.hpp"

#include "policy/auto_select.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

namespace redux {
namespace {

// A measured number, or null where it was not measured.
nlohmann::ordered_json or_null(const std::optional<double>& seconds) {
    return seconds ? nlohmann::ordered_json(*seconds) : nlohmann::ordered_json();
}

}  // namespace

const char* drop_reason_name(AutoSelect::DropReason reason) {
    static_assert(AutoSelect::kFirstCallFactor == 2.0, "the name says 2x");
    switch (reason) {
        case AutoSelect::DropReason::first_call:
            return "first call over 2x the best";
        case AutoSelect::DropReason::clearly_slower:
            return "clearly slower";
        case AutoSelect::DropReason::not_reached:
            return "not reached";
        case AutoSelect::DropReason::not_needed:
            return "not needed";
        case AutoSelect::DropReason::slower_before:
            return "clearly slower before";
    }
    return "";
}

const char* trials_end_name(AutoSelect::TrialsEnd end) {
    switch (end) {
        case AutoSelect::TrialsEnd::one_left:
            return "one left";
        case AutoSelect::TrialsEnd::last_round:
            return "last round";
        case AutoSelect::TrialsEnd::extra_time:
            return "extra time";
        case AutoSelect::TrialsEnd::tie:
            return "no tree faster";
    }
    return "";
}

std::string report_json(const PlanReport& r, const char* what) {
    nlohmann::ordered_json predicted = nlohmann::ordered_json::object();
    for (const auto& [name, seconds] : r.predicted_by_strategy_s) predicted[name] = seconds;
    nlohmann::ordered_json dropped = nlohmann::ordered_json::array();
    for (const PlanReport::Dropped& d : r.dropped) {
        dropped.push_back(
            {{"strategy", d.strategy}, {"reason", d.reason}, {"first_s", d.first_s}, {"best_s", d.best_s}});
    }
    nlohmann::ordered_json j = {
        {"event", what},
        {"collective", r.collective},
        {"comm_size", r.comm_size},
        {"root", r.root},
        {"count", r.count},
        {"bytes", r.bytes},
        {"commutative", r.commutative},
        {"requested", r.requested},
        {"d_s", r.d_s},
        {"c_s", r.c_s},
        {"c_call_s", r.c_call_s},
        {"flight_s", r.flight_s},
        {"call_s", r.call_s},
        {"costs_source", r.costs_source},
        {"strategy", r.strategy},
        {"predicted_s", r.predicted_s},
        {"shared_cores_floor_s", r.shared_cores_floor_s},
        {"segments", r.segments},
        {"predicted_by_strategy_s", predicted},
        {"why", r.why},
        {"tried", r.tried},
        {"native_s", or_null(r.native_s)},
        {"planned_s", or_null(r.planned_s)},
        {"trial_medians_s", r.trial_medians_s},
        {"trial_calls", r.trial_calls},
        {"dropped", dropped},
        {"trials_end", r.trials_end.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(r.trials_end)},
        {"trial_extra_s", r.trial_extra_s},
        {"trial_extra_bound_s", r.trial_extra_bound_s},
        {"confirm_planned_s", or_null(r.confirm_planned_s)},
        {"confirm_incumbent",
         r.confirm_incumbent_s ? nlohmann::ordered_json(r.confirm_incumbent) : nlohmann::ordered_json()},
        {"confirm_incumbent_s", or_null(r.confirm_incumbent_s)},
        {"arrival_spread_s", or_null(r.arrival_spread_s)},
        {"dynamic_choice_s", or_null(r.dynamic_choice_s)},
        {"dynamic_s", or_null(r.dynamic_s)},
        {"dynamic_choice_mean_s", or_null(r.dynamic_choice_mean_s)},
        {"dynamic_mean_s", or_null(r.dynamic_mean_s)},
        {"dynamic", r.dynamic.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(r.dynamic)},
        {"dynamic_calls", r.dynamic_calls},
        {"arrival_lateness_s", r.arrival_lateness_s},
        {"arrival_starts", r.arrival_starts},
        {"arrival_held", r.arrival_held},
        {"calibration_s", r.calibration_s},
        {"planning_s", r.planning_s},
        {"node_pair_d_s", r.node_pair_d_s},
        {"node_pairs_source", r.node_pairs_source},
        {"native_excluded",
         r.native_excluded.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(r.native_excluded)},
        {"wisdom", r.wisdom.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(r.wisdom)},
        {"recheck_s", or_null(r.recheck_s)},
        {"nonblocking", r.nonblocking.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(r.nonblocking)},
        {"nonblocking_fastest",
         r.nonblocking_fastest.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(r.nonblocking_fastest)},
        {"nonblocking_native_s", or_null(r.nonblocking_native_s)},
        {"nonblocking_planned_s", or_null(r.nonblocking_planned_s)},
        {"nonblocking_calls", r.nonblocking_calls},
    };
    return j.dump();
}

namespace {

// The key and its costs: "libredux: <what> for comm_size=... root=... d=... c=...", and what qualifies them.
std::string key_and_costs_words(const PlanReport& r, const char* what) {
    char head[320];
    std::snprintf(
        head, sizeof head, "libredux: %s for %scomm_size=%d root=%d count=%d bytes=%lld %s, %s: d=%.3g s (%s) c=%.3g s",
        what, r.collective == "reduce" ? "" : (r.collective + " ").c_str(), r.comm_size, r.root, r.count, r.bytes,
        r.commutative ? "commutative" : "non-commutative", r.requested.c_str(), r.d_s, r.costs_source.c_str(), r.c_s);
    std::string line = head;
    if (r.c_call_s > 0) {
        char per_call[64];
        std::snprintf(per_call, sizeof per_call, " (%.3g s per application)", r.c_call_s);
        line += per_call;
    }
    if (r.flight_s > 0) {
        char flight[64];
        std::snprintf(flight, sizeof flight, " (d in flight %.3g s)", r.flight_s);
        line += flight;
    }
    if (r.call_s > 0) {
        char call[64];
        std::snprintf(call, sizeof call, " call=%.3g s", r.call_s);
        line += call;
    }
    if (r.shared_cores_floor_s > 0) {
        char floor[80];
        std::snprintf(floor, sizeof floor, " shared-cores floor=%.3g s", r.shared_cores_floor_s);
        line += floor;
    }
    if (!r.node_pair_d_s.empty()) {
        double low = -1, high = 0;
        for (size_t a = 0; a < r.node_pair_d_s.size(); ++a) {
            for (size_t b = 0; b < r.node_pair_d_s[a].size(); ++b) {
                if (a == b) continue;
                low = low < 0 ? r.node_pair_d_s[a][b] : std::min(low, r.node_pair_d_s[a][b]);
                high = std::max(high, r.node_pair_d_s[a][b]);
            }
        }
        char pairs[96];
        std::snprintf(pairs, sizeof pairs, ", d between nodes %.3g .. %.3g s (%zu nodes)", low, high,
                      r.node_pair_d_s.size());
        line += pairs;
    }
    return line;
}

// The predictions and the plan chosen: ", predicted <name> <s>, ...; chose <strategy> ...".
std::string choice_words(const PlanReport& r) {
    std::string line;
    char tail[320];
    const char* separator = ", predicted ";
    for (const auto& [name, seconds] : r.predicted_by_strategy_s) {
        char item[96];
        std::snprintf(item, sizeof item, "%s%s %.3g s", separator, name.c_str(), seconds);
        line += item;
        separator = ", ";
    }
    if (r.segments > 1) {
        std::snprintf(tail, sizeof tail, "; chose %s in %d segments (predicted %.3g s)", r.strategy.c_str(), r.segments,
                      r.predicted_s);
    } else {
        std::snprintf(tail, sizeof tail, "; chose %s (predicted %.3g s)", r.strategy.c_str(), r.predicted_s);
    }
    line += tail;
    return line;
}

// What auto measured: its trials, what they dropped, the confirmation in place and tree-dyn's weighing.
std::string trial_words(const PlanReport& r) {
    std::string line;
    char tail[320];
    if (r.tried.size() > 1) {
        line += "; auto measures";
        for (size_t i = 0; i < r.tried.size(); ++i) {
            line += " " + r.tried[i];
            if (i < r.trial_medians_s.size()) {
                std::snprintf(tail, sizeof tail, " (%.3g s)", r.trial_medians_s[i]);
                line += tail;
            }
        }
    }
    if (r.native_s && r.planned_s) {
        std::snprintf(tail, sizeof tail, "; measured: tree %.3g s, native %.3g s (medians of %d trial calls)",
                      *r.planned_s, *r.native_s, r.trial_calls);
        line += tail;
    }
    for (const PlanReport::Dropped& d : r.dropped) {
        if (d.first_s > 0) {
            std::snprintf(tail, sizeof tail, "; dropped %s (%s: first call %.3g s, best %.3g s)", d.strategy.c_str(),
                          d.reason.c_str(), d.first_s, d.best_s);
        } else {
            std::snprintf(tail, sizeof tail, "; dropped %s (%s)", d.strategy.c_str(), d.reason.c_str());
        }
        line += tail;
    }
    if (!r.trials_end.empty()) {
        std::snprintf(tail, sizeof tail, "; trials ended: %s (trees' extra time %.3g s, bound %.3g s)",
                      r.trials_end.c_str(), r.trial_extra_s, r.trial_extra_bound_s);
        line += tail;
    }
    if (r.confirm_planned_s && r.confirm_incumbent_s) {
        std::snprintf(tail, sizeof tail, "; in place: tree %.3g s, %s %.3g s (medians of %d calls each)",
                      *r.confirm_planned_s, r.confirm_incumbent.c_str(), *r.confirm_incumbent_s,
                      AutoSelect::kConfirmCalls);
        line += tail;
    }
    if (!r.arrival_lateness_s.empty()) {
        std::snprintf(tail, sizeof tail,
                      "; arrivals repeat (%d of %d starts held the prediction), each rank late by (s)", r.arrival_held,
                      r.arrival_starts);
        line += tail;
        for (const double late_s : r.arrival_lateness_s) {
            std::snprintf(tail, sizeof tail, " %.3g", late_s);
            line += tail;
        }
    }
    // How far apart the ranks came: the latest one's lateness where the arrivals repeated, else tree-dyn's spread
    const bool repeated = !r.arrival_lateness_s.empty();
    const double apart_s = repeated ? *std::max_element(r.arrival_lateness_s.begin(), r.arrival_lateness_s.end())
                                    : r.arrival_spread_s.value_or(0.0);
    if (r.dynamic_choice_s && r.dynamic_s) {
        std::snprintf(tail, sizeof tail,
                      "; arrivals %.3g s apart: in place, the choice %.3g s (mean %.3g s), %s %.3g s (mean %.3g s) "
                      "(medians of %d calls each)",
                      apart_s, *r.dynamic_choice_s, r.dynamic_choice_mean_s.value_or(0.0), r.dynamic.c_str(),
                      *r.dynamic_s, r.dynamic_mean_s.value_or(0.0), r.dynamic_calls);
        line += tail;
    }
    if ((r.arrival_spread_s || repeated) && !r.dynamic_s) {
        std::snprintf(tail, sizeof tail, "; arrivals %.3g s apart: %s not weighed", apart_s,
                      repeated ? "the arrival tree" : "tree-dyn");
        line += tail;
    }
    return line;
}

}  // namespace

std::string report_words(const PlanReport& r, const char* what) {
    std::string line = key_and_costs_words(r, what) + choice_words(r) + trial_words(r);
    char tail[320];
    if (!r.native_excluded.empty()) line += "; native not tried: " + r.native_excluded;
    if (!r.wisdom.empty()) line += "; wisdom: " + r.wisdom;
    if (!r.nonblocking.empty()) {
        std::snprintf(tail, sizeof tail,
                      "; nonblocking calls run %s (start to completion: fastest tree %s %.3g s, native %.3g s, "
                      "medians over %d calls weighed)",
                      r.nonblocking.c_str(), r.nonblocking_fastest.c_str(), r.nonblocking_planned_s.value_or(0.0),
                      r.nonblocking_native_s.value_or(0.0), r.nonblocking_calls);
        line += tail;
    }
    std::snprintf(tail, sizeof tail, "; calibration %.3g s, planning %.3g s", r.calibration_s, r.planning_s);
    line += tail;
    if (!r.why.empty()) line += " (" + r.why + ")";
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
