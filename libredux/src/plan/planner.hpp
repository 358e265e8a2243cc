// The planner's front door: a plan request in, a plan (per-rank programs plus predictions) out. No MPI.
//
// make_plan() builds the tree of the requested strategy over abstract nodes, sets transfer times by
// Proposition 3 (or keeps Algorithm 2's), lays the tree out on ranks (layout.hpp: the sink on the MPI root
// for commutative operators; contiguous rank intervals for non-commutative ones), and predicts the makespan
// with the model simulator.
#pragma once

#include "model/costs.hpp"
#include "model/hetero_costs.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace redux {

enum class Strategy {
    optimal,            // Algorithm 1 with the real (d, c)
    fibonacci,          // Algorithm 1 with d = c (Section 7.3), evaluated under the real costs
    binomial,           // Algorithm 1 with min(d, c) = 0 (Section 7.3), evaluated under the real costs
    transfers_limited,  // Algorithm 2: at most `limit` concurrent transfers
    reducers_limited,   // Algorithm 3: at most `limit` ranks perform reductions
    snf,                // Slowest-Node-First of Liu & Wang (snf.hpp); needs heterogeneous costs
    hetero_greedy,      // Algorithm 1 generalised to c_i and d_ij (hetero_greedy.hpp); needs heterogeneous costs
    two_level,          // Algorithm 1 inside each node, then across node leaders (two_level.hpp); needs
                        // heterogeneous costs and node_of
};

std::string_view strategy_name(Strategy s);
std::optional<Strategy> parse_strategy(std::string_view name);
bool strategy_needs_limit(Strategy s);
// snf and hetero_greedy build their tree from per-rank and per-link costs, over the ranks themselves (no
// relabelling), so they need PlanRequest::hetero_costs and a commutative operator.
bool strategy_needs_hetero_costs(Strategy s);

struct PlanRequest {
    int32_t ranks = 1;
    Costs costs;
    Strategy strategy = Strategy::optimal;
    int32_t limit = 0;  // K for the limited strategies (>= 1); ignored otherwise
    int32_t root = 0;
    bool commutative = true;
    // Per-rank c_i and per-link d_ij (one rank per entry, `ranks` of them). When set, the plan's predictions are
    // made under these costs, and snf / hetero_greedy are built from them; the homogeneous strategies still
    // plan with `costs` (redux-plan sets it to hetero_costs->mean_costs()). Shared, so a request stays cheap to
    // copy.
    std::shared_ptr<const HeteroCosts> hetero_costs = nullptr;
    std::vector<int32_t> node_of{};  // two_level: the node of every rank
    TransferModel model = TransferModel::overlap;  // the model the simulator predicts (and hetero_greedy plans) with
};

// Returns an empty string when the request is valid, otherwise a message naming the bad field.
std::string validate(const PlanRequest& request);

// What one rank runs. Children are listed in fold order; a child that joins on the left is folded as
// child o acc, otherwise as acc o child. The sink of a non-commutative plan may differ from the root: it
// then sends the result to the root once the tree is done (send_result_to), and the root receives it
// (receive_result_from) after finishing its own part of the tree.
struct ChildStep {
    int32_t rank;
    bool joins_left;
};
struct RankProgram {
    int32_t parent = -1;
    std::vector<ChildStep> children;
    int32_t send_result_to = -1;
    int32_t receive_result_from = -1;
};

struct Plan {
    PlanRequest request;
    std::vector<int32_t> parent;  // by rank; -1 for the sink
    int32_t sink = 0;             // rank that ends the tree with the result
    bool final_transfer = false;  // sink != root: one more transfer of d, counted in makespan_s
    // Children in fold order, compressed: the children of rank r are child_rank[child_offset[r] ..
    // child_offset[r + 1]), with child_joins_left alongside.
    std::vector<int32_t> child_offset;
    std::vector<int32_t> child_rank;
    std::vector<uint8_t> child_joins_left;
    std::vector<double> release_s;  // by rank, earliest send time; empty unless the strategy fixes them
    std::vector<double> ready_s;    // by rank, predicted by the simulator
    std::vector<double> send_start_s;
    std::vector<double> arrive_s;   // by rank: the transfer to the parent ends (-1 for the sink)
    double tree_makespan_s = 0;     // sink ready, as the simulator predicts
    double makespan_s = 0;          // tree_makespan_s plus the final transfer when there is one
    double builder_makespan_s = 0;  // the builder's own prediction under the costs it planned with
    double lower_bound_s = 0;       // Lemma 5 for the optimum of this n, d, c (every cost at its minimum)
    double upper_bound_s = 0;       // Proposition 6 (every cost at its maximum)
};

// Throws std::invalid_argument when validate(request) is not empty.
Plan make_plan(const PlanRequest& request);

RankProgram program_for(const Plan& plan, int32_t rank);

}  // namespace redux
