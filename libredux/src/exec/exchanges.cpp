// The exchange schedules of recursive doubling, recursive halving, the ring and a tree's spread (exchanges.hpp;
// late-rank's are in late_rank.cpp), with libredux's private communicator's tags tags::kFamily and tags::kSpread. Each
// phase (a step of the exchange, the pairs' first or last transfer) starts once the one before it is complete; within a
// phase the steps say what they wait for.
#include "exec/exchanges.hpp"

#include "exec/exchange_builder.hpp"

#include "mpi/tags.hpp"
#include "plan/predict/segments.hpp"

#include <algorithm>

namespace redux {
namespace {

// What recursive doubling and halving begin with: the input in the accumulator, and the pairs' first step (the
// even rank's vector to the odd one, which folds it). Returns whether this rank goes on (false: an even rank of a
// pair, which waits for its result).
bool begin_family(const ExecCall& call, const FamilyShape& shape, Builder& b) {
    const int total = call.total();
    const Where acc = accumulator(call);
    if (!(acc == Where::recvbuf && call.in_place)) b.copy(Where::input, acc, 0, total);
    b.phase();
    const bool goes_on = shape.active_index(call.rank) >= 0;
    if (call.rank < 2 * shape.extra) {
        if (!goes_on) {
            b.send(acc, 0, total, call.rank + 1, tags::kFamily);
        } else {
            const int32_t r = b.receive(Where::vector0, 0, total, call.rank - 1, tags::kFamily);
            b.fold(Where::vector0, acc, 0, total, /*theirs_left=*/true, r);
        }
    }
    b.phase();
    return goes_on;
}

// The allreduce's last step: the odd rank of a pair sends the result to the even one.
void fold_out(const ExecCall& call, const FamilyShape& shape, Builder& b) {
    if (call.rank >= 2 * shape.extra) return;
    if (call.rank % 2 == 1) {
        b.send(Where::recvbuf, 0, call.total(), call.rank - 1, tags::kFamily);
    } else {
        b.receive(Where::recvbuf, 0, call.total(), call.rank + 1, tags::kFamily);
    }
}

// Where block b of the P blocks begins (b = P: the end). Allreduce: near-equal blocks; reduce-scatter-block: the
// blocks of the original ranks active index b stands for.
int64_t block_begin(const FamilyShape& shape, const ExecCall& call, int b) {
    if (call.collective != Collective::reduce_scatter_block) return even_block_begin(call.total(), shape.active, b);
    return static_cast<int64_t>(b == shape.active ? shape.ranks : shape.first_rank(b)) * call.count;
}

// One step of recursive halving with the partner: the half this rank keeps is received in pieces, each folded
// as it arrives, while the half it gives goes in pieces, a window of them (family_window) ahead of the partner's:
// piece i + window once piece i has arrived and piece i + window - 1 has gone. The window holds what the link holds
// in flight, so that the latency is paid once, not once per piece; no more, because pieces sent together share a
// link that shares its bandwidth (SimGrid's does) and would arrive together, and the folds could not overlap them.
// A piece of ExecLimits::family_piece_bytes travels eagerly under both MPI libraries, so waiting for its send costs
// no handshake.
void halving_step(const ExecCall& call, const FamilyShape& shape, int64_t least_piece_bytes, int64_t flight_bytes,
                  int s, int& lo, int& hi, Builder& b) {
    const int q = shape.active_index(call.rank);
    const int partner_q = q ^ (1 << s);
    const int partner = shape.active_rank(partner_q);
    const int mid = (lo + hi) / 2;
    const bool keep_low = ((q >> s) & 1) == 0;
    const int64_t keep_begin = block_begin(shape, call, keep_low ? lo : mid);
    const int64_t keep_end = block_begin(shape, call, keep_low ? mid : hi);
    const int64_t give_begin = block_begin(shape, call, keep_low ? mid : lo);
    const int64_t give_end = block_begin(shape, call, keep_low ? hi : mid);
    const int type_size = call.layout.type_size;
    const int keep_pieces = family_pieces((keep_end - keep_begin) * type_size, least_piece_bytes);
    const int give_pieces = family_pieces((give_end - give_begin) * type_size, least_piece_bytes);
    const int window =
        family_window(flight_bytes, std::max<int64_t>((give_end - give_begin) * type_size / give_pieces, 1));
    const Where acc = accumulator(call);
    const int32_t first_receive = b.receive(Where::vector0, piece_begin(keep_begin, keep_end, keep_pieces, 0),
                                            piece_begin(keep_begin, keep_end, keep_pieces, 1), partner, tags::kFamily);
    for (int i = 1; i < keep_pieces; ++i) {
        b.receive(Where::vector0, piece_begin(keep_begin, keep_end, keep_pieces, i),
                  piece_begin(keep_begin, keep_end, keep_pieces, i + 1), partner, tags::kFamily);
    }
    int32_t sent = -1;
    for (int i = 0; i < give_pieces; ++i) {
        // after piece i - 1's send and piece i - window's arrival (the last piece's, once every piece has come)
        const int32_t arrived = i < window ? -1 : first_receive + std::min(i - window, keep_pieces - 1);
        sent = b.send(acc, piece_begin(give_begin, give_end, give_pieces, i),
                      piece_begin(give_begin, give_end, give_pieces, i + 1), partner, tags::kFamily, sent, arrived);
    }
    for (int i = 0; i < keep_pieces; ++i) {
        b.fold(Where::vector0, acc, piece_begin(keep_begin, keep_end, keep_pieces, i),
               piece_begin(keep_begin, keep_end, keep_pieces, i + 1), partner_q < q, first_receive + i);
    }
    b.phase();
    if (keep_low) {
        hi = mid;
    } else {
        lo = mid;
    }
}

// After halving, active rank q holds block lo = bit_reverse(q). Allreduce: the allgather, halving's steps in
// reverse, each rank's blocks straight into the partner's recvbuf.
void allgather(const ExecCall& call, const FamilyShape& shape, int lo, int hi, Builder& b) {
    const int q = shape.active_index(call.rank);
    for (int s = shape.steps - 1; s >= 0; --s) {
        const int partner = shape.active_rank(q ^ (1 << s));
        const int width = hi - lo;
        const bool low = ((q >> s) & 1) == 0;
        const int other_lo = low ? hi : lo - width;
        b.receive(Where::recvbuf, block_begin(shape, call, other_lo), block_begin(shape, call, other_lo + width),
                  partner, tags::kFamily);
        b.send(Where::recvbuf, block_begin(shape, call, lo), block_begin(shape, call, hi), partner, tags::kFamily);
        b.phase();
        lo = std::min(lo, other_lo);
        hi = lo + 2 * width;
    }
}

// Reduce: every active rank's block to the root, all in flight at once.
void gather_to_root(const ExecCall& call, const FamilyShape& shape, bool goes_on, int lo, Builder& b) {
    if (call.rank == call.root) {
        for (int other = 0; other < shape.active; ++other) {
            if (shape.active_rank(other) == call.rank) continue;
            const int block = shape.bit_reverse(other);
            b.receive(Where::recvbuf, block_begin(shape, call, block), block_begin(shape, call, block + 1),
                      shape.active_rank(other), tags::kFamily);
        }
    }
    if (!goes_on) return;
    const int64_t begin = block_begin(shape, call, lo), end = block_begin(shape, call, lo + 1);
    if (call.rank == call.root) {
        b.copy(Where::vector1, Where::recvbuf, begin, end);
    } else {
        b.send(Where::vector1, begin, end, call.root, tags::kFamily);
    }
}

// Reduce-scatter-block: active rank q holds the blocks of the original ranks it stands for; each gets its own,
// and this rank receives its block from the one that holds it.
void scatter_blocks(const ExecCall& call, const FamilyShape& shape, bool goes_on, int lo, Builder& b) {
    const int mine = call.rank < 2 * shape.extra ? call.rank / 2 : call.rank - shape.extra;
    const int holder = shape.active_rank(shape.bit_reverse(mine));
    if (holder != call.rank) b.receive(Where::recvbuf, 0, call.count, holder, tags::kFamily);
    if (!goes_on) return;
    for (int o = shape.first_rank(lo); o <= shape.active_rank(lo); ++o) {
        const int64_t begin = static_cast<int64_t>(o) * call.count;
        if (o == call.rank) {
            b.copy(Where::vector1, Where::recvbuf, begin, begin + call.count, -begin);
        } else {
            b.send(Where::vector1, begin, begin + call.count, o, tags::kFamily);
        }
    }
}

}  // namespace

void build_recursive_doubling(const ExecCall& call, std::vector<ScheduleStep>& steps) {
    const FamilyShape shape(call.size);
    const int total = call.total();
    Builder b(steps);
    if (begin_family(call, shape, b)) {
        const int q = shape.active_index(call.rank);
        for (int s = 0; s < shape.steps; ++s) {
            const int partner_q = q ^ (1 << s);
            const int partner = shape.active_rank(partner_q);
            const int32_t r = b.receive(Where::vector0, 0, total, partner, tags::kFamily);
            const int32_t sent = b.send(Where::recvbuf, 0, total, partner, tags::kFamily);
            // Both ranks fold the lower one's data on the left, with the same operands: the same bits.
            b.fold(Where::vector0, Where::recvbuf, 0, total, partner_q < q, r, sent);
            b.phase();
        }
    }
    fold_out(call, shape, b);
}

void build_reduce_scatter(const ExecCall& call, int64_t least_piece_bytes, int64_t flight_bytes,
                          std::vector<ScheduleStep>& steps) {
    const FamilyShape shape(call.size);
    Builder b(steps);
    const bool goes_on = begin_family(call, shape, b);
    int lo = 0, hi = shape.active;  // the blocks this rank holds
    if (goes_on) {
        for (int s = 0; s < shape.steps; ++s) halving_step(call, shape, least_piece_bytes, flight_bytes, s, lo, hi, b);
    }
    switch (call.collective) {
        case Collective::allreduce:
            if (goes_on) allgather(call, shape, lo, hi, b);
            fold_out(call, shape, b);
            return;
        case Collective::reduce:
            gather_to_root(call, shape, goes_on, lo, b);
            return;
        case Collective::reduce_scatter_block:
            scatter_blocks(call, shape, goes_on, lo, b);
            return;
    }
}

void build_ring(const ExecCall& call, int64_t least_piece_bytes, int64_t flight_bytes,
                std::vector<ScheduleStep>& steps) {
    const bool allreduce = call.collective == Collective::allreduce;
    const Where acc = accumulator(call);
    const int64_t total = call.total();
    auto block_begin = [&](int k) {
        return allreduce ? even_block_begin(total, call.size, k) : static_cast<int64_t>(k) * call.count;
    };
    Builder b(steps);
    if (!(acc == Where::recvbuf && call.in_place)) b.copy(Where::input, acc, 0, total);
    b.phase();
    ring_steps(call, RingRanks{call.size, -1}, block_begin, allreduce, least_piece_bytes, flight_bytes, b, steps);
    if (!allreduce) {  // this rank's block, reduced, out of the accumulator
        b.phase();
        const int64_t begin = block_begin(call.rank);
        b.copy(acc, Where::recvbuf, begin, begin + call.count, -begin);
    }
}

void build_allgather(const ExecCall& call, std::vector<ScheduleStep>& steps) {
    const bool allreduce = call.collective == Collective::allreduce;
    const int p = call.size, r = call.rank;
    const int64_t n = allreduce ? call.total() : call.count;          // a piece: the vector, or one rank's block
    auto piece = [&](int q) { return static_cast<int64_t>(q) * n; };  // rank q's piece in vector0
    const int64_t own = allreduce ? 0 : piece(r);                     // this rank's piece in its input
    Builder b(steps);
    // This rank's piece goes into vector0 first, so that recvbuf (the input, in place) may be written while the
    // allreduce's sends go.
    const int32_t copied = b.copy(Where::input, Where::vector0, own, own + n, piece(r) - own);
    std::vector<int32_t> arrived(static_cast<size_t>(p), copied);
    // From the rank k before and to the rank k after, k = 1 .. p - 1: no rank's link is everybody's first.
    for (int k = 1; k < p; ++k) {
        const int from = (r - k + p) % p;
        arrived[static_cast<size_t>(from)] =
            b.receive(Where::vector0, piece(from), piece(from) + n, from, tags::kFamily);
    }
    for (int k = 1; k < p; ++k) {
        const int to = (r + k) % p;
        if (allreduce) {
            b.send(Where::vector0, piece(r), piece(r) + n, to, tags::kFamily, copied);
        } else {
            b.send(Where::input, piece(to), piece(to) + n, to, tags::kFamily);
        }
    }
    // Every rank folds in one order: the last rank's piece first, each lower one joining on the left. The ranks'
    // order, the same bits at every rank, and no copy back under a non-commutative op (exec/fold.hpp).
    const Where acc = accumulator(call);
    b.copy(Where::vector0, acc, piece(p - 1), piece(p - 1) + n, -piece(p - 1), arrived[static_cast<size_t>(p - 1)]);
    for (int q = p - 2; q >= 0; --q) {
        b.fold(Where::vector0, acc, piece(q), piece(q) + n, /*theirs_left=*/true, arrived[static_cast<size_t>(q)], -1,
               -piece(q));
    }
    if (!allreduce) {  // the block, once every send from the input (recvbuf, in place) has gone
        b.phase();
        b.copy(acc, Where::recvbuf, 0, n);
    }
}

void build_spread(const ExecCall& call, const SpreadRole& role, std::vector<ScheduleStep>& steps) {
    Builder b(steps);
    if (call.collective == Collective::reduce_scatter_block) {  // rank 0 sends each rank its block, all at once
        if (call.rank != 0) {
            b.receive(Where::recvbuf, 0, call.count, 0, tags::kSpread);
            return;
        }
        for (int r = 1; r < call.size; ++r) {
            const int64_t begin = static_cast<int64_t>(r) * call.count;
            b.send(Where::vector0, begin, begin + call.count, r, tags::kSpread);
        }
        b.copy(Where::vector0, Where::recvbuf, 0, call.count);
        return;
    }
    const int64_t n = call.count;
    const int segments = static_cast<int>(std::clamp<int64_t>(role.segments, 1, std::max<int64_t>(n, 1)));
    const auto children = static_cast<int32_t>(role.children.size());
    int32_t first_receive = -1;
    if (role.parent >= 0) {
        first_receive = static_cast<int32_t>(steps.size());
        for (int j = 0; j < segments; ++j) {
            b.receive(Where::recvbuf, segment_begin(n, segments, j), segment_begin(n, segments, j + 1), role.parent,
                      tags::kSpread);
        }
    }
    // Segment j goes to each child once it has arrived and segment j - 1 has gone to that child: one segment in
    // flight per child, so that the segments arrive in turn and each is forwarded while the next travels.
    const auto first_send = static_cast<int32_t>(steps.size());
    for (int j = 0; j < segments; ++j) {
        for (int32_t k = 0; k < children; ++k) {
            const int32_t previous = j > 0 ? first_send + (j - 1) * children + k : -1;
            b.send(Where::recvbuf, segment_begin(n, segments, j), segment_begin(n, segments, j + 1),
                   role.children[static_cast<size_t>(k)], tags::kSpread, previous,
                   first_receive >= 0 ? first_receive + j : -1);
        }
    }
}

}  // namespace redux
