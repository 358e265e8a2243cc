// The steady-state platform of a segmented vector, and the forecast of its weighted trees (steady_state_costs.hpp).
//
// The platform. The steady-state program of Legrand, Marchal & Robert (Section 4; steady_state.cpp) counts
// reductions of partial results of one size; here that size is a segment of the vector, so TP counts segments
// reduced per second, and a vector of m segments is m reductions. Each edge i -> j costs what the segmented
// model charges a segment on that link, each fold on i what it charges a fold of a segment there
// (SegmentScale::transfer_s and fold_s: the rule of segments.cpp, written for one segment of mean size).
//
// The forecast. For each tree of the decomposition (tree_packing.cpp, weighted_trees.cpp):
//   - its throughput alone: the busy time per reduction of every send port, receive port and folding that one
//     reduction along it leaves (flow_of_trees at weight 1), TP_t = 1 / the largest -- the best the program
//     restricted to that tree can do, since each port may be busy at most all the time;
//   - its makespan alone: one reduction, every value present at time 0, transfers and folds list-scheduled --
//     among the entries whose inputs are where they must be, the one that can start first runs next, as soon
//     as its input, the sender's send port and the receiver's receive port (a transfer) or the node's folding (a
//     fold) are free.
// The vector's time is then the first segment along the tree with the longest makespan (the fill) and one more
// segment every 1 / TP: fill_s + (m - 1) / TP. It is exact for a two-rank pipeline (m d + c when d >= c) and, in
// general, an estimate of a schedule that starts every tree at once; Section 4.5's periodic schedule reaches TP
// only after its first period.
#include "plan/steady_state/steady_state_costs.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <tuple>

namespace redux {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

std::string refusal(const PlanRequest& request, int32_t max_participants) {
    if (std::string problem = validate(request); !problem.empty()) return problem;
    if (request.ranks > max_participants) {
        return std::to_string(request.ranks) + " ranks, above the limit of " + std::to_string(max_participants) +
               " participants";
    }
    if (request.segments < 1) return "the steady state needs a segment count (>= 1), it does not choose one";
    if (request.segments > request.elements) {
        return std::to_string(request.segments) + " segments of " + std::to_string(request.elements) +
               (request.elements == 1 ? " element" : " elements") + ": a segment would hold no element";
    }
    if (request.model != TransferModel::overlap) {
        return "the steady state needs the overlap model (a participant sends, receives and folds at once)";
    }
    if (request.costs.flight_s > 0 || (request.hetero_costs && request.hetero_costs->has_flight())) {
        return "the steady state has no time in flight (a message holds both ports for all of d)";
    }
    return {};
}

// Where the partial results of one reduction are, and since when: (node, first, last) -> time.
using Placement = std::map<std::tuple<int32_t, int32_t, int32_t>, double>;

// The time v is at `node`, or nothing when it is not there (yet).
const double* find_at(const Placement& at, int32_t node, PartialResult v) {
    const auto it = at.find({node, v.first, v.last});
    return it == at.end() ? nullptr : &it->second;
}

// One reduction along `tree` alone, list-scheduled as described at the top of this file.
double makespan_alone_s(const SteadyStatePlatform& platform, const WeightedTree& tree) {
    const auto p = static_cast<size_t>(platform.size());
    Placement at;
    for (int32_t i = 0; i < platform.size(); ++i) at[{i, i, i}] = 0.0;
    std::vector<double> send_free(p, 0.0), receive_free(p, 0.0), fold_free(p, 0.0);
    std::vector<bool> sent(tree.transfers.size(), false), folded(tree.folds.size(), false);
    for (size_t left = tree.transfers.size() + tree.folds.size(); left > 0; --left) {
        double best_start = kInfinity;
        size_t best = 0;
        bool best_is_fold = false;
        for (size_t t = 0; t < tree.transfers.size(); ++t) {
            const ResultTransfer& x = tree.transfers[t];
            const double* ready = sent[t] ? nullptr : find_at(at, x.from, x.value);
            if (!ready) continue;
            const double start =
                std::max({*ready, send_free[static_cast<size_t>(x.from)], receive_free[static_cast<size_t>(x.to)]});
            if (start < best_start) std::tie(best_start, best, best_is_fold) = std::tuple{start, t, false};
        }
        for (size_t f = 0; f < tree.folds.size(); ++f) {
            const ResultFold& x = tree.folds[f];
            const double* left_ready = folded[f] ? nullptr : find_at(at, x.node, x.left);
            const double* right_ready = left_ready ? find_at(at, x.node, x.right) : nullptr;
            if (!right_ready) continue;
            const double start = std::max({*left_ready, *right_ready, fold_free[static_cast<size_t>(x.node)]});
            if (start < best_start) std::tie(best_start, best, best_is_fold) = std::tuple{start, f, true};
        }
        if (best_start == kInfinity) throw std::logic_error("makespan_alone_s: a tree entry never gets its input");
        if (best_is_fold) {
            const ResultFold& x = tree.folds[best];
            const double end = best_start + platform.fold_s(x.node);
            at.erase({x.node, x.left.first, x.left.last});
            at.erase({x.node, x.right.first, x.right.last});
            at[{x.node, x.left.first, x.right.last}] = end;
            fold_free[static_cast<size_t>(x.node)] = end;
            folded[best] = true;
        } else {
            const ResultTransfer& x = tree.transfers[best];
            const double end = best_start + platform.transfer_s(x.from, x.to);
            at.erase({x.from, x.value.first, x.value.last});
            at[{x.to, x.value.first, x.value.last}] = end;
            send_free[static_cast<size_t>(x.from)] = end;
            receive_free[static_cast<size_t>(x.to)] = end;
            sent[best] = true;
        }
    }
    const double* done = find_at(at, platform.target(), {0, platform.size() - 1});
    return done ? *done : kInfinity;
}

}  // namespace

double SegmentScale::transfer_s(double whole_s) const {
    if (curve_ratio > 0) return whole_s * curve_ratio;
    const double fixed_s = std::min(latency_s, whole_s);
    return fixed_s + (whole_s - fixed_s) / segments;
}

SegmentScale segment_scale(const PlanRequest& request) {
    SegmentScale scale{std::max<int32_t>(1, request.segments), request.latency_s, 0.0, request.costs.compute_call_s};
    if (request.segment_curve && request.element_bytes > 0) {
        const double vector_bytes = static_cast<double>(request.elements) * static_cast<double>(request.element_bytes);
        const double whole_s = request.segment_curve->at(static_cast<size_t>(vector_bytes));
        if (whole_s > 0) {
            const auto segment_bytes = static_cast<size_t>(std::llround(vector_bytes / scale.segments));
            scale.curve_ratio = std::min(1.0, request.segment_curve->at(segment_bytes) / whole_s);
        }
    }
    return scale;
}

SteadyStatePlatform steady_state_platform(const HeteroCosts& costs, int32_t target, const SegmentScale& scale) {
    SteadyStatePlatform platform(costs.size(), target);
    for (int32_t i = 0; i < costs.size(); ++i) {
        platform.set_fold_s(i, scale.fold_s(costs.compute_s(i)));
        for (int32_t j = 0; j < costs.size(); ++j) {
            if (i != j) platform.set_transfer_s(i, j, scale.transfer_s(costs.transfer_s(i, j)));
        }
    }
    return platform;
}

SteadyStatePlatform steady_state_platform(int32_t ranks, const Costs& costs, int32_t target,
                                          const SegmentScale& scale) {
    const auto p = static_cast<size_t>(ranks);
    return SteadyStatePlatform::complete(std::vector<double>(p * p, scale.transfer_s(costs.transfer_s)),
                                         std::vector<double>(p, scale.fold_s(costs.compute_s)), target);
}

std::optional<SteadyStatePlatform> steady_state_platform(const PlanRequest& request, int32_t max_participants,
                                                         std::string* error) {
    if (std::string problem = refusal(request, max_participants); !problem.empty()) {
        if (error) *error = std::move(problem);
        return std::nullopt;
    }
    const SegmentScale scale = segment_scale(request);
    if (request.hetero_costs) return steady_state_platform(*request.hetero_costs, request.root, scale);
    return steady_state_platform(request.ranks, request.costs, request.root, scale);
}

TreeAlone tree_alone(const SteadyStatePlatform& platform, const WeightedTree& tree) {
    if (std::string problem = reduction_tree_error(tree, platform.size(), platform.target()); !problem.empty()) {
        throw std::invalid_argument("tree_alone: " + problem);
    }
    WeightedTree one = tree;
    one.per_s = 1.0;
    const SteadyStateSolution flow = flow_of_trees(platform, {one});
    double busiest_s = 0;  // per reduction
    for (const std::vector<double>* busy : {&flow.busy.send, &flow.busy.receive, &flow.busy.compute}) {
        for (const double b : *busy) busiest_s = std::max(busiest_s, b);
    }
    return {busiest_s > 0 ? 1.0 / busiest_s : kInfinity, makespan_alone_s(platform, tree)};
}

SteadyStateForecast forecast_steady_state(const SteadyStatePlatform& platform, const std::vector<WeightedTree>& trees,
                                          int32_t segments) {
    SteadyStateForecast forecast;
    const double more = std::max(0, segments - 1);
    for (size_t t = 0; t < trees.size(); ++t) {
        forecast.throughput_per_s += trees[t].per_s;
        forecast.alone.push_back(tree_alone(platform, trees[t]));
        const TreeAlone& alone = forecast.alone.back();
        const auto index = static_cast<int32_t>(t);
        if (forecast.best_tree < 0 ||
            alone.throughput_per_s > forecast.alone[static_cast<size_t>(forecast.best_tree)].throughput_per_s) {
            forecast.best_tree = index;
        }
        if (forecast.fill_tree < 0 ||
            alone.makespan_s > forecast.alone[static_cast<size_t>(forecast.fill_tree)].makespan_s) {
            forecast.fill_tree = index;
        }
    }
    if (trees.empty() || forecast.throughput_per_s <= 0) {
        forecast.fill_s = forecast.time_s = forecast.best_tree_time_s = kInfinity;
        return forecast;
    }
    const TreeAlone& best = forecast.alone[static_cast<size_t>(forecast.best_tree)];
    forecast.fill_s = forecast.alone[static_cast<size_t>(forecast.fill_tree)].makespan_s;
    forecast.time_s = forecast.fill_s + more / forecast.throughput_per_s;
    forecast.best_tree_time_s = best.makespan_s + more / best.throughput_per_s;
    return forecast;
}

}  // namespace redux
