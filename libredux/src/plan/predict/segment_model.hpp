// The parts of the segmented model (segments.cpp) that its two simulations share: what a segment of each size
// costs to move over a link and to fold (SegmentCosts, with the curve and the time in flight the request carries),
// and the post-order in which a simulation visits a tree's ranks, children first.
#pragma once

#include "plan/planner.hpp"
#include "plan/predict/segments.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace redux::segmented {

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
inline const LinkFit* curve_of(const PlanRequest& request) {
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
inline std::vector<int32_t> post_order(const std::vector<int32_t>& child_offset, const std::vector<int32_t>& child_rank,
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

}  // namespace redux::segmented
