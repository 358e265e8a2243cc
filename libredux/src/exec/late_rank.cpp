// late-rank's exchange schedules (exchanges.hpp): the ring of every rank but the late one (exchange_builder.hpp), and
// the late rank's part of the result, with libredux's private communicator's tag tags::kFamily.
#include "exec/exchange_builder.hpp"
#include "exec/exchanges.hpp"

namespace redux {
namespace {

// The late rank's reduce-scatter-block (exchanges.hpp). The early ranks' ring cuts the vector at their own blocks'
// starts, the late rank's block joined to the one before it (or, for rank 0, after it): early rank at position i keeps
// ranks rank(i) .. rank(i + 1) - 1's blocks, and holder h the late rank's too. After the ring, each receives the late
// rank's part of its own block into vector0 (where the ring received, hence after it), folds it in and copies its block
// out; h sends the late rank's block, reduced over the early ranks, to the late rank, which folds its own part in.
void late_rank_blocks(const ExecCall& call, int late, int64_t least_piece_bytes, int64_t flight_bytes,
                      std::vector<ScheduleStep>& steps) {
    const RingRanks ring{call.size - 1, late};
    const int64_t n = call.count, total = call.total();
    auto block_begin = [&](int k) {
        return k == 0 ? 0 : k == ring.size ? total : static_cast<int64_t>(ring.rank(k)) * n;
    };
    const int holder = ring.rank(late == 0 ? 0 : ring.position(late - 1));
    const int64_t late_begin = static_cast<int64_t>(late) * n;
    Builder b(steps);
    if (call.rank == late) {  // each early rank's block to it; the result of its own from the holder
        for (int r = 0; r < call.size; ++r) {
            if (r != late)
                b.send(Where::input, static_cast<int64_t>(r) * n, static_cast<int64_t>(r + 1) * n, r, tags::kFamily);
        }
        const int32_t got = b.receive(Where::vector0, late_begin, late_begin + n, holder, tags::kFamily);
        b.fold(Where::input, Where::vector0, late_begin, late_begin + n, false, got);
        b.phase();  // in place: every send out of recvbuf is over
        b.copy(Where::vector0, Where::recvbuf, late_begin, late_begin + n, -late_begin);
        return;
    }
    const Where acc = accumulator(call);
    b.copy(Where::input, acc, 0, total);
    b.phase();
    ring_steps(call, ring, block_begin, false, least_piece_bytes, flight_bytes, b, steps);
    b.phase();
    const int64_t mine = static_cast<int64_t>(call.rank) * n;
    const int32_t got = b.receive(Where::vector0, mine, mine + n, late, tags::kFamily);
    if (call.rank == holder) b.send(acc, late_begin, late_begin + n, late, tags::kFamily);
    b.fold(Where::vector0, acc, mine, mine + n, false, got);
    b.phase();
    b.copy(acc, Where::recvbuf, mine, mine + n, -mine);
}

}  // namespace

// The late rank's allreduce (exchanges.hpp). The early ranks' ring cuts the vector into size - 1 blocks; early rank
// at position i keeps block i. Its pieces are those family_pieces makes of each block, on both sides.
void build_late_rank(const ExecCall& call, int late, int64_t least_piece_bytes, int64_t flight_bytes,
                     std::vector<ScheduleStep>& steps) {
    if (call.collective == Collective::reduce || call.size < 2 || late < 0 || late >= call.size) {
        build_ring(call, least_piece_bytes, flight_bytes, steps);
        return;
    }
    if (call.collective == Collective::reduce_scatter_block) {
        late_rank_blocks(call, late, least_piece_bytes, flight_bytes, steps);
        return;
    }
    const RingRanks ring{call.size - 1, late};
    const int64_t total = call.total();
    auto block_begin = [&](int k) { return even_block_begin(total, ring.size, k); };
    auto pieces_of = [&](int k) {
        return family_pieces((block_begin(k + 1) - block_begin(k)) * call.layout.type_size, least_piece_bytes);
    };
    auto piece = [&](int k, int j) { return piece_begin(block_begin(k), block_begin(k + 1), pieces_of(k), j); };
    Builder b(steps);
    if (call.rank == late) {  // block k to the early rank that keeps it, all at once; then the results back
        std::vector<int32_t> sent(static_cast<size_t>(ring.size));
        for (int k = 0; k < ring.size; ++k) {
            sent[static_cast<size_t>(k)] = static_cast<int32_t>(steps.size());
            for (int j = 0; j < pieces_of(k); ++j) {
                b.send(Where::input, piece(k, j), piece(k, j + 1), ring.rank(k), tags::kFamily);
            }
        }
        for (int k = 0; k < ring.size; ++k) {  // in place: a piece lands where it was sent from
            for (int j = 0; j < pieces_of(k); ++j) {
                b.receive(Where::recvbuf, piece(k, j), piece(k, j + 1), ring.rank(k), tags::kFamily,
                          call.in_place ? sent[static_cast<size_t>(k)] + j : -1);
            }
        }
        return;
    }
    const int mine = ring.position(call.rank);
    if (!call.in_place) b.copy(Where::input, Where::recvbuf, 0, total);
    b.phase();
    // The late rank's part of block `mine`, received into vector1 whenever it comes
    const auto late_part = static_cast<int32_t>(steps.size());
    for (int j = 0; j < pieces_of(mine); ++j) {
        b.receive(Where::vector1, piece(mine, j), piece(mine, j + 1), late, tags::kFamily);
    }
    const std::vector<int32_t> sent_from_acc =
        ring_steps(call, ring, block_begin, false, least_piece_bytes, flight_bytes, b, steps);
    // ...folded after the ring's folds (the op is commutative: any order)
    const auto folded = static_cast<int32_t>(steps.size());
    for (int j = 0; j < pieces_of(mine); ++j) {
        b.fold(Where::vector1, Where::recvbuf, piece(mine, j), piece(mine, j + 1), false, late_part + j);
    }
    // The other blocks' results, each piece into recvbuf once the ring has sent its partial from there
    for (int k = 0; k < ring.size; ++k) {
        if (k == mine) continue;
        for (int j = 0; j < pieces_of(k); ++j) {
            b.receive(Where::recvbuf, piece(k, j), piece(k, j + 1), ring.rank(k), tags::kFamily,
                      sent_from_acc[static_cast<size_t>(k)] + j);
        }
    }
    // Block `mine`'s result, piece by piece as it is folded, to every other rank: one latency, not the ring's
    // size - 2 more
    for (int j = 0; j < pieces_of(mine); ++j) {
        for (int other = 0; other < call.size; ++other) {
            if (other == call.rank) continue;
            b.send(Where::recvbuf, piece(mine, j), piece(mine, j + 1), other, tags::kFamily, folded + j);
        }
    }
}

}  // namespace redux
