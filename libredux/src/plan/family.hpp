// The reduction family beyond MPI_Reduce, as the planner sees it: which collective a call is, the shapes of the
// exchanges the non-tree algorithms make, and what the cost model predicts for each. No MPI. The executor
// (exec/exchanges.cpp) builds exactly these shapes.
//
// Recursive doubling and recursive halving need a power of two of ranks. With p ranks and P the largest power of
// two <= p, the first 2 (p - P) ranks pair up: the even rank of each pair sends its vector to the odd one, which
// folds it (even o odd: the rank order is kept) and takes part as one of the P "active" ranks; the others
// take part alone. Active rank q is original rank active_rank(q); the active ranks are in rank order, and each
// stands for a contiguous interval of original ranks, so a non-commutative op folds in rank order when a lower
// active rank's data always goes on the left.
//
// Recursive halving (reduce-scatter), step s = 0 .. lg P - 1: active rank q exchanges with q ^ 2^s (distance
// doubling: the groups that have folded together are intervals of ranks, so any op is folded in order). The
// vector is cut into P blocks; q's interval of blocks halves at each step, q keeping the lower half when bit s of
// q is 0. After the last step q holds the reduced block bit_reverse(q). Allgather undoes the steps in reverse.
//
// The ring, for commutative ops: rank r sends to r + 1 and receives from r - 1 (mod p) at every step, any p. The
// vector is cut into p blocks (allreduce: near-equal; reduce-scatter-block: the ranks' blocks). Reduce-scatter step
// s = 0 .. p - 2: r sends block r - s - 1 (mod p; its own data at s = 0, else the partial it folded the step before)
// and receives and folds block r - s - 2; after the last, r holds block r reduced. Allreduce then gathers, step a =
// 0 .. p - 2: r sends block r - a and receives block r - a - 1. Block b is folded in the order b + 1, b + 2, .., b:
// not the ranks' order, hence commutative ops only. A rank moves 2 (p - 1)/p of the vector and folds (p - 1)/p
// (recursive halving's volume, at any p) for 2 (p - 1) latencies. Each block goes in pieces, a piece leaving once the
// step before has folded it, so a piece's transfer overlaps the fold of the one before it, and across steps.
#pragma once

#include "model/costs.hpp"
#include "redux/algorithms.h"

#include <cstdint>
#include <deque>
#include <optional>
#include <string_view>
#include <vector>

namespace redux {

enum class Collective : uint8_t { reduce, allreduce, reduce_scatter_block };

// What runs a family call (PlannedTree::family): a reduction tree of the plan (then a broadcast down the same
// tree, or a scatter from the root), recursive doubling, or recursive halving (then an allgather); and MPI_Reduce's
// tree-dyn, whose pairs are chosen at run time; the ring (commutative ops: see below); and allgather then a local
// reduce (every rank folds every rank's piece itself).
// arrival_tree runs as a tree (its program); only its name differs.
enum class FamilyAlgorithm : uint8_t {
    tree,
    recursive_doubling,
    reduce_scatter,
    tree_dyn,
    ring,
    arrival_tree,
    late_rank,
    allgather
};

// The public values and names of the non-tree algorithms (REDUX_FAMILY_ALGORITHMS, redux/algorithms.h).
std::optional<FamilyAlgorithm> family_of(int algorithm);  // nullopt for every other value
std::optional<FamilyAlgorithm> parse_family(std::string_view name);
std::string_view family_name(FamilyAlgorithm algorithm);   // "tree" for the tree
redux_algorithm public_family(FamilyAlgorithm algorithm);  // not for the tree
std::string_view collective_name(Collective collective);   // "reduce", "allreduce", "reduce_scatter_block"

// Tree-dyn's batches (exec/tree_dyn.hpp): holders of partial results idle together, all known to the
// matchmaker at once, are combined along the tree the planner makes for that many ranks under the call's costs
// (the optimal tree of Canon & Antoniu; ranks that arrive together then cost what the static tree does, and the
// two small messages of the matchmaking). parents(k)[i] is the position of the parent of the i-th of k holders
// (position 0, the root's when it is one of them, receives last; its own entry is -1). Made once per k and kept
// with the plan. gather_s: how long the matchmaker waits, while ranks are absent, for more holders to pair with
// those idle (a quarter of a message's latency: ranks whose arrivals are that close are taken as together; the
// wait costs at most that, and each holder it gathers saves a round trip to the matchmaker).
class DynBatches {
public:
    DynBatches() = default;
    DynBatches(const Costs& costs, double latency_s) : costs_(costs), gather_s_(latency_s / 4) {}
    const std::vector<int32_t>& parents(int32_t k) const;
    // Makes parents(k) for every k up to `ranks` now (tree-dyn's first call does where ranks <= kPreparedRanks), so
    // that later calls allocate nothing; otherwise each k is made when first met.
    static constexpr int32_t kPreparedRanks = 128;
    void prepare(int32_t ranks) const;
    double gather_s() const { return gather_s_; }

private:
    Costs costs_;
    double gather_s_ = 0;
    mutable std::deque<std::vector<int32_t>> by_size_;  // [k]: parents(k), made when first asked for (a deque: a
                                                        // reference given out stays valid as it grows)
};

struct FamilyShape {
    int32_t ranks = 1;
    int32_t active = 1;  // P: the largest power of two <= ranks
    int32_t steps = 0;   // lg P
    int32_t extra = 0;   // ranks - P: the pairs folded first

    explicit FamilyShape(int32_t p);
    // The active index of original rank r, or -1 for the even rank of a folded pair (r < 2 extra).
    int32_t active_index(int32_t r) const { return r < 2 * extra ? (r % 2 == 1 ? r / 2 : -1) : r - extra; }
    int32_t active_rank(int32_t q) const { return q < extra ? 2 * q + 1 : q + extra; }
    // The first original rank active index q stands for (its pair's even rank, or itself).
    int32_t first_rank(int32_t q) const { return q < extra ? 2 * q : q + extra; }
    int32_t bit_reverse(int32_t q) const;
};

// Where block b of `blocks` begins in a vector of `elements` (allreduce: blocks of near-equal length).
inline int64_t even_block_begin(int64_t elements, int32_t blocks, int32_t b) { return elements * b / blocks; }

// How recursive halving cuts each step's half into messages (and the ring each block), whose folds overlap the next
// ones' transfers: pieces of ExecLimits::family_piece_bytes or `least_piece_bytes` (family_pieces), and how many go
// ahead of the partner's (family_window).
struct HalvingPieces {
    int64_t bytes = 0;              // the whole vector's
    int64_t elements = 0;           // and its elements (0: any share of it is whole elements)
    int64_t least_piece_bytes = 0;  // the op's floor on a piece (op_piece_bytes, plan/exec_limits.hpp)
    int64_t flight_bytes = 0;       // what the link holds in flight (family_flight_bytes)
};

// Predicted makespans, from d (the whole vector's transfer), its latency part (what a message costs whatever its
// length) and c (the op on the whole vector), both shared proportionally by pieces of the vector.
double predict_recursive_doubling(const FamilyShape& shape, const Costs& costs, double latency_s);
double predict_reduce_scatter(const FamilyShape& shape, const Costs& costs, double latency_s,
                              const HalvingPieces& pieces, Collective collective);
// The ring (allreduce or reduce-scatter-block) on `ranks` ranks: the pieces of every step, by the executor's rules, on
// a link that moves one piece at a time and a core that folds one at a time; neighbours alike.
double predict_ring(int32_t ranks, const Costs& costs, double latency_s, const HalvingPieces& pieces,
                    Collective collective);
// Allgather then a local reduce on `ranks` ranks (allreduce: every rank's whole vector to every other rank; reduce-
// scatter-block: block q of it to rank q): the p - 1 messages leave at once and share the rank's link, arriving one
// after the other, and each is folded once it is in and the fold before it is done.
double predict_allgather(int32_t ranks, const Costs& costs, double latency_s, Collective collective);
// A reduction tree predicted to take `reduce_s` to rank 0, then the result down a tree of `depth` levels whose
// widest rank has `fan_out` children, in `segments` pipelined pieces (allreduce), or scattered from the root
// (reduce-scatter-block: each rank's 1/p of the vector, one after the other).
double predict_tree_then_spread(double reduce_s, const FamilyShape& shape, const Costs& costs, double latency_s,
                                int32_t depth, int32_t fan_out, int32_t segments, Collective collective);

// The messages a step of recursive halving is cut into, for `bytes` of the step's half: one per
// ExecLimits::family_piece_bytes, or per `least_piece_bytes` where that is more (the op's per-application cost makes
// pieces longer: op_piece_bytes, plan/exec_limits.hpp), at most ExecLimits::family_most_pieces, at least one.
int32_t family_pieces(int64_t bytes, int64_t least_piece_bytes = 0);

// The bytes a link holds in flight, its latency times its bandwidth (`bytes` take `transfer_s` on it, `latency_s` of
// which any message pays): what recursive halving and the ring send ahead of the pieces they wait for.
int64_t family_flight_bytes(int64_t bytes, double transfer_s, double latency_s);
// The pieces of `piece_bytes` a rank of recursive halving sends before it waits for its partner's first piece: one,
// and as many more as `flight_bytes` hold. Piece i + window goes once piece i has come (and piece i + window - 1
// has gone): a piece's latency is paid once per window, not once per piece, while the pieces still arrive one by one
// for their folds to overlap the next ones' transfers. The ring counts its pieces over all its steps: its n-th piece
// goes once the (n - window)-th has come from its left neighbour.
int32_t family_window(int64_t flight_bytes, int64_t piece_bytes);

}  // namespace redux
