// Planning a key: calibration -> costs -> plan -> program, once per (communicator, key).
//
// plan_for is the front door: it finds the key's cached plan or makes it from the key's costs (planning_costs.cpp)
// and the trees and algorithms planned for its collective (plan_reduce.cpp for MPI_Reduce, plan_family.cpp for
// MPI_Allreduce and MPI_Reduce_scatter_block); under auto it starts auto from what the wisdom file kept, and it
// keeps the plan, the oldest going first when the communicator holds too many. log_plan writes the decision log.
#include "api/planning.hpp"

#include "api/first_calls.hpp"
#include "api/plan_family.hpp"
#include "api/plan_reduce.hpp"
#include "api/planning_costs.hpp"
#include "mpi/mpi_check.hpp"
#include "plan/exec_limits.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace redux {
namespace {

// The name of what a key asks for: auto or a strategy.
std::string requested_name(redux_algorithm algorithm) {
    const std::optional<Strategy> strategy = strategy_of(algorithm);
    return strategy ? std::string(strategy_name(*strategy)) : std::string("auto");
}

// Keeps `cached` as key's plan, the oldest plan going first when the communicator holds too many.
int remember_plan(CommState& state, const PlanKey& key, std::unique_ptr<CachedPlan> cached, CachedPlan*& out) {
    if (state.plans.size() >= kMaxCachedPlans) {
        state.plans.erase(state.plan_order.front());
        state.plan_order.pop_front();
        state.last_plan = nullptr;
        forget_lookups();  // RecentCalls and the thread's records may point at the evicted plan
    }
    CachedPlan* raw = cached.get();
    state.plans.emplace(key, std::move(cached));
    state.plan_order.push_back(key);
    state.last_key = key;
    out = state.last_plan = raw;
    return MPI_SUCCESS;
}

}  // namespace

void log_plan(const CommState& state, const CachedPlan& plan, const char* what, bool to_file) {
    const Config& cfg = state.config;
    if (state.rank != 0) return;
    if (cfg.verbose) std::fprintf(stderr, "%s\n", report_words(plan.report, what).c_str());
    if (to_file && !cfg.report_path.empty() && !append_line(cfg.report_path, report_json(plan.report, what))) {
        std::fprintf(stderr, "libredux: cannot append to REDUX_REPORT=%s\n", cfg.report_path.c_str());
    }
}

namespace {

// Starts `cached`'s AutoSelect from what an earlier job decided (api/wisdom.hpp), where the decision names native
// or one of the key's trees, or its arrival contender with a lateness for each rank (made again for it); false where
// it names none (the plans changed): the entry is dropped.
bool start_from_wisdom(const CommState& state, const PlanKey& key, const WisdomEntry& known, CachedPlan& cached) {
    AutoSelect& select = cached.auto_select;
    if (known.strategy == "native") {
        if (select.native_excluded()) return false;
        select.start_from(AutoSelect::Run::native, 0, known.chosen_s, known.native_s, known.second_look);
        return true;
    }
    const int trees = select.trees() + (select.dynamic() ? 1 : 0);
    for (int t = 0; t < trees; ++t) {
        if (cached.trees[static_cast<size_t>(t)].name() != known.strategy) continue;
        select.start_from(AutoSelect::Run::planned, t, known.chosen_s, known.native_s, known.second_look);
        return true;
    }
    if (!select.arrivals() || known.lateness_s.size() != static_cast<size_t>(state.size)) return false;
    PlannedTree& arrival = cached.trees[static_cast<size_t>(select.arrival_tree())];
    if (arrival.name() != known.strategy) return false;
    remake_for_arrivals(arrival, state, key.root, cached.costs, key.commutative, known.lateness_s);
    select.start_from(AutoSelect::Run::planned, select.arrival_tree(), known.chosen_s, known.native_s, false);
    return true;
}

}  // namespace

int plan_for(CommState& state, const PlanKey& key, const void* own_data, MPI_Datatype datatype, MPI_Op op,
             const ElementLayout& layout, const KeyWisdom& wisdom, CachedPlan*& out) {
    if (state.last_plan != nullptr && state.last_key == key) {
        out = state.last_plan;
        return MPI_SUCCESS;
    }
    if (auto hit = state.plans.find(key); hit != state.plans.end()) {
        state.last_key = key;
        out = state.last_plan = hit->second.get();
        return MPI_SUCCESS;
    }
    auto cached = std::make_unique<CachedPlan>();
    PlanReport& report = cached->report;
    report.comm_size = state.size;
    report.root = key.root;
    report.count = key.count;
    report.bytes = static_cast<long long>(key.type_size) * whole_count(state, key);
    report.commutative = key.commutative;
    report.requested = requested_name(key.algorithm);
    Costs costs;
    REDUX_MPI(make_costs(state, key, own_data, datatype, op, layout, wisdom.entry, costs, report));
    report.d_s = costs.transfer_s;
    report.flight_s = costs.flight_s;
    report.call_s = costs.call_s;
    report.c_s = costs.compute_s;

    cached->costs = costs;
    cached->op_piece_bytes = op_piece_bytes(costs, report.bytes);
    cached->knobs = state.config.knobs;
    if (!cached->knobs.chunk_bytes_asked) {
        cached->knobs.chunk_bytes =
            std::max<size_t>(cached->knobs.chunk_bytes, static_cast<size_t>(cached->op_piece_bytes));
    }
    report.c_call_s = costs.compute_call_s;
    const double planning_start = MPI_Wtime();
    if (key.collective != Collective::reduce) {
        report.collective = std::string(collective_name(key.collective));
        plan_family(state, key, costs, *cached);
        for (const PlannedTree& tree : cached->trees) {
            report.predicted_by_strategy_s.emplace_back(tree.name(), tree.predicted_s);
        }
        if (key.algorithm == REDUX_ALGORITHM_AUTO) {
            // late-rank, if planned, after the contenders: weighed only where one rank comes last call after call
            const bool arrivals = cached->trees.back().family == FamilyAlgorithm::late_rank;
            const int contenders = static_cast<int>(cached->trees.size()) - (arrivals ? 1 : 0);
            cached->auto_select = AutoSelect(contenders, {}, false, AutoSelect::kExploreEvery, arrivals);
            const char* failure = native_failures(state, key).every_call;
            if (failure != nullptr) {
                cached->auto_select.exclude_native();
                report.native_excluded = failure;
            }
        }
    } else {
        REDUX_MPI(plan_reduce(state, key, costs, *cached));
    }
    // Under auto, the trial contenders: tree-dyn after them is weighed only where the ranks arrive apart
    // (arrival_spread_s, dynamic_s).
    const size_t tried =
        key.algorithm == REDUX_ALGORITHM_AUTO ? static_cast<size_t>(cached->auto_select.trees()) : cached->trees.size();
    for (size_t t = 0; t < tried; ++t) report.tried.emplace_back(cached->trees[t].name());
    report.strategy = cached->trees.front().name();
    report.predicted_s = cached->trees.front().predicted_s;
    report.segments = cached->trees.front().segments;
    cached->wisdom_call = wisdom.call;
    if (wisdom.entry != nullptr) {
        const bool started = start_from_wisdom(state, key, *wisdom.entry, *cached);
        report.wisdom = started ? "started from" : "names no plan";
        if (started) {
            report.strategy = wisdom.entry->strategy;
            cached->wisdom_nonblocking = wisdom.entry->nonblocking;
        } else {
            drop_decision(state, *cached);
        }
    }
    report.planning_s = MPI_Wtime() - planning_start;
    log_plan(state, *cached, "new plan", true);  // and under auto, its decision when the trials are done
    return remember_plan(state, key, std::move(cached), out);
}

}  // namespace redux
