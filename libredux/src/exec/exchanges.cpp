// The exchange schedules of recursive doubling, recursive halving, the ring, the late rank's allreduce and a tree's
// spread (exchanges.hpp), with libredux's private communicator's tags tags::kFamily and tags::kSpread. Each phase (a
// step of the exchange, the pairs' first or last transfer) starts once the one before it is complete; within a phase
// the steps say what they wait for.
#include "exec/exchanges.hpp"

#include "mpi/tags.hpp"
#include "plan/predict/segments.hpp"

#include <algorithm>

namespace redux {
namespace {

// Appends steps; a step waits for the phase before it (phase()) and the steps it names.
class Builder {
public:
    explicit Builder(std::vector<ScheduleStep>& steps) : steps_(steps) { steps_.clear(); }
    void phase() { barrier_ = static_cast<int32_t>(steps_.size()); }
    int32_t send(Where from, int64_t begin, int64_t end, int to, int tag, int32_t a = -1, int32_t b = -1) {
        return add({StepKind::send, from, from, false, to, tag, begin, end, barrier_, {a, b}});
    }
    int32_t receive(Where into, int64_t begin, int64_t end, int from, int tag, int32_t a = -1) {
        return add({StepKind::receive, into, into, false, from, tag, begin, end, barrier_, {a, -1}});
    }
    int32_t fold(Where theirs, Where mine, int64_t begin, int64_t end, bool theirs_left, int32_t a, int32_t b = -1) {
        return add({StepKind::fold, mine, theirs, theirs_left, -1, 0, begin, end, barrier_, {a, b}});
    }
    int32_t copy(Where from, Where to, int64_t begin, int64_t end, int64_t to_shift = 0) {
        return add({StepKind::copy, to, from, false, -1, 0, begin, end, barrier_, {-1, -1}, to_shift});
    }

private:
    int32_t add(const ScheduleStep& step) {
        steps_.push_back(step);
        return static_cast<int32_t>(steps_.size() - 1);
    }
    std::vector<ScheduleStep>& steps_;
    int32_t barrier_ = 0;
};

// The accumulator: recvbuf for an allreduce (the input copied in unless in place), vector1 for a reduce-scatter-
// block (recvbuf holds one block) or a reduce (recvbuf is the root's only).
Where accumulator(const ExecCall& call) {
    return call.collective == Collective::allreduce ? Where::recvbuf : Where::vector1;
}

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

// Elements [begin, end) cut as both sides of an exchange cut them: family_pieces of its bytes.
int64_t piece_begin(int64_t begin, int64_t end, int pieces, int i) { return begin + (end - begin) * i / pieces; }

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

// The ranks a ring goes around, in rank order: every rank but `left_out` (-1: none).
struct RingRanks {
    int size = 0;
    int left_out = -1;
    int rank(int position) const { return left_out < 0 || position < left_out ? position : position + 1; }
    int position(int rank) const { return left_out < 0 || rank < left_out ? rank : rank - 1; }
};

// The ring's steps at this rank (plan/family.hpp) among `ring`'s ranks, after the input is in the accumulator:
// `rounds` steps, the first size - 1 reduce-scatter's (a block's partial received into vector0 and folded into the
// accumulator), the rest (`gather`) the allgather's (received into recvbuf). Block k (of ring.size) is
// [block_begin(k), block_begin(k + 1)). Every step's block is cut into its pieces as both neighbours cut it. Step s's
// piece j leaves once piece j of step s - 1 is folded (or, in the allgather, has arrived), and, counting the pieces of
// all steps in turn, the n-th piece this rank sends leaves once the (n - window)-th has come from the left neighbour,
// which by symmetry is about when this rank's own reached the right one: a window of pieces in flight, whichever
// steps they are of. A step's receives are posted with the sends of the step before; the reduce-scatter's go to
// distinct blocks of vector0, each allgather's to recvbuf once the reduce-scatter's send from the same place is
// complete. Returns, by block, the step that sends its first piece out of the accumulator in the reduce-scatter
// (the block's pieces follow it; -1 for this rank's own block, never sent there).
template <class Begin>
std::vector<int32_t> ring_steps(const ExecCall& call, const RingRanks& ring, const Begin& block_begin, bool gather,
                                int64_t least_piece_bytes, int64_t flight_bytes, Builder& b,
                                std::vector<ScheduleStep>& steps) {
    const int p = ring.size, r = ring.position(call.rank);
    const int right = ring.rank((r + 1) % p), left = ring.rank((r + p - 1) % p);
    const Where acc = accumulator(call);
    const int folds = p - 1;  // reduce-scatter steps; the allgather's, as many, follow (gather)
    const int rounds = gather ? 2 * folds : folds;
    auto bytes_of = [&](int k) { return (block_begin(k + 1) - block_begin(k)) * call.layout.type_size; };
    auto pieces_of = [&](int k) { return family_pieces(bytes_of(k), least_piece_bytes); };
    auto piece = [&](int k, int j) { return piece_begin(block_begin(k), block_begin(k + 1), pieces_of(k), j); };
    auto block = [&](int shift) { return ((r + shift) % p + p) % p; };
    // Step s sends block sent(s) and receives block got(s) = sent(s + 1): reduce-scatter step s sends r - s - 1 (its
    // own data at s = 0, the partial it folded since) and ends with block r; allgather step a sends r - a.
    auto sent = [&](int s) { return s < folds ? block(-s - 1) : block(-(s - folds)); };
    auto got = [&](int s) { return s < folds ? block(-s - 2) : block(-(s - folds) - 1); };
    std::vector<int32_t> receive_at(static_cast<size_t>(rounds), -1), send_at(static_cast<size_t>(rounds), -1),
        fold_at(static_cast<size_t>(folds), -1);
    std::vector<int32_t> sent_from_acc(static_cast<size_t>(p), -1);
    std::vector<int32_t> arrivals;  // every piece from the left, in the order it comes (its steps')
    int32_t sends = 0;              // pieces sent so far, all steps'
    auto receive_step = [&](int s) {
        receive_at[static_cast<size_t>(s)] = static_cast<int32_t>(steps.size());
        const int k = got(s);
        for (int j = 0; j < pieces_of(k); ++j) {
            if (s < folds) {
                arrivals.push_back(b.receive(Where::vector0, piece(k, j), piece(k, j + 1), left, tags::kFamily));
            } else {  // into recvbuf, once reduce-scatter step s - folds has sent its partial from there
                arrivals.push_back(b.receive(Where::recvbuf, piece(k, j), piece(k, j + 1), left, tags::kFamily,
                                             send_at[static_cast<size_t>(s - folds)] + j));
            }
        }
    };
    auto send_step = [&](int s) {
        send_at[static_cast<size_t>(s)] = static_cast<int32_t>(steps.size());
        const int k = sent(s), n = pieces_of(k);
        if (s < folds) sent_from_acc[static_cast<size_t>(k)] = send_at[static_cast<size_t>(s)];
        const int window = family_window(flight_bytes, std::max<int64_t>(bytes_of(k) / n, 1));
        // what piece j of this step waits for: its fold the step before, or its arrival then (allgather)
        const int32_t data = s == 0       ? -1
                             : s <= folds ? fold_at[static_cast<size_t>(s - 1)]
                                          : receive_at[static_cast<size_t>(s - 1)];
        for (int j = 0; j < n; ++j, ++sends) {
            const int32_t ahead = std::min(sends - window, static_cast<int32_t>(arrivals.size()) - 1);
            const int32_t paced = ahead < 0 ? -1 : arrivals[static_cast<size_t>(ahead)];
            b.send(acc, piece(k, j), piece(k, j + 1), right, tags::kFamily, data < 0 ? -1 : data + j, paced);
        }
    };
    // Each step's receives are posted a step ahead of its sends.
    for (int s = 0; s < rounds; ++s) {
        if (s == 0) receive_step(0);
        // (with two ranks the allgather's first receive waits for the send made just before it)
        const bool ahead = s + 1 < rounds && (s + 1 < folds || send_at[static_cast<size_t>(s + 1 - folds)] >= 0);
        if (ahead) receive_step(s + 1);
        send_step(s);
        if (!ahead && s + 1 < rounds) receive_step(s + 1);
        if (s >= folds) continue;
        fold_at[static_cast<size_t>(s)] = static_cast<int32_t>(steps.size());
        const int k = got(s);
        for (int j = 0; j < pieces_of(k); ++j) {
            b.fold(Where::vector0, acc, piece(k, j), piece(k, j + 1), false, receive_at[static_cast<size_t>(s)] + j);
        }
    }
    return sent_from_acc;
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
