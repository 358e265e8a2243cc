// The planner's front door: a plan request in, a plan (per-rank programs plus predictions) out. No MPI.
//
// make_plan() builds the tree of the requested strategy (plan/builders.cpp) over abstract nodes, sets transfer times by
// Proposition 3 (or keeps Algorithm 2's), lays the tree out on ranks (layout.hpp: the sink on the MPI root
// for commutative operators; contiguous rank intervals for non-commutative ones), and predicts the makespan
// with the model simulator, then, for a vector cut into segments, with the segmented model (segments.hpp),
// choosing the segment count when the request leaves it to the model.
#pragma once

#include "model/costs.hpp"
#include "model/hetero_costs.hpp"
#include "model/link_costs.hpp"
#include "plan/exec_limits.hpp"
#include "plan/strategy.hpp"
#include "plan/tree.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace redux {

// The tree segment j goes along: deal[j % deal.size()], or j % trees when deal is empty. One tree (most plans)
// without a division: the executor asks for every segment, and a division costs tens of cycles.
inline int32_t segment_tree(const std::vector<int32_t>& deal, int32_t trees, int64_t segment) {
    if (deal.empty()) return trees == 1 ? 0 : static_cast<int32_t>(segment % trees);
    return deal[static_cast<size_t>(segment) % deal.size()];
}

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
    std::vector<int32_t> node_of{};                // two_level: the node of every rank
    TransferModel model = TransferModel::overlap;  // the model the simulator predicts (and hetero_greedy plans) with
    // Segmentation (plan/predict/segments.hpp): the vector is cut into `segments` pieces of whole elements, each
    // reduced along the same tree, pipelined. costs.transfer_s is d for the whole vector; latency_s the part of it that
    // does not grow with the bytes (alpha of d = alpha + beta x bytes), so a segment of e of the `elements`
    // costs latency_s + (transfer_s - latency_s) e / elements to move and compute_s e / elements to fold.
    // The model is in plan/predict/segments.cpp. Several segments need TransferModel::overlap.
    int64_t elements = 1;  // the vector's element count (>= 1)
    double latency_s = 0;  // 0 <= latency_s <= costs.transfer_s
    // The calibrated d against the message size (model/link_costs.hpp), when known, with the bytes of one
    // element: a segment of e elements then costs d x curve(e x element_bytes) / curve(elements x element_bytes)
    // instead of the line through latency_s. The curve has the shape the line misses: over TCP, messages of a
    // few hundred KiB pay a rendezvous round trip and a congestion window still opening, and cost up to twice
    // the line (plan/predict/segments.cpp).
    std::shared_ptr<const LinkFit> segment_curve = nullptr;
    int64_t element_bytes = 0;
    int32_t segments = 1;  // >= 1: that many (at most `elements`); 0: the count the model predicts fastest
    int32_t recv_window =
        kExecLimits
            .recv_window;  // receives a rank posts ahead, scratch slots of one segment (the executor's knob, >= 1)
    // Whether segments see the time in flight (costs.flight_s, L_ij): a message on a network is on its way while
    // the receiver takes the one before it. Between ranks of one node the "flight" calibration finds is waiting
    // to be scheduled, which segments do not hide (8 ranks on 2 cores: 64 segments predicted at 0.13 ms took
    // 5.9 ms), so the library sets it only for communicators that span nodes.
    bool segment_flight = true;
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
    // The children's transfers may be in flight together: the plan was predicted with a time in flight on every
    // child's link (Costs::flight_s > 0, or HeteroCosts::flight_s of each child's edge; one segment), where a
    // message's latency leaves the receiver free, and the children's scratch fits ExecLimits::together_bytes
    // (plan/exec_limits.hpp). The executor then posts every child's receive at once instead of one after the other.
    bool receive_together = false;
    // Plans over several trees (Plan::more_trees): segment j goes along tree tree_of(j); tree 0 is parent and
    // children above, tree t > 0 more_trees[t - 1]. The result transfer is the same for every tree.
    struct TreeRole {
        int32_t parent = -1;
        std::vector<ChildStep> children;
    };
    std::vector<TreeRole> more_trees;
    std::vector<int32_t> deal;  // Plan::deal

    int trees() const { return 1 + static_cast<int>(more_trees.size()); }
    int tree_of(int64_t segment) const { return segment_tree(deal, trees(), segment); }
    int32_t parent_in(int tree) const { return tree == 0 ? parent : more_trees[static_cast<size_t>(tree - 1)].parent; }
    const std::vector<ChildStep>& children_in(int tree) const {
        return tree == 0 ? children : more_trees[static_cast<size_t>(tree - 1)].children;
    }
};

struct Plan {
    PlanRequest request;
    // The vector is reduced in this many segments (plan/predict/segments.hpp), >= 1: the request's count, at most
    // `elements`, or the one the model predicts fastest. tree_makespan_s and makespan_s are predicted for it; the
    // per-rank times (ready_s, send_start_s, arrive_s) are those of the whole vector in one piece.
    int32_t segments = 1;
    std::vector<int32_t> parent;  // by rank; -1 for the sink
    int32_t sink = 0;             // rank that ends the tree with the result
    bool final_transfer = false;  // sink != root: one more transfer of d, counted in makespan_s
    // Children in fold order, compressed: the children of rank r are child_rank[child_offset[r] ..
    // child_offset[r + 1]), with child_joins_left alongside.
    std::vector<int32_t> child_offset;
    std::vector<int32_t> child_rank;
    std::vector<uint8_t> child_joins_left;
    // More trees (the two-tree and multi-tree strategies), all ending on `sink`: segment j is reduced along tree
    // tree_of(j), tree 0 being the one above: deal[j % deal.size()], or j % (1 + more_trees.size()) when deal is
    // empty (RankTrees::deal). Empty for every other strategy. The per-rank times below are tree 0's.
    std::vector<TreeShape> more_trees;
    std::vector<int32_t> deal;
    std::vector<double> release_s;  // by rank, earliest send time; empty unless the strategy fixes them
    std::vector<double> ready_s;    // by rank, predicted by the simulator
    std::vector<double> send_start_s;
    std::vector<double> arrive_s;  // by rank: the transfer to the parent ends (-1 for the sink)
    double tree_makespan_s = 0;    // sink ready (its last segment), as the simulator predicts
    double makespan_s = 0;         // the result complete on the root: after the final transfer when there is one
    // Where ranks share cores (plan/predict/shared_cores.hpp; set by plan selection, which knows where ranks run): the
    // least time their transfers and folds take on the threads they share; 0 where none do.
    double shared_cores_floor_s = 0;
    double unsegmented_makespan_s = 0;  // makespan_s of the same tree with the vector in one piece
    double builder_makespan_s = 0;      // the builder's own prediction under the costs it planned with
    // Bounds on the optimum of unsegmented reductions (a segmented plan may end below lower_bound_s).
    double lower_bound_s = 0;  // Lemma 5 for the optimum of this n, d, c (every cost at its minimum)
    double upper_bound_s = 0;  // Proposition 6 (every cost at its maximum)

    // What the plan predicts: its makespan, or the shared cores' floor where that is larger. Plan selection ranks
    // plans by it, then by makespan_s (plan/select.cpp).
    double predicted_s() const { return std::max(makespan_s, shared_cores_floor_s); }

    int32_t tree_of(int64_t segment) const {
        return segment_tree(deal, 1 + static_cast<int32_t>(more_trees.size()), segment);
    }
};

// Throws std::invalid_argument when validate(request) is not empty.
Plan make_plan(const PlanRequest& request);

RankProgram program_for(const Plan& plan, int32_t rank);

}  // namespace redux
