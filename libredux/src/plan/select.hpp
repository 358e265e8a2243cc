// Plan selection: which tree a call runs, as a pure function of plain data (no MPI, no clock).
//
// The MPI layer gathers the inputs (costs from the call, the environment or calibration; where every rank
// runs) and caches the result; everything that decides is here, so it is unit-tested in one process.
#pragma once

#include "model/link_costs.hpp"
#include "model/node_pairs.hpp"
#include "plan/exec_limits.hpp"
#include "plan/planner.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace redux {

struct SelectionInput {
    int32_t ranks = 1;
    int32_t root = 0;
    bool commutative = true;
    Costs costs;  // d and c of this call's message size and op, homogeneous (d: the slowest link class)
    // Where every rank runs (by rank; empty: unknown) and d of each link class at this message size. Used when
    // the links fall in several classes; leave `place` empty when d was given rather than calibrated per class.
    std::vector<RankPlace> place;
    std::array<double, kLinkClasses> class_transfer_s{};
    std::array<double, kLinkClasses> class_flight_s{};  // L of each class, at most its d (0: the one-port model)
    // d and L between every two nodes at this message size, for pairs on different nodes instead of the
    // class's (empty: the class's for every pair).
    NodePairCosts node_pairs;
    std::optional<Strategy> requested;  // nullopt: auto, every strategy that applies is a candidate
    int32_t limit = 0;                  // K, for the strategies that need one
    // Segments (PlanRequest has the same fields): the vector's element count, the latency part of d, and the
    // segment count (0: for each candidate, the count the model predicts fastest; 1: unsegmented).
    int64_t elements = 1;
    double latency_s = 0;
    std::shared_ptr<const LinkFit> segment_curve = nullptr;
    int64_t element_bytes = 0;
    int32_t segments = 1;
    int32_t recv_window = kExecLimits.recv_window;  // the executor's receive window (ExecKnobs::recv_window)
    bool segment_flight = true;                     // PlanRequest::segment_flight
};

struct Candidate {
    Strategy strategy;
    // Plan::predicted_s(): under the per-link costs when there are several classes, in `segments`.
    double predicted_s = 0;
    int32_t inter_node_transfers = 0;
    int32_t segments = 1;  // the plan's segment count
};

struct Selection {
    Plan plan;                          // the winner
    std::vector<Candidate> candidates;  // every strategy evaluated, in table order
    std::string why;                    // one sentence: why this plan
    // With auto: the next fastest predicted plans that run differently from the winner and from each other
    // (another tree, fold order or segment count), fastest first, predicted within kRunnerUpSpan of the winner, at
    // most kRunnersUp. auto measures them too: the model ranks trees well where its costs are right, and they are
    // not always (per-node links it cannot tell apart, time-sharing of cores, TCP's window restarting after idle).
    std::vector<Plan> runners_up;
};

// How many runners-up, and how far behind the winner: between nodes the model can rank a tree that runs fastest
// a few places and some tens of percent behind the winner, so a few runners-up within 1.5x of it reach that tree,
// and a plan predicted slower than that is not worth a trial.
constexpr int kRunnersUp = 4;
constexpr double kRunnerUpSpan = 1.5;

// Whether two plans make the executor do the same thing: the same tree, fold order, sink and segment count (and
// the same further trees when several segments use them).
bool same_execution(const Plan& a, const Plan& b);

// Largest communicator planned with per-link costs: the n x n matrix of d_ij (8 MiB at 1024 ranks).
constexpr int32_t kMaxPerLinkRanks = 1024;

// Whether `info` applies to a call with these inputs (redux/algorithms.h, column `needs`).
bool strategy_applies(const StrategyInfo& info, const SelectionInput& input);

// The plan for `input`: the requested strategy (the optimal tree when it does not apply), or with auto the
// fastest predicted candidate (Plan::predicted_s: where ranks share cores, floored), each in its own segment count
// when input.segments is 0; among predictions within 0.01 % of each other the smaller makespan, then the fewest
// transfers between nodes, then the first in table order. Throws
// std::invalid_argument on invalid input (validate()).
Selection select_plan(const SelectionInput& input);

}  // namespace redux
