// The optimum of the steady-state program (steady_state.hpp) as a packing of reduction trees, found by column
// generation: same TP, but a program of 3p rows instead of p^4 columns, and the trees come out directly. See
// tree_packing.cpp (which also says how its time grows with p).
#pragma once

#include "plan/steady_state/steady_state.hpp"
#include "plan/steady_state/weighted_trees.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace redux {

struct TreePacking {
    SteadyStateSolution solution;     // the trees' flow together (flow_of_trees); solve_s, lp_* as measured here
    std::vector<WeightedTree> trees;  // those with a non-zero weight: at most 3p
    double upper_bound_per_s = 0;     // no flow does better (a bound from the last round's prices)
    int32_t rounds = 0;               // times the master program was solved
};

// Above this many participants pack_reduction_trees refuses unless the options raise the limit: a round costs
// O(p^4) and the rounds grow with p (tree_packing.cpp).
constexpr int32_t kTreePackingMaxParticipants = 64;

struct TreePackingOptions {
    int32_t max_participants = kTreePackingMaxParticipants;
    double time_limit_s = 60;    // for the whole search; past it the packing fails with an error
    double relative_gap = 1e-9;  // stop when TP is within this of upper_bound_per_s
    // Dual smoothing (Wentges): each round prices at smoothing * best prices + (1 - smoothing) * the master's;
    // 0 prices at the master's alone. Fewer rounds, same optimum (see tree_packing.cpp).
    double smoothing = 0.9;
    int32_t max_rounds = 100'000;  // a guard: past it, an error
};

// nullopt on an invalid platform, fewer than two participants, more than options.max_participants, an unbounded
// throughput (a tree that costs no time), a GLPK failure, or the time or round limit; `error`, when given, says
// which. TP is 0 (no trees) when some participant cannot reach the target.
std::optional<TreePacking> pack_reduction_trees(const SteadyStatePlatform& platform,
                                                const TreePackingOptions& options = {}, std::string* error = nullptr);

}  // namespace redux
