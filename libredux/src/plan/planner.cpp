// The planner: request -> tree (greedy.cpp, transfers_limited.cpp) -> fold order and Proposition 3 times
// (schedule.cpp) -> ranks (layout.cpp) -> prediction (simulator.cpp). No MPI.
#include "plan/planner.hpp"

#include "plan/bounds.hpp"
#include "plan/greedy.hpp"
#include "plan/layout.hpp"
#include "plan/schedule.hpp"
#include "plan/simulator.hpp"
#include "plan/transfers_limited.hpp"

#include <array>
#include <cmath>
#include <stdexcept>

namespace redux {
namespace {

constexpr std::array<std::pair<Strategy, std::string_view>, 5> kStrategyNames{{
    {Strategy::optimal, "optimal"},
    {Strategy::fibonacci, "fibonacci"},
    {Strategy::binomial, "binomial"},
    {Strategy::transfers_limited, "transfers-limited"},
    {Strategy::reducers_limited, "reducers-limited"},
}};

Tree build_tree(const PlanRequest& r) {
    switch (r.strategy) {
        case Strategy::optimal:
            return optimal_tree(r.ranks, r.costs);
        case Strategy::fibonacci:
            return fibonacci_strategy_tree(r.ranks, r.costs);
        case Strategy::binomial:
            return binomial_strategy_tree(r.ranks, r.costs);
        case Strategy::transfers_limited:
            return transfers_limited_tree(r.ranks, r.costs, r.limit);
        case Strategy::reducers_limited:
            return reducers_limited_tree(r.ranks, r.costs, r.limit);
    }
    throw std::invalid_argument("unknown strategy");
}

bool valid_cost(double s) { return std::isfinite(s) && s >= 0; }

}  // namespace

std::string_view strategy_name(Strategy s) {
    for (const auto& [strategy, name] : kStrategyNames) {
        if (strategy == s) return name;
    }
    return "unknown";
}

std::optional<Strategy> parse_strategy(std::string_view name) {
    for (const auto& [strategy, known] : kStrategyNames) {
        if (known == name) return strategy;
    }
    return std::nullopt;
}

bool strategy_needs_limit(Strategy s) { return s == Strategy::transfers_limited || s == Strategy::reducers_limited; }

std::string validate(const PlanRequest& r) {
    if (r.ranks < 1) return "ranks must be at least 1";
    if (!valid_cost(r.costs.transfer_s)) return "d (transfer cost) must be a finite number of seconds >= 0";
    if (!valid_cost(r.costs.compute_s)) return "c (compute cost) must be a finite number of seconds >= 0";
    if (r.root < 0 || r.root >= r.ranks) return "root must be in [0, ranks)";
    if (strategy_needs_limit(r.strategy) && r.limit < 1) {
        return "strategy " + std::string(strategy_name(r.strategy)) + " needs a limit K >= 1";
    }
    return {};
}

Plan make_plan(const PlanRequest& request) {
    if (std::string problem = validate(request); !problem.empty()) throw std::invalid_argument(problem);
    const int32_t n = request.ranks;
    const Tree tree = build_tree(request);
    const TreeSchedule schedule = earliest_schedule(tree, request.costs);
    const Layout layout = lay_out(tree.parent, schedule.fold, request.root, request.commutative);

    Plan plan;
    plan.request = request;
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

    Simulation sim = simulate(plan.parent, request.costs, plan.release_s);
    plan.ready_s = std::move(sim.ready_s);
    plan.send_start_s = std::move(sim.send_start_s);
    plan.tree_makespan_s = sim.makespan_s;
    plan.makespan_s = sim.makespan_s + (plan.final_transfer ? request.costs.transfer_s : 0.0);
    plan.builder_makespan_s = tree.builder_makespan_s;
    plan.lower_bound_s = lower_bound_s(n, request.costs);
    plan.upper_bound_s = upper_bound_s(n, request.costs);
    return plan;
}

RankProgram program_for(const Plan& plan, int32_t rank) {
    RankProgram program;
    program.parent = plan.parent[rank];
    for (int32_t k = plan.child_offset[rank]; k < plan.child_offset[rank + 1]; ++k) {
        program.children.push_back({plan.child_rank[k], plan.child_joins_left[k] != 0});
    }
    if (plan.final_transfer) {
        if (rank == plan.sink) program.send_result_to = plan.request.root;
        if (rank == plan.request.root) program.receive_result_from = plan.sink;
    }
    return program;
}

}  // namespace redux
