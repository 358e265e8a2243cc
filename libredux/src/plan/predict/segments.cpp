// Segmented, pipelined reductions: the model the planner predicts them with, and the choice of the segment count.
//
// The idea is the pipelined reduction of the encyclopedia entry "Reduce (parallel pattern)": cut the vector into
// m segments and reduce each along the same tree, so that a rank folds segment j while it receives segment j + 1
// and sends segment j - 1. A linear pipeline of p ranks then takes (p + m - 2) steps of one segment instead of
// p - 1 steps of the whole vector; a tree of height h with two children per rank about (h + 2m - 2).
//
// The model extends Canon & Antoniu's (d moves the whole vector, c folds it; one port; overlap) to segments, and
// matches what the executor (exec/executor.cpp) does:
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
//
// Choosing m (PlanRequest::segments == 0). The prediction T(m) falls steeply while segments shorten the pipeline
// fill, then rises slowly as the latency of every extra segment adds up: close to a convex function of m, as the
// entry's closed forms (latency + (d - latency) / m)(h + K m - K) are. But the cut makes it ripple: m segments of
// which the largest holds ceil(elements / m) elements pace the pipeline like the fewest segments with that largest
// size, and cost more latency. The search (choose_segments) therefore walks the candidates, the fewest segments for
// each largest size (every m once elements >= cap^2):
//   1. every m from 1 to the cap when the cap is at most kExhaustiveUpTo (64); otherwise
//   2. a coarse scan of the candidates, about geometric (m = 1, 2, 3, 4, 6, 9, ..., ratio 3/2), that stops once
//      two scanned counts in a row predict 10 % more than the best so far (past the minimum of a convex T);
//   3. a ternary search over the candidates between the neighbours of the best scanned one, down to
//      kLocalWidth of them, then each of those;
//   4. the counts after the best with the same largest segment (more segments, a smaller first one: the fill
//      shortens, sometimes by more than the extra latency).
// Exact on a unimodal T. The unit tests compare it with every count (elements up to 5000, every homogeneous
// strategy): the same minimum within 1e-9 whenever latency_s > 0; with latency_s = 0 (predictions nearly flat
// near the cap) up to 1e-4 above it, less than one element's share of the vector.
// The cap is min(elements, 4096): in the closed forms the most a larger count could gain is the fill of the
// pipeline at the cap, about (h - 1)(d - latency) / 4096 for a tree of height h, under 1 % of d up to height 41
// (every logarithmic tree up to millions of ranks); and each segment is one more message per edge, whose software
// costs the executor pays and the model sees only through latency_s. A forced count (segments >= 1) is not capped.
//
// Planning time: one simulation costs O(ranks x segments), times its passes for a plan over several trees (up to
// MultiTreeSimulation::kSharingPasses), and the search simulates a few dozen counts per candidate. Every rank of a
// communicator plans each new key, so the search is bounded by its work, never by a clock (the ranks must reach the
// same plan): its search simulates at most kSearchSegments segments per rank (ranks x kSearchSegments
// rank-segments), whatever the vector's length, and a plan over several trees about as much again to predict its
// finalists in more passes (Search). The first prediction is always made; a count whose prediction
// would go past the bound is skipped, treated as no better than the best so far. The steps above run in the
// order of their worth: the main search (small counts first), the curve's points from the largest size down (the
// fewest segments first), the counts after the best. At 8 to 16 ranks a search then takes a millisecond or less;
// choice_cache.hpp keeps its answers for keys of the same shape.
#include "plan/predict/segments.hpp"

#include "plan/planner.hpp"
#include "plan/predict/choice_cache.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace redux {
namespace {

constexpr int32_t kExhaustiveUpTo = 64;  // caps at most this: every m is predicted
constexpr int32_t kLocalWidth = 8;       // the ternary search stops at intervals this narrow, then scans them
constexpr double kTieRelative = 1e-12;   // predictions closer than this are equal: the fewer segments win
constexpr double kRiseToStop = 0.1;      // the scan stops after two counts predicted 10 % above the best so far

struct Link {
    double d = 0;        // the whole vector's
    double latency = 0;  // the part of d every segment pays (PlanRequest::latency_s)
    double flight = 0;   // the time in flight of a message (Costs::flight_s, L_ij)
};
struct Transfer {
    double arrived_s = 0;
    double next_send_s = 0;
};

// The calibrated curve of d (and the time in flight) against the bytes, if the request has one.
const LinkFit* curve_of(const PlanRequest& request) {
    return request.segment_curve && request.element_bytes > 0 ? request.segment_curve.get() : nullptr;
}

// The costs of one segment of every size a plan's cut produces, and of the links the plan uses.
class SegmentCosts {
public:
    // A time in flight as long as the whole latency part leaves a segment no port time of its own, and segments
    // free: calibration could not resolve the port part of a small message (ranks of one node, where a stream is
    // no slower than a round trip: L = d(8 B)). Then every link is one-port here, as where the request says
    // segments do not see the flight (PlanRequest::segment_flight: ranks of one node). With the calibrated curve,
    // that is judged at 8 B (the request's flight is its whole message's, LinkFit::flight_at), and a segment's
    // flight is the link's scaled as the curve's flight from the whole message's size to the segment's, leaving it at
    // least the port time the curve has at the segment's size, and at least a message's overhead and its bytes at the
    // link's bandwidth (port_floor_).
    SegmentCosts(const PlanRequest& request, int32_t segments)
        : request_(request),
          with_flight_(request.segment_flight &&
                       (curve_of(request) ? curve_of(request)->flight_s < curve_of(request)->at(8)
                                          : request.costs.flight_s < request.latency_s)) {
        const auto total = static_cast<double>(request.elements);
        share_.resize(static_cast<size_t>(segments));
        rest_.resize(static_cast<size_t>(segments));
        const LinkFit* curve = curve_of(request);
        const auto whole_bytes = static_cast<size_t>(request.elements * request.element_bytes);
        const double whole_s = curve ? curve->at(whole_bytes) : 0;
        const double whole_flight_s = curve ? curve->flight_at(whole_bytes) : 0;
        // Every message holds the port at least for its own overhead (the port part of 8 B) and its bytes at the
        // curve's last slope (the link's bandwidth): segments in flight together stream no faster than the link.
        const double message_s = curve ? std::max(0.0, curve->at(8) - curve->flight_at(8)) : 0;
        const double bandwidth_s = curve ? std::max(0.0, curve->beta_s_per_byte) : 0;
        for (int32_t j = 0; j < segments; ++j) {
            const int64_t e =
                segment_begin(request.elements, segments, j + 1) - segment_begin(request.elements, segments, j);
            share_[j] = static_cast<double>(e) / total;
            rest_[j] = static_cast<double>(request.elements - e) / total;
            if (curve) {
                const auto e_bytes = static_cast<size_t>(e * request.element_bytes);
                const double curve_s = curve->at(e_bytes), flight_s = curve->flight_at(e_bytes);
                if (whole_s > 0) curve_ratio_.push_back(std::min(1.0, curve_s / whole_s));  // d_e = d x ratio, <= d
                flight_ratio_.push_back(whole_flight_s > 0 ? flight_s / whole_flight_s : 1.0);
                port_floor_.push_back(std::max({0.0, curve_s - flight_s, message_s + e_bytes * bandwidth_s}));
            }
        }
    }

    // The link from -> to: d (whole vector), the latency part of it, and its time in flight.
    Link link(int32_t from, int32_t to) const {
        const HeteroCosts* h = request_.hetero_costs.get();
        const double d = h ? h->transfer_s(from, to) : request_.costs.transfer_s;
        const double flight = h ? h->flight_s(from, to) : request_.costs.flight_s;
        return {d, std::min(request_.latency_s, d), with_flight_ ? std::clamp(flight, 0.0, d) : 0.0};
    }
    double compute_s(int32_t rank) const {
        return request_.hetero_costs ? request_.hetero_costs->compute_s(rank) : request_.costs.compute_s;
    }
    // Segment j from a rank that can send it at can_send_s to a receiver whose port is free at port_free_s:
    // it reaches the port flight later, holds it for the rest of d_e; returns when it has arrived, and sets
    // next_send_s to when the sender may send the next segment on this link (so that it reaches the port when this
    // one leaves it: at flight 0, when this one has arrived).
    Transfer transfer(const Link& link, int32_t j, double can_send_s, double port_free_s) const {
        const double d_e = transfer_s(link, j);
        const double flight =
            flight_ratio_.empty()
                ? std::min(link.flight, d_e)
                : std::clamp(std::min(link.flight * flight_ratio_[j], d_e - port_floor_[j]), 0.0, d_e);
        const double arrived_s = std::max(can_send_s + flight, port_free_s) + d_e - flight;
        return {arrived_s, std::max(can_send_s + d_e - flight, arrived_s - flight)};
    }
    // Segment j's fold on a rank whose whole fold takes compute_s: the op's per-application part, then its share.
    double fold_s(double compute_s, int32_t j) const {
        const double per_call_s = std::min(request_.costs.compute_call_s, compute_s);
        return per_call_s + (compute_s - per_call_s) * share_[j];
    }
    // Segment j's d_e on `link`, and its latency part (what it takes at any size; the rest is the bytes' time).
    double segment_s(const Link& link, int32_t j) const { return transfer_s(link, j); }
    double latency_s(const Link& link, int32_t j) const { return std::min(link.latency, transfer_s(link, j)); }
    // The summed d_e of every segment on a link whose whole vector takes d.
    double summed_transfer_s(double d) const {
        const Link link{d, std::min(request_.latency_s, d), 0.0};
        double sum = 0;
        for (size_t j = 0; j < share_.size(); ++j) sum += transfer_s(link, static_cast<int32_t>(j));
        return sum;
    }

private:
    // d_e of segment j on a link of (d, latency): d - (d - latency)(elements - e) / elements, or d times the
    // curve's ratio when the request has one.
    double transfer_s(const Link& link, int32_t j) const {
        if (!curve_ratio_.empty()) return link.d * curve_ratio_[j];
        return link.d - (link.d - link.latency) * rest_[j];
    }

    const PlanRequest& request_;
    bool with_flight_;
    std::vector<double> share_;         // e_j / elements
    std::vector<double> rest_;          // (elements - e_j) / elements
    std::vector<double> curve_ratio_;   // d_e / d by the request's curve; empty without one
    std::vector<double> flight_ratio_;  // F_e / F by the request's curve; empty without one (F_e = F)
    // With the curve, what a message of segment j's size holds the port for by the curve (d - L there, the hosts'
    // part: the same on every link): a segment holds the port at least that long. Without it a link whose d is below
    // the class's (a near node pair) would scale its d_e under its F_e, segments would look free, and trees would be
    // planned in thousands of segments of one element.
    std::vector<double> port_floor_;
};

// The ranks of a tree (children of r: child_rank[child_offset[r] .. child_offset[r + 1])) children first, from
// `sink`, with an explicit stack: a rank comes after all of its children.
std::vector<int32_t> post_order(const std::vector<int32_t>& child_offset, const std::vector<int32_t>& child_rank,
                                int32_t sink) {
    std::vector<int32_t> order;
    std::vector<std::pair<int32_t, int32_t>> stack{{sink, 0}};  // (rank, children visited so far)
    while (!stack.empty()) {
        auto& [rank, visited] = stack.back();
        const int32_t first = child_offset[rank];
        if (first + visited < child_offset[rank + 1]) {
            const int32_t child = child_rank[first + visited++];
            stack.emplace_back(child, 0);
            continue;
        }
        order.push_back(rank);
        stack.pop_back();
    }
    return order;
}

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

// Several trees (Plan::more_trees, the two-tree strategy): segment j goes along tree tree_of(j), j % T there. A rank's
// receives still form one stream, segment-major, now with each segment's children in its own tree. Its sends form one
// stream per tree (to that tree's parent, in segment order), as the executor's: the segments a rank is a leaf
// for are its own data, ready at 0 and sent ahead of its folds. The streams of different trees share the rank's
// link out as a network shares it between messages under way together: each send pays its latency alone, and its
// bytes move at the full bandwidth while it is the rank's only send under way, at half while a send of the other
// tree is (the two-tree: a rank sends in both trees, one segment per tree every two segments). Which sends overlap
// depends on the schedule, so it is computed again until it settles (share_link): each pass shares the links
// with the sends as they are placed so far in this pass and, beyond, as the pass before placed them. That settles
// within 0.01 % in about a dozen passes at 64 KiB; at 4 MiB in a hundred segments it swings by a few percent
// from pass to pass, and the last of kSharingPasses is taken (fewer passes on large plans: kSharingWork). The exception
// is a root that receives the result from the sink (a final transfer): the executor has it send every segment in turn,
// so there its leaf segments are ready once it has folded the earlier ones and its sends are one stream. A rank's times
// now depend on ranks outside its subtree (a parent in another tree paces its sends), so the simulation goes segment by
// segment, and within a segment through its tree in post-order (children first), with each rank's receive port,
// reducer, send streams and W scratch slots carried from one segment to the next. Theta(n m log m) time per pass and
// Theta(n (W + T) + n m) memory. With one tree it is the single-tree simulation above (a unit test checks it).
class MultiTreeSimulation {
public:
    MultiTreeSimulation(const Plan& plan, int32_t segments)
        : plan_(plan),
          m_(segments),
          window_(std::max<int32_t>(1, plan.request.recv_window)),
          costs_(plan.request, segments) {
        trees_.push_back({&plan.child_offset, &plan.child_rank});  // tree 0 is the plan's own
        for (const TreeShape& tree : plan.more_trees) trees_.push_back({&tree.child_offset, &tree.child_rank});
        for (const Children& tree : trees_) order_.push_back(post_order(*tree.offset, *tree.rank, plan.sink));
    }

    // The schedule is computed again, each pass sharing every rank's link out with its sends of the other trees as
    // the pass before placed them, until no send moves (or kSharingPasses).
    // The passes at most of a prediction whose pass simulates `steps` rank-segments.
    static int32_t most_passes(int64_t steps) {
        return static_cast<int32_t>(std::clamp<int64_t>(kSharingWork / std::max<int64_t>(steps, 1), 1, kSharingPasses));
    }

    // passes_at_most: fewer than most_passes() makes a cheaper, rougher prediction (the search's, below).
    SegmentTimes run(int32_t passes_at_most = kSharingPasses) {
        SegmentTimes times = pass();
        const int32_t passes = std::min(passes_at_most, most_passes(static_cast<int64_t>(plan_.parent.size()) * m_));
        for (int32_t p = 1; p < passes && trees_.size() > 1; ++p) {
            previous_.swap(sends_);
            const SegmentTimes next = pass();
            const bool settled = std::abs(next.makespan_s - times.makespan_s) <= kSettled * times.makespan_s;
            times = next;
            if (settled) break;
        }
        return times;
    }

private:
    SegmentTimes pass() {
        const auto n = static_cast<size_t>(plan_.parent.size());
        const size_t trees = trees_.size();
        sends_.assign(n * trees, {});
        arrived_.assign(n, 0.0);
        folded_.assign(n, 0.0);
        sent_.assign(n * trees, 0.0);
        for (size_t r = 0; r < n && !plan_.release_s.empty(); ++r) {
            std::fill_n(sent_.begin() + static_cast<std::ptrdiff_t>(r * trees), trees, plan_.release_s[r]);
        }
        slot_free_.assign(n * static_cast<size_t>(window_), 0.0);
        slot_.assign(n, 0);
        const Link link_to_root = costs_.link(plan_.sink, plan_.request.root);
        double sink_ready_s = 0, result_arrived_s = 0, result_next_send_s = 0;
        for (int32_t j = 0; j < m_; ++j) {
            const auto t = static_cast<size_t>(plan_.tree_of(j));
            for (int32_t rank : order_[t]) receive_children(trees_[t], t, rank, j);
            sink_ready_s = folded_[static_cast<size_t>(plan_.sink)];
            if (plan_.final_transfer) {
                const Transfer tr =
                    costs_.transfer(link_to_root, j, std::max(sink_ready_s, result_next_send_s), result_arrived_s);
                result_arrived_s = tr.arrived_s;
                result_next_send_s = tr.next_send_s;
            }
        }
        return {sink_ready_s, plan_.final_transfer ? result_arrived_s : sink_ready_s};
    }

    // One tree's children lists (the plan's own, or one of more_trees), in fold order.
    struct Children {
        const std::vector<int32_t>* offset;
        const std::vector<int32_t>* rank;
    };

    // Sends ahead: every rank but a root waiting for the sink's result, when there are several trees.
    bool ahead(size_t rank) const {
        return trees_.size() > 1 && !(plan_.final_transfer && rank == static_cast<size_t>(plan_.request.root));
    }

    // Segment j's receives at `rank` from its children in tree t, in fold order; folded_[rank] becomes the time
    // its segment j is ready.
    void receive_children(const Children& tree, size_t t, int32_t rank, int32_t j) {
        const std::vector<int32_t>& offset = *tree.offset;
        const auto r = static_cast<size_t>(rank);
        const double compute_s = costs_.compute_s(rank);
        const double fold_s = costs_.fold_s(compute_s, j);
        double* slots = slot_free_.data() + r * static_cast<size_t>(window_);
        for (int32_t k = offset[rank]; k < offset[rank + 1]; ++k) {
            const int32_t child_rank = (*tree.rank)[k];
            const auto child = static_cast<size_t>(child_rank);
            const bool leaf = offset[child] == offset[child + 1];
            double& sent_s = sent_[child * trees_.size() + (ahead(child) ? t : 0)];
            const double can_send_s = std::max(leaf && ahead(child) ? 0.0 : folded_[child], sent_s);
            const Link link = costs_.link(child_rank, rank);
            Transfer tr = costs_.transfer(link, j, can_send_s, std::max(arrived_[r], slots[slot_[r]]));
            if (ahead(child)) share_link(child, t, link, j, tr);
            arrived_[r] = tr.arrived_s;
            folded_[r] = std::max(arrived_[r], folded_[r]) + fold_s;
            sent_s = tr.next_send_s;
            slots[slot_[r]] = folded_[r];
            if (++slot_[r] == window_) slot_[r] = 0;
        }
    }

    // `rank`'s send in tree t of segment j over `link`, as `tr` has it alone on the link: after its latency, its
    // bytes share the rank's link out with its sends of the other trees as the previous pass placed them (a fair
    // share: half the bandwidth while one of those is under way), which delays its arrival and the next send.
    void share_link(size_t rank, size_t t, const Link& link, int32_t j, Transfer& tr) {
        const double latency_s = costs_.latency_s(link, j);
        const double bytes_s = costs_.segment_s(link, j) - latency_s;
        const double begin_s = tr.arrived_s - bytes_s;  // its bytes start moving
        double end_s = begin_s + bytes_s;
        if (!previous_.empty()) {
            // the other trees' sends from this rank (two trees: one other send stream, its sends one at a time)
            double at_s = begin_s, left_s = bytes_s;
            for (size_t u = 0; u < trees_.size() && left_s > 0; ++u) {
                if (u == t) continue;
                // this pass's sends so far, then the previous pass's later ones
                const std::vector<Busy>& now = sends_[rank * trees_.size() + u];
                const std::vector<Busy>& before = previous_[rank * trees_.size() + u];
                const auto send = [&](size_t i) -> const Busy& { return i < now.size() ? now[i] : before[i]; };
                const size_t count = std::max(now.size(), before.size());
                size_t lo = 0, hi = count;  // the first that ends after at_s
                while (lo < hi) {
                    const size_t mid = (lo + hi) / 2;
                    if (send(mid).end_s <= at_s) {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                for (size_t i = lo; i < count && left_s > 0; ++i) {
                    const Busy* busy = &send(i);
                    const double alone_s = std::max(0.0, busy->begin_s - at_s);  // the link to itself until then
                    if (left_s <= alone_s) break;
                    left_s -= alone_s;
                    at_s = std::max(at_s, busy->begin_s);
                    const double shared_s = busy->end_s - at_s;  // half the bandwidth until the other one ends
                    if (left_s <= shared_s / 2) {
                        at_s += 2 * left_s;
                        left_s = 0;
                        break;
                    }
                    left_s -= shared_s / 2;
                    at_s = busy->end_s;
                }
            }
            end_s = at_s + left_s;
        }
        sends_[rank * trees_.size() + t].push_back({begin_s, end_s});
        const double delay_s = end_s - (begin_s + bytes_s);
        tr.arrived_s += delay_s;
        tr.next_send_s += delay_s;
    }

    struct Busy {
        double begin_s, end_s;
    };
    static constexpr int32_t kSharingPasses = 24;  // at most; they settle in about a dozen
    static constexpr double kSettled = 1e-6;       // a pass that moves the makespan less than this: done
    // Rank-segments simulated for one prediction, at most: every pass up to 64 ranks in 1024 segments (the same
    // work as one pass of 1024 ranks in 1536), fewer beyond, so that planning time stays that of one tree's
    // simulation times a small factor.
    static constexpr int64_t kSharingWork = int64_t{kSharingPasses} * 65536;

    const Plan& plan_;
    int32_t m_;
    int32_t window_;
    SegmentCosts costs_;
    std::vector<Children> trees_;
    std::vector<std::vector<int32_t>> order_;  // by tree: its ranks children first
    // By rank: its last receive arrived, its last fold ended (= its latest segment ready), its last send of each
    // tree arrived (T a rank), its W scratch slots' fold ends and the next slot.
    std::vector<double> arrived_, folded_, sent_, slot_free_;
    std::vector<int32_t> slot_;
    // By rank and tree: the rank's sends in that tree, when their bytes move, this pass and the one before.
    std::vector<std::vector<Busy>> sends_, previous_;
};

// Predictions by segment count, each made once; `better` orders them (smaller makespan, then fewer segments). A
// plan over several trees is searched on its first pass only (each further pass moves its sends by what the other
// trees' took in the pass before: a few percent of the makespan, the ranking of counts mostly as the first pass
// has it), and the kFinalists counts whose first pass predicts least are predicted again at the end, in as many
// passes as another kSearchSegments allow (every pass, up to MultiTreeSimulation::kSharingPasses, where the vector
// is cut into few segments), the best of them in two passes at least. In all, a choice simulates at most
// kSearchSegments segments per rank in its search and kSearchSegments + 2 kMaxChosenSegments in its finalists.
class Search {
public:
    explicit Search(const Plan& plan) : plan_(plan), several_trees_(!plan.more_trees.empty()) {}

    // The prediction at m segments; infinite where making it would go past kSearchSegments.
    double operator()(int32_t m) {
        auto found = seen_.find(m);
        if (found == seen_.end()) {
            const int64_t work = m == 1 && !several_trees_ ? 0 : m;  // one segment of one tree: the plan's own
            if (!seen_.empty() && searched_ + work > kSearchSegments) return std::numeric_limits<double>::infinity();
            searched_ += work;
            const SegmentTimes times =
                several_trees_ ? MultiTreeSimulation(plan_, m).run(1) : predict_segments(plan_, m);
            found = seen_.emplace(m, times).first;
        }
        return found->second.makespan_s;
    }

    bool better(int32_t a, int32_t b) {
        const double ta = (*this)(a), tb = (*this)(b);
        if (std::abs(ta - tb) <= kTieRelative * std::max(ta, tb)) return a < b;
        return ta < tb;
    }

    // The count of the smallest prediction so far (among equal ones the fewest segments).
    int32_t best_seen() const { return best_of(seen_).segments; }

    // The best count seen; of a plan over several trees, the best of the finalists predicted again.
    SegmentChoice best() const {
        SegmentChoice choice = best_of(seen_);
        choice.evaluations = static_cast<int32_t>(seen_.size());
        choice.simulated_segments = searched_;
        if (!several_trees_) return choice;
        std::vector<std::pair<double, int32_t>> ranked;  // (first pass's prediction, m)
        for (const auto& [m, times] : seen_) ranked.emplace_back(times.makespan_s, m);
        std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        std::map<int32_t, SegmentTimes> finalists;
        int64_t left = kSearchSegments, simulated = searched_;
        for (size_t i = 0; i < ranked.size() && i < static_cast<size_t>(kFinalists); ++i) {
            const int32_t m = ranked[i].second;
            const int64_t most = MultiTreeSimulation::most_passes(static_cast<int64_t>(plan_.parent.size()) * m);
            const int64_t passes = std::min(most, std::max<int64_t>(i == 0 ? 2 : 0, left / m));
            if (passes < std::min<int64_t>(most, 2)) break;  // no pass beyond the search's
            finalists.emplace(m, MultiTreeSimulation(plan_, m).run(static_cast<int32_t>(passes)));
            left -= passes * m;
            simulated += passes * m;
        }
        const int32_t evaluations = choice.evaluations + static_cast<int32_t>(finalists.size());
        choice = best_of(finalists);
        choice.evaluations = evaluations;
        choice.simulated_segments = simulated;
        return choice;
    }

private:
    static constexpr int32_t kFinalists = 6;

    // The smallest prediction, among equal ones the fewest segments.
    static SegmentChoice best_of(const std::map<int32_t, SegmentTimes>& predicted) {
        SegmentChoice choice;
        bool first = true;
        for (const auto& [m, times] : predicted) {  // in increasing m
            const double t = times.makespan_s, best_t = choice.times.makespan_s;
            if (first || (std::abs(t - best_t) > kTieRelative * std::max(t, best_t) && t < best_t)) {
                choice.segments = m;
                choice.times = times;
                first = false;
            }
        }
        return choice;
    }

    const Plan& plan_;
    const bool several_trees_;
    int64_t searched_ = 0;  // segments per rank the search has simulated
    std::map<int32_t, SegmentTimes> seen_;
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

int32_t max_chosen_segments(const Plan& plan) {
    if (plan.request.model != TransferModel::overlap) return 1;
    return static_cast<int32_t>(std::min<int64_t>(plan.request.elements, kMaxChosenSegments));
}

std::vector<int32_t> candidate_segments(int64_t elements, int32_t cap) {
    std::vector<int32_t> counts;
    for (int32_t m = 1; m <= cap; ++m) {
        const int64_t largest = (elements + m - 1) / m;
        if ((elements + largest - 1) / largest == m) counts.push_back(m);
    }
    return counts;
}

namespace {

// The counts after the best one found that cut no larger segments (up to the next candidate): more segments, the
// largest of the same size, sometimes a little better.
void scan_same_largest(Search& search, const std::vector<int32_t>& counts) {
    const int32_t best = search.best().segments;
    const auto next = std::upper_bound(counts.begin(), counts.end(), best);
    const int32_t end = next == counts.end() ? counts.back() + 1 : *next;
    for (int32_t m = best + 1; m < end; ++m) search(m);
}

}  // namespace

namespace {

// Steps 2 and 3 of the search (above) over `counts`, ascending.
void search_counts(Search& search, const std::vector<int32_t>& counts) {
    const auto last = static_cast<int32_t>(counts.size()) - 1;
    std::vector<int32_t> scanned;  // indices into counts, roughly geometric in m
    size_t best = 0;
    int32_t rising = 0;  // scanned counts in a row predicted well above the best
    for (int32_t i = 0, target = counts.front(); i <= last && rising < 2; ++i) {
        if (counts[i] < target && i < last) continue;
        scanned.push_back(i);
        target = std::max(target + 1, target * 3 / 2);
        if (search.better(counts[i], counts[scanned[best]])) best = scanned.size() - 1;
        rising = search(counts[i]) > (1 + kRiseToStop) * search(counts[scanned[best]]) ? rising + 1 : 0;
    }
    int32_t lo = scanned[best > 0 ? best - 1 : 0];
    int32_t hi = scanned[std::min(best + 1, scanned.size() - 1)];
    while (hi - lo > kLocalWidth) {
        const int32_t third = (hi - lo) / 3;
        if (search.better(counts[lo + third], counts[hi - third])) {
            hi -= third;
        } else {
            lo += third;
        }
    }
    for (int32_t i = lo; i <= hi; ++i) search(counts[i]);
}

}  // namespace

namespace {

// The search of choose_segments over `counts`, each residue mod `trees` on its own (T trees ripple with m mod T).
void search_residues(Search& search, const std::vector<int32_t>& counts, int32_t trees) {
    for (int32_t residue = 0; residue < trees; ++residue) {
        std::vector<int32_t> some;
        for (int32_t m : counts) {
            if (trees == 1 || m % trees == residue) some.push_back(m);
        }
        if (!some.empty()) search_counts(search, some);
    }
}

// Below each point of the calibrated curve: where the curve has a protocol step (an eager limit, a rendezvous above
// it), T(m) jumps down at the fewest segments that fit under it, and a search of a convex T steps over that. Where
// the fewest segments under a point predict less than the best so far, the counts from there on are searched
// again (the curve's points include the sizes just below a step: calibration bisects it).
void search_curve_points(Search& search, const PlanRequest& request, const std::vector<int32_t>& counts,
                         int32_t trees) {
    if (!request.segment_curve || request.element_bytes <= 0) return;
    const std::vector<PingSample>& points = request.segment_curve->points;
    for (auto point = points.rbegin(); point != points.rend(); ++point) {  // the fewest segments first
        const int64_t per_segment = static_cast<int64_t>(point->bytes) / request.element_bytes;
        if (per_segment < 1 || per_segment >= request.elements) continue;
        const int64_t fewest = (request.elements + per_segment - 1) / per_segment;
        std::vector<int32_t> from;
        for (int32_t m : counts) {
            if (m >= fewest) from.push_back(m);
        }
        // Searched again only where the step shows: the fewest counts under it (one per residue) beat the best so far.
        const int32_t before = search.best_seen();
        bool below_step = false;
        for (size_t i = 0; i < from.size() && i < static_cast<size_t>(trees); ++i) {
            below_step = search.better(from[i], before) || below_step;
        }
        if (below_step) search_residues(search, from, trees);
    }
}

}  // namespace

SegmentChoice search_segments(const Plan& plan) {
    const int32_t cap = max_chosen_segments(plan);
    Search search(plan);
    if (cap <= kExhaustiveUpTo) {
        for (int32_t m = 1; m <= cap; ++m) search(m);
        return search.best();
    }
    const std::vector<int32_t> counts = candidate_segments(plan.request.elements, cap);
    // With T trees the prediction ripples with m mod T (the trees carry ceil or floor of m / T segments each):
    // each residue is searched on its own, where it is close to convex again.
    const auto trees = static_cast<int32_t>(1 + plan.more_trees.size());
    search_residues(search, counts, trees);
    search_curve_points(search, plan.request, counts, trees);
    scan_same_largest(search, counts);
    return search.best();
}

SegmentChoice choose_segments(const Plan& plan) {
    const std::string key = choice_key(plan);
    if (key.empty()) return search_segments(plan);
    if (std::optional<SegmentChoice> kept = cached_choice(key)) return *kept;
    const SegmentChoice choice = search_segments(plan);
    keep_choice(key, choice);
    return choice;
}

double summed_segment_transfers_s(const PlanRequest& request, double d, int32_t segments) {
    return segments <= 1 ? d : SegmentCosts(request, segments).summed_transfer_s(d);
}

}  // namespace redux
