// The planner: request -> tree (builders.cpp) -> fold order and Proposition 3 times
// (schedule.cpp) -> ranks (layout.cpp) -> prediction (simulator.cpp) -> segments (segments.cpp). No MPI.
// The heterogeneous strategies (snf.cpp, hetero_greedy.cpp) build their tree over the ranks themselves, ending
// on the root; their fold order is the order in which the simulator sees the children arrive.
#include "plan/planner.hpp"

#include "plan/builders.hpp"
#include "plan/exec_limits.hpp"
#include "plan/layout.hpp"
#include "plan/predict/bounds.hpp"
#include "plan/predict/schedule.hpp"
#include "plan/predict/segments.hpp"
#include "plan/predict/simulator.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

namespace redux {
namespace {

// The homogeneous strategies: a tree over abstract nodes, laid out on ranks (Section 4.1).
void plan_from_layout(const PlanRequest& request, const Tree& tree, Plan& plan) {
    const int32_t n = request.ranks;
    const TreeSchedule schedule = earliest_schedule(tree, request.costs);
    const Layout layout = lay_out(tree.parent, schedule.fold, request.root, request.commutative);

    plan.sink = layout.sink_rank;
    plan.final_transfer = layout.final_transfer;
    plan.parent.assign(static_cast<size_t>(n), -1);
    plan.child_offset.assign(static_cast<size_t>(n) + 1, 0);
    for (int32_t node = 1; node < n; ++node) {
        plan.parent[layout.rank_of[node]] = layout.rank_of[tree.parent[node]];
    }
    for (int32_t node = 0; node < n; ++node) {
        plan.child_offset[layout.rank_of[node] + 1] = schedule.fold.offset[node + 1] - schedule.fold.offset[node];
    }
    for (int32_t r = 0; r < n; ++r) plan.child_offset[r + 1] += plan.child_offset[r];
    plan.child_rank.resize(static_cast<size_t>(n) - 1);
    plan.child_joins_left.resize(static_cast<size_t>(n) - 1);
    for (int32_t node = 0; node < n; ++node) {
        int32_t out = plan.child_offset[layout.rank_of[node]];
        for (int32_t k = schedule.fold.offset[node]; k < schedule.fold.offset[node + 1]; ++k, ++out) {
            const int32_t child = schedule.fold.child[k];
            plan.child_rank[out] = layout.rank_of[child];
            plan.child_joins_left[out] = layout.joins_left[child];
        }
    }
    if (!tree.release_s.empty()) {
        plan.release_s.assign(static_cast<size_t>(n), 0.0);
        for (int32_t node = 0; node < n; ++node) plan.release_s[layout.rank_of[node]] = tree.release_s[node];
    }
    plan.builder_makespan_s = tree.builder_makespan_s;
}

// Children in the order the simulator saw them arrive (equal times: lower rank first); every fold is
// acc o child, which a commutative operator allows.
void fold_in_arrival_order(Plan& plan) {
    const ChildLists lists = child_lists(plan.parent);
    plan.child_offset = lists.offset;
    plan.child_rank = lists.child;
    for (size_t r = 0; r + 1 < plan.child_offset.size(); ++r) {
        std::sort(plan.child_rank.begin() + plan.child_offset[r], plan.child_rank.begin() + plan.child_offset[r + 1],
                  [&](int32_t a, int32_t b) {
                      return plan.arrive_s[a] != plan.arrive_s[b] ? plan.arrive_s[a] < plan.arrive_s[b] : a < b;
                  });
    }
    plan.child_joins_left.assign(plan.child_rank.size(), 0);
}

double final_transfer_s(const Plan& plan) {
    if (!plan.final_transfer) return 0.0;
    const PlanRequest& r = plan.request;
    return r.hetero_costs ? r.hetero_costs->transfer_s(plan.sink, r.root) : r.costs.transfer_s;
}

bool valid_cost(double s) { return std::isfinite(s) && s >= 0; }

// The segment count: the request's (at most one per element) or the model's choice; the predictions for it.
void segment(Plan& plan) {
    const PlanRequest& request = plan.request;
    plan.unsegmented_makespan_s = plan.makespan_s;
    SegmentTimes times{plan.tree_makespan_s, plan.makespan_s};
    if (request.segments == 0) {
        const SegmentChoice choice = choose_segments(plan);
        plan.segments = choice.segments;
        times = choice.times;
    } else {
        plan.segments = static_cast<int32_t>(std::min<int64_t>(request.segments, request.elements));
        times = predict_segments(plan, plan.segments);
    }
    plan.tree_makespan_s = times.tree_makespan_s;
    plan.makespan_s = times.makespan_s;
}

}  // namespace

std::string validate(const PlanRequest& r) {
    if (r.ranks < 1) return "ranks must be at least 1";
    if (!valid_cost(r.costs.transfer_s)) return "d (transfer cost) must be a finite number of seconds >= 0";
    if (!valid_cost(r.costs.compute_s)) return "c (compute cost) must be a finite number of seconds >= 0";
    if (!valid_cost(r.costs.flight_s) || r.costs.flight_s > r.costs.transfer_s) {
        return "the time in flight must be a finite number of seconds in [0, d]";
    }
    if (!valid_cost(r.costs.compute_call_s) || r.costs.compute_call_s > r.costs.compute_s) {
        return "the op's cost per application must be a finite number of seconds in [0, c]";
    }
    if (r.root < 0 || r.root >= r.ranks) return "root must be in [0, ranks)";
    if (strategy_needs_limit(r.strategy) && r.limit < 1) {
        return "strategy " + std::string(strategy_name(r.strategy)) + " needs a limit K >= 1";
    }
    if (r.hetero_costs) {
        if (r.hetero_costs->size() != r.ranks) return "the heterogeneous costs are for another number of ranks";
        if (std::string problem = r.hetero_costs->validate(); !problem.empty()) return problem;
    }
    if (r.elements < 1) return "elements must be at least 1";
    if (!valid_cost(r.latency_s) || r.latency_s > r.costs.transfer_s) {
        return "latency must be a finite number of seconds in [0, d]";
    }
    if (r.segments < 0) return "segments must be at least 0 (0: as the model predicts fastest)";
    if (r.segments > 1 && r.model != TransferModel::overlap) return "segments > 1 need the overlap model";
    if (r.recv_window < 1) return "the receive window must be at least 1";
    if (strategy_needs_hetero_costs(r.strategy)) {
        const std::string name(strategy_name(r.strategy));
        if (!r.hetero_costs) return "strategy " + name + " needs heterogeneous costs (per rank and per link)";
        if (!r.commutative) return "strategy " + name + " needs a commutative operator";
        if (r.strategy == Strategy::two_level && static_cast<int32_t>(r.node_of.size()) != r.ranks) {
            return "strategy two-level needs the node of every rank";
        }
    }
    return {};
}

Plan make_plan(const PlanRequest& request) {
    if (std::string problem = validate(request); !problem.empty()) throw std::invalid_argument(problem);
    const int32_t n = request.ranks;
    Plan plan;
    plan.request = request;
    BuiltTree built = build_tree(request);
    const bool rank_tree = std::holds_alternative<RankTree>(built);
    int32_t builder_segments = 0;  // > 0: the builder chose the count and predicted the time (multi-tree)
    double builder_predicted_s = 0;
    if (RankTrees* trees = std::get_if<RankTrees>(&built)) {
        builder_segments = trees->segments;
        builder_predicted_s = trees->predicted_s;
        TreeShape& first = trees->trees.front();
        plan.parent = std::move(first.parent);
        plan.child_offset = std::move(first.child_offset);
        plan.child_rank = std::move(first.child_rank);
        plan.child_joins_left = std::move(first.child_joins_left);
        plan.more_trees.assign(std::make_move_iterator(trees->trees.begin() + 1),
                               std::make_move_iterator(trees->trees.end()));
        plan.sink = trees->sink;
        plan.final_transfer = trees->final_transfer;
        plan.deal = std::move(trees->deal);
    } else if (rank_tree) {
        RankTree& tree = std::get<RankTree>(built);
        plan.parent = std::move(tree.parent);
        plan.sink = tree.sink;
        plan.builder_makespan_s = tree.builder_makespan_s;
    } else {
        plan_from_layout(request, std::get<Tree>(built), plan);
    }

    UniformCosts uniform(request.costs);
    std::optional<FixedCosts> fixed;
    if (request.hetero_costs) fixed.emplace(*request.hetero_costs);
    CostSampler& costs = fixed ? static_cast<CostSampler&>(*fixed) : uniform;
    Simulation sim = simulate(plan.parent, costs, request.model, plan.release_s);
    plan.ready_s = std::move(sim.ready_s);
    plan.send_start_s = std::move(sim.send_start_s);
    plan.arrive_s = std::move(sim.arrive_s);
    if (rank_tree) fold_in_arrival_order(plan);
    plan.tree_makespan_s = sim.makespan_s;
    plan.makespan_s = sim.makespan_s + final_transfer_s(plan);
    const HeteroCosts* hetero = request.hetero_costs.get();
    const Costs fastest = hetero ? Costs{hetero->min_transfer_s(), hetero->min_compute_s()} : request.costs;
    const Costs slowest = hetero ? Costs{hetero->max_transfer_s(), hetero->max_compute_s()} : request.costs;
    plan.lower_bound_s = lower_bound_s(n, fastest);
    plan.upper_bound_s = upper_bound_s(n, slowest);
    if (builder_segments > 0) {
        plan.unsegmented_makespan_s = plan.makespan_s;
        plan.segments = builder_segments;
        plan.tree_makespan_s = plan.makespan_s = builder_predicted_s;
    } else {
        segment(plan);
    }
    return plan;
}

RankProgram program_for(const Plan& plan, int32_t rank) {
    RankProgram program;
    program.parent = plan.parent[rank];
    for (int32_t k = plan.child_offset[rank]; k < plan.child_offset[rank + 1]; ++k) {
        program.children.push_back({plan.child_rank[k], plan.child_joins_left[k] != 0});
    }
    for (const TreeShape& tree : plan.more_trees) {
        RankProgram::TreeRole& role = program.more_trees.emplace_back();
        role.parent = tree.parent[rank];
        for (int32_t k = tree.child_offset[rank]; k < tree.child_offset[rank + 1]; ++k) {
            role.children.push_back({tree.child_rank[k], tree.child_joins_left[k] != 0});
        }
    }
    program.deal = plan.deal;
    const HeteroCosts* hetero = plan.request.hetero_costs.get();
    // Every child's receive at once takes a scratch buffer of the vector per child: only within the executor's
    // limit (plan/exec_limits.hpp), which the executor then honours as asked.
    const auto children = static_cast<int64_t>(program.children.size());
    const int64_t vector_bytes = plan.request.elements * plan.request.element_bytes;
    program.receive_together = plan.segments == 1 && plan.more_trees.empty() && children > 0 &&
                               vector_bytes <= kExecLimits.together_bytes / children &&
                               std::all_of(program.children.begin(), program.children.end(), [&](const ChildStep& c) {
                                   return (hetero ? hetero->flight_s(c.rank, rank) : plan.request.costs.flight_s) > 0;
                               });
    if (plan.final_transfer) {
        if (rank == plan.sink) program.send_result_to = plan.request.root;
        if (rank == plan.request.root) program.receive_result_from = plan.sink;
    }
    return program;
}

}  // namespace redux
