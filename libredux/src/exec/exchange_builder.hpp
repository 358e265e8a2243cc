// What exchanges.cpp and late_rank.cpp build exchange schedules (schedule.hpp) with: the Builder that appends steps,
// the accumulator's place, pieces cut alike on both sides, and the ring's steps over any ranks but one.
#pragma once

#include "exec/call.hpp"
#include "exec/schedule.hpp"
#include "mpi/tags.hpp"
#include "plan/family.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace redux {

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
    int32_t fold(Where theirs, Where mine, int64_t begin, int64_t end, bool theirs_left, int32_t a, int32_t b = -1,
                 int64_t mine_shift = 0) {
        return add({StepKind::fold, mine, theirs, theirs_left, -1, 0, begin, end, barrier_, {a, b}, mine_shift});
    }
    int32_t copy(Where from, Where to, int64_t begin, int64_t end, int64_t to_shift = 0, int32_t a = -1) {
        return add({StepKind::copy, to, from, false, -1, 0, begin, end, barrier_, {a, -1}, to_shift});
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
inline Where accumulator(const ExecCall& call) {
    return call.collective == Collective::allreduce ? Where::recvbuf : Where::vector1;
}

// Elements [begin, end) cut as both sides of an exchange cut them: family_pieces of its bytes.
inline int64_t piece_begin(int64_t begin, int64_t end, int pieces, int i) { return begin + (end - begin) * i / pieces; }

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

}  // namespace redux
