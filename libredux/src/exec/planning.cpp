// Planning a key: calibration -> costs -> plan -> program, once per (communicator, key).
//
// d, c: the call's own (redux_options) first, then REDUX_D / REDUX_C, then measurement. d comes from the link
// calibration of the communicator (calib/link_calibration.cpp, once per communicator): the flat tree is
// planned with the slowest link class the communicator has, at the call's message size. c is the op timed on
// rank 0's own data (calib/compute_cost.cpp) and broadcast, so all plan with the same numbers. Not the
// maximum over ranks: on oversubscribed or shared nodes that is the noisiest measurement, and rank 0 is as
// good a sample as any. With REDUX_DEBUG=1 the ranks then compare a hash of the plan they made.
//
// Strategy: the one asked for, or with auto the one the model predicts fastest among optimal, Fibonacci and
// binomial (ties go in that order; Algorithm 1 is optimal in the model, so the others win only ties) and, when
// the communicator's links fall in several classes (nodes, packages), Slowest-Node-First and the heterogeneous
// greedy tree, and on several nodes the two-level tree (a tree per node, then one across the node leaders:
// plan/two_level.cpp), every candidate predicted by the simulator under the per-link costs d_ij of the
// calibrated classes; the fastest predicted wins, and among equals (within 0.01 %) the one with the fewest
// transfers between nodes, then the first in that order (up to 1024 ranks; commutative ops only, as those trees require). auto
// then measures this tree against the MPI library's own reduce (auto_select.hpp) -- on predefined datatypes
// only: derived datatypes always run the planned tree. (Open MPI 4.1's reduce left the root's result unwritten
// for an absolute-address datatype with recvbuf = MPI_BOTTOM when it followed a planned call of the same
// key; the cause was not found, and MPI_Reduce on derived datatypes is not where the library's own tuning
// is likely to win.)
#include "exec/planning.hpp"

#include "calib/compute_cost.hpp"
#include "exec/mpi_check.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>
#include <utility>

namespace redux {
namespace {

const char* algorithm_name(Algorithm algorithm) {
    switch (algorithm) {
        case Algorithm::automatic:
            return "auto";
        case Algorithm::optimal:
            return "optimal";
        case Algorithm::fibonacci:
            return "fibonacci";
        case Algorithm::binomial:
            return "binomial";
        case Algorithm::native:
            return "native";
        case Algorithm::snf:
            return "snf";
        case Algorithm::hetero_greedy:
            return "hetero-greedy";
        case Algorithm::two_level:
            return "two-level";
    }
    return "unknown";
}

double& predicted_slot(PlanReport& report, Strategy strategy) {
    if (strategy == Strategy::fibonacci) return report.fibonacci_s;
    if (strategy == Strategy::binomial) return report.binomial_s;
    if (strategy == Strategy::snf) return report.snf_s;
    if (strategy == Strategy::hetero_greedy) return report.hetero_greedy_s;
    if (strategy == Strategy::two_level) return report.two_level_s;
    return report.optimal_s;
}

// d for `bytes`: the slowest link class of the communicator.
double transfer_for(const CommState& state, size_t bytes) {
    double d = 0;
    for (int c = 0; c < kLinkClasses; ++c) {
        if (state.topology.present[c]) d = std::max(d, state.links.fits[c].at(bytes));
    }
    return d;
}

// c, measured by rank 0 and broadcast with the error class it met, so that every rank plans with the same
// number or fails alike. A datatype that is not committed must fail like the transfers would, on libredux's
// communicator (errors returned), not in MPI_Reduce_local, which reports on MPI_COMM_WORLD (fatal by
// default): packing one element checks it there. Rank 0's data at MPI_BOTTOM (absolute addresses) is not
// copied (MPICH 4.0's MPI_Pack rejects it): c is taken as 0 then.
int measure_on_rank_zero(const CommState& state, const void* own_data, int count, MPI_Datatype datatype, MPI_Op op,
                         const ElementLayout& layout, double& compute_s) {
    double message[2] = {0, MPI_SUCCESS};  // c, error class
    if (state.rank == 0 && own_data != MPI_BOTTOM) {
        int packed_bytes = 0, position = 0, rc = MPI_Pack_size(1, datatype, state.comm, &packed_bytes);
        std::vector<char> packed(static_cast<size_t>(packed_bytes) + 1);
        if (rc == MPI_SUCCESS) {
            rc = MPI_Pack(own_data, 1, datatype, packed.data(), packed_bytes, &position, state.comm);
        }
        if (rc == MPI_SUCCESS) rc = measure_compute(own_data, count, datatype, op, layout, message[0]);
        int error_class = MPI_SUCCESS;
        if (rc != MPI_SUCCESS) MPI_Error_class(rc, &error_class);
        message[1] = error_class;
    }
    REDUX_MPI(MPI_Bcast(message, 2, MPI_DOUBLE, 0, state.comm));
    compute_s = message[0];
    return static_cast<int>(message[1]);
}

int make_costs(CommState& state, const PlanKey& key, const void* own_data, MPI_Datatype datatype, MPI_Op op,
               const ElementLayout& layout, Costs& costs, PlanReport& report) {
    const Config& cfg = config();
    const size_t bytes = static_cast<size_t>(key.type_size) * static_cast<size_t>(key.count);
    if (key.transfer_s >= 0) {
        costs.transfer_s = key.transfer_s;
        report.costs_source = "call";
    } else if (cfg.transfer_s) {
        costs.transfer_s = *cfg.transfer_s;
        report.costs_source = "environment";
    } else {
        if (!state.links_known) {
            REDUX_MPI(gather_topology(state.comm, state.topology));
            REDUX_MPI(calibrate_links(state.comm, state.topology, {cfg.calibration_file, cfg.calibration_max_age_s},
                                      state.links));
            state.links_known = true;
            report.calibration_s += state.links.seconds;
        }
        costs.transfer_s = transfer_for(state, bytes);
        report.costs_source = state.links.source;
    }
    if (key.compute_s >= 0) {
        costs.compute_s = key.compute_s;
    } else if (cfg.compute_s) {
        costs.compute_s = *cfg.compute_s;
    } else {
        const double start = MPI_Wtime();
        REDUX_MPI(measure_on_rank_zero(state, own_data, key.count, datatype, op, layout, costs.compute_s));
        report.calibration_s += MPI_Wtime() - start;
    }
    return MPI_SUCCESS;
}

// Largest communicator planned with per-link costs: the n x n matrix of d_ij (8 MiB at 1024 ranks).
constexpr int kMaxHeteroRanks = 1024;

// Per-link costs from the calibrated link classes, when the communicator has more than one class (several nodes
// or packages) and d and c both come from the library's own measurements; null otherwise.
std::shared_ptr<const HeteroCosts> link_costs_of(const CommState& state, const PlanKey& key, const Costs& costs) {
    int classes = 0;
    for (bool present : state.topology.present) classes += present;
    if (!state.links_known || classes < 2 || state.size > kMaxHeteroRanks || key.transfer_s >= 0 ||
        config().transfer_s) {
        return nullptr;
    }
    const size_t bytes = static_cast<size_t>(key.type_size) * static_cast<size_t>(key.count);
    std::array<double, kLinkClasses> d{};
    for (int c = 0; c < kLinkClasses; ++c) d[c] = state.links.fits[c].at(bytes);
    const auto n = static_cast<size_t>(state.size);
    std::vector<double> transfer(n * n, 0.0);
    for (size_t i = 0; i < n; ++i) {
        for (size_t j = 0; j < n; ++j) {
            if (i != j) transfer[i * n + j] = d[static_cast<int>(state.topology.link(static_cast<int>(i), static_cast<int>(j)))];
        }
    }
    return std::make_shared<const HeteroCosts>(std::vector<double>(n, costs.compute_s), std::move(transfer));
}

uint64_t plan_hash(const Plan& plan) {
    uint64_t hash = 1469598103934665603ull;
    auto mix = [&](int64_t v) {
        hash ^= static_cast<uint64_t>(v);
        hash *= 1099511628211ull;
    };
    for (int32_t p : plan.parent) mix(p);
    for (int32_t c : plan.child_rank) mix(c);
    mix(plan.sink);
    return hash;
}

// REDUX_DEBUG: every rank must hold the same plan.
int check_same_plan(const CommState& state, const Plan& plan) {
    const unsigned long long mine = plan_hash(plan);
    unsigned long long low = 0, high = 0;
    REDUX_MPI(MPI_Allreduce(&mine, &low, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, state.comm));
    REDUX_MPI(MPI_Allreduce(&mine, &high, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, state.comm));
    if (low == high) return MPI_SUCCESS;
    std::fprintf(stderr, "libredux: REDUX_DEBUG: rank %d holds plan %016llx, other ranks differ (%016llx..%016llx)\n",
                 state.rank, mine, low, high);
    return MPI_ERR_INTERN;
}

}  // namespace

void log_plan(const CommState& state, const CachedPlan& plan, const char* what, bool to_file) {
    const Config& cfg = config();
    if (state.rank != 0) return;
    if (cfg.verbose) std::fprintf(stderr, "%s\n", report_words(plan.report, what).c_str());
    if (to_file && !cfg.report_path.empty() && !append_line(cfg.report_path, report_json(plan.report))) {
        std::fprintf(stderr, "libredux: cannot append to REDUX_REPORT=%s\n", cfg.report_path.c_str());
    }
}

int plan_for(CommState& state, const PlanKey& key, const void* own_data, MPI_Datatype datatype, MPI_Op op,
             const ElementLayout& layout, CachedPlan*& out) {
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
    report.bytes = static_cast<long long>(key.type_size) * key.count;
    report.commutative = key.commutative;
    report.requested = algorithm_name(key.algorithm);
    Costs costs;
    REDUX_MPI(make_costs(state, key, own_data, datatype, op, layout, costs, report));
    report.d_s = costs.transfer_s;
    report.c_s = costs.compute_s;

    // Candidates: the strategy asked for, or with auto the homogeneous three and, on a communicator with several
    // link classes and a commutative op, Slowest-Node-First and the heterogeneous greedy tree, all predicted
    // under the per-link costs; the fastest predicted wins (ties in this order).
    const std::shared_ptr<const HeteroCosts> links = link_costs_of(state, key, costs);
    const bool several_nodes = state.links_known && state.topology.nodes() > 1;
    std::vector<int32_t> node_of;
    if (several_nodes) {
        for (const RankPlace& place : state.topology.place) node_of.push_back(place.node);
    }
    std::vector<Strategy> candidates;
    switch (key.algorithm) {
        case Algorithm::fibonacci:
            candidates = {Strategy::fibonacci};
            break;
        case Algorithm::binomial:
            candidates = {Strategy::binomial};
            break;
        case Algorithm::snf:  // need per-link costs and a commutative op; else the optimal tree
            candidates = {links && key.commutative ? Strategy::snf : Strategy::optimal};
            break;
        case Algorithm::hetero_greedy:
            candidates = {links && key.commutative ? Strategy::hetero_greedy : Strategy::optimal};
            break;
        case Algorithm::two_level:
            candidates = {links && key.commutative && several_nodes ? Strategy::two_level : Strategy::optimal};
            break;
        case Algorithm::automatic:
            candidates = {Strategy::optimal, Strategy::fibonacci, Strategy::binomial};
            if (links && key.commutative) {
                candidates.push_back(Strategy::hetero_greedy);
                candidates.push_back(Strategy::snf);
                if (several_nodes) candidates.push_back(Strategy::two_level);
            }
            break;
        default:
            candidates = {Strategy::optimal};
    }
    // Transfers between nodes: the tie-break (the link classes cannot tell one node's links from another's, so
    // among trees predicted equally fast the one that crosses nodes least is the safer bet).
    auto crossings = [&](const Plan& plan) {
        int count = 0;
        for (size_t r = 0; several_nodes && r < plan.parent.size(); ++r) {
            count += plan.parent[r] >= 0 && node_of[r] != node_of[static_cast<size_t>(plan.parent[r])];
        }
        return count;
    };
    std::optional<Plan> best;
    int best_crossings = 0;
    for (Strategy strategy : candidates) {
        PlanRequest request{state.size, costs, strategy, 0, key.root, key.commutative};
        request.hetero_costs = links;  // predictions under the per-link costs when there are several classes
        if (strategy == Strategy::two_level) request.node_of = node_of;
        Plan plan = make_plan(request);
        predicted_slot(report, strategy) = plan.makespan_s;
        const int plan_crossings = crossings(plan);
        const bool tie = best && std::abs(plan.makespan_s - best->makespan_s) <= 1e-4 * best->makespan_s;
        if (!best || (!tie && plan.makespan_s < best->makespan_s) || (tie && plan_crossings < best_crossings)) {
            best_crossings = plan_crossings;
            best = std::move(plan);
        }
    }
    if (config().debug) REDUX_MPI(check_same_plan(state, *best));
    cached->costs = costs;
    cached->strategy = best->request.strategy;
    cached->predicted_s = best->makespan_s;
    cached->program = program_for(*best, state.rank);
    report.strategy = std::string(strategy_name(cached->strategy));
    report.predicted_s = cached->predicted_s;
    const bool auto_measures = key.algorithm == Algorithm::automatic && key.datatype != MPI_DATATYPE_NULL;
    log_plan(state, *cached, "new plan", !auto_measures);  // auto's decision goes to REDUX_REPORT later

    if (state.plans.size() >= kMaxCachedPlans) {
        state.plans.erase(state.plan_order.front());
        state.plan_order.pop_front();
        state.last_plan = nullptr;
    }
    CachedPlan* raw = cached.get();
    state.plans.emplace(key, std::move(cached));
    state.plan_order.push_back(key);
    state.last_key = key;
    out = state.last_plan = raw;
    return MPI_SUCCESS;
}

}  // namespace redux
