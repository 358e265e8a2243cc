// Planning a key: calibration -> costs -> plan -> program, once per (communicator, key).
//
// d, c: the call's own (redux_options) first, then REDUX_D / REDUX_C, then measurement. d comes from the link
// calibration of the communicator (calib/link_calibration.cpp, once per communicator): the flat tree is
// planned with the slowest link class the communicator has, at the call's message size. c is the op timed by
// rank 0 on its data and rank 1's (calib/compute_cost.cpp: c = a + b count, a paid by every application) and
// broadcast, so all plan with the same numbers. Not the maximum over ranks: on oversubscribed or shared nodes
// that is the noisiest measurement. With REDUX_DEBUG=1 the ranks then compare a hash of the plan they made.
//
// Which tree, in how many segments: plan/select.cpp decides, from the costs and the ranks' placement gathered
// here. The segment count is forced by redux_options.segment_bytes or REDUX_SEGMENT_BYTES; otherwise the model
// chooses it when d is calibrated (it then knows the latency part of d, alpha of the slowest class); with a d
// given by the call or the environment, one number with no latency part, the vector is not segmented. auto then
// measures that tree and selection's runners-up against the MPI library's own reduce, each with its program made
// here (a program is a few ints per child), and on MPI_Reduce over 3 or more ranks, segments not forced, keeps
// tree-dyn after them, which it weighs only where the ranks arrive far apart; its AutoSelect is told here what it
// needs to know about the library's reduce on the key: whether it fails when the root passes MPI_IN_PLACE, or when
// the root's recvbuf is MPI_BOTTOM (policy/auto_select.hpp).
#include "api/planning.hpp"

#include "api/mpi_identity.h"
#include "calib/compute_cost.hpp"
#include "mpi/mpi_check.hpp"
#include "mpi/tags.hpp"
#include "mpi/yielding.hpp"
#include "plan/exec_limits.hpp"
#include "plan/select.hpp"
#include "policy/native_failures.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

namespace redux {
namespace {

// The name of what a key asks for: auto or a strategy.
std::string requested_name(redux_algorithm algorithm) {
    const std::optional<Strategy> strategy = strategy_of(algorithm);
    return strategy ? std::string(strategy_name(*strategy)) : std::string("auto");
}

// d for `bytes`: the slowest link class of the communicator.
// The fit of the link class with the largest d at `bytes` (the homogeneous trees plan with the slowest class).
const LinkFit& slowest_fit(const CommState& state, size_t bytes) {
    int slowest = -1;
    for (int c = 0; c < kLinkClasses; ++c) {
        if (!state.topology.present[c]) continue;
        if (slowest < 0 || state.links.fits[c].at(bytes) > state.links.fits[slowest].at(bytes)) slowest = c;
    }
    static const LinkFit none{};
    return slowest < 0 ? none : state.links.fits[slowest];
}

double transfer_for(const CommState& state, size_t bytes) { return std::max(slowest_fit(state, bytes).at(bytes), 0.0); }

// c, measured by rank 0 on its data and rank 1's (calib/compute_cost.cpp: the op sees what a reduction folding
// ranks 0 and 1 passes it) and broadcast with the error class it met, so that every rank plans with the same
// numbers or fails alike. Rank 1 sends the first compute_sample_count() elements of its data, packed. A datatype
// that is not committed must fail like the transfers would, on libredux's communicator (errors returned), not in
// MPI_Reduce_local, which reports on MPI_COMM_WORLD (fatal by default): packing one element checks it there. Data
// at MPI_BOTTOM (absolute addresses) is not copied (MPICH 4.0's MPI_Pack rejects it): c is taken as 0 then, as on
// one rank, where no reduction applies the op.
int measure_on_first_pair(const CommState& state, const void* own_data, int count, MPI_Datatype datatype, MPI_Op op,
                          const ElementLayout& layout, OpCost& cost) {
    double message[3] = {0, 0, MPI_SUCCESS};  // call_s, element_s, error class
    if (state.size > 1 && state.rank <= 1 && count > 0) {
        const int sample = compute_sample_count(count, layout);
        int packed_bytes = 0, rc = MPI_Pack_size(sample, datatype, state.comm, &packed_bytes);
        // Rank 1's message: the bytes it packed (0: none, its data is at MPI_BOTTOM), then they.
        std::vector<char> packed(sizeof(int) + static_cast<size_t>(std::max(packed_bytes, 0)));
        int position = 0;
        if (rc == MPI_SUCCESS && own_data != MPI_BOTTOM && state.rank == 0) {  // checks the datatype (above)
            rc = MPI_Pack(own_data, 1, datatype, packed.data() + sizeof(int), packed_bytes, &position, state.comm);
        }
        // Rank 1 always sends and rank 0 always receives (a message of the same size on both: packed_bytes is the
        // datatype's), so that a failure on either side cannot leave the other waiting.
        if (state.rank == 1) {
            position = 0;
            if (rc == MPI_SUCCESS && own_data != MPI_BOTTOM) {
                rc = MPI_Pack(own_data, sample, datatype, packed.data() + sizeof(int), packed_bytes, &position,
                              state.comm);
            }
            const int sent = rc == MPI_SUCCESS ? position : 0;
            std::memcpy(packed.data(), &sent, sizeof(int));
            REDUX_MPI(send_yielding(packed.data(), static_cast<int>(packed.size()), MPI_PACKED, 0, tags::kOpSample,
                                    state.comm));
        } else {
            REDUX_MPI(recv_yielding(packed.data(), static_cast<int>(packed.size()), MPI_PACKED, 1, tags::kOpSample,
                                    state.comm));
            int received = 0;
            std::memcpy(&received, packed.data(), sizeof(int));
            if (rc == MPI_SUCCESS && own_data != MPI_BOTTOM && received > 0) {
                ElementBuffer theirs(layout, sample);
                position = 0;
                rc = MPI_Unpack(packed.data() + sizeof(int), received, &position, theirs.data(), sample, datatype,
                                state.comm);
                if (rc == MPI_SUCCESS)
                    rc = measure_compute(own_data, theirs.data(), sample, datatype, op, layout, cost);
            }
        }
        if (state.rank == 0) {
            int error_class = MPI_SUCCESS;
            if (rc != MPI_SUCCESS) MPI_Error_class(rc, &error_class);
            message[0] = cost.call_s;
            message[1] = cost.element_s;
            message[2] = error_class;
        }
    }
    REDUX_MPI(bcast_yielding(message, 3, MPI_DOUBLE, 0, state.comm));
    cost = {message[0], message[1]};
    return static_cast<int>(message[2]);
}

// The elements the call reduces: for MPI_Reduce_scatter_block every rank's size x recvcount.
int whole_count(const CommState& state, const PlanKey& key) {
    return key.collective == Collective::reduce_scatter_block ? key.count * state.size : key.count;
}

int make_costs(CommState& state, const PlanKey& key, const void* own_data, MPI_Datatype datatype, MPI_Op op,
               const ElementLayout& layout, const WisdomEntry* known, Costs& costs, PlanReport& report) {
    const Config& cfg = state.config;
    const size_t bytes = static_cast<size_t>(key.type_size) * static_cast<size_t>(whole_count(state, key));
    if (key.transfer_s >= 0) {
        costs.transfer_s = key.transfer_s;
        report.costs_source = "call";
    } else if (cfg.transfer_s) {
        costs.transfer_s = *cfg.transfer_s;
        report.costs_source = "environment";
    } else {
        if (!state.links_known) {
            REDUX_MPI(gather_topology_once(state));
            REDUX_MPI(calibrate_links(state.comm, state.topology, {calibration_path(cfg), cfg.calibration_max_age_s},
                                      state.links));
            state.links_known = true;
            report.calibration_s += state.links.seconds;
        }
        costs.transfer_s = transfer_for(state, bytes);
        const LinkFit& slowest = slowest_fit(state, bytes);
        costs.flight_s = std::min(slowest.flight_at(bytes), costs.transfer_s);
        costs.call_s = std::max(slowest.call_s, 0.0);
        report.costs_source = state.links.source;
    }
    if (key.compute_s >= 0) {
        costs.compute_s = key.compute_s;
    } else if (cfg.compute_s) {
        costs.compute_s = *cfg.compute_s;
    } else if (known != nullptr && known->compute_s >= 0) {  // the op's cost an earlier job's plans stood on
        costs.compute_s = known->compute_s;
        costs.compute_call_s = known->compute_call_s;
    } else {
        const double start = MPI_Wtime();
        OpCost op_cost;
        const int count = whole_count(state, key);
        // A predefined op on a predefined datatype: its c from an earlier key where that one measured as many elements
        // as this one would (the same on every rank: the handles and the layout are everywhere the same).
        const bool predefined = key.datatype != MPI_DATATYPE_NULL && key.op != MPI_OP_NULL;
        const int sample = compute_sample_count(count, layout);
        const auto known = predefined ? state.measured_ops.find({key.datatype, key.op}) : state.measured_ops.end();
        if (known != state.measured_ops.end() && known->second.sample >= sample) {
            op_cost = known->second.cost;
        } else {
            REDUX_MPI(measure_on_first_pair(state, own_data, count, datatype, op, layout, op_cost));
            if (predefined) state.measured_ops[{key.datatype, key.op}] = {op_cost, sample};
        }
        costs.compute_s = op_cost.at(count);
        costs.compute_call_s = op_cost.call_s;
        report.calibration_s += MPI_Wtime() - start;
    }
    return MPI_SUCCESS;
}

// The segment size asked for: the call's, else REDUX_SEGMENT_BYTES (-1: as the model says, 0: unsegmented).
long long segment_bytes_for(const CommState& state, const PlanKey& key) {
    return key.segment_bytes >= 0 ? key.segment_bytes : state.config.segment_bytes;
}

// What plan selection needs to know about the call: placement and per-class d only when d is the library's
// own calibration (a d given by the call or the environment is one number for every link).
SelectionInput selection_input(const CommState& state, const PlanKey& key, const Costs& costs) {
    SelectionInput input;
    input.ranks = state.size;
    input.root = key.root;
    input.commutative = key.commutative;
    input.costs = costs;
    input.requested = strategy_of(key.algorithm);
    input.limit = key.limit;
    input.elements = std::max(key.count, 1);
    input.recv_window = state.config.knobs.recv_window;
    const long long bytes = static_cast<long long>(key.type_size) * key.count;
    const bool calibrated = state.links_known && key.transfer_s < 0 && !state.config.transfer_s;
    if (calibrated) {
        input.place = state.topology.place;
        for (int c = 0; c < kLinkClasses; ++c) {
            input.class_transfer_s[c] = state.links.fits[c].at(static_cast<size_t>(bytes));
            input.class_flight_s[c] = state.links.fits[c].flight_at(static_cast<size_t>(bytes));
        }
        input.node_pairs = node_pair_costs(state.links.pairs, state.links.fits[static_cast<int>(LinkClass::other_node)],
                                           static_cast<size_t>(bytes));
        const LinkFit& curve = slowest_fit(state, static_cast<size_t>(bytes));
        input.latency_s = std::min(std::max(curve.alpha_s, 0.0), costs.transfer_s);
        // Under SMPI no message moves before its receive is posted, and a segmented stream posts one receive in
        // flight at a time: every segment pays its latency, so segments see no flight there.
        input.segment_flight = !kSimulatedRanks && state.topology.present[static_cast<int>(LinkClass::other_node)];
        if (curve.measured) {  // segments cost what the calibrated curve says at their size
            input.segment_curve = std::make_shared<const LinkFit>(curve);
            input.element_bytes = key.type_size;
        }
    }
    const long long segment_bytes = segment_bytes_for(state, key);
    if (segment_bytes > 0) {
        input.segments = static_cast<int32_t>(std::clamp((std::max(bytes, 1LL) + segment_bytes - 1) / segment_bytes,
                                                         1LL, static_cast<long long>(input.elements)));
    } else if (segment_bytes < 0 && calibrated) {  // the model's count, when it knows the latency part of d
        input.segments = 0;
    }
    return input;
}

uint64_t plan_hash(const Plan& plan) {
    uint64_t hash = 1469598103934665603ull;
    auto mix = [&](int64_t v) {
        hash ^= static_cast<uint64_t>(v);
        hash *= 1099511628211ull;
    };
    auto mix_tree = [&](const std::vector<int32_t>& parent, const std::vector<int32_t>& child_rank,
                        const std::vector<uint8_t>& joins_left) {
        for (int32_t p : parent) mix(p);
        for (int32_t c : child_rank) mix(c);
        for (uint8_t left : joins_left) mix(left);  // with the fold order, decides a non-commutative result
    };
    mix_tree(plan.parent, plan.child_rank, plan.child_joins_left);
    for (const TreeShape& tree : plan.more_trees) mix_tree(tree.parent, tree.child_rank, tree.child_joins_left);
    mix(plan.sink);
    mix(plan.final_transfer);
    mix(plan.request.root);
    mix(plan.segments);
    return hash;
}

// REDUX_DEBUG: every rank must hold the same plan.
int check_same_plan(const CommState& state, const Plan& plan) {
    const unsigned long long mine = plan_hash(plan);
    unsigned long long low = 0, high = 0;
    REDUX_MPI(allreduce_yielding(&mine, &low, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, state.comm));
    REDUX_MPI(allreduce_yielding(&mine, &high, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, state.comm));
    if (low == high) return MPI_SUCCESS;
    std::fprintf(stderr, "libredux: REDUX_DEBUG: rank %d holds plan %016llx, other ranks differ (%016llx..%016llx)\n",
                 state.rank, mine, low, high);
    return MPI_ERR_INTERN;
}

// The second phase of a family tree at `rank`: the result from rank 0 down the plan's tree 0 (its parent's
// children, the sink's from the root), or down a binomial tree where tree 0 does not reach every rank.
SpreadRole spread_role(const Plan& plan, int ranks, int rank, int& depth, int& fan_out) {
    const int root = 0;
    std::vector<int> parent(static_cast<size_t>(ranks), -1);
    bool spans = true;
    for (int r = 0; r < ranks; ++r) {
        if (r == root) continue;
        parent[static_cast<size_t>(r)] = r == plan.sink ? root : plan.parent[static_cast<size_t>(r)];
        if (parent[static_cast<size_t>(r)] < 0 || parent[static_cast<size_t>(r)] == r) spans = false;
    }
    if (!spans) {  // binomial from rank 0
        for (int r = 1; r < ranks; ++r) parent[static_cast<size_t>(r)] = r & (r - 1);
    }
    SpreadRole role;
    role.parent = parent[static_cast<size_t>(rank)];
    std::vector<int> children(static_cast<size_t>(ranks), 0);
    for (int r = 0; r < ranks; ++r) {
        if (parent[static_cast<size_t>(r)] < 0) continue;
        ++children[static_cast<size_t>(parent[static_cast<size_t>(r)])];
        if (parent[static_cast<size_t>(r)] == rank) role.children.push_back(r);
    }
    fan_out = *std::max_element(children.begin(), children.end());
    depth = 0;
    for (int r = 0; r < ranks; ++r) {
        int d = 0;
        for (int at = r; parent[static_cast<size_t>(at)] >= 0 && d <= ranks; at = parent[static_cast<size_t>(at)]) ++d;
        if (d > ranks) throw std::logic_error("the spread tree has a cycle");
        depth = std::max(depth, d);
    }
    return role;
}

// MPI_Allreduce and MPI_Reduce_scatter_block: the trees and algorithms `key` may run, predicted and ranked
// (plan/family.hpp). A tree strategy asked for: its tree; a family algorithm asked for: it (recursive doubling
// does not apply to a reduce-scatter-block: recursive halving instead); auto: the model's tree, recursive
// halving and (allreduce) recursive doubling, fastest predicted first, measured against the library's own.
void plan_family(const CommState& state, const PlanKey& key, const Costs& costs, CachedPlan& cached) {
    const int64_t least_piece_bytes = cached.op_piece_bytes;
    PlanKey tree_key = key;
    tree_key.count = whole_count(state, key);
    tree_key.root = 0;
    const SelectionInput input = selection_input(state, tree_key, costs);
    const FamilyShape shape(state.size);
    const int64_t bytes = static_cast<int64_t>(key.type_size) * tree_key.count;
    std::vector<PlannedTree> trees;
    std::optional<FamilyAlgorithm> asked = family_of(key.algorithm);
    if (asked == FamilyAlgorithm::recursive_doubling && key.collective == Collective::reduce_scatter_block) {
        asked = FamilyAlgorithm::reduce_scatter;
    }
    const bool automatic = key.algorithm == REDUX_ALGORITHM_AUTO;
    const bool dynamic = asked == FamilyAlgorithm::tree_dyn;  // MPI_Reduce's only: the model's tree
    if (!asked || automatic || dynamic) {
        const Selection selection = select_plan(input);
        const Plan& plan = selection.plan;
        PlannedTree tree;
        tree.strategy = plan.request.strategy;
        tree.program = program_for(plan, state.rank);
        int depth = 0, fan_out = 0;
        tree.spread = spread_role(plan, state.size, state.rank, depth, fan_out);
        tree.segments = plan.segments;
        const int spread_segments = plan.segments > 1 ? plan.segments : family_pieces(bytes, least_piece_bytes);
        tree.spread.segments = spread_segments;
        tree.predicted_s = predict_tree_then_spread(plan.predicted_s(), shape, costs, input.latency_s, depth, fan_out,
                                                    spread_segments, key.collective) +
                           costs.call_s;
        trees.push_back(std::move(tree));
        cached.report.why = selection.why;
    }
    auto add = [&](FamilyAlgorithm algorithm) {
        PlannedTree tree;
        tree.family = algorithm;
        tree.predicted_s = (algorithm == FamilyAlgorithm::recursive_doubling
                                ? predict_recursive_doubling(shape, costs, input.latency_s)
                                : predict_reduce_scatter(shape, costs, input.latency_s,
                                                         family_pieces(bytes / 2, least_piece_bytes), key.collective)) +
                           costs.call_s;
        trees.push_back(std::move(tree));
    };
    if (asked && !automatic && !dynamic) add(*asked);
    if (automatic) {
        add(FamilyAlgorithm::reduce_scatter);
        if (key.collective == Collective::allreduce) add(FamilyAlgorithm::recursive_doubling);
        std::stable_sort(trees.begin(), trees.end(),
                         [](const PlannedTree& a, const PlannedTree& b) { return a.predicted_s < b.predicted_s; });
    }
    cached.trees = std::move(trees);
}

// Tree-dyn's entry: no tree to plan. What it is predicted to take, for the decision log and auto's order, is an
// estimate for ranks that arrive together, a lower bound: the best tree's time and the two small messages before
// the first pairing (a rank's "arrived" to the root, the root's order); ranks idle together are combined along the
// optimal tree for the call's costs (`batch_costs`, the selection's).
PlannedTree tree_dyn(const Plan& best, const Costs& costs, const Costs& batch_costs, double latency_s) {
    PlannedTree tree;
    tree.family = FamilyAlgorithm::tree_dyn;
    tree.batches = DynBatches(batch_costs, latency_s);
    tree.predicted_s = best.predicted_s() + costs.call_s + 2.0 * latency_s;
    return tree;
}

// Rabenseifner's reduce (recursive halving, then every block to the root) and its prediction.
PlannedTree rabenseifner_reduce(const CommState& state, const Costs& costs, double latency_s, long long bytes,
                                int64_t op_piece_bytes) {
    PlannedTree halving;
    halving.family = FamilyAlgorithm::reduce_scatter;
    halving.predicted_s = predict_reduce_scatter(FamilyShape(state.size), costs, latency_s,
                                                 family_pieces(bytes / 2, op_piece_bytes), Collective::reduce) +
                          costs.call_s;
    return halving;
}

// Where the MPI library's own collective is known to fail on `key` (policy/native_failures.hpp): an MPI_Reduce when
// its root passes MPI_IN_PLACE, or receives at MPI_BOTTOM (which needs a datatype of absolute addresses: a derived
// one); an MPI_Reduce_scatter_block on every call (`every_call`).
struct KeyNativeFailures {
    KnownNativeFailures reduce;
    const char* every_call = nullptr;
    bool any() const { return reduce.root_in_place || reduce.root_recv_at_bottom || every_call; }
};

KeyNativeFailures native_failures(const CommState& state, const PlanKey& key) {
    const MpiLibrary& library = loaded_mpi_library();
    const long long bytes = static_cast<long long>(key.type_size) * whole_count(state, key);
    KeyNativeFailures failures;
    switch (key.collective) {
        case Collective::reduce:
            failures.reduce.root_in_place =
                known_native_reduce_failure(library, {state.size, key.root, /*in_place=*/true, bytes, key.commutative});
            if (key.datatype == MPI_DATATYPE_NULL) {
                failures.reduce.root_recv_at_bottom = known_native_reduce_failure(
                    library, {state.size, key.root, false, bytes, key.commutative, /*recv_at_bottom=*/true});
            }
            break;
        case Collective::allreduce:
            break;
        case Collective::reduce_scatter_block:
            failures.every_call =
                known_native_reduce_scatter_block_failure(library, state.size, key.commutative, key.lower_bound_moved);
            break;
    }
    return failures;
}

// MPI_Reduce: the tree selection chose, and under auto its runners-up.
int plan_reduce(CommState& state, const PlanKey& key, const Costs& costs, CachedPlan& cached) {
    PlanReport& report = cached.report;
    SelectionInput input = selection_input(state, key, costs);
    // Rabenseifner's reduce asked for: no tree to select.
    const std::optional<FamilyAlgorithm> asked = family_of(key.algorithm);
    if (asked == FamilyAlgorithm::reduce_scatter) {
        cached.trees.push_back(rabenseifner_reduce(state, costs, input.latency_s, report.bytes, cached.op_piece_bytes));
        return MPI_SUCCESS;
    }
    // Tree-dyn asked for: it moves whole vectors, and the tree selected only sets its estimate.
    if (asked == FamilyAlgorithm::tree_dyn) input.segments = 1;
    const auto nodes = static_cast<size_t>(input.node_pairs.node_ids.size());
    for (size_t a = 0; a < nodes; ++a) {
        const auto row = input.node_pairs.transfer_s.begin() + static_cast<std::ptrdiff_t>(a * nodes);
        report.node_pair_d_s.emplace_back(row, row + static_cast<std::ptrdiff_t>(nodes));
    }
    Selection selection = select_plan(input);
    for (const Candidate& candidate : selection.candidates) {
        report.predicted_by_strategy_s.emplace_back(strategy_name(candidate.strategy),
                                                    candidate.predicted_s + costs.call_s);
    }
    report.why = selection.why;
    const Plan& best = selection.plan;
    if (state.config.debug) REDUX_MPI(check_same_plan(state, best));
    auto tree_of = [&](const Plan& plan) {
        PlannedTree tree;
        tree.strategy = plan.request.strategy;
        tree.predicted_s = plan.predicted_s() + costs.call_s;
        tree.segments = plan.segments;
        tree.program = program_for(plan, state.rank);
        return tree;
    };
    if (asked == FamilyAlgorithm::tree_dyn) {
        cached.trees.push_back(tree_dyn(best, costs, input.costs, input.latency_s));
        return MPI_SUCCESS;
    }
    cached.trees.push_back(tree_of(best));
    if (key.algorithm == REDUX_ALGORITHM_AUTO) {
        for (const Plan& plan : selection.runners_up) cached.trees.push_back(tree_of(plan));
        // Rabenseifner's reduce: weighed with the trees, in the place its prediction gives it.
        PlannedTree halving = rabenseifner_reduce(state, costs, input.latency_s, report.bytes, cached.op_piece_bytes);
        // Rabenseifner's reduce and tree-dyn not where the segments are forced (the call's segment_bytes,
        // REDUX_SEGMENT_BYTES): they ask for trees.
        const bool segments_forced = input.segments != 0 && segment_bytes_for(state, key) >= 0;
        if (!segments_forced) {
            if (cached.trees.size() >= static_cast<size_t>(AutoSelect::kMaxTrees)) cached.trees.pop_back();
            auto at = std::find_if(cached.trees.begin(), cached.trees.end(),
                                   [&](const PlannedTree& t) { return t.predicted_s > halving.predicted_s; });
            cached.trees.insert(at, std::move(halving));
        }
        // Tree-dyn last, after the contenders: auto weighs it only where the ranks' arrivals are spread.
        const int contenders = static_cast<int>(cached.trees.size());
        const bool dynamic = state.size >= 3 && !segments_forced;
        if (dynamic) cached.trees.push_back(tree_dyn(best, costs, input.costs, input.latency_s));
        cached.auto_select =
            AutoSelect(contenders, native_failures(state, key).reduce, dynamic, AutoSelect::kExploreEvery);
    }
    if (cached.trees.front().family == FamilyAlgorithm::tree) report.shared_cores_floor_s = best.shared_cores_floor_s;
    return MPI_SUCCESS;
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

bool native_before_planning(CommState& state, const PlanKey& key) {
    constexpr size_t kMostKeys = 256;  // then counting starts again: every rank forgets alike
    if (key.algorithm != REDUX_ALGORITHM_AUTO || state.plans.count(key) != 0) return false;
    if (native_failures(state, key).any()) return false;
    if (state.calls_before_plan.size() >= kMostKeys) state.calls_before_plan.clear();
    int& calls = state.calls_before_plan[key];
    if (calls >= AutoSelect::kNativeFirstCalls) {
        state.calls_before_plan.erase(key);
        return false;
    }
    ++calls;
    return true;
}

namespace {

// Starts `cached`'s AutoSelect from what an earlier job decided (api/wisdom.hpp), where the decision names native
// or one of the key's trees; false where it names none (the plans changed): the entry is dropped.
bool start_from_wisdom(const WisdomEntry& known, CachedPlan& cached) {
    AutoSelect& select = cached.auto_select;
    if (known.strategy == "native") {
        if (select.native_excluded()) return false;
        select.start_from(AutoSelect::Run::native, 0, known.chosen_s, known.native_s);
        return true;
    }
    const int trees = select.trees() + (select.dynamic() ? 1 : 0);
    for (int t = 0; t < trees; ++t) {
        if (cached.trees[static_cast<size_t>(t)].name() != known.strategy) continue;
        select.start_from(AutoSelect::Run::planned, t, known.chosen_s, known.native_s);
        return true;
    }
    return false;
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
            cached->auto_select =
                AutoSelect(static_cast<int>(cached->trees.size()), {}, false, AutoSelect::kExploreEvery);
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
        const bool started = start_from_wisdom(*wisdom.entry, *cached);
        report.wisdom = started ? "started from" : "names no plan";
        if (started) {
            report.strategy = wisdom.entry->strategy;
        } else {
            drop_decision(state, *cached);
        }
    }
    report.planning_s = MPI_Wtime() - planning_start;
    log_plan(state, *cached, "new plan", true);  // and under auto, its decision when the trials are done
    return remember_plan(state, key, std::move(cached), out);
}

}  // namespace redux
