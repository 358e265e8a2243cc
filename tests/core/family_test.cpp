// The reduction family's shapes and predictions (libredux/src/plan/family.hpp), against expectations worked out
// here rather than taken from family.cpp:
//  - FamilyShape: P, lg P and the pairs for every rank count up to 20 and a few large ones; the active ranks in
//    rank order, each standing for an interval of original ranks, the intervals partitioning 0 .. p-1 in order;
//    bit_reverse a permutation that is its own inverse.
//  - The exchanges exec/exchanges.cpp makes, simulated on symbols: every rank's contribution is its rank id, a fold
//    concatenates the two operands' sequences in the order the op is applied. Recursive doubling, recursive halving
//    (distance doubling, halved block intervals, the lower half kept when bit s of q is 0), its allgather and the
//    reduce-scatter-block delivery must leave every block as 0, 1, ..., p-1 (a non-commutative op folded in rank
//    order), with active index q holding block bit_reverse(q) after the halving.
//  - The predictions on hand-worked cases, the textbook costs of Thakur, Rabenseifner & Gropp (2005) at a power
//    of two, the element counts of the simulated allreduce, and which algorithm wins where it must.
//  - allgather's prediction by hand, and that it beats recursive doubling where latency dominates, not on long
//    vectors.
//  - family_pieces' bounds, the names and values, even_block_begin.
//  - DynBatches (tree-dyn's batches): a tree over k holders with position 0 at its top, made once per k; with c = 0
//    as fast as the doubling bound ceil(log2 k) d (each transfer at most doubles the holders that have folded
//    into one), and never slower than a binomial tree or a flat one built here.
#include "plan/family.hpp"
#include "plan/exec_limits.hpp"
#include "plan/predict/simulator.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace redux {
namespace {

// Rank counts every shape test covers: 1 .. 20 and a few large ones.
std::vector<int32_t> rank_counts() {
    std::vector<int32_t> counts;
    for (int32_t p = 1; p <= 20; ++p) counts.push_back(p);
    for (int32_t p : {31, 32, 33, 1000, 1024, 4097}) counts.push_back(p);
    return counts;
}

bool is_power_of_two(int32_t n) { return n > 0 && (n & (n - 1)) == 0; }

Costs make_costs(double transfer_s, double compute_s) {
    Costs costs;
    costs.transfer_s = transfer_s;
    costs.compute_s = compute_s;
    return costs;
}

// ---- FamilyShape -------------------------------------------------------------------------------------------------

TEST(FamilyShape, ActiveIsTheLargestPowerOfTwoAtMostRanks) {
    for (int32_t p : rank_counts()) {
        SCOPED_TRACE("p = " + std::to_string(p));
        const FamilyShape shape(p);
        EXPECT_EQ(shape.ranks, p);
        EXPECT_TRUE(is_power_of_two(shape.active));
        EXPECT_LE(shape.active, p);
        EXPECT_LT(p, 2 * shape.active);
        EXPECT_EQ(int32_t{1} << shape.steps, shape.active);
        EXPECT_EQ(shape.extra, p - shape.active);
        EXPECT_LT(shape.extra, shape.active);
    }
    // Spot values worked by hand.
    const struct {
        int32_t p, active, steps, extra;
    } cases[] = {{1, 1, 0, 0},        {2, 2, 1, 0},        {3, 2, 1, 1},       {6, 4, 2, 2},
                 {7, 4, 2, 3},        {8, 8, 3, 0},        {13, 8, 3, 5},      {20, 16, 4, 4},
                 {1000, 512, 9, 488}, {1024, 1024, 10, 0}, {4097, 4096, 12, 1}};
    for (const auto& c : cases) {
        SCOPED_TRACE("p = " + std::to_string(c.p));
        const FamilyShape shape(c.p);
        EXPECT_EQ(shape.active, c.active);
        EXPECT_EQ(shape.steps, c.steps);
        EXPECT_EQ(shape.extra, c.extra);
    }
}

TEST(FamilyShape, NoRanksIsOneRank) {
    for (int32_t p : {0, -1, -7}) {
        const FamilyShape shape(p);
        EXPECT_EQ(shape.ranks, 1);
        EXPECT_EQ(shape.active, 1);
        EXPECT_EQ(shape.steps, 0);
        EXPECT_EQ(shape.extra, 0);
    }
}

// Every original rank is active, or the even rank of a pair (r < 2 extra) whose odd partner r + 1 is active; the
// active ranks are in rank order; active index q stands for original ranks first_rank(q) .. active_rank(q), and
// these intervals, taken for q = 0 .. P-1, are 0 .. p-1 cut in order.
TEST(FamilyShape, ActiveRanksAreInOrderAndTheirIntervalsPartitionTheRanks) {
    for (int32_t p : rank_counts()) {
        SCOPED_TRACE("p = " + std::to_string(p));
        const FamilyShape shape(p);
        int32_t actives = 0;
        for (int32_t r = 0; r < p; ++r) {
            const int32_t q = shape.active_index(r);
            if (q < 0) {
                EXPECT_EQ(q, -1);
                EXPECT_LT(r, 2 * shape.extra);
                EXPECT_EQ(r % 2, 0);
                ASSERT_LT(r + 1, p);
                const int32_t partner_q = shape.active_index(r + 1);
                ASSERT_GE(partner_q, 0) << "the even rank " << r << " has no active partner";
                EXPECT_EQ(shape.active_rank(partner_q), r + 1);
                EXPECT_EQ(shape.first_rank(partner_q), r);
                continue;
            }
            ++actives;
            EXPECT_FALSE(r < 2 * shape.extra && r % 2 == 0) << "the even rank of a pair is active";
            ASSERT_LT(q, shape.active);
            EXPECT_EQ(shape.active_rank(q), r);
        }
        EXPECT_EQ(actives, shape.active);

        int32_t next = 0;  // the first original rank not yet covered
        for (int32_t q = 0; q < shape.active; ++q) {
            const int32_t first = shape.first_rank(q), last = shape.active_rank(q);
            EXPECT_EQ(first, next) << "q = " << q;
            EXPECT_EQ(shape.active_index(last), q);
            if (q > 0) {
                EXPECT_LT(shape.active_rank(q - 1), last) << "q = " << q;
            }
            // A pair (2 ranks) for the first `extra` active indices, a rank on its own after them.
            EXPECT_EQ(last - first + 1, q < shape.extra ? 2 : 1) << "q = " << q;
            next = last + 1;
        }
        EXPECT_EQ(next, p);
    }
}

TEST(FamilyShape, MappingsAtSixRanks) {
    const FamilyShape shape(6);  // P = 4, pairs (0, 1) and (2, 3), then 4 and 5 on their own
    const int32_t active_index[] = {-1, 0, -1, 1, 2, 3};
    for (int32_t r = 0; r < 6; ++r) EXPECT_EQ(shape.active_index(r), active_index[r]) << "r = " << r;
    const int32_t active_rank[] = {1, 3, 4, 5}, first_rank[] = {0, 2, 4, 5};
    for (int32_t q = 0; q < 4; ++q) {
        EXPECT_EQ(shape.active_rank(q), active_rank[q]) << "q = " << q;
        EXPECT_EQ(shape.first_rank(q), first_rank[q]) << "q = " << q;
    }
}

TEST(FamilyShape, BitReverseIsAPermutationAndItsOwnInverse) {
    for (int32_t p : rank_counts()) {
        SCOPED_TRACE("p = " + std::to_string(p));
        const FamilyShape shape(p);
        std::vector<bool> seen(static_cast<size_t>(shape.active), false);
        for (int32_t q = 0; q < shape.active; ++q) {
            const int32_t b = shape.bit_reverse(q);
            ASSERT_GE(b, 0);
            ASSERT_LT(b, shape.active);
            EXPECT_FALSE(seen[static_cast<size_t>(b)]) << "q = " << q;
            seen[static_cast<size_t>(b)] = true;
            EXPECT_EQ(shape.bit_reverse(b), q);
        }
    }
    const int32_t three_bits[] = {0, 4, 2, 6, 1, 5, 3, 7};
    for (int32_t q = 0; q < 8; ++q) EXPECT_EQ(FamilyShape(8).bit_reverse(q), three_bits[q]);
    const int32_t two_bits[] = {0, 2, 1, 3};
    for (int32_t q = 0; q < 4; ++q) EXPECT_EQ(FamilyShape(7).bit_reverse(q), two_bits[q]);
    EXPECT_EQ(FamilyShape(1).bit_reverse(0), 0);
    EXPECT_EQ(FamilyShape(3).bit_reverse(1), 1);
    EXPECT_EQ(FamilyShape(1000).bit_reverse(1), 256);  // 9 bits
    EXPECT_EQ(FamilyShape(1000).bit_reverse(3), 256 + 128);
    EXPECT_EQ(FamilyShape(4097).bit_reverse(4095), 4095);
    EXPECT_EQ(FamilyShape(4097).bit_reverse(2048), 1);
}

// ---- The exchanges, simulated on symbols -------------------------------------------------------------------------

// What a block holds: the original ranks whose contributions were folded into it, left operand first.
using Seq = std::vector<int32_t>;

Seq fold_seq(const Seq& left, const Seq& right) {
    Seq out = left;
    out.insert(out.end(), right.begin(), right.end());
    return out;
}

Seq ranks_in_order(int32_t first, int32_t last) {
    Seq out;
    for (int32_t r = first; r <= last; ++r) out.push_back(r);
    return out;
}

std::string show(const Seq& seq) {
    std::string out;
    for (int32_t r : seq) out += (out.empty() ? "" : ",") + std::to_string(r);
    return "{" + out + "}";
}

// Every original rank's vector of `blocks` blocks after the pairs' first step: the even rank of a pair sends its
// vector to the odd one, which folds it on the left (the lower rank's data first).
std::vector<std::vector<Seq>> after_fold_in(const FamilyShape& shape, int32_t blocks) {
    std::vector<std::vector<Seq>> original(static_cast<size_t>(shape.ranks));
    for (int32_t r = 0; r < shape.ranks; ++r) original[static_cast<size_t>(r)].assign(static_cast<size_t>(blocks), {r});
    for (int32_t r = 1; r < 2 * shape.extra; r += 2) {
        for (int32_t b = 0; b < blocks; ++b) {
            Seq& mine = original[static_cast<size_t>(r)][static_cast<size_t>(b)];
            mine = fold_seq(original[static_cast<size_t>(r - 1)][static_cast<size_t>(b)], mine);
        }
    }
    return original;
}

// What the group of 2^(s+1) active indices around q holds once step s is done: the contributions of the original
// ranks its intervals cover, in rank order.
Seq group_after_step(const FamilyShape& shape, int32_t q, int32_t s) {
    const int32_t size = int32_t{2} << s;
    const int32_t base = q & ~(size - 1);
    return ranks_in_order(shape.first_rank(base), shape.active_rank(base + size - 1));
}

// Recursive halving at the active ranks: held[q][b] is block b at active index q, [lo[q], hi[q]) the blocks it is
// responsible for. Checks, at every step, that partners share one interval and keep its complementary halves,
// and that each kept block holds the group's ranks in order.
struct Halving {
    std::vector<std::vector<Seq>> held;
    std::vector<int32_t> lo, hi;
};

Halving simulate_halving(const FamilyShape& shape) {
    const int32_t active = shape.active;
    const std::vector<std::vector<Seq>> original = after_fold_in(shape, active);
    Halving h;
    for (int32_t q = 0; q < active; ++q) h.held.push_back(original[static_cast<size_t>(shape.active_rank(q))]);
    h.lo.assign(static_cast<size_t>(active), 0);
    h.hi.assign(static_cast<size_t>(active), active);
    for (int32_t s = 0; s < shape.steps; ++s) {
        const Halving before = h;  // every exchange of a step reads what the partner held before it
        for (int32_t q = 0; q < active; ++q) {
            const auto qi = static_cast<size_t>(q);
            const int32_t partner = q ^ (int32_t{1} << s);
            const auto pi = static_cast<size_t>(partner);
            EXPECT_EQ(before.lo[qi], before.lo[pi]) << "s = " << s << ", q = " << q;
            EXPECT_EQ(before.hi[qi], before.hi[pi]) << "s = " << s << ", q = " << q;
            const int32_t lo = before.lo[qi], hi = before.hi[qi], mid = (lo + hi) / 2;
            EXPECT_EQ(hi - lo, active >> s);
            const bool keep_low = ((q >> s) & 1) == 0;
            const bool partner_keeps_low = ((partner >> s) & 1) == 0;
            EXPECT_NE(keep_low, partner_keeps_low) << "partners keep the same half (s = " << s << ", q = " << q << ")";
            const int32_t keep_lo = keep_low ? lo : mid, keep_hi = keep_low ? mid : hi;
            for (int32_t b = keep_lo; b < keep_hi; ++b) {
                const Seq& mine = before.held[qi][static_cast<size_t>(b)];
                const Seq& theirs = before.held[pi][static_cast<size_t>(b)];
                h.held[qi][static_cast<size_t>(b)] = partner < q ? fold_seq(theirs, mine) : fold_seq(mine, theirs);
                EXPECT_EQ(h.held[qi][static_cast<size_t>(b)], group_after_step(shape, q, s))
                    << "s = " << s << ", q = " << q << ", block " << b;
            }
            for (int32_t b = 0; b < active; ++b) {  // what it gave away is no longer its to send
                if (b < keep_lo || b >= keep_hi) h.held[qi][static_cast<size_t>(b)].clear();
            }
            h.lo[qi] = keep_lo;
            h.hi[qi] = keep_hi;
        }
    }
    return h;
}

TEST(FamilySimulation, RecursiveDoublingFoldsInRankOrder) {
    for (int32_t p = 1; p <= 33; ++p) {
        SCOPED_TRACE("p = " + std::to_string(p));
        const FamilyShape shape(p);
        const std::vector<std::vector<Seq>> original = after_fold_in(shape, 1);
        std::vector<Seq> acc;
        for (int32_t q = 0; q < shape.active; ++q)
            acc.push_back(original[static_cast<size_t>(shape.active_rank(q))][0]);
        for (int32_t s = 0; s < shape.steps; ++s) {
            const std::vector<Seq> before = acc;
            for (int32_t q = 0; q < shape.active; ++q) {
                const int32_t partner = q ^ (int32_t{1} << s);
                const Seq& mine = before[static_cast<size_t>(q)];
                const Seq& theirs = before[static_cast<size_t>(partner)];
                acc[static_cast<size_t>(q)] = partner < q ? fold_seq(theirs, mine) : fold_seq(mine, theirs);
                EXPECT_EQ(acc[static_cast<size_t>(q)], group_after_step(shape, q, s)) << "s = " << s << ", q = " << q;
            }
        }
        // The odd rank of a pair sends the result back to the even one.
        for (int32_t r = 0; r < p; ++r) {
            const int32_t q = shape.active_index(r) >= 0 ? shape.active_index(r) : shape.active_index(r + 1);
            EXPECT_EQ(acc[static_cast<size_t>(q)], ranks_in_order(0, p - 1))
                << "rank " << r << " ends with " << show(acc[static_cast<size_t>(q)]);
        }
    }
}

TEST(FamilySimulation, RecursiveHalvingLeavesBlockBitReverseOfQInRankOrder) {
    for (int32_t p = 1; p <= 33; ++p) {
        SCOPED_TRACE("p = " + std::to_string(p));
        const FamilyShape shape(p);
        const Halving h = simulate_halving(shape);
        for (int32_t q = 0; q < shape.active; ++q) {
            const auto qi = static_cast<size_t>(q);
            EXPECT_EQ(h.lo[qi], shape.bit_reverse(q)) << "q = " << q;
            EXPECT_EQ(h.hi[qi], h.lo[qi] + 1) << "q = " << q;
            const Seq& block = h.held[qi][static_cast<size_t>(h.lo[qi])];
            EXPECT_EQ(block, ranks_in_order(0, p - 1)) << "q = " << q << " holds " << show(block);
        }
    }
}

// The allgather undoes the halving, step lg P - 1 first; the odd rank of each pair then sends the whole vector to
// the even one. Every rank ends with every block reduced in rank order.
TEST(FamilySimulation, AllgatherAfterHalvingGivesEveryRankEveryBlock) {
    for (int32_t p = 1; p <= 33; ++p) {
        SCOPED_TRACE("p = " + std::to_string(p));
        const FamilyShape shape(p);
        Halving h = simulate_halving(shape);
        for (int32_t s = shape.steps - 1; s >= 0; --s) {
            const Halving before = h;
            for (int32_t q = 0; q < shape.active; ++q) {
                const auto qi = static_cast<size_t>(q);
                const int32_t partner = q ^ (int32_t{1} << s);
                const auto pi = static_cast<size_t>(partner);
                const int32_t lo = before.lo[qi], hi = before.hi[qi], width = hi - lo;
                const bool low = ((q >> s) & 1) == 0;
                const int32_t other_lo = low ? hi : lo - width;
                // What q receives into is exactly what the partner sends.
                EXPECT_EQ(before.lo[pi], other_lo) << "s = " << s << ", q = " << q;
                EXPECT_EQ(before.hi[pi], other_lo + width) << "s = " << s << ", q = " << q;
                for (int32_t b = other_lo; b < other_lo + width; ++b) {
                    h.held[qi][static_cast<size_t>(b)] = before.held[pi][static_cast<size_t>(b)];
                }
                h.lo[qi] = std::min(lo, other_lo);
                h.hi[qi] = h.lo[qi] + 2 * width;
            }
        }
        for (int32_t r = 0; r < p; ++r) {
            const int32_t q = shape.active_index(r) >= 0 ? shape.active_index(r) : shape.active_index(r + 1);
            const auto qi = static_cast<size_t>(q);
            EXPECT_EQ(h.lo[qi], 0);
            EXPECT_EQ(h.hi[qi], shape.active);
            for (int32_t b = 0; b < shape.active; ++b) {
                EXPECT_EQ(h.held[qi][static_cast<size_t>(b)], ranks_in_order(0, p - 1))
                    << "rank " << r << ", block " << b;
            }
        }
    }
}

// Reduce-scatter-block: block b of the halving is the blocks of the original ranks active index b stands for. The
// active rank holding it sends each of those ranks its own; every rank finds that holder and receives exactly one
// block, its own, reduced in rank order.
TEST(FamilySimulation, ReduceScatterBlockDeliversEveryRankItsBlock) {
    for (int32_t p = 1; p <= 33; ++p) {
        SCOPED_TRACE("p = " + std::to_string(p));
        const FamilyShape shape(p);
        const Halving h = simulate_halving(shape);
        std::vector<std::vector<int32_t>> senders(static_cast<size_t>(p));  // the active indices that sent to r
        for (int32_t q = 0; q < shape.active; ++q) {
            const int32_t b = h.lo[static_cast<size_t>(q)];
            EXPECT_EQ(h.held[static_cast<size_t>(q)][static_cast<size_t>(b)], ranks_in_order(0, p - 1));
            for (int32_t o = shape.first_rank(b); o <= shape.active_rank(b); ++o) {
                senders[static_cast<size_t>(o)].push_back(q);
            }
        }
        for (int32_t r = 0; r < p; ++r) {
            int32_t group = -1;  // the active index whose interval holds r
            for (int32_t q = 0; q < shape.active; ++q) {
                if (shape.first_rank(q) <= r && r <= shape.active_rank(q)) group = q;
            }
            ASSERT_GE(group, 0) << "rank " << r;
            const int32_t holder = shape.bit_reverse(group);
            ASSERT_EQ(senders[static_cast<size_t>(r)].size(), 1u) << "rank " << r;
            EXPECT_EQ(senders[static_cast<size_t>(r)][0], holder) << "rank " << r;
            EXPECT_EQ(h.lo[static_cast<size_t>(holder)], group) << "rank " << r;
        }
    }
}

// ---- Predictions -------------------------------------------------------------------------------------------------

constexpr double kEps = 1e-12;

TEST(FamilyPrediction, RecursiveDoublingHandWorked) {
    const Costs unit = make_costs(1.0, 1.0);
    EXPECT_NEAR(predict_recursive_doubling(FamilyShape(1), unit, 0.0), 0.0, kEps);
    EXPECT_NEAR(predict_recursive_doubling(FamilyShape(2), unit, 0.0), 2.0, kEps);
    EXPECT_NEAR(predict_recursive_doubling(FamilyShape(8), unit, 0.0), 6.0, kEps);  // 3 steps of d + c
    // p = 6: P = 4, two pairs. Fold-in d + c, 2 steps of d + c, fold-out d.
    EXPECT_NEAR(predict_recursive_doubling(FamilyShape(6), unit, 0.0), 2.0 + 4.0 + 1.0, kEps);
    // p = 5: one pair, the same three phases.
    EXPECT_NEAR(predict_recursive_doubling(FamilyShape(5), make_costs(2.0, 0.5), 0.0), 2.5 + 2 * 2.5 + 2.0, kEps);
    // The latency is part of d: a whole-vector message costs d with or without it.
    EXPECT_NEAR(predict_recursive_doubling(FamilyShape(8), make_costs(1.0, 0.5), 0.25), 3 * 1.5, kEps);
}

TEST(FamilyPrediction, RingHandWorked) {
    // p = 4, one piece per block, no latency, d = c = 1: each step moves and folds a quarter in turn.
    const Costs unit = make_costs(1.0, 1.0);
    EXPECT_NEAR(predict_ring(4, unit, 0.0, {}, Collective::reduce_scatter_block), 3 * (0.25 + 0.25), kEps);
    EXPECT_NEAR(predict_ring(4, unit, 0.0, {}, Collective::allreduce), 3 * (0.25 + 0.25) + 3 * 0.25, kEps);
    // A latency of 0.1 within d: a quarter moves in 0.1 + 0.25 (1 - 0.1).
    const double quarter = 0.1 + 0.25 * 0.9;
    EXPECT_NEAR(predict_ring(4, unit, 0.1, {}, Collective::allreduce), 3 * (quarter + 0.25) + 3 * quarter, kEps);
    EXPECT_NEAR(predict_ring(1, unit, 0.1, {}, Collective::allreduce), 0.0, kEps);
}

TEST(FamilyPrediction, RingInPiecesReachesTheBandwidthBound) {
    // 8 MiB on 8 ranks: 1 MiB blocks, several pieces each. With no latency and no op a rank's link never waits: it
    // moves 2 (p - 1)/p of the vector, the bound of any allreduce (recursive halving's volume).
    const HalvingPieces pieces{8 << 20, 0, 0, 0};
    ASSERT_GT(family_pieces(1 << 20), 1);
    EXPECT_NEAR(predict_ring(8, make_costs(1.0, 0.0), 0.0, pieces, Collective::allreduce), 2.0 * 7 / 8, 1e-9);
    // With an op as costly as the transfers, the folds hide under them (and they under the folds), but for one
    // piece's: well under one piece per block, never under the work of either.
    const double one_piece = predict_ring(8, make_costs(1.0, 1.0), 0.0, {}, Collective::reduce_scatter_block);
    const double pieced = predict_ring(8, make_costs(1.0, 1.0), 0.0, pieces, Collective::reduce_scatter_block);
    EXPECT_NEAR(one_piece, 7 * (1.0 / 8 + 1.0 / 8), kEps);
    EXPECT_LT(pieced, 0.6 * one_piece);
    EXPECT_GE(pieced, 7.0 / 8 - kEps);
    // Against recursive halving at a power of two, with the op's cost: the ring moves as much, and overlaps it.
    EXPECT_LT(pieced, predict_reduce_scatter(FamilyShape(8), make_costs(1.0, 1.0), 0.0, {8 << 20, 0, 0, 0},
                                             Collective::reduce_scatter_block));
}

TEST(FamilyPrediction, ReduceScatterHandWorked) {
    const Costs unit = make_costs(1.0, 1.0);
    // p = 8, one piece, no latency. Halving: (d + c) (1/2 + 1/4 + 1/8) = 1.75. Allgather: d (1/8 + 1/4 + 1/2) =
    // 0.875.
    EXPECT_NEAR(predict_reduce_scatter(FamilyShape(8), unit, 0.0, {}, Collective::allreduce), 2.625, kEps);
    // Reduce-scatter-block: the halving, then one rank's block (1/p of the vector) from its holder; at two ranks
    // every rank already holds its own; with pairs (p = 6) two ranks' blocks, 2/6.
    EXPECT_NEAR(predict_reduce_scatter(FamilyShape(8), unit, 0.0, {}, Collective::reduce_scatter_block), 1.75 + 0.125,
                kEps);
    EXPECT_NEAR(predict_reduce_scatter(FamilyShape(2), unit, 0.0, {}, Collective::reduce_scatter_block), 1.0, kEps);
    EXPECT_NEAR(predict_reduce_scatter(FamilyShape(6), unit, 0.0, {}, Collective::reduce_scatter_block),
                2 + 1.5 + 2.0 / 6, kEps);
    // p = 6: fold-in 2, halving 2 (1/2 + 1/4) = 1.5, allgather 1/4 + 1/2, fold-out 1.
    EXPECT_NEAR(predict_reduce_scatter(FamilyShape(6), unit, 0.0, {}, Collective::allreduce), 2 + 1.5 + 0.75 + 1, kEps);
    // p = 2: (d + c) / 2 + d / 2.
    EXPECT_NEAR(predict_reduce_scatter(FamilyShape(2), make_costs(1.0, 3.0), 0.0, {}, Collective::allreduce), 2.5,
                kEps);
    // p = 1: nothing to do.
    EXPECT_NEAR(predict_reduce_scatter(FamilyShape(1), unit, 0.0, {}, Collective::allreduce), 0.0, kEps);
    EXPECT_NEAR(predict_reduce_scatter(FamilyShape(1), unit, 0.0, {}, Collective::reduce_scatter_block), 0.0, kEps);

    // With latency: p = 4, d = 1, c = 0, L = 0.2. A message of fraction f costs 0.2 + 0.8 f. Halving 0.6 + 0.4,
    // allgather 0.4 + 0.6.
    EXPECT_NEAR(predict_reduce_scatter(FamilyShape(4), make_costs(1.0, 0.0), 0.2, {}, Collective::allreduce), 2.0,
                kEps);
}

// Bytes that cut step 0's half into `pieces` pieces of ExecLimits::family_piece_bytes.
HalvingPieces halving_in(int64_t pieces, int64_t flight_bytes = 0) {
    return {2 * pieces * kExecLimits.family_piece_bytes, 0, 0, flight_bytes};
}

TEST(FamilyPrediction, ReduceScatterPiecesOverlapFoldsWithTransfers) {
    // p = 4, d = 1, c = 0.5, step 0's half in 2 pieces, step 1's quarter in one (pieces of family_piece_bytes, as
    // the executor cuts them). Step 0: pieces of 1/4 take 0.25 to arrive, 0.125 to fold: 0.25 + 0.25 + 0.125 =
    // 0.625. Step 1: 0.25 + 0.125. Allgather 0.25 + 0.5.
    EXPECT_NEAR(predict_reduce_scatter(FamilyShape(4), make_costs(1.0, 0.5), 0.0, halving_in(2), Collective::allreduce),
                0.625 + 0.375 + 0.75, kEps);
    // One piece: (0.5 + 0.25) + (0.25 + 0.125) + 0.75.
    EXPECT_NEAR(predict_reduce_scatter(FamilyShape(4), make_costs(1.0, 0.5), 0.0, {}, Collective::allreduce), 1.875,
                kEps);
    // Folds slower than transfers: p = 2, d = 1, c = 4, 4 pieces of 1/8. The first arrives at 0.125, then four
    // folds of 0.5 one after the other; the allgather's half costs 0.5.
    EXPECT_NEAR(predict_reduce_scatter(FamilyShape(2), make_costs(1.0, 4.0), 0.0, halving_in(4), Collective::allreduce),
                0.125 + 4 * 0.5 + 0.5, kEps);
    // No bytes, or fewer than a piece: one piece.
    for (int64_t bytes : {int64_t{0}, int64_t{-3}, kExecLimits.family_piece_bytes}) {
        EXPECT_NEAR(
            predict_reduce_scatter(FamilyShape(4), make_costs(1.0, 0.5), 0.0, {bytes, 0, 0, 0}, Collective::allreduce),
            1.875, kEps);
    }
}

// Blocks of whole elements: with fewer elements than blocks, the rank that holds an element folds and moves a whole
// one at every step. p = 8, one element, d = c = 1 (no latency): the halving's 3 steps each move and fold it (6),
// the allgather moves it 3 times (allreduce: 9), or it goes to the root once (reduce: 7); as a continuous vector,
// 7/8 + 7/8 and 7/8 of it.
TEST(FamilyPrediction, FewerElementsThanBlocksMoveAndFoldWholeOnes) {
    const Costs costs = make_costs(1.0, 1.0);
    const HalvingPieces one{8, 1, 0, 0};
    EXPECT_NEAR(predict_reduce_scatter(FamilyShape(8), costs, 0.0, one, Collective::allreduce), 9.0, kEps);
    EXPECT_NEAR(predict_reduce_scatter(FamilyShape(8), costs, 0.0, one, Collective::reduce), 7.0, kEps);
    EXPECT_NEAR(predict_reduce_scatter(FamilyShape(8), costs, 0.0, {8, 0, 0, 0}, Collective::allreduce),
                0.875 + 0.875 + 0.875, kEps);
    // Many elements: the shares are what the fractions say, to within an element.
    const HalvingPieces many{8 << 20, 1 << 20, 0, 0};
    EXPECT_NEAR(predict_reduce_scatter(FamilyShape(8), costs, 0.0, many, Collective::allreduce),
                predict_reduce_scatter(FamilyShape(8), costs, 0.0, {8 << 20, 0, 0, 0}, Collective::allreduce), 1e-5);
}

// With a latency, a piece sent only once the partner's last one has come pays the latency once per piece; a window
// of pieces ahead that holds what the link holds in flight pays it once per step. p = 2, d = 1, c = 0, L = 0.2:
// step 0's half in 8 pieces of 1/16, each 0.2 + 0.05 on its own; the allgather's half 0.6.
TEST(FamilyPrediction, AWindowOfPiecesPaysTheLatencyOncePerStep) {
    const Costs costs = make_costs(1.0, 0.0);
    EXPECT_NEAR(predict_reduce_scatter(FamilyShape(2), costs, 0.2, halving_in(8, 0), Collective::allreduce),
                0.25 + 7 * 0.25 + 0.6, kEps)
        << "window 1: every piece after the partner's";
    const int64_t flight = family_flight_bytes(halving_in(8).bytes, 1.0, 0.2);
    EXPECT_EQ(flight, 4 * kExecLimits.family_piece_bytes) << "0.2 of the 0.8 the bytes stream for";
    EXPECT_EQ(family_window(flight, kExecLimits.family_piece_bytes), 5);
    EXPECT_NEAR(predict_reduce_scatter(FamilyShape(2), costs, 0.2, halving_in(8, flight), Collective::allreduce),
                0.25 + 7 * 0.05 + 0.6, kEps)
        << "window 5: the link busy from the first piece to the last";
    // Windows: one, and a piece more for each piece the flight holds (rounded up), at most family_most_pieces.
    const int64_t piece = kExecLimits.family_piece_bytes;
    EXPECT_EQ(family_window(0, piece), 1);
    EXPECT_EQ(family_window(piece, piece), 2);
    EXPECT_EQ(family_window(piece + 1, piece), 3);
    EXPECT_EQ(family_window(int64_t{1} << 40, piece), kExecLimits.family_most_pieces);
    EXPECT_EQ(family_window(-5, 0), 1);
    // No latency: nothing in flight; all latency (or no bytes): the most pieces' worth.
    EXPECT_EQ(family_flight_bytes(1 << 20, 1.0, 0.0), 0);
    const int64_t most = kExecLimits.family_most_pieces * kExecLimits.family_piece_bytes;
    EXPECT_EQ(family_flight_bytes(1 << 20, 0.2, 0.2), most);
    EXPECT_EQ(family_flight_bytes(0, 1.0, 0.2), most);
}

// At a power of two, one piece: recursive doubling is lg p (a + n b + n g) and recursive halving then
// recursive-doubling allgather 2 lg p a + 2 (p-1)/p n b + (p-1)/p n g (Thakur, Rabenseifner & Gropp 2005), with
// a = L, n b = d - L, n g = c.
TEST(FamilyPrediction, MatchesTheTextbookCostsAtPowersOfTwo) {
    const double d = 3.0, c = 2.0, latency = 0.5;
    for (int32_t p = 1; p <= 1024; p *= 2) {
        SCOPED_TRACE("p = " + std::to_string(p));
        const FamilyShape shape(p);
        const double lg = std::log2(p), share = (p - 1.0) / p;
        EXPECT_NEAR(predict_recursive_doubling(shape, make_costs(d, c), latency), lg * (latency + (d - latency) + c),
                    1e-9);
        EXPECT_NEAR(predict_reduce_scatter(shape, make_costs(d, c), latency, {}, Collective::allreduce),
                    2 * lg * latency + 2 * share * (d - latency) + share * c, 1e-9);
    }
}

// The allreduce's halving and allgather, counted in elements as exec/exchanges.cpp cuts the vector
// (even_block_begin), one piece, no latency: each step costs the larger of what a rank sends and receives,
// times d, plus what it folds, times c, at the slowest rank. The prediction is that count.
TEST(FamilyPrediction, ReduceScatterAllreduceIsTheSimulatedElementCount) {
    const double d = 1.0, c = 3.0;
    const int64_t elements = int64_t{1} << 20;
    for (int32_t p = 1; p <= 33; ++p) {
        SCOPED_TRACE("p = " + std::to_string(p));
        const FamilyShape shape(p);
        const int32_t active = shape.active;
        auto fraction = [&](int32_t first_block, int32_t end_block) {
            return static_cast<double>(even_block_begin(elements, active, end_block) -
                                       even_block_begin(elements, active, first_block)) /
                   static_cast<double>(elements);
        };
        double simulated = shape.extra > 0 ? d + c : 0.0;
        std::vector<int32_t> lo(static_cast<size_t>(active), 0), hi(static_cast<size_t>(active), active);
        for (int32_t s = 0; s < shape.steps; ++s) {
            double step = 0.0;
            for (int32_t q = 0; q < active; ++q) {
                const auto qi = static_cast<size_t>(q);
                const int32_t mid = (lo[qi] + hi[qi]) / 2;
                const bool keep_low = ((q >> s) & 1) == 0;
                const double kept = keep_low ? fraction(lo[qi], mid) : fraction(mid, hi[qi]);
                const double given = keep_low ? fraction(mid, hi[qi]) : fraction(lo[qi], mid);
                step = std::max(step, std::max(kept, given) * d + kept * c);
                (keep_low ? hi[qi] : lo[qi]) = mid;
            }
            simulated += step;
        }
        for (int32_t s = shape.steps - 1; s >= 0; --s) {
            double step = 0.0;
            for (int32_t q = 0; q < active; ++q) {
                const auto qi = static_cast<size_t>(q);
                const int32_t width = hi[qi] - lo[qi];
                const int32_t other_lo = ((q >> s) & 1) == 0 ? hi[qi] : lo[qi] - width;
                step = std::max(step, std::max(fraction(lo[qi], hi[qi]), fraction(other_lo, other_lo + width)) * d);
                lo[qi] = std::min(lo[qi], other_lo);
                hi[qi] = lo[qi] + 2 * width;
            }
            simulated += step;
        }
        if (shape.extra > 0) simulated += d;
        EXPECT_NEAR(predict_reduce_scatter(shape, make_costs(d, c), 0.0, {}, Collective::allreduce), simulated, 1e-9);
    }
}

TEST(FamilyPrediction, ReduceScatterWinsWhenTheOpIsExpensive) {
    const Costs costly = make_costs(1.0, 100.0);
    EXPECT_LT(predict_reduce_scatter(FamilyShape(8), costly, 0.0, {}, Collective::allreduce),
              predict_recursive_doubling(FamilyShape(8), costly, 0.0));
    // By hand at p = 8: 101 (7/8) + 7/8 = 89.25 against 3 * 101 = 303.
    EXPECT_NEAR(predict_reduce_scatter(FamilyShape(8), costly, 0.0, {}, Collective::allreduce), 89.25, kEps);
    for (int32_t p = 2; p <= 20; ++p) {
        EXPECT_LT(predict_reduce_scatter(FamilyShape(p), costly, 0.0, {}, Collective::allreduce),
                  predict_recursive_doubling(FamilyShape(p), costly, 0.0))
            << "p = " << p;
    }
}

TEST(FamilyPrediction, RecursiveDoublingWinsWhenLatencyDominates) {
    // d is all latency: every message costs d whatever its length, so the halving's lg P messages and the
    // allgather's lg P are twice recursive doubling's.
    const Costs small = make_costs(1.0, 0.1);
    // By hand at p = 8: 3 * 1.1 = 3.3 against 3 + 0.1 (7/8) + 3 = 6.0875.
    EXPECT_NEAR(predict_recursive_doubling(FamilyShape(8), small, 1.0), 3.3, kEps);
    EXPECT_NEAR(predict_reduce_scatter(FamilyShape(8), small, 1.0, {}, Collective::allreduce), 6.0875, kEps);
    for (int32_t p = 2; p <= 20; ++p) {
        EXPECT_LT(predict_recursive_doubling(FamilyShape(p), small, 1.0),
                  predict_reduce_scatter(FamilyShape(p), small, 1.0, {}, Collective::allreduce))
            << "p = " << p;
    }
}

TEST(FamilyPrediction, AllgatherHandWorked) {
    // p = 4, d = c = 1, no latency: the three vectors arrive at 1, 2, 3 and each is folded once in: 4.
    const Costs unit = make_costs(1.0, 1.0);
    EXPECT_NEAR(predict_allgather(4, unit, 0.0, Collective::allreduce), 4.0, kEps);
    // Folds slower than arrivals: the first arrives at 1, then three folds of 2 back to back: 7.
    EXPECT_NEAR(predict_allgather(4, make_costs(1.0, 2.0), 0.0, Collective::allreduce), 7.0, kEps);
    // A latency of 0.5 within d: the j-th arrives at 0.5 + 0.5 j; folds of 0.25 keep up: 0.5 + 1.5 + 0.25.
    EXPECT_NEAR(predict_allgather(4, make_costs(1.0, 0.25), 0.5, Collective::allreduce), 2.25, kEps);
    // Reduce-scatter-block: pieces of a quarter, d = c = 1 and no latency: arrivals at 0.25, 0.5, 0.75, then a fold.
    EXPECT_NEAR(predict_allgather(4, unit, 0.0, Collective::reduce_scatter_block), 1.0, kEps);
    EXPECT_NEAR(predict_allgather(1, unit, 0.5, Collective::allreduce), 0.0, kEps);
}

TEST(FamilyPrediction, AllgatherWinsWhereLatencyDominatesAndFoldsAreCheap) {
    // Every message all latency (1), a cheap op (0.01): one latency and p - 1 folds against recursive doubling's
    // lg P (and more where p is not a power of two).
    const Costs small = make_costs(1.0, 0.01);
    for (int32_t p = 3; p <= 20; ++p) {
        EXPECT_LT(predict_allgather(p, small, 1.0, Collective::allreduce),
                  predict_recursive_doubling(FamilyShape(p), small, 1.0))
            << "p = " << p;
    }
    // Long vectors: every rank moves the whole vector p - 1 times, recursive halving 2 (p - 1) / p of it.
    const Costs big = make_costs(1.0, 0.01);
    EXPECT_GT(predict_allgather(8, big, 0.0, Collective::allreduce),
              predict_reduce_scatter(FamilyShape(8), big, 0.0, {}, Collective::allreduce));
}

TEST(FamilyPrediction, MorePiecesNeverCostMoreAndCostsOnlyAdd) {
    for (int32_t p : {2, 3, 8, 12, 17}) {
        const FamilyShape shape(p);
        for (Collective collective : {Collective::allreduce, Collective::reduce_scatter_block}) {
            // The same vector cut finer (a smaller op floor on the pieces), the window covering the latency.
            const int64_t bytes = 2 * kExecLimits.family_most_pieces * kExecLimits.family_piece_bytes;
            const int64_t flight = family_flight_bytes(bytes, 1.0, 0.1);
            double previous =
                predict_reduce_scatter(shape, make_costs(1.0, 0.7), 0.1, {bytes, 0, bytes, flight}, collective);
            for (int32_t pieces = 2; pieces <= kExecLimits.family_most_pieces; ++pieces) {
                const HalvingPieces cut{bytes, 0, bytes / 2 / pieces, flight};
                const double t = predict_reduce_scatter(shape, make_costs(1.0, 0.7), 0.1, cut, collective);
                EXPECT_LE(t, previous + kEps) << "p = " << p << ", pieces = " << pieces;
                previous = t;
            }
            // Slower transfers or a slower op never make it faster.
            const double base = predict_reduce_scatter(shape, make_costs(1.0, 0.7), 0.1, halving_in(4), collective);
            EXPECT_GE(predict_reduce_scatter(shape, make_costs(1.5, 0.7), 0.1, halving_in(4), collective), base);
            EXPECT_GE(predict_reduce_scatter(shape, make_costs(1.0, 0.9), 0.1, halving_in(4), collective), base);
        }
        const double base = predict_recursive_doubling(shape, make_costs(1.0, 0.7), 0.1);
        EXPECT_GT(predict_recursive_doubling(shape, make_costs(1.5, 0.7), 0.1), base);
        EXPECT_GT(predict_recursive_doubling(shape, make_costs(1.0, 0.9), 0.1), base);
    }
}

TEST(FamilyPrediction, TreeThenSpreadHandWorked) {
    const Costs costs = make_costs(1.0, 5.0);  // the op's cost is in reduce_s: the spread only moves data
    // Allreduce: reduce_s = 2, a tree 3 levels deep whose widest rank has 2 children, 4 segments, L = 0.2. A
    // segment leaves a rank 2 (0.8 / 4) = 0.4 after the last one; the last segment reaches the deepest rank after
    // 3 latencies and (3 + 4 - 1) segment times: 2 + 0.6 + 2.4.
    EXPECT_NEAR(predict_tree_then_spread(2.0, FamilyShape(8), costs, 0.2, 3, 2, 4, Collective::allreduce), 5.0, kEps);
    // A chain of 7 (depth 7, one child each), one segment, no latency: 7 whole-vector transfers after the reduce.
    EXPECT_NEAR(predict_tree_then_spread(1.5, FamilyShape(8), costs, 0.0, 7, 1, 1, Collective::allreduce), 8.5, kEps);
    // Segments and fan-out below one are one.
    EXPECT_NEAR(predict_tree_then_spread(1.5, FamilyShape(8), costs, 0.0, 7, 0, 0, Collective::allreduce), 8.5, kEps);
    // Reduce-scatter-block: rank 0 sends every other rank its block at once: one latency and (p-1)/p of the
    // vector out of the root. p = 6: 1 + 0.1 + (5/6) 0.9.
    EXPECT_NEAR(predict_tree_then_spread(1.0, FamilyShape(6), costs, 0.1, 9, 9, 9, Collective::reduce_scatter_block),
                1.0 + 0.1 + 0.75, kEps);
    // p = 8, d = 2: 0.5 + 0.25 + (7/8) 1.75.
    EXPECT_NEAR(predict_tree_then_spread(0.5, FamilyShape(8), make_costs(2.0, 0.0), 0.25, 1, 1, 1,
                                         Collective::reduce_scatter_block),
                0.5 + 0.25 + 1.53125, kEps);
}

// An op with a cost per application pays it once per piece of every step: at one piece, a per-call part moved from
// the per-element part changes nothing (each step folds one piece either way) ...
TEST(FamilyPrediction, EveryPiecePaysTheOpsCostPerApplication) {
    const FamilyShape shape(8);  // 3 steps of halving
    Costs per_element = make_costs(0.0, 1.0);
    Costs per_call = per_element;
    per_call.compute_call_s = 0.4;
    // One piece: each step folds fraction f in a + (c - a) f; with no transfer time, the folds alone add up:
    // sum over f = 1/2, 1/4, 1/8 of 0.4 + 0.6 f = 1.2 + 0.525, against 0.875 all per element.
    EXPECT_NEAR(predict_reduce_scatter(shape, per_element, 0.0, {}, Collective::reduce_scatter_block), 0.875, kEps);
    EXPECT_NEAR(predict_reduce_scatter(shape, per_call, 0.0, {}, Collective::reduce_scatter_block), 1.725, kEps);
    // ... and pieces pay it once each: steps of 4, 2 and 1 pieces (step 0's half in 4, as the executor cuts them),
    // 7 x 0.4 + 0.525.
    EXPECT_NEAR(predict_reduce_scatter(shape, per_call, 0.0, halving_in(4), Collective::reduce_scatter_block), 3.325,
                kEps);
}

// ---- Pieces, names, blocks ---------------------------------------------------------------------------------------

// The executor applies the op to pieces long enough that its per-application cost a stays within kOpCallShare of
// the piece's per-element work: a / (kOpCallShare b) elements.
TEST(OpPieceBytes, KeepsThePerApplicationCostASmallShare) {
    Costs costs = make_costs(1.0, 1e-3);
    EXPECT_EQ(op_piece_bytes(costs, 1 << 20), 0);  // all per element: no floor
    costs.compute_call_s = 1e-4;                   // b = 0.9 ms over 1 MiB: a / (0.05 b) = 2.22 x 1 MiB
    EXPECT_NEAR(static_cast<double>(op_piece_bytes(costs, 1 << 20)), 1e-4 / (0.05 * 0.9e-3) * (1 << 20), 2.0);
    costs.compute_call_s = 1e-3;  // all per call: the whole vector
    EXPECT_EQ(op_piece_bytes(costs, 1 << 20), 1 << 20);
    costs.compute_call_s = 1.0;  // more than c counts as c
    EXPECT_EQ(op_piece_bytes(costs, 4096), 4096);
}

TEST(FamilyPieces, OnePerPieceBytesBetweenOneAndTheMost) {
    const int64_t piece = kExecLimits.family_piece_bytes;
    EXPECT_EQ(piece, 32768);
    EXPECT_EQ(kExecLimits.family_most_pieces, 64);
    EXPECT_EQ(family_pieces(-1), 1);
    EXPECT_EQ(family_pieces(0), 1);
    EXPECT_EQ(family_pieces(1), 1);
    EXPECT_EQ(family_pieces(piece), 1);
    EXPECT_EQ(family_pieces(2 * piece - 1), 1);
    EXPECT_EQ(family_pieces(2 * piece), 2);
    EXPECT_EQ(family_pieces(5 * piece + 100), 5);
    EXPECT_EQ(family_pieces(64 * piece), 64);
    EXPECT_EQ(family_pieces(65 * piece), 64);
    EXPECT_EQ(family_pieces(int64_t{1} << 40), 64);
    // A floor on the piece above kExecLimits.family_piece_bytes makes fewer, longer pieces; one below it changes
    // nothing.
    EXPECT_EQ(family_pieces(64 * piece, 16 * piece), 4);
    EXPECT_EQ(family_pieces(64 * piece, piece / 2), 64);
    EXPECT_EQ(family_pieces(64 * piece, int64_t{1} << 50), 1);
    for (int64_t bytes = 0; bytes < 20 * 65536; bytes += 4099) {
        const int32_t pieces = family_pieces(bytes);
        EXPECT_GE(pieces, 1);
        EXPECT_LE(pieces, kExecLimits.family_most_pieces);
    }
}

TEST(FamilyNames, NamesAndValuesRoundTrip) {
    for (FamilyAlgorithm algorithm :
         {FamilyAlgorithm::recursive_doubling, FamilyAlgorithm::reduce_scatter, FamilyAlgorithm::ring,
          FamilyAlgorithm::arrival_tree, FamilyAlgorithm::late_rank, FamilyAlgorithm::allgather}) {
        SCOPED_TRACE(std::string(family_name(algorithm)));
        EXPECT_EQ(parse_family(family_name(algorithm)), algorithm);
        EXPECT_EQ(family_of(public_family(algorithm)), algorithm);
    }
    EXPECT_EQ(family_name(FamilyAlgorithm::recursive_doubling), "recursive-doubling");
    EXPECT_EQ(family_name(FamilyAlgorithm::reduce_scatter), "reduce-scatter");
    EXPECT_EQ(family_name(FamilyAlgorithm::tree), "tree");
    EXPECT_EQ(public_family(FamilyAlgorithm::recursive_doubling), REDUX_ALGORITHM_RECURSIVE_DOUBLING);
    EXPECT_EQ(public_family(FamilyAlgorithm::reduce_scatter), REDUX_ALGORITHM_REDUCE_SCATTER);
    EXPECT_EQ(REDUX_ALGORITHM_RECURSIVE_DOUBLING, 16);  // ABI
    EXPECT_EQ(REDUX_ALGORITHM_REDUCE_SCATTER, 17);
    EXPECT_EQ(REDUX_ALGORITHM_TREE_DYN, 18);
    EXPECT_EQ(REDUX_ALGORITHM_RING, 19);
    EXPECT_EQ(REDUX_ALGORITHM_ARRIVAL_TREE, 20);
    EXPECT_EQ(REDUX_ALGORITHM_LATE_RANK, 21);
    EXPECT_EQ(REDUX_ALGORITHM_ALLGATHER, 22);
    EXPECT_EQ(parse_family("recursive_doubling"), FamilyAlgorithm::recursive_doubling);  // '_' for '-'
    EXPECT_EQ(parse_family("reduce_scatter"), FamilyAlgorithm::reduce_scatter);
    EXPECT_EQ(parse_family("tree_dyn"), FamilyAlgorithm::tree_dyn);
    EXPECT_EQ(parse_family("arrival_tree"), FamilyAlgorithm::arrival_tree);
    EXPECT_EQ(parse_family("late_rank"), FamilyAlgorithm::late_rank);
    for (const char* name :
         {"", "tree", "auto", "native", "optimal", "Ring", "Recursive-Doubling", "reduce-scatter "}) {
        EXPECT_FALSE(parse_family(name).has_value()) << '"' << name << '"';
    }
    // The names redux/algorithms.h gives them.
#define REDUX_FAMILY_NAME_CHECK_(ENUM, name, text, value)                               \
    EXPECT_EQ(family_name(*family_of(REDUX_ALGORITHM_##ENUM)), std::string_view(text)); \
    EXPECT_EQ(static_cast<int>(public_family(FamilyAlgorithm::name)), value);
    REDUX_FAMILY_ALGORITHMS(REDUX_FAMILY_NAME_CHECK_)
#undef REDUX_FAMILY_NAME_CHECK_

    EXPECT_EQ(collective_name(Collective::reduce), "reduce");
    EXPECT_EQ(collective_name(Collective::allreduce), "allreduce");
    EXPECT_EQ(collective_name(Collective::reduce_scatter_block), "reduce_scatter_block");
}

TEST(FamilyNames, EveryOtherAlgorithmValueIsNoFamily) {
    for (int value = -2; value <= 64; ++value) {
        if (value == REDUX_ALGORITHM_RECURSIVE_DOUBLING || value == REDUX_ALGORITHM_REDUCE_SCATTER ||
            value == REDUX_ALGORITHM_TREE_DYN || value == REDUX_ALGORITHM_RING ||
            value == REDUX_ALGORITHM_ARRIVAL_TREE || value == REDUX_ALGORITHM_LATE_RANK ||
            value == REDUX_ALGORITHM_ALLGATHER) {
            continue;
        }
        EXPECT_FALSE(family_of(value).has_value()) << "value " << value;
    }
}

TEST(EvenBlocks, NearEqualBlocksCoverTheVectorInOrder) {
    for (int64_t elements :
         {int64_t{0}, int64_t{1}, int64_t{5}, int64_t{7}, int64_t{100}, int64_t{1001}, int64_t{3} << 30}) {
        for (int32_t blocks : {1, 2, 4, 8, 16, 1024}) {
            SCOPED_TRACE(std::to_string(elements) + " elements, " + std::to_string(blocks) + " blocks");
            EXPECT_EQ(even_block_begin(elements, blocks, 0), 0);
            EXPECT_EQ(even_block_begin(elements, blocks, blocks), elements);
            const int64_t floor_length = elements / blocks;
            for (int32_t b = 0; b < blocks; ++b) {
                const int64_t length =
                    even_block_begin(elements, blocks, b + 1) - even_block_begin(elements, blocks, b);
                EXPECT_GE(length, floor_length);
                EXPECT_LE(length, floor_length + 1);
            }
        }
    }
    // 10 elements in 4 blocks: 2, 3, 2, 3.
    const int64_t begins[] = {0, 2, 5, 7, 10};
    for (int32_t b = 0; b <= 4; ++b) EXPECT_EQ(even_block_begin(10, 4, b), begins[b]);
}

// ---- DynBatches --------------------------------------------------------------------------------------------------

// Whether every position reaches position 0 through its parents, and 0 has none.
bool rooted_at_zero(const std::vector<int32_t>& parent) {
    if (parent.empty() || parent[0] != -1) return false;
    for (size_t i = 1; i < parent.size(); ++i) {
        int32_t at = static_cast<int32_t>(i);
        for (size_t steps = 0; at > 0 && steps <= parent.size(); ++steps) {
            const int32_t p = parent[static_cast<size_t>(at)];
            if (p < 0 || p >= static_cast<int32_t>(parent.size())) return false;
            at = p;
        }
        if (at != 0) return false;
    }
    return true;
}

std::vector<int32_t> binomial_parents(int32_t k) {
    std::vector<int32_t> parent(static_cast<size_t>(k), -1);
    for (int32_t i = 1; i < k; ++i) parent[static_cast<size_t>(i)] = i & (i - 1);  // clear the lowest set bit
    return parent;
}

TEST(DynBatches, ATreeAtPositionZeroNoSlowerThanBinomialOrFlat) {
    for (const auto& [d, c] : {std::pair{1.0, 0.0}, std::pair{1.0, 0.1}, std::pair{1.0, 1.0}, std::pair{1.0, 3.0}}) {
        const Costs costs = make_costs(d, c);
        const DynBatches batches(costs, 0.0);
        for (int32_t k = 2; k <= 40; ++k) {
            const std::vector<int32_t>& parent = batches.parents(k);
            ASSERT_EQ(parent.size(), static_cast<size_t>(k));
            EXPECT_TRUE(rooted_at_zero(parent)) << "k " << k << " c " << c;
            const double made = simulate(parent, costs).makespan_s;
            std::vector<int32_t> flat_parent(static_cast<size_t>(k), 0);
            flat_parent[0] = -1;
            EXPECT_LE(made, simulate(binomial_parents(k), costs).makespan_s + 1e-12) << "k " << k << " c " << c;
            EXPECT_LE(made, simulate(flat_parent, costs).makespan_s + 1e-12) << "k " << k << " c " << c;
            if (c == 0.0) {
                EXPECT_DOUBLE_EQ(made, std::ceil(std::log2(k)) * d) << "k " << k;
            }
            EXPECT_EQ(&batches.parents(k), &parent) << "made once per k";
        }
    }
}

TEST(DynBatches, TheGatheringWaitIsAQuarterOfTheLatency) {
    EXPECT_DOUBLE_EQ(DynBatches(make_costs(1, 1), 2e-3).gather_s(), 5e-4);
    EXPECT_DOUBLE_EQ(DynBatches().gather_s(), 0.0);
}

}  // namespace
}  // namespace redux
