#include "comparison.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace redux_bench {
namespace {

enum class Outcome { faster, slower, noise };

const char* outcome_name(Outcome outcome) {
    switch (outcome) {
        case Outcome::faster:
            return "faster";
        case Outcome::slower:
            return "slower";
        case Outcome::noise:
            return "noise";
    }
    return "";
}

// Faster or slower only when the interquartile ranges do not overlap.
Outcome outcome_of(const AutoAgainstNative& size) {
    if (size.automatic.q3_s < size.native.q1_s) return Outcome::faster;
    if (size.automatic.q1_s > size.native.q3_s) return Outcome::slower;
    return Outcome::noise;
}

double speedup_of(const AutoAgainstNative& size) {
    return size.automatic.median_s > 0 ? size.native.median_s / size.automatic.median_s : 0;
}

std::string format(const char* pattern, double value) {
    char text[64];
    std::snprintf(text, sizeof text, pattern, value);
    return text;
}

// One range of consecutive sizes with the same outcome.
std::string verdict_line(const std::vector<AutoAgainstNative>& sizes, size_t first, size_t last, Outcome outcome) {
    double low = speedup_of(sizes[first]), high = low;
    std::vector<std::string> ran;
    for (size_t i = first; i <= last; ++i) {
        low = std::min(low, speedup_of(sizes[i]));
        high = std::max(high, speedup_of(sizes[i]));
        if (std::find(ran.begin(), ran.end(), sizes[i].auto_ran) == ran.end()) ran.push_back(sizes[i].auto_ran);
    }
    std::string line = size_text(sizes[first].bytes);
    if (last > first) line += "-" + size_text(sizes[last].bytes);
    line += ": auto " + format("%.2f", low);
    if (format("%.2f", high) != format("%.2f", low)) line += "-" + format("%.2f", high);
    line += "x native (" + std::string(outcome_name(outcome)) + "; auto ran ";
    for (size_t i = 0; i < ran.size(); ++i) line += (i == 0 ? "" : ", ") + ran[i];
    return line + ")";
}

}  // namespace

bool same_plan(const PlanReport& a, const PlanReport& b, int ranks) {
    if (!a.planned || !b.planned || a.segments != b.segments || a.transfer_s != b.transfer_s) return false;
    const double rounding = 1e-12 * std::max(std::fabs(a.predicted_s), std::fabs(b.predicted_s));
    const double explained = ranks * std::fabs(a.compute_s - b.compute_s);
    return std::fabs(a.predicted_s - b.predicted_s) <= explained + rounding;
}

std::vector<int> same_plan_as(const std::vector<AlgorithmPlan>& algorithms, int ranks) {
    std::vector<int> shown_as(algorithms.size(), -1);
    int native = -1;
    for (size_t i = 0; i < algorithms.size(); ++i) {
        if (algorithms[i].kind == AlgorithmKind::native && native < 0) native = static_cast<int>(i);
    }
    for (size_t i = 0; i < algorithms.size(); ++i) {
        const AlgorithmPlan& algorithm = algorithms[i];
        if (algorithm.kind == AlgorithmKind::native) continue;
        const bool automatic = algorithm.kind == AlgorithmKind::automatic;
        if (automatic && !algorithm.ran_planned) {
            shown_as[i] = native;
            continue;
        }
        // A strategy looks at the strategies before it; auto at every strategy.
        const size_t end = automatic ? algorithms.size() : i;
        for (size_t j = 0; j < end; ++j) {
            if (algorithms[j].kind == AlgorithmKind::strategy && shown_as[j] < 0 &&
                same_plan(algorithm.plan, algorithms[j].plan, ranks)) {
                shown_as[i] = static_cast<int>(j);
                break;
            }
        }
    }
    return shown_as;
}

std::string plans_text(const std::vector<AlgorithmPlan>& algorithms, const std::vector<int>& shown_as) {
    std::string text;
    const auto append = [&text](const std::string& part) { text += (text.empty() ? "" : " ") + part; };
    for (size_t i = 0; i < algorithms.size(); ++i) {
        const AlgorithmPlan& head = algorithms[i];
        if (shown_as[i] >= 0 || head.kind == AlgorithmKind::native || !head.ran_planned) continue;
        std::string group = head.name;
        for (size_t j = 0; j < algorithms.size(); ++j) {
            if (shown_as[j] == static_cast<int>(i)) group += "=" + algorithms[j].name;
        }
        append(group + "[" + std::to_string(head.plan.segments) + "]");
    }
    for (size_t i = 0; i < algorithms.size(); ++i) {
        if (algorithms[i].kind == AlgorithmKind::automatic && !algorithms[i].ran_planned) append("native=auto");
    }
    return text.empty() ? "-" : text;
}

std::string latency_cell(const Summary& latency) {
    const double median_us = latency.median_s * 1e6;
    const double spread_percent = latency.median_s > 0 ? 50 * (latency.q3_s - latency.q1_s) / latency.median_s : 0;
    char text[64];
    std::snprintf(text, sizeof text, spread_percent < 9.95 ? "%.2f \u00b1%.1f%%" : "%.2f \u00b1%.0f%%", median_us,
                  spread_percent);
    return text;
}

std::string size_text(long bytes) {
    if (bytes >= (1L << 20) && bytes % (1L << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
    if (bytes >= (1L << 10) && bytes % (1L << 10) == 0) return std::to_string(bytes >> 10) + " KiB";
    return std::to_string(bytes) + " B";
}

std::string right_aligned(const std::string& text, int width) {
    int characters = 0;
    for (const char c : text) characters += (static_cast<unsigned char>(c) & 0xC0) != 0x80;  // not a continuation
    return std::string(static_cast<size_t>(std::max(0, width - characters)), ' ') + text;
}

std::vector<std::string> verdict_lines(const std::vector<AutoAgainstNative>& sizes) {
    std::vector<std::string> lines;
    size_t first = 0;
    for (size_t i = 1; i <= sizes.size(); ++i) {
        if (i == sizes.size() || outcome_of(sizes[i]) != outcome_of(sizes[first])) {
            lines.push_back(verdict_line(sizes, first, i - 1, outcome_of(sizes[first])));
            first = i;
        }
    }
    return lines;
}

}  // namespace redux_bench
