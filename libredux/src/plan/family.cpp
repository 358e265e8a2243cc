// Shapes and predictions of the reduction family (family.hpp).
#include "plan/family.hpp"

#include "plan/exec_limits.hpp"

#include "plan/planner.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace redux {

const std::vector<int32_t>& DynBatches::parents(int32_t k) const {
    const auto at = static_cast<size_t>(k);
    if (by_size_.size() <= at) by_size_.resize(at + 1);
    if (by_size_[at].empty()) {
        PlanRequest request;
        request.ranks = k;
        request.costs = costs_;
        request.strategy = Strategy::optimal;
        by_size_[at] = make_plan(request).parent;
    }
    return by_size_[at];
}

void DynBatches::prepare(int32_t ranks) const {
    for (int32_t k = 2; k <= ranks; ++k) parents(k);
}

std::optional<FamilyAlgorithm> family_of(int algorithm) {
    switch (algorithm) {
        case REDUX_ALGORITHM_RECURSIVE_DOUBLING:
            return FamilyAlgorithm::recursive_doubling;
        case REDUX_ALGORITHM_REDUCE_SCATTER:
            return FamilyAlgorithm::reduce_scatter;
        case REDUX_ALGORITHM_TREE_DYN:
            return FamilyAlgorithm::tree_dyn;
        case REDUX_ALGORITHM_RING:
            return FamilyAlgorithm::ring;
        case REDUX_ALGORITHM_ARRIVAL_TREE:
            return FamilyAlgorithm::arrival_tree;
        case REDUX_ALGORITHM_LATE_RANK:
            return FamilyAlgorithm::late_rank;
        case REDUX_ALGORITHM_ALLGATHER:
            return FamilyAlgorithm::allgather;
        default:
            return std::nullopt;
    }
}

std::optional<FamilyAlgorithm> parse_family(std::string_view name) {
    if (name == "recursive-doubling" || name == "recursive_doubling") return FamilyAlgorithm::recursive_doubling;
    if (name == "reduce-scatter" || name == "reduce_scatter") return FamilyAlgorithm::reduce_scatter;
    if (name == "tree-dyn" || name == "tree_dyn") return FamilyAlgorithm::tree_dyn;
    if (name == "ring") return FamilyAlgorithm::ring;
    if (name == "arrival-tree" || name == "arrival_tree") return FamilyAlgorithm::arrival_tree;
    if (name == "late-rank" || name == "late_rank") return FamilyAlgorithm::late_rank;
    if (name == "allgather") return FamilyAlgorithm::allgather;
    return std::nullopt;
}

std::string_view family_name(FamilyAlgorithm algorithm) {
    switch (algorithm) {
        case FamilyAlgorithm::recursive_doubling:
            return "recursive-doubling";
        case FamilyAlgorithm::reduce_scatter:
            return "reduce-scatter";
        case FamilyAlgorithm::tree_dyn:
            return "tree-dyn";
        case FamilyAlgorithm::ring:
            return "ring";
        case FamilyAlgorithm::arrival_tree:
            return "arrival-tree";
        case FamilyAlgorithm::late_rank:
            return "late-rank";
        case FamilyAlgorithm::allgather:
            return "allgather";
        case FamilyAlgorithm::tree:
            break;
    }
    return "tree";
}

redux_algorithm public_family(FamilyAlgorithm algorithm) {
    switch (algorithm) {
        case FamilyAlgorithm::recursive_doubling:
            return REDUX_ALGORITHM_RECURSIVE_DOUBLING;
        case FamilyAlgorithm::tree_dyn:
            return REDUX_ALGORITHM_TREE_DYN;
        case FamilyAlgorithm::ring:
            return REDUX_ALGORITHM_RING;
        case FamilyAlgorithm::arrival_tree:
            return REDUX_ALGORITHM_ARRIVAL_TREE;
        case FamilyAlgorithm::late_rank:
            return REDUX_ALGORITHM_LATE_RANK;
        case FamilyAlgorithm::allgather:
            return REDUX_ALGORITHM_ALLGATHER;
        case FamilyAlgorithm::reduce_scatter:
        case FamilyAlgorithm::tree:
            break;
    }
    return REDUX_ALGORITHM_REDUCE_SCATTER;
}

std::string_view collective_name(Collective collective) {
    switch (collective) {
        case Collective::allreduce:
            return "allreduce";
        case Collective::reduce_scatter_block:
            return "reduce_scatter_block";
        case Collective::reduce:
            break;
    }
    return "reduce";
}

FamilyShape::FamilyShape(int32_t p) : ranks(std::max(p, 1)) {
    while (active * 2 <= ranks) {
        active *= 2;
        ++steps;
    }
    extra = ranks - active;
}

int32_t FamilyShape::bit_reverse(int32_t q) const {
    int32_t r = 0;
    for (int32_t s = 0; s < steps; ++s) r |= ((q >> s) & 1) << (steps - 1 - s);
    return r;
}

namespace {

// A message carrying `fraction` of the vector, and the op on it.
double move(const Costs& costs, double latency_s, double fraction) {
    return latency_s + fraction * std::max(costs.transfer_s - latency_s, 0.0);
}
double fold(const Costs& costs, double fraction) { return costs.fold_s(fraction); }

// The pairs folded first, and the result sent back to their even ranks (allreduce) at the end.
double fold_in(const FamilyShape& shape, const Costs& costs, double latency_s) {
    return shape.extra > 0 ? move(costs, latency_s, 1.0) + fold(costs, 1.0) : 0.0;
}

}  // namespace

double predict_recursive_doubling(const FamilyShape& shape, const Costs& costs, double latency_s) {
    double t = fold_in(shape, costs, latency_s);
    t += shape.steps * (move(costs, latency_s, 1.0) + fold(costs, 1.0));
    if (shape.extra > 0) t += move(costs, latency_s, 1.0);
    return t;
}

double predict_reduce_scatter(const FamilyShape& shape, const Costs& costs, double latency_s,
                              const HalvingPieces& halving, Collective collective) {
    // The most a rank holds of `fraction` of the vector cut into blocks of whole elements: a block of fewer elements
    // than the vector has blocks is one element or none, and the rank holding it folds and moves a whole one.
    const auto n = static_cast<double>(halving.elements);
    const auto held = [&](double fraction) { return n > 0 ? std::ceil(n * fraction - 1e-9) / n : fraction; };
    double t = fold_in(shape, costs, latency_s);
    double fraction = 1.0;
    for (int32_t s = 0; s < shape.steps; ++s) {
        fraction /= 2;
        // The step's half in pieces, as the executor cuts it (exec/exchanges.cpp): their transfers go one after the
        // other, a window of them ahead of the partner's, and each fold overlaps the next piece's transfer.
        const double half = held(fraction);
        const auto half_bytes = static_cast<int64_t>(static_cast<double>(halving.bytes) * half);
        const int32_t pieces = family_pieces(half_bytes, halving.least_piece_bytes);
        const int32_t window = family_window(halving.flight_bytes, std::max<int64_t>(half_bytes / pieces, 1));
        const double piece_move = move(costs, latency_s, half / pieces) - latency_s;
        const double piece_fold = fold(costs, half / pieces);
        const double piece_s = std::max({piece_move, piece_fold, (latency_s + piece_move) / window});
        t += latency_s + piece_move + (pieces - 1) * piece_s + piece_fold;
    }
    if (collective == Collective::allreduce) {
        for (int32_t s = 0; s < shape.steps; ++s) {
            t += move(costs, latency_s, held(fraction));
            fraction *= 2;
        }
        if (shape.extra > 0) t += move(costs, latency_s, 1.0);
    } else if (collective == Collective::reduce) {  // every block to the root, in flight together
        // what the root does not hold: at most all but the whole elements of its own block
        const double others = n > 0 ? 1.0 - std::floor(n * fraction + 1e-9) / n : 1.0 - fraction;
        if (shape.steps > 0) t += latency_s + others * std::max(costs.transfer_s - latency_s, 0.0);
    } else if (shape.steps > 1 || shape.extra > 0) {
        // Each active rank's block to the rank(s) it belongs to (bit-reversed; none moves at two ranks): one or,
        // with pairs, two ranks' blocks.
        t += move(costs, latency_s, (shape.extra > 0 ? 2.0 : 1.0) / shape.ranks);
    }
    return t;
}

double predict_ring(int32_t ranks, const Costs& costs, double latency_s, const HalvingPieces& pieces,
                    Collective collective) {
    const int32_t p = std::max(ranks, 1);
    // The largest block: one element more than the smallest where p does not divide the vector (allreduce).
    const auto n = static_cast<double>(pieces.elements);
    const double block = n > 0 ? std::ceil(n / p - 1e-9) / n : 1.0 / p;
    const auto block_bytes = static_cast<int64_t>(static_cast<double>(pieces.bytes) * block);
    const int32_t k = family_pieces(block_bytes, pieces.least_piece_bytes);
    const int32_t window = family_window(pieces.flight_bytes, std::max<int64_t>(block_bytes / k, 1));
    const double piece_move = move(costs, latency_s, block / k) - latency_s;
    const double piece_fold = fold(costs, block / k);
    const int32_t folds = p - 1, rounds = collective == Collective::allreduce ? 2 * folds : folds;
    // By symmetry a piece reaches this rank from the left when this rank's own of the same step reaches the right.
    std::vector<double> ready(static_cast<size_t>(k), 0.0), arrived(static_cast<size_t>(k), 0.0);
    std::vector<double> came;  // every piece's arrival, all steps' in turn (the executor's window counts them so)
    double link = 0, core = 0, end = 0;
    for (int32_t s = 0; s < rounds; ++s) {
        for (size_t j = 0; j < ready.size(); ++j) {
            double start = std::max(ready[j], link);
            if (came.size() >= static_cast<size_t>(window)) start = std::max(start, came[came.size() - window]);
            link = start + piece_move;
            arrived[j] = link + latency_s;
            came.push_back(arrived[j]);
        }
        for (size_t j = 0; j < ready.size(); ++j) {
            if (s < folds) core = std::max(core, arrived[j]) + piece_fold;
            ready[j] = s < folds ? core : arrived[j];
            end = std::max(end, ready[j]);
        }
    }
    return end;
}

double predict_allgather(int32_t ranks, const Costs& costs, double latency_s, Collective collective) {
    const int32_t p = std::max(ranks, 1);
    const double piece = collective == Collective::reduce_scatter_block ? 1.0 / p : 1.0;
    const double piece_move = move(costs, latency_s, piece) - latency_s;
    const double piece_fold = fold(costs, piece);
    double core = 0;
    for (int32_t j = 1; j < p; ++j) core = std::max(core, latency_s + j * piece_move) + piece_fold;
    return core;
}

double predict_tree_then_spread(double reduce_s, const FamilyShape& shape, const Costs& costs, double latency_s,
                                int32_t depth, int32_t fan_out, int32_t segments, Collective collective) {
    if (collective == Collective::reduce_scatter_block) {  // every other rank's block from the root, at once
        return reduce_s + latency_s + (shape.ranks - 1.0) / shape.ranks * std::max(costs.transfer_s - latency_s, 0.0);
    }
    segments = std::max(segments, 1);
    fan_out = std::max(fan_out, 1);
    const double piece = fan_out * (move(costs, latency_s, 1.0 / segments) - latency_s);
    return reduce_s + depth * latency_s + (depth + segments - 1) * piece;
}

int32_t family_pieces(int64_t bytes, int64_t least_piece_bytes) {
    const int64_t piece_bytes = std::max(kExecLimits.family_piece_bytes, least_piece_bytes);
    return static_cast<int32_t>(std::clamp<int64_t>(bytes / piece_bytes, 1, kExecLimits.family_most_pieces));
}

int64_t family_flight_bytes(int64_t bytes, double transfer_s, double latency_s) {
    const double streaming_s = transfer_s - latency_s;
    if (!(latency_s > 0)) return 0;
    const double most = static_cast<double>(kExecLimits.family_most_pieces) * kExecLimits.family_piece_bytes;
    if (!(streaming_s > 0) || bytes <= 0) return static_cast<int64_t>(most);
    return static_cast<int64_t>(std::min(most, latency_s * static_cast<double>(bytes) / streaming_s));
}

int32_t family_window(int64_t flight_bytes, int64_t piece_bytes) {
    piece_bytes = std::max<int64_t>(piece_bytes, 1);
    const int64_t ahead = (std::max<int64_t>(flight_bytes, 0) + piece_bytes - 1) / piece_bytes;
    return static_cast<int32_t>(std::min<int64_t>(1 + ahead, kExecLimits.family_most_pieces));
}

}  // namespace redux
