// Dynamic (non-clairvoyant) runs: ranks that reach a call at different times (--arrival) and an op whose cost
// varies from one application to the next (--op-cost-cv), both drawn from seeded generators so that every
// algorithm's turn of an iteration meets the same conditions. No MPI here: the runner realises the delays and
// ops.cpp applies the costs.
//
// Arrivals: before every call of iteration i each rank waits, from the iteration's common start, for its
// delay in the pattern of iteration i. The pattern is drawn from a generator seeded by (kArrivalSeed, i) alone,
// so every rank draws the same pattern without communicating and picks its own delay from it:
//   together      every rank at once (no draw)
//   one-late:MS   one rank, uniformly at random (the root included), MS milliseconds late; the others at once
//   exp:MS        every rank late by an independent exponential draw of mean MS milliseconds, drawn in rank
//                 order from the iteration's generator
// and patterns that repeat from one call to the next, as a program's load imbalance does:
//   same-late:MS  the same rank MS milliseconds late every call: the one half the ranks after the root,
//                 (root + ranks / 2) mod ranks; the others at once
//   root-late:MS  the root MS milliseconds late every call; the others at once
//   each-late:MS  every rank its own lateness, an exponential draw of mean MS milliseconds made once for the job
//                 (rank order, a generator of its own), times a factor drawn for every iteration uniformly within
//                 kEachLateJitter of 1
//
// Op costs: with a coefficient of variation CV > 0 each application of spin:NS or delay:NS costs its nominal
// cost times a draw of a gamma law of mean 1 and that CV (shape k = 1/CV^2, scale CV^2), that is a gamma law of
// mean the nominal cost (Benoit, Canon and Marchal's model of tasks of uncertain duration). Each rank's
// generator is seeded by (rank, iteration) before each call, so the n-th application on a rank in iteration i
// costs the same in every algorithm's turn. CV 0 is the constant cost: no generator is ever used.
#pragma once

#include <optional>
#include <random>
#include <string>

namespace redux_bench {

enum class ArrivalKind { together, one_late, exponential, same_late, root_late, each_late };

// each-late's jitter from one iteration to the next: each rank's lateness times a draw within this of 1.
constexpr double kEachLateJitter = 0.1;

struct ArrivalSpec {
    ArrivalKind kind = ArrivalKind::together;
    double delay_ms = 0;  // one-late: the late rank's delay; exp: the mean delay
};

// "together", or a pattern and its milliseconds, as "one-late:MS" (MS >= 0); nothing, with `error` saying why,
// otherwise.
std::optional<ArrivalSpec> parse_arrival(const std::string& text, std::string& error);

// --op-cost-cv's value: a number >= 0; nothing, with `error` saying why, otherwise.
std::optional<double> parse_cost_cv(const std::string& text, std::string& error);

// As on the command line, for the table and the CSV's arrival column: "together", "one-late:2", "exp:0.5".
std::string arrival_label(const ArrivalSpec& spec);
// What happens in each iteration, for the report's header: "the root enters late".
std::string arrival_description(const ArrivalSpec& spec);

// Rank `rank`'s delay in seconds, of `ranks` ranks with the reduction's root `root`, in iteration `iteration` (any
// integer: the runner numbers auto's trials and the warm-up below 0). The same on every rank for the same arguments.
double arrival_delay_s(const ArrivalSpec& spec, int ranks, long iteration, int rank, int root);

// One rank's costs of the op's applications: the nominal cost times gamma draws of mean 1 and coefficient of
// variation `cv`.
class OpCostDraws {
public:
    explicit OpCostDraws(double cv = 0);

    // Restarts the draws for a call of `iteration` on `rank`.
    void seed(int rank, long iteration);
    // The next application's cost, of nominal cost `nominal_ns`: exactly that when cv is 0.
    long cost_ns(long nominal_ns);

private:
    double cv_;
    std::mt19937_64 generator_;
    std::gamma_distribution<double> gamma_;
};

}  // namespace redux_bench
