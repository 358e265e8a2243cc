// Plan selection (select.hpp).
//
// Candidates: the strategy asked for, or with auto every strategy of the table that applies, needs no limit and
// is weighed by auto (library_strategy). Strategies that need per-link costs apply when the
// communicator's links fall in several classes (several nodes or packages), the op is commutative and there are at most
// kMaxPerLinkRanks ranks; two-level needs several nodes too. When there are several classes, every candidate (the
// homogeneous ones included, which are built with the slowest class's d) is predicted by the simulator under the
// per-link costs d_ij of the classes (and L_ij, the time in flight), or of the node pairs where calibration measured
// them, so all are compared on the same platform. The fastest predicted wins; Algorithm 1 is optimal in the homogeneous
// model, so there the others win only ties. Among equals (within 0.01 %) the one with the fewest transfers between
// nodes: the link classes cannot tell one node's links from another's, so the tree that crosses nodes least is the
// safer bet. Predictions are of segmented reductions when the input asks for segments (or leaves their count to the
// model: each candidate then gets the count its tree does best with). With auto, the next fastest plans that run
// differently (runners_up) go with the winner: auto measures them all. Each plan's prediction is floored where ranks
// share cores (plan/predict/shared_cores.hpp), and plans are ranked by that prediction, then by makespan: on one node
// every unsegmented tree has the same floor, but each segment adds its latency to it, and the pipelines the makespan
// favours for long vectors need cores to run their ranks at once. Ranked by makespan alone, auto would weigh only
// pipelines in many segments on shared cores, where the unsegmented optimal tree runs faster; ranked by the floored
// prediction, that tree comes first there.
#include "plan/select.hpp"

#include "plan/predict/shared_cores.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <utility>

namespace redux {
namespace {

int link_classes(const SelectionInput& input) {
    std::array<bool, kLinkClasses> present{};
    for (size_t i = 0; i < input.place.size(); ++i) {
        for (size_t j = i + 1; j < input.place.size(); ++j) {
            present[static_cast<int>(link_class(input.place[i], input.place[j]))] = true;
        }
        if (present[0] + present[1] + present[2] == kLinkClasses) break;
    }
    return present[0] + present[1] + present[2];
}

// Per-link costs: where the links differ, by class or, measured node pair by node pair, between nodes.
bool per_link(const SelectionInput& input) {
    return static_cast<int32_t>(input.place.size()) == input.ranks && input.ranks <= kMaxPerLinkRanks &&
           (link_classes(input) >= 2 || !input.node_pairs.empty());
}

bool several_nodes(const SelectionInput& input) {
    for (const RankPlace& place : input.place) {
        if (place.node != input.place.front().node) return true;
    }
    return false;
}

// d_ij and L_ij of every pair: the pair's nodes' when the input has them, else its link class's.
std::shared_ptr<const HeteroCosts> per_link_costs(const SelectionInput& input) {
    const auto n = static_cast<size_t>(input.ranks);
    std::vector<double> transfer(n * n, 0.0), flight(n * n, 0.0);
    std::vector<int32_t> node_index(n, -1);
    const auto nodes = static_cast<size_t>(input.node_pairs.node_ids.size());
    if (input.node_pairs.transfer_s.size() != nodes * nodes || input.node_pairs.flight_s.size() != nodes * nodes) {
        throw std::invalid_argument("select_plan: node_pairs must hold nodes * nodes costs");
    }
    for (size_t i = 0; i < n; ++i) node_index[i] = input.node_pairs.index_of(input.place[i].node);
    for (size_t i = 0; i < n; ++i) {
        for (size_t j = 0; j < n; ++j) {
            if (i == j) continue;
            const int c = static_cast<int>(link_class(input.place[i], input.place[j]));
            transfer[i * n + j] = input.class_transfer_s[c];
            flight[i * n + j] = std::min(input.class_flight_s[c], input.class_transfer_s[c]);
            if (c == static_cast<int>(LinkClass::other_node) && node_index[i] >= 0 && node_index[j] >= 0) {
                const size_t k = static_cast<size_t>(node_index[i]) * nodes + static_cast<size_t>(node_index[j]);
                transfer[i * n + j] = input.node_pairs.transfer_s[k];
                flight[i * n + j] = std::min(input.node_pairs.flight_s[k], input.node_pairs.transfer_s[k]);
            }
        }
    }
    return std::make_shared<const HeteroCosts>(std::vector<double>(n, input.costs.compute_s), std::move(transfer),
                                               std::move(flight));
}

int32_t inter_node_transfers(const Plan& plan, const SelectionInput& input) {
    int32_t count = 0;
    for (size_t r = 0; r < input.place.size() && r < plan.parent.size(); ++r) {
        const int32_t parent = plan.parent[r];
        count += parent >= 0 && input.place[r].node != input.place[static_cast<size_t>(parent)].node;
    }
    return count;
}

// strategy_applies() with per_link(input) computed by the caller: it scans every pair of ranks, so
// select_plan asks it once rather than once per strategy.
bool applies(const StrategyInfo& info, const SelectionInput& input, bool links) {
    switch (info.needs) {
        case Needs::always:
            return true;
        case Needs::limit:
            return input.limit >= 1;
        case Needs::link_costs:
            return input.commutative && links;
        case Needs::nodes:
            return input.commutative && links && several_nodes(input);
    }
    return false;
}

// Equal predictions: within 0.01 % of each other.
bool close(double a, double b) { return std::abs(a - b) <= 1e-4 * std::min(a, b); }

// Whether plan a ranks before plan b: the smaller prediction (Plan::predicted_s: the makespan, or the shared
// cores' floor where that is larger), among equal ones the smaller makespan, then the fewer transfers between nodes
// (a_crossings, b_crossings). Where no ranks share cores the first two are the same test.
bool ranks_before(const Plan& a, int32_t a_crossings, const Plan& b, int32_t b_crossings) {
    if (!close(a.predicted_s(), b.predicted_s())) return a.predicted_s() < b.predicted_s();
    if (!close(a.makespan_s, b.makespan_s)) return a.makespan_s < b.makespan_s;
    return a_crossings < b_crossings;
}

// The next plans after plans[winner] by prediction, then makespan (exactly: a sort needs a strict order; table
// order among equals), that run differently from it and from each other, predicted within kRunnerUpSpan of it, at
// most kRunnersUp.
std::vector<Plan> runners_up(const std::vector<Plan>& plans, size_t winner) {
    std::vector<size_t> order;
    for (size_t i = 0; i < plans.size(); ++i) order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return std::make_pair(plans[a].predicted_s(), plans[a].makespan_s) <
               std::make_pair(plans[b].predicted_s(), plans[b].makespan_s);
    });
    std::vector<Plan> chosen;
    for (size_t i : order) {
        if (static_cast<int>(chosen.size()) == kRunnersUp) break;
        if (plans[i].predicted_s() > kRunnerUpSpan * plans[winner].predicted_s()) break;
        if (same_execution(plans[i], plans[winner])) continue;
        if (std::any_of(chosen.begin(), chosen.end(), [&](const Plan& p) { return same_execution(p, plans[i]); })) {
            continue;
        }
        chosen.push_back(plans[i]);
    }
    return chosen;
}

}  // namespace

bool strategy_applies(const StrategyInfo& info, const SelectionInput& input) {
    return applies(info, input, per_link(input));
}

Selection select_plan(const SelectionInput& input) {
    Selection selection;
    const bool several_classes = per_link(input);
    std::vector<Strategy> candidates;
    if (input.requested) {
        const StrategyInfo& info = strategy_info(*input.requested);
        if (applies(info, input, several_classes)) {
            candidates = {info.strategy};
            selection.why = std::string(info.name) + " as requested";
        } else {
            candidates = {Strategy::optimal};
            selection.why =
                std::string(info.name) + " requested but it does not apply here (it needs " +
                (info.needs == Needs::limit   ? "a limit K >= 1"
                 : info.needs == Needs::nodes ? "per-link costs of several nodes and a commutative op"
                                              : "per-link costs of several link classes and a commutative op") +
                "): optimal instead";
        }
    } else {
        for (const StrategyInfo& info : strategies()) {
            if (library_strategy(info) && applies(info, input, several_classes)) candidates.push_back(info.strategy);
        }
    }
    const std::shared_ptr<const HeteroCosts> links = several_classes ? per_link_costs(input) : nullptr;
    std::vector<Plan> plans;
    size_t best = 0;
    int32_t best_crossings = 0;
    for (Strategy strategy : candidates) {
        PlanRequest request{input.ranks, input.costs, strategy, input.limit, input.root, input.commutative};
        request.hetero_costs = links;
        request.elements = input.elements;
        request.latency_s = input.latency_s;
        request.segment_curve = input.segment_curve;
        request.element_bytes = input.element_bytes;
        request.segments = input.segments;
        request.recv_window = input.recv_window;
        request.segment_flight = input.segment_flight;
        if (strategy == Strategy::two_level) {
            for (const RankPlace& place : input.place) request.node_of.push_back(place.node);
        }
        Plan plan = make_plan(request);
        plan.shared_cores_floor_s = shared_cores_floor_s(plan, input.place);
        const int32_t crossings = inter_node_transfers(plan, input);
        selection.candidates.push_back({strategy, plan.predicted_s(), crossings, plan.segments});
        if (plans.empty() || ranks_before(plan, crossings, plans[best], best_crossings)) {
            best_crossings = crossings;
            best = plans.size();
        }
        plans.push_back(std::move(plan));
    }
    const Plan& winner = plans[best];
    if (!input.requested) {
        selection.why = std::string("auto: ") + std::string(strategy_name(winner.request.strategy)) +
                        (winner.segments > 1 ? " in " + std::to_string(winner.segments) + " segments" : "") +
                        " predicted fastest of " + std::to_string(candidates.size()) + " candidates" +
                        (links ? " under the per-link costs" : "");
        selection.runners_up = runners_up(plans, best);
    }
    selection.plan = std::move(plans[best]);
    return selection;
}

bool same_execution(const Plan& a, const Plan& b) {
    return a.parent == b.parent && a.child_offset == b.child_offset && a.child_rank == b.child_rank &&
           a.child_joins_left == b.child_joins_left && a.sink == b.sink && a.final_transfer == b.final_transfer &&
           a.segments == b.segments &&
           // in one segment only the first tree runs
           (a.segments == 1 || a.more_trees == b.more_trees);
}

}  // namespace redux
