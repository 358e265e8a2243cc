// Segmented, pipelined reductions: the model the planner predicts them with, and its simulation on one tree.
//
// The idea is the pipelined reduction of the encyclopedia entry "Reduce (parallel pattern)": cut the vector into
// m segments and reduce each along the same tree, so that a rank folds segment j while it receives segment j + 1
// and sends segment j - 1. A linear pipeline of p ranks then takes (p + m - 2) steps of one segment instead of
// p - 1 steps of the whole vector; a tree of height h with two children per rank about (h + 2m - 2).
//
// The model extends Canon & Antoniu's (d moves the whole vector, c folds it; one port; overlap) to segments, and
// matches what the tree runner (exec/lanes.cpp) does:
//   - Costs. The `elements` are cut by segment_begin(); a segment of e elements costs
//         d_e = latency_s + (transfer_s - latency_s) e / elements      to move (sender and receiver both busy),
//     or, when the request carries the calibrated curve of d against the bytes (PlanRequest::segment_curve),
//         d_e = transfer_s x curve(e bytes) / curve(elements bytes),
//         c_e = a + (compute_s - a) e / elements                       to fold,
//     a the op's cost per application (Costs::compute_call_s), paid by every segment.
//     With per-link costs (PlanRequest::hetero_costs) a segment from i to p costs d_ip scaled the same way, with
//     the request's one latency_s clamped to d_ip, and a fold on p costs c_p e / elements. d_e is computed as
//     transfer_s - (transfer_s - latency_s)(elements - e) / elements, so that a whole vector costs exactly d.
//   - Ports. Every rank has one receive port, one send port and one reducer, all busy at once (a rank receives
//     segment j + 1 from a child, folds segment j and sends segment j - 1 to its parent at the same time).
//   - Receives. A rank's receives form one stream, segment-major, children in the plan's fold order: position
//     q = j K + k is segment j from child k (K children). Receive q starts when
//         the child can send segment j  (below),
//         receive q - 1 has arrived     (one receive in flight: the one receive port), and
//         the fold of receive q - W has ended (W = recv_window scratch slots; W >= 1, the executor's default 2),
//     and arrives d_e later. With a time in flight F on the link (Costs::flight_s, or L_ij under per-link costs;
//     F_e = min(F, d_e), F scaled to the segment's size by the calibrated curve's flight where the request has one, and
//     then at most d_e less the curve's port time (d - L) at that size;
//     only when the request's own flight (at 8 B, with a curve) is below its latency part, else every link is one-port
//     here: see SegmentCosts) the segment leaves when the child can send it, reaches the port F_e later, and holds
//     the port for d_e - F_e once the conditions above allow: the latency of a stream of segments is paid once,
//     not per segment, as on a real network where the next message is on its way while one is received (an eager
//     send needs no posted receive). At F = 0 it is the one-port model above.
//   - Folds, in stream order: fold q starts at max(arrival of q, end of fold q - 1) and takes c_e.
//   - Sends. A rank's segment j is ready when its last fold of segment j ends (a leaf's at time 0). It can send
//     segment j at max(segment j ready, its send of segment j - 1 arrived, its release time) -- one send port,
//     segments in order on each edge -- and the transfer starts when the receiver is ready as above (with a time in
//     flight, "arrived" is "arrived less F_e": the next segment reaches the port as this one leaves it, and never
//     leaves before the sender's own part of the previous one, d_e - F_e after it left). A release
//     time (Algorithm 2's plans fix one per rank) holds back every segment; Algorithm 2's bound on concurrent
//     transfers is not kept once segments overlap.
//   - Final transfer. When a non-commutative plan's sink is not the root (Plan::final_transfer), the sink sends
//     each segment to the root once it is ready, in order, through its own send port (the sink has no parent).
//     The root's receives of these are taken not to contend with its receives from its children: they go to
//     another buffer, and the root's own part of segment j is usually sent before the result's segment j comes.
//   - The makespan is when the last segment is complete at the root.
// At m = 1 with W >= 2 this is the unsegmented simulator's schedule (simulator.cpp) whenever the fold order is
// the order of arrival, as it is for the homogeneous strategies: a receive that waits for a scratch slot (W >= 2)
// arrives before the fold in progress ends, so it never delays a fold. With W = 1 a rank does not receive while
// it folds. At m = 1 make_plan keeps the unsegmented simulation's numbers (predict_segments), also where the fold
// order is not the order of arrival (homogeneous trees under per-link costs). The plan's ready_s, send_start_s
// and arrive_s stay those of the unsegmented simulation.
//
// Simulation. A rank's ready times depend only on its subtree: its receives wait for its children and for itself,
// never for its parent. So ranks are visited in post-order (children first, from an explicit stack) and each
// computes the ready time of its m segments from its children's, in one pass over its stream of K m receives;
// a child's array is dropped once its parent has used it (leaves have none: all zero). Theta(n m) time and
// O(n + m (depth x degree)) memory: the post-order of the ranks, and a few arrays of m doubles at a time for the
// trees the builders make.
#include "plan/predict/segments.hpp"

#include "plan/planner.hpp"
#include "plan/predict/multi_tree_segments.hpp"
#include "plan/predict/segment_model.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace redux {
namespace {

using segmented::Link;
using segmented::MultiTreeSimulation;
using segmented::post_order;
using segmented::SegmentCosts;
using segmented::Transfer;

class SegmentSimulation {
public:
    SegmentSimulation(const Plan& plan, int32_t segments)
        : plan_(plan),
          m_(segments),
          window_(std::max<int32_t>(1, plan.request.recv_window)),
          costs_(plan.request, segments) {}

    SegmentTimes run() {
        const auto n = static_cast<int32_t>(plan_.parent.size());
        ready_.assign(static_cast<size_t>(n), {});
        for (int32_t rank : post_order(plan_.child_offset, plan_.child_rank, plan_.sink)) receive_children(rank);
        SegmentTimes times;
        const std::vector<double>& sink = ready_[plan_.sink];
        times.tree_makespan_s = sink.empty() ? 0.0 : sink.back();
        times.makespan_s = plan_.final_transfer ? final_transfer_end_s(sink) : times.tree_makespan_s;
        return times;
    }

private:
    // `rank`'s stream of receives, segment-major, children in fold order; fills ready_[rank] and drops the
    // children's arrays.
    void receive_children(int32_t rank) {
        const int32_t first = plan_.child_offset[rank];
        const int32_t children = plan_.child_offset[rank + 1] - first;
        if (children == 0) return;  // a leaf: every segment ready at 0
        links_.clear();
        child_ready_.clear();
        // Each child's send of the previous segment arrived; a release time holds back its first one (and so all).
        sent_.assign(static_cast<size_t>(children), 0.0);
        slot_free_.assign(static_cast<size_t>(window_), 0.0);
        for (int32_t k = 0; k < children; ++k) {
            const int32_t child = plan_.child_rank[first + k];
            links_.push_back(costs_.link(child, rank));
            child_ready_.push_back(ready_[child].empty() ? nullptr : ready_[child].data());
            if (!plan_.release_s.empty()) sent_[k] = plan_.release_s[child];
        }
        const double compute_s = costs_.compute_s(rank);
        std::vector<double> ready(static_cast<size_t>(m_));
        double arrived_s = 0, folded_s = 0;  // receive q - 1 arrived, fold q - 1 ended
        int32_t slot = 0;                    // q mod W: its entry holds the end of fold q - W
        for (int32_t j = 0; j < m_; ++j) {
            const double fold_s = costs_.fold_s(compute_s, j);
            for (int32_t k = 0; k < children; ++k) {
                const double can_send_s = std::max(child_ready_[k] ? child_ready_[k][j] : 0.0, sent_[k]);
                const Transfer t = costs_.transfer(links_[k], j, can_send_s, std::max(arrived_s, slot_free_[slot]));
                arrived_s = t.arrived_s;
                folded_s = std::max(arrived_s, folded_s) + fold_s;
                sent_[k] = t.next_send_s;
                slot_free_[slot] = folded_s;
                if (++slot == window_) slot = 0;
            }
            ready[j] = folded_s;
        }
        for (int32_t k = 0; k < children; ++k) std::vector<double>().swap(ready_[plan_.child_rank[first + k]]);
        ready_[rank] = std::move(ready);
    }

    // The sink sends every segment to the root once it is ready, in order.
    double final_transfer_end_s(const std::vector<double>& sink_ready) const {
        const Link link = costs_.link(plan_.sink, plan_.request.root);
        double arrived_s = 0, next_send_s = 0;
        for (int32_t j = 0; j < m_; ++j) {
            const double ready_s = sink_ready.empty() ? 0.0 : sink_ready[j];
            const Transfer t = costs_.transfer(link, j, std::max(ready_s, next_send_s), arrived_s);
            arrived_s = t.arrived_s;
            next_send_s = t.next_send_s;
        }
        return arrived_s;
    }

    const Plan& plan_;
    int32_t m_;
    int32_t window_;
    SegmentCosts costs_;
    std::vector<std::vector<double>> ready_;  // by rank: each segment's ready time, while its parent needs it
    std::vector<Link> links_;                 // of the rank being computed: by child, in fold order
    std::vector<const double*> child_ready_;  // null for a leaf
    std::vector<double> sent_;
    std::vector<double> slot_free_;
};

}  // namespace

SegmentTimes simulate_segments(const Plan& plan, int32_t segments) {
    if (!plan.more_trees.empty()) return MultiTreeSimulation(plan, segments).run();
    return SegmentSimulation(plan, segments).run();
}

SegmentTimes simulate_segments_segment_major(const Plan& plan, int32_t segments) {
    return MultiTreeSimulation(plan, segments).run();
}

SegmentTimes predict_segments(const Plan& plan, int32_t segments) {
    if (segments == 1 && plan.more_trees.empty()) return {plan.tree_makespan_s, plan.makespan_s};
    return simulate_segments(plan, segments);
}

double summed_segment_transfers_s(const PlanRequest& request, double d, int32_t segments) {
    return segments <= 1 ? d : SegmentCosts(request, segments).summed_transfer_s(d);
}

}  // namespace redux
