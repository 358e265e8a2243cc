#include "dynamic.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>

namespace redux_bench {
namespace {

// The fixed seeds of the two kinds of draws: arrivals (with the iteration) and op costs (with rank and iteration).
constexpr std::uint32_t kArrivalSeed = 0x61727276;  // "arrv"
constexpr std::uint32_t kOpCostSeed = 0x636f7374;   // "cost"

// A generator seeded by a fixed seed, a 32-bit `word` and a 64-bit `index`: the same numbers on every rank.
std::mt19937_64 seeded(std::uint32_t fixed, std::uint32_t word, long index) {
    const auto bits = static_cast<std::uint64_t>(index);
    std::seed_seq seed{fixed, word, static_cast<std::uint32_t>(bits), static_cast<std::uint32_t>(bits >> 32)};
    return std::mt19937_64(seed);
}

// A finite number >= 0 in decimal notation, all of `text`.
bool read_nonnegative(const std::string& text, double& value) {
    if (text.empty() || text.find_first_not_of("0123456789.") != std::string::npos) return false;
    char* end = nullptr;
    value = std::strtod(text.c_str(), &end);
    return end == text.c_str() + text.size() && std::isfinite(value);
}

// The patterns that take a delay, by the name --arrival and the CSV give them (NAME:MS), and what the report says
// happens in each iteration.
struct ArrivalName {
    ArrivalKind kind;
    const char* name;
    const char* description;
};
constexpr ArrivalName kArrivalNames[] = {
    {ArrivalKind::one_late, "one-late", "one rank, drawn at random, enters late"},
    {ArrivalKind::exponential, "exp", "every rank enters late by an exponential draw"},
    {ArrivalKind::same_late, "same-late", "the same rank, (root + N/2) mod N, enters late"},
    {ArrivalKind::root_late, "root-late", "the root enters late"},
    {ArrivalKind::each_late, "each-late", "every rank enters late by its own draw, made once, within 10 %"}};

}  // namespace

std::optional<ArrivalSpec> parse_arrival(const std::string& text, std::string& error) {
    ArrivalSpec spec;
    if (text == "together") return spec;
    const auto colon = text.find(':');
    const std::string name = text.substr(0, colon);
    const auto known = std::find_if(std::begin(kArrivalNames), std::end(kArrivalNames),
                                    [&](const ArrivalName& n) { return name == n.name; });
    if (known == std::end(kArrivalNames)) {
        error = "--arrival: unknown pattern '" + text + "' (together";
        for (const ArrivalName& n : kArrivalNames) error += std::string(", ") + n.name + ":MS";
        error += ")";
        return std::nullopt;
    }
    spec.kind = known->kind;
    if (colon == std::string::npos || !read_nonnegative(text.substr(colon + 1), spec.delay_ms)) {
        error = "--arrival: " + name + " needs a delay in milliseconds, as " + name + ":MS with MS >= 0 (got '" + text +
                "')";
        return std::nullopt;
    }
    return spec;
}

std::optional<double> parse_cost_cv(const std::string& text, std::string& error) {
    double cv = 0;
    if (read_nonnegative(text, cv)) return cv;
    error = "--op-cost-cv: '" + text + "' is not a coefficient of variation (a number >= 0)";
    return std::nullopt;
}

namespace {

const ArrivalName* find_name(ArrivalKind kind) {
    const auto known = std::find_if(std::begin(kArrivalNames), std::end(kArrivalNames),
                                    [&](const ArrivalName& n) { return kind == n.kind; });
    return known == std::end(kArrivalNames) ? nullptr : known;
}

}  // namespace

std::string arrival_description(const ArrivalSpec& spec) {
    const ArrivalName* known = find_name(spec.kind);
    return known == nullptr ? "every rank enters together" : known->description;
}

std::string arrival_label(const ArrivalSpec& spec) {
    const ArrivalName* known = find_name(spec.kind);
    if (known == nullptr) return "together";
    char ms[32];
    std::snprintf(ms, sizeof ms, "%g", spec.delay_ms);
    return known->name + (":" + std::string(ms));
}

double arrival_delay_s(const ArrivalSpec& spec, int ranks, long iteration, int rank, int root) {
    if (spec.kind == ArrivalKind::together || spec.delay_ms <= 0) return 0;
    const double delay_s = spec.delay_ms * 1e-3;
    // Rank `rank`'s draw, in rank order, of an exponential of mean delay_s.
    auto exponential_draw = [&](std::mt19937_64 generator) {
        std::exponential_distribution<double> exponential(1 / delay_s);
        double mine_s = 0;
        for (int r = 0; r <= rank; ++r) mine_s = exponential(generator);
        return mine_s;
    };
    switch (spec.kind) {
        case ArrivalKind::one_late: {
            std::mt19937_64 generator = seeded(kArrivalSeed, 0, iteration);
            std::uniform_int_distribution<int> late(0, ranks - 1);
            return late(generator) == rank ? delay_s : 0;
        }
        case ArrivalKind::exponential:
            return exponential_draw(seeded(kArrivalSeed, 0, iteration));
        case ArrivalKind::same_late:
            return ranks > 1 && rank == (root + ranks / 2) % ranks ? delay_s : 0;
        case ArrivalKind::root_late:
            return rank == root ? delay_s : 0;
        case ArrivalKind::each_late: {
            std::mt19937_64 jitter_generator = seeded(kArrivalSeed, 2, iteration);
            std::uniform_real_distribution<double> jitter(1 - kEachLateJitter, 1 + kEachLateJitter);
            double factor = 1;
            for (int r = 0; r <= rank; ++r) factor = jitter(jitter_generator);
            return exponential_draw(seeded(kArrivalSeed, 1, 0)) * factor;
        }
        case ArrivalKind::together:
            break;
    }
    return 0;
}

OpCostDraws::OpCostDraws(double cv) : cv_(cv), gamma_(cv > 0 ? 1 / (cv * cv) : 1, cv > 0 ? cv * cv : 1) {}

void OpCostDraws::seed(int rank, long iteration) {
    if (cv_ <= 0) return;
    generator_ = seeded(kOpCostSeed, static_cast<std::uint32_t>(rank), iteration);
    gamma_.reset();
}

long OpCostDraws::cost_ns(long nominal_ns) {
    if (cv_ <= 0) return nominal_ns;
    return std::lround(gamma_(generator_) * static_cast<double>(nominal_ns));
}

}  // namespace redux_bench
