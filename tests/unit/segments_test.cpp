// The segmented model (libredux/src/plan/predict/segments.cpp) and the choice of the segment count.
//
// Expectations are derived here by hand, not taken from the simulator: the unsegmented simulator at one segment,
// closed forms for the chain (below, with their derivations), a two-stage pipeline under per-link costs, and a
// search over every segment count for the choice.
#include "plan/predict/segments.hpp"
#include "plan/planner.hpp"
#include "plan/predict/simulator.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace redux {
namespace {

// Equal within `relative` of the larger (exactly when both are 0).
void expect_close(double actual, double expected, const std::string& what, double relative = 1e-12) {
    EXPECT_LE(std::abs(actual - expected), relative * std::max(std::abs(actual), std::abs(expected)))
        << what << ": " << actual << " vs " << expected;
}

PlanRequest request_for(int32_t n, Strategy strategy, const Costs& costs, int32_t root, bool commutative) {
    PlanRequest request{n, costs, strategy, strategy_needs_limit(strategy) ? 2 : 0, root, commutative};
    request.elements = 100000;
    request.latency_s = costs.transfer_s / 10;
    return request;
}

// The strategies built over abstract nodes (homogeneous costs): their fold order is the order of arrival.
std::vector<Strategy> homogeneous_strategies() {
    std::vector<Strategy> out;
    for (const StrategyInfo& info : strategies()) {
        if (!strategy_needs_hetero_costs(info.strategy)) out.push_back(info.strategy);
    }
    return out;
}

const std::vector<Costs> kCosts{{1.0, 1.0}, {1.0, 0.0}, {0.0, 1.0}, {1.0, 3.0}, {3.0, 1.0}, {2.0, 0.5}};

// At one segment the segmented model is the unsegmented simulator (with its final transfer of d), for every
// homogeneous strategy of one tree, both operator kinds, every window of two slots or more. (The two-tree's
// fold order is fixed by its in-order trees, not the order of arrival that the unsegmented simulator folds in.)
TEST(SegmentedModel, OneSegmentIsTheUnsegmentedSimulation) {
    int plans = 0;
    for (const Strategy strategy : homogeneous_strategies()) {
        for (const Costs& costs : kCosts) {
            for (int32_t n : {1, 2, 3, 4, 5, 7, 8, 12, 13, 20, 33, 64, 100, 257}) {
                for (const bool commutative : {true, false}) {
                    for (const int32_t root : {0, n / 2, n - 1}) {
                        PlanRequest request = request_for(n, strategy, costs, root, commutative);
                        const Plan plan = make_plan(request);
                        if (!plan.more_trees.empty()) continue;
                        const Simulation sim = simulate(plan.parent, costs, plan.release_s);
                        const double expected = sim.makespan_s + (plan.final_transfer ? costs.transfer_s : 0.0);
                        for (const int32_t window : {2, 3, 16}) {
                            Plan windowed = plan;
                            windowed.request.recv_window = window;
                            const SegmentTimes times = simulate_segments(windowed, 1);
                            ASSERT_DOUBLE_EQ(times.tree_makespan_s, sim.makespan_s)
                                << strategy_name(strategy) << " n=" << n << " root=" << root << " W=" << window;
                            ASSERT_DOUBLE_EQ(times.makespan_s, expected);
                        }
                        ++plans;
                    }
                }
            }
        }
    }
    RecordProperty("plans", plans);
}

// One slot: a rank cannot receive while it folds, so with c > 0 a rank of several children is slower than the
// unsegmented simulator says (never faster); with c = 0 there is nothing to overlap and the two agree.
TEST(SegmentedModel, OneSlotNeverOverlapsAReceiveWithAFold) {
    for (const Costs& costs : kCosts) {
        const Plan plan = make_plan(request_for(20, Strategy::binomial, costs, 0, true));
        Plan one_slot = plan;
        one_slot.request.recv_window = 1;
        const double with_one = simulate_segments(one_slot, 1).makespan_s;
        if (costs.compute_s == 0 || costs.transfer_s == 0) {
            EXPECT_DOUBLE_EQ(with_one, plan.makespan_s);
        } else {
            EXPECT_GT(with_one, plan.makespan_s);
        }
    }
}

// The chain n-1 -> ... -> 1 -> 0, m equal segments, each moved in s = latency + (d - latency) / m and folded in
// c_m = c / m. Derivation (W >= 2): the leaf sends segment j at j s (its port sends one after the other). The
// rank k hops up has segment j ready at R_k(j). With c_m <= s, rank 1 receives j in [j s, (j + 1) s] and folds
// it at once: R_1(j) = (j + 1) s + c_m; R_k(j) = k (s + c_m) + j s, since each hop takes a transfer and a fold
// and segments follow at the pace of the port. With c_m > s the reducer is the bottleneck: R_k(j) = k s + (k +
// j) c_m. Both: T = (n - 1)(s + c_m) + (m - 1) max(s, c_m). With one slot (W = 1) a receive waits for the fold
// before it, so a segment takes s + c_m per step: T = (n - 1 + m - 1)(s + c_m). With c = 0 both are the
// encyclopedia's (p + m - 2) s.
TEST(SegmentedModel, ChainMatchesItsClosedForm) {
    for (const Costs& costs : kCosts) {
        for (const double latency_share : {0.0, 0.1, 1.0}) {
            for (int32_t n : {1, 2, 3, 5, 9, 20}) {
                for (int32_t m : {1, 2, 3, 4, 6, 10, 12, 60}) {
                    PlanRequest request{n, costs, Strategy::chain, 0, 0, true};
                    request.elements = 120;  // a multiple of every m above
                    request.latency_s = latency_share * costs.transfer_s;
                    request.segments = m;
                    const double s = request.latency_s + (costs.transfer_s - request.latency_s) / m;
                    const double c = costs.compute_s / m;
                    const std::string what = "n=" + std::to_string(n) + " m=" + std::to_string(m);
                    const Plan plan = make_plan(request);
                    ASSERT_EQ(plan.segments, m);
                    expect_close(plan.makespan_s, (n - 1) * (s + c) + (n > 1 ? (m - 1) * std::max(s, c) : 0.0), what);
                    Plan one_slot = plan;
                    one_slot.request.recv_window = 1;
                    expect_close(simulate_segments(one_slot, m).makespan_s, n > 1 ? (n - 1 + m - 1) * (s + c) : 0.0,
                                 what + " W=1");
                }
            }
        }
    }
}

// An op with a cost per application a (Costs::compute_call_s): every segment's fold pays a, so the chain's closed
// form above holds with c = a + (compute_s - a) / m.
TEST(SegmentedModel, EverySegmentPaysTheOpsCostPerApplication) {
    for (const double call_share : {0.0, 0.25, 1.0}) {
        for (int32_t n : {2, 3, 9}) {
            for (int32_t m : {1, 2, 4, 10}) {
                Costs costs{1.0, 2.0};
                costs.compute_call_s = call_share * costs.compute_s;
                PlanRequest request{n, costs, Strategy::chain, 0, 0, true};
                request.elements = 120;
                request.latency_s = 0.1;
                request.segments = m;
                const double s = request.latency_s + (costs.transfer_s - request.latency_s) / m;
                const double c = costs.compute_call_s + (costs.compute_s - costs.compute_call_s) / m;
                const Plan plan = make_plan(request);
                expect_close(
                    plan.makespan_s, (n - 1) * (s + c) + (m - 1) * std::max(s, c),
                    "a/c=" + std::to_string(call_share) + " n=" + std::to_string(n) + " m=" + std::to_string(m));
            }
        }
    }
}

// An op whose cost is all per application gains nothing from segments: the model keeps the vector whole, where
// the same c all per element is cut.
TEST(SegmentedPlan, AnOpWithACostPerCallKeepsTheVectorWhole) {
    Costs costs{2.4e-6, 2e-3, 2.3e-6};
    PlanRequest request{8, costs, Strategy::optimal, 0, 0, true};
    request.elements = 64;
    request.latency_s = 2e-6;
    request.segments = 0;
    EXPECT_GT(make_plan(request).segments, 1);
    request.costs.compute_call_s = costs.compute_s;
    EXPECT_EQ(make_plan(request).segments, 1);
}

// With a time in flight F (Costs::flight_s) a segment reaches its receiver's port F after it leaves and holds
// the port for the rest, s - F_s, where F_s = min(F, s); the sender sends the next segment so that it reaches
// the port as this one leaves it. Derivation, W >= 2, chain as above: the leaf's segments leave at j (s - F_s);
// rank 1 has segment j at s + j (s - F_s) and folds it at once when c_m <= s - F_s, so each hop adds s + c_m and
// segments follow at the pace of the port's part; with c_m > s - F_s the reducer paces them. Both:
// T = (n - 1)(s + c_m) + (m - 1) max(s - F_s, c_m); at F = 0 the closed form above. A flight of the whole latency
// part or more (calibration found no port time for a small message) counts as 0: segments are never free.
TEST(SegmentedModel, ChainWithATimeInFlightMatchesItsClosedForm) {
    for (const Costs& base : kCosts) {
        for (const double flight_share : {0.0, 0.05, 0.3, 0.45, 0.5, 0.9}) {
            Costs costs = base;
            costs.flight_s = flight_share * costs.transfer_s;
            for (int32_t n : {2, 3, 5, 9}) {
                for (int32_t m : {1, 2, 3, 4, 10, 60}) {
                    PlanRequest request{n, costs, Strategy::chain, 0, 0, true};
                    request.elements = 120;
                    request.latency_s = 0.5 * costs.transfer_s;
                    request.segments = m;
                    const double s = request.latency_s + (costs.transfer_s - request.latency_s) / m;
                    const double c = costs.compute_s / m;
                    // A flight of the whole latency part or more: one-port (SegmentCosts).
                    const double flight = costs.flight_s < request.latency_s ? costs.flight_s : 0.0;
                    const double port = s - std::min(flight, s);
                    const Plan plan = make_plan(request);
                    ASSERT_EQ(plan.segments, m);
                    const std::string what =
                        "n=" + std::to_string(n) + " m=" + std::to_string(m) + " F=" + std::to_string(costs.flight_s);
                    const double expected = (n - 1) * (s + c) + (m - 1) * std::max(port, c);
                    if (m > 1) expect_close(simulate_segments(plan, m).makespan_s, expected, what);
                    if (m > 1) expect_close(plan.makespan_s, expected, what + " (plan)");
                    // Ranks of one node (PlanRequest::segment_flight false): one-port, the closed form at F = 0.
                    Plan one_node = plan;
                    one_node.request.segment_flight = false;
                    expect_close(simulate_segments(one_node, m).makespan_s,
                                 (n - 1) * (s + c) + (m - 1) * std::max(s, c), what + " one node");
                }
            }
        }
    }
}

// At one segment, with a time in flight, the segmented model is the unsegmented simulator's flight model too (a
// message reaches the port L after it leaves and holds it for d - L), for the homogeneous single-tree strategies.
TEST(SegmentedModel, OneSegmentWithATimeInFlightIsTheUnsegmentedSimulation) {
    int plans = 0;
    for (const Costs& base : kCosts) {
        for (const double flight_share : {0.5, 0.9, 0.99}) {
            Costs costs = base;
            costs.flight_s = flight_share * costs.transfer_s;
            for (const Strategy strategy : homogeneous_strategies()) {
                for (int32_t n : {2, 3, 7, 8, 13, 33}) {
                    PlanRequest request = request_for(n, strategy, costs, 0, true);
                    request.latency_s = costs.transfer_s;  // all of d per message: a flight below it counts
                    const Plan plan = make_plan(request);
                    if (!plan.more_trees.empty()) continue;
                    const Simulation sim = simulate(plan.parent, costs, plan.release_s);
                    expect_close(simulate_segments(plan, 1).tree_makespan_s, sim.makespan_s,
                                 std::string(strategy_name(strategy)) + " n=" + std::to_string(n) +
                                     " L=" + std::to_string(costs.flight_s));
                    ++plans;
                }
            }
        }
    }
    RecordProperty("plans", plans);
}

// A non-commutative chain cannot end on a middle rank: its sink streams every segment to the root as soon as it
// is ready. With c = 0 the sink has segment j at (n - 1 + j) s and the root receives it s later: the final
// transfer adds one segment, not the whole vector.
TEST(SegmentedModel, FinalTransferStreamsTheSegments) {
    const int32_t n = 7, m = 8;
    PlanRequest request{n, {1.0, 0.0}, Strategy::chain, 0, 3, false};
    request.elements = 64;
    request.latency_s = 0.2;
    request.segments = m;
    const Plan plan = make_plan(request);
    ASSERT_TRUE(plan.final_transfer);
    const double s = 0.2 + 0.8 / m;
    expect_close(plan.tree_makespan_s, (n - 1 + m - 1) * s, "sink");
    expect_close(plan.makespan_s, (n - 1 + m) * s, "root");
    expect_close(plan.unsegmented_makespan_s, (n - 1) * 1.0 + 1.0, "unsegmented, with a final transfer of d");
}

// Per-link costs: a chain 2 -> 1 -> 0 whose links cost a and b is a two-stage pipeline, T = s_a + s_b + (m - 1)
// max(s_a, s_b) with c = 0, each link's segment cost with the latency clamped to that link's d.
TEST(SegmentedModel, PerLinkCostsClampTheLatencyToEachLink) {
    // a < latency: clamped to a, the latency is all of that link's cost, so a segment on 2 -> 1 costs a whatever
    // its size; one on 1 -> 0 costs latency + (b - latency) / m.
    const double a = 0.25, b = 4.0, latency = 0.5;
    std::vector<double> transfer(9, 1.0);
    transfer[2 * 3 + 1] = a;
    transfer[1 * 3 + 0] = b;
    auto hetero = std::make_shared<const HeteroCosts>(std::vector<double>(3, 0.0), transfer);
    for (int32_t m : {1, 2, 5, 16}) {
        PlanRequest request{3, hetero->mean_costs(), Strategy::chain, 0, 0, true};
        request.hetero_costs = hetero;
        request.elements = 80;
        request.latency_s = latency;
        request.segments = m;
        const Plan plan = make_plan(request);
        ASSERT_EQ(plan.parent, (std::vector<int32_t>{-1, 0, 1}));
        const double s_a = a, s_b = latency + (b - latency) / m;
        expect_close(plan.makespan_s, s_a + s_b + (m - 1) * std::max(s_a, s_b), "m=" + std::to_string(m));
    }
}

// With a curve whose time in flight was measured at several sizes (LinkFit::flight_points), a segment's flight is
// the request's (the whole vector's) scaled by the curve's flight from the vector's size to the segment's. The
// curve above, flight 0.3 at 8 B and 0.5 from 2 KiB on: the vector's F is 0.5; a 2 KiB segment keeps 0.5 of its
// 0.6 in flight and holds the port 0.1, so two take 0.6 + 0.1 (the chain's closed form, n = 2: s + (m - 1) port);
// a 1 KiB segment's flight is 0.5 x L(1 KiB) / 0.5, L(1 KiB) on the line from 0.3 at 8 B to 0.5 at 2 KiB, which
// would leave it 0.4 - L(1 KiB) = 0.0004 of port time, but a message holds the port at least as long as one of 8 B
// does, 0.4 - 0.3 = 0.1: four take 0.4 + 3 x 0.1. With the flight at 8 B alone (0.3 everywhere) a 2 KiB segment
// holds the port 0.3. (The curve's last point makes its last slope, the link's bandwidth, nearly 0 here: below.)
TEST(SegmentedModel, ASegmentsFlightFollowsTheCalibratedCurve) {
    LinkFit curve = fit_link({{1024, 0.4}, {2048, 0.6}, {4096, 1.0}, {1 << 30, 1.0}});
    curve.flight_s = 0.3;
    curve.flight_points = {{2048, 0.5}};
    PlanRequest request{2, Costs{1.0, 0.0, 0.5}, Strategy::chain, 0, 0, true};
    request.elements = 4;
    request.element_bytes = 1024;
    request.segment_curve = std::make_shared<const LinkFit>(curve);
    const Plan plan = make_plan(request);
    EXPECT_DOUBLE_EQ(simulate_segments(plan, 2).makespan_s, 0.6 + 0.1);
    EXPECT_NEAR(simulate_segments(plan, 4).makespan_s, 0.4 + 3 * 0.1, 1e-12);
    curve.flight_points.clear();
    request.costs.flight_s = 0.3;
    request.segment_curve = std::make_shared<const LinkFit>(curve);
    EXPECT_DOUBLE_EQ(simulate_segments(make_plan(request), 2).makespan_s, 0.6 + 0.3);
}

// A link faster than the curve (a near node pair: d 0.7 where the curve has 1.0 at 4 KiB) with more of its d in
// flight (0.45) scales a segment's d below its flight (2 KiB: d_e = 0.7 x 0.6 = 0.42 < 0.45); the segment still
// holds the port for what the curve says a 2 KiB message does, 0.6 - 0.5 = 0.1, so two take 0.42 + 0.1, not 0.42
// (segments that cost nothing: the model then cut 16 KiB into 2048 segments of one double). Four of 1 KiB:
// d_e = 0.28, port the 8 B message's 0.1 (above).
TEST(SegmentedModel, ASegmentHoldsThePortAtLeastAsLongAsTheCurveSays) {
    LinkFit curve = fit_link({{1024, 0.4}, {2048, 0.6}, {4096, 1.0}, {1 << 30, 1.0}});
    curve.flight_s = 0.3;
    curve.flight_points = {{2048, 0.5}};
    auto hetero = std::make_shared<const HeteroCosts>(std::vector<double>(2, 0.0), std::vector<double>{0, 0.7, 0.7, 0},
                                                      std::vector<double>{0, 0.45, 0.45, 0});
    PlanRequest request{2, Costs{0.7, 0.0, 0.45}, Strategy::chain, 0, 0, true};
    request.hetero_costs = hetero;
    request.elements = 4;
    request.element_bytes = 1024;
    request.latency_s = 0.4;
    request.segment_curve = std::make_shared<const LinkFit>(curve);
    const Plan plan = make_plan(request);
    EXPECT_NEAR(simulate_segments(plan, 2).makespan_s, 0.42 + 0.1, 1e-12);
    EXPECT_NEAR(simulate_segments(plan, 4).makespan_s, 0.28 + 3 * 0.1, 1e-12);
}

// Segments in flight together stream no faster than the link: each holds the port at least for a message's overhead
// (the port part of 8 B, 0.4 - 0.3 = 0.1) and its bytes at the curve's last slope (0.4 s per 4 KiB). A vector of
// 8 KiB (d = 0.8) in 8 segments of 1 KiB between two ranks: the first arrives at d_e = 0.4, each next one
// 0.1 + 1024 x 0.4 / 4096 = 0.2 later: 0.4 + 7 x 0.2, where its time in flight alone would let them follow 0.1 apart.
TEST(SegmentedModel, SegmentsStreamNoFasterThanTheLinksBandwidth) {
    LinkFit curve = fit_link({{1024, 0.4}, {2048, 0.4}, {4096, 0.4}, {8192, 0.8}});
    curve.flight_s = 0.3;
    PlanRequest request{2, Costs{0.8, 0.0, 0.3}, Strategy::chain, 0, 0, true};
    request.elements = 8;
    request.element_bytes = 1024;
    request.segment_curve = std::make_shared<const LinkFit>(curve);
    EXPECT_NEAR(simulate_segments(make_plan(request), 8).makespan_s, 0.4 + 7 * 0.2, 1e-12);
}

// make_plan: the request's count (at most one per element), or the model's; the default is unsegmented.
// With the calibrated curve of d (PlanRequest::segment_curve) a segment costs d x curve(its bytes) /
// curve(the vector's bytes), not the line through the latency. Two ranks, d = 1, c = 0, 4 elements of 1 KiB,
// the curve through 1 KiB: 0.4 s, 2 KiB: 0.6 s, 4 KiB: 1 s (mid-size messages dearer than the line): two
// segments of 2 KiB cost 0.6 each on the one link, 1.2 in all; four of 1 KiB 0.4 each, 1.6; one piece 1.
TEST(SegmentedModel, SegmentsCostWhatTheCalibratedCurveSays) {
    PlanRequest request{2, Costs{1.0, 0.0}, Strategy::chain, 0, 0, true};
    request.elements = 4;
    request.element_bytes = 1024;
    request.segment_curve = std::make_shared<const LinkFit>(fit_link({{1024, 0.4}, {2048, 0.6}, {4096, 1.0}}));
    const Plan plan = make_plan(request);
    EXPECT_DOUBLE_EQ(simulate_segments(plan, 1).makespan_s, 1.0);
    EXPECT_DOUBLE_EQ(simulate_segments(plan, 2).makespan_s, 1.2);
    EXPECT_DOUBLE_EQ(simulate_segments(plan, 4).makespan_s, 1.6);
    request.segment_curve = nullptr;  // the line through latency 0: every cut costs 1
    EXPECT_DOUBLE_EQ(simulate_segments(make_plan(request), 4).makespan_s, 1.0);
}

TEST(SegmentedPlan, HonoursTheRequestedCount) {
    PlanRequest request{16, {1e-3, 2e-4}, Strategy::binary, 0, 0, true};
    const Plan plain = make_plan(request);
    EXPECT_EQ(plain.segments, 1);
    EXPECT_EQ(plain.makespan_s, plain.unsegmented_makespan_s);
    EXPECT_EQ(plain.makespan_s, simulate(plain.parent, request.costs).makespan_s);

    request.elements = 10;
    request.latency_s = 1e-5;
    request.segments = 50;
    const Plan clamped = make_plan(request);
    EXPECT_EQ(clamped.segments, 10);
    EXPECT_EQ(clamped.makespan_s, simulate_segments(clamped, 10).makespan_s);
    EXPECT_EQ(clamped.unsegmented_makespan_s, plain.makespan_s);
    EXPECT_LT(clamped.makespan_s, plain.makespan_s);

    request.elements = 1 << 20;
    request.segments = 0;
    const Plan chosen = make_plan(request);
    EXPECT_GT(chosen.segments, 1);
    EXPECT_LE(chosen.segments, kMaxChosenSegments);
    EXPECT_EQ(chosen.makespan_s, simulate_segments(chosen, chosen.segments).makespan_s);
    EXPECT_LT(chosen.makespan_s, clamped.makespan_s);
    // Per-rank times stay those of the whole vector.
    EXPECT_EQ(chosen.ready_s, plain.ready_s);
}

TEST(SegmentedPlan, ChoosesOneSegmentWhenSegmentsCannotHelp) {
    PlanRequest request{16, {1e-3, 2e-4}, Strategy::optimal, 0, 0, true};
    request.segments = 0;
    request.elements = 1;  // nothing to cut
    EXPECT_EQ(make_plan(request).segments, 1);
    request.elements = 1000;
    request.latency_s = request.costs.transfer_s;  // every segment costs the whole d
    EXPECT_EQ(make_plan(request).segments, 1);
    request.latency_s = 0;
    request.ranks = 1;  // nothing to move
    EXPECT_EQ(make_plan(request).segments, 1);
    request.ranks = 16;
    request.model = TransferModel::no_overlap;  // the segmented model overlaps
    EXPECT_EQ(make_plan(request).segments, 1);
}

// The search against every count from 1 to the cap. Exact (within 1e-9) wherever the prediction falls then
// rises smoothly; where the cut leaves segments of two sizes (elements not a multiple of m) the predictions
// ripple, and with no latency they are nearly flat near the cap: there the search may stop at a count whose
// prediction is higher by less than one element's share of the vector, 1 / elements relative (the grid below
// measured 1e-4 at 5000 elements, latency 0, nothing elsewhere). Elements from 7 (every count tried) to 5000
// (coarse scan, ternary search, the same-largest-segment scan).
struct ChoiceCase {
    int64_t elements;
    std::vector<int32_t> ranks;
    std::vector<double> latencies;
    std::vector<int32_t> windows;
};

TEST(SegmentChoice, FindsTheMinimumOfEveryCount) {
    const std::vector<ChoiceCase> grid{{7, {2, 6, 13}, {0.0, 0.05}, {1, 2}},
                                       {100, {2, 6, 13}, {0.0, 0.002, 0.05}, {1, 2}},
                                       {1200, {3, 13}, {0.0, 0.002, 0.05}, {2}},
                                       {5000, {3}, {0.0, 0.002}, {2}}};
    int cases = 0, exact = 0, evaluations = 0, brute = 0;
    for (const Strategy strategy : homogeneous_strategies()) {
        for (const ChoiceCase& g : grid) {
            for (const int32_t n : g.ranks) {
                for (const Costs& costs : {Costs{1.0, 0.3}, Costs{1.0, 2.0}}) {
                    for (const double latency : g.latencies) {
                        for (const int32_t window : g.windows) {
                            PlanRequest request{n, costs, strategy, strategy_needs_limit(strategy) ? 2 : 0, 0, n > 3};
                            request.elements = g.elements;
                            request.latency_s = latency;
                            request.recv_window = window;
                            // the two-tree's predictions take up to two dozen passes each
                            // (multi_tree_segments.hpp): its count against every count stops at 100 elements
                            if (strategy == Strategy::two_tree && g.elements > 100) continue;
                            const Plan plan = make_plan(request);
                            const SegmentChoice choice = choose_segments(plan);
                            const auto cap = static_cast<int32_t>(std::min<int64_t>(g.elements, kMaxChosenSegments));
                            int32_t best_m = 1;
                            double best_s = plan.makespan_s;
                            for (int32_t m = 2; m <= cap; ++m) {
                                const double t = simulate_segments(plan, m).makespan_s;
                                if (t < best_s) best_s = t, best_m = m;
                            }
                            const std::string what =
                                std::string(strategy_name(strategy)) + " n=" + std::to_string(n) +
                                " elements=" + std::to_string(g.elements) + " latency=" + std::to_string(latency) +
                                " best m=" + std::to_string(best_m) + " chose " + std::to_string(choice.segments);
                            EXPECT_GE(choice.times.makespan_s, best_s * (1 - 1e-12)) << what;
                            if (!plan.more_trees.empty()) {
                                // Two trees: which tree carries the longer segments of a ragged cut, and where a
                                // rank's sends in the two trees come to share its link, move the prediction up and
                                // down from one m to the next, so the search, exact on a unimodal T(m), may stop
                                // at a count whose prediction is up to a few percent above the best.
                                EXPECT_LE(choice.times.makespan_s, best_s * 1.05) << what;
                            } else {
                                EXPECT_LE(choice.times.makespan_s, best_s * (1 + 1.0 / static_cast<double>(g.elements)))
                                    << what;
                                if (latency > 0) expect_close(choice.times.makespan_s, best_s, what, 1e-9);
                            }
                            EXPECT_EQ(choice.times.makespan_s, predict_segments(plan, choice.segments).makespan_s);
                            ++cases;
                            exact += choice.times.makespan_s <= best_s * (1 + 1e-9);
                            evaluations += choice.evaluations;
                            brute += cap;
                        }
                    }
                }
            }
        }
    }
    RecordProperty("cases", cases);
    RecordProperty("exact", exact);
    RecordProperty("evaluations", evaluations);
    RecordProperty("brute_force_evaluations", brute);
}

// A curve with a protocol step (eager messages up to 63 KiB at 1.0, a rendezvous from 64 KiB at 3.0): the prediction
// jumps down at the count whose segments fit under the step, past the minimum of the convex part that the coarse scan
// and the ternary search find. The choice has its segments under the step, and its prediction is the minimum over
// every count within 0.5 %: the search simulates at most kSearchSegments segments per rank (segment_search.cpp), and
// here the minimum lies among the hundreds of counts near it, which it samples.
TEST(SegmentChoice, FindsTheCountUnderAProtocolStep) {
    LinkFit curve =
        fit_link({{8, 1.0}, {32 << 10, 1.0}, {63 << 10, 1.05}, {64 << 10, 3.0}, {256 << 10, 3.3}, {4 << 20, 10.0}});
    curve.flight_s = 0.95;
    for (const Strategy strategy : {Strategy::chain, Strategy::binary}) {
        PlanRequest request{8, Costs{10.0, 0.0, 0.95}, strategy, 0, 0, true};
        request.elements = (4 << 20) / 8;
        request.element_bytes = 8;
        request.latency_s = 1.0;
        request.segment_curve = std::make_shared<const LinkFit>(curve);
        request.segments = 0;
        const Plan chosen = make_plan(request);
        double best = chosen.makespan_s;
        for (int32_t m = 1; m <= kMaxChosenSegments; ++m)
            best = std::min(best, simulate_segments(chosen, m).makespan_s);
        EXPECT_LE(chosen.makespan_s, best * 1.005) << strategy_name(strategy);
        EXPECT_LT((request.elements + chosen.segments - 1) / chosen.segments * 8, 64 << 10) << strategy_name(strategy);
    }
}

// With no latency, more segments never hurt in the model: the search goes as far towards the cap as its bound on
// the segments it simulates lets it (past half the cap), where the prediction is within 0.2 % of the cap's.
TEST(SegmentChoice, WithoutLatencyTheCapWins) {
    PlanRequest request{64, {1e-3, 1e-4}, Strategy::binary, 0, 0, true};
    request.elements = 1 << 24;
    request.segments = 0;
    const Plan plan = make_plan(request);
    EXPECT_GE(plan.segments, kMaxChosenSegments / 2);
    EXPECT_LE(plan.makespan_s, simulate_segments(plan, kMaxChosenSegments).makespan_s * 1.002);
    for (int32_t m : {1, 2, 64, 1024}) EXPECT_LT(plan.makespan_s, simulate_segments(plan, m).makespan_s);
    request.elements = 1000;
    EXPECT_EQ(make_plan(request).segments, 1000);
}

}  // namespace
}  // namespace redux
