// The tree runner's folds and sends (lanes.cpp says how the lanes run).
#include "exec/fold.hpp"
#include "exec/lanes.hpp"
#include "mpi/mpi_check.hpp"
#include "mpi/tags.hpp"
#include "mpi/yielding.hpp"

#include <algorithm>

namespace redux {

// The stream's folds, in stream order, as far as its receives have arrived and one chunk of op work allows
// (budget_). A segment that waits for room in its lane's send window holds up the stream: the sink's result
// segments leave in segment order.
int LaneRunner::fold_stream(bool& moved) {
    budget_ = chunk_;
    while (budget_ > 0 && stream_folded_ < stream_posted_ && (held_ == nullptr || !held_->pending)) {
        Lane& lane = lane_of(fold_segment_);
        if (lp_.in_turn && stream_child_ == 0 && !lane.folding && fold_segment_ != turn_) return MPI_SUCCESS;
        const size_t index = stream_index(stream_folded_);
        int arrived = 0;
        REDUX_MPI(test_request(ls_.requests[index], arrived));
        if (!arrived) return MPI_SUCCESS;
        REDUX_MPI(post_stream());  // the next transfer, during this fold
        if (stream_child_ == 0 && !lane.folding) start_segment(lane, fold_segment_);
        bool stalled = false, partial = false;
        REDUX_MPI(fold(lane, index, stalled, partial));  // receive q stays in the window until folded
        if (partial) moved = true;
        if (stalled || partial) return MPI_SUCCESS;
        ++stream_folded_;
        if (++stream_child_ == lane.child_count) {
            stream_child_ = 0;
            fold_segment_ = next_stream_segment(fold_segment_ + 1);
            held_ = &lane;
        }
        REDUX_MPI(post_stream());  // its slot may be free now
        moved = true;
    }
    return MPI_SUCCESS;
}

// A per_child lane's folds, in its own order, as far as its receives have arrived and one chunk of op work
// allows.
int LaneRunner::fold_lane(Lane& lane, bool& moved) {
    budget_ = chunk_;
    while (budget_ > 0 && !lane.pending && lane.finished < lane.segments) {
        const int k = lane.fold_child;
        if (lp_.child_posted[static_cast<size_t>(lane.first_child + k)] <= lane.finished) return MPI_SUCCESS;
        const size_t index = static_cast<size_t>(lane.first_receive + k * lane.window + lane.fold_ring);
        int arrived = 0;
        REDUX_MPI(test_request(ls_.requests[index], arrived));
        if (!arrived) return MPI_SUCCESS;
        if (k == 0 && !lane.folding) start_segment(lane, lane.next_fold);
        bool stalled = false, partial = false;
        REDUX_MPI(fold(lane, index, stalled, partial));
        if (partial) moved = true;
        if (stalled || partial) return MPI_SUCCESS;
        if (lane.fold_child == 0 && ++lane.fold_ring == lane.window) lane.fold_ring = 0;
        REDUX_MPI(post_lane(lane));
        moved = true;
    }
    return MPI_SUCCESS;
}

void LaneRunner::start_segment(Lane& lane, int j) {
    lane.next_fold = j;
    lane.fold_child = 0;
    lane.acc = own(j);
    lane.acc_writable = call_.in_place;
    lane.acc_slot = kNoSlot;
}

// Folds the lane's next child from request `index`'s buffer, one chunk of chunk_bytes per call: partial where
// elements are left, and the next step goes on (so a step does a bounded amount of op work, and a caller's
// MPI_Test returns after it; the standard lets an op be applied to any split of the elements). After the last
// child, the segment is finished. Stalled (nothing done) where the accumulator must be copied to be written and
// every slot is held: a send in flight frees one, and the fold is tried again (start_segment before it sets the
// same again).
int LaneRunner::fold(Lane& lane, size_t index, bool& stalled, bool& partial) {
    if (!lane.folding) {  // the child's operands
        const ChildStep& child = lane.children[lane.fold_child];
        if (child.joins_left && !lane.acc_writable && lp_.pools[static_cast<size_t>(lane.pool)].free == 0) {
            stalled = stalled_ = true;
            return MPI_SUCCESS;
        }
        lane.theirs_slot = ls_.request_slot[index];
        ls_.request_slot[index] = kNoSlot;
        lane.theirs = lane.theirs_slot == kNoSlot ? segment_of(call_.recvbuf, lane.next_fold)
                                                  : ls_.slot[static_cast<size_t>(lane.theirs_slot)];
        lane.into_acc = child.joins_left || (call_.commutative && lane.acc_writable);
        if (lane.into_acc && !lane.acc_writable) REDUX_MPI(make_acc_writable(lane));
        lane.folding = true;
        lane.folded = 0;
    }
    const int count = length(lane.next_fold);
    const int64_t n = std::min(count - lane.folded, budget_);
    // acc = theirs o acc, or theirs = acc o theirs
    const void* in = lane.into_acc ? lane.theirs : lane.acc;
    void* inout = lane.into_acc ? const_cast<void*>(lane.acc) : lane.theirs;
    REDUX_MPI(
        fold_elements(in, inout, lane.folded, static_cast<int>(n), /*theirs_left=*/true, call_, ws_.pack_scratch));
    lane.folded += n;
    budget_ -= n;
    if (lane.folded < count) {
        partial = true;
        return MPI_SUCCESS;
    }
    lane.folding = false;
    if (lane.into_acc) {
        release(lane, lane.theirs_slot);
    } else {  // the child's buffer holds the accumulator now
        release(lane, lane.acc_slot);
        lane.acc = lane.theirs;
        lane.acc_slot = lane.theirs_slot;
        lane.acc_writable = true;
    }
    if (++lane.fold_child < lane.child_count) return MPI_SUCCESS;
    lane.fold_child = 0;
    return finish(lane);
}

// The accumulator copied into a free slot of the lane's pool (fold made sure there is one).
int LaneRunner::make_acc_writable(Lane& lane) {
    const int s = take_slot(lane);
    void* copy = ls_.slot[static_cast<size_t>(s)];
    REDUX_MPI(copy_elements(lane.acc, copy, length(lane.next_fold), call_.datatype, call_.layout, ws_.pack_scratch));
    lane.acc = copy;
    lane.acc_slot = s;
    lane.acc_writable = true;
    return MPI_SUCCESS;
}

// The lane's segment next_fold is folded: sent on (when the send window has room) or kept in recvbuf.
int LaneRunner::finish(Lane& lane) {
    if (lane.end == LaneEnd::parent || lane.end == LaneEnd::result) {
        lane.pending = true;
        bool moved = false;
        return flush(lane, moved);
    }
    if (lane.end != LaneEnd::keep) return MPI_ERR_INTERN;  // a rank with children ends its segments somewhere
    void* result = segment_of(call_.recvbuf, lane.next_fold);
    if (lane.acc != result) {
        REDUX_MPI(
            copy_elements(lane.acc, result, length(lane.next_fold), call_.datatype, call_.layout, ws_.pack_scratch));
    }
    release(lane, lane.acc_slot);
    return next(lane);
}

// A finished segment waiting for room in its send ring is sent when there is.
int LaneRunner::flush(Lane& lane, bool& moved) {
    if (full(lane)) return MPI_SUCCESS;
    REDUX_MPI(start_send(lane, lane.acc, lane.acc_slot, lane.next_fold));
    lane.pending = false;
    moved = true;
    return next(lane);
}

// The lane is done with segment next_fold.
int LaneRunner::next(Lane& lane) {
    lane.acc_slot = kNoSlot;
    ++lane.finished;
    if (lane.receives == Receives::per_child) lane.next_fold = next_segment(lane, lane.next_fold);
    return MPI_SUCCESS;
}

// The lanes without children: their own segments sent up to the send window (or kept, at the root), in segment
// order across the lanes. They share one ring, and a parent that is a leaf's parent in several trees (every
// tree of a two-tree plan on two ranks) receives its stream in segment order: had one lane filled the ring
// with its segments 0, 2, 4, 6, the parent would wait for segment 1 while those sends wait for it.
// Lanes with rings of their own (weighted trees) go on independently: a ring that is full stops its lanes only.
int LaneRunner::send_own(bool& moved) {
    uint64_t blocked = 0;  // rings that can take no more now (bit r; rings from 64 on stop every lane)
    auto is_blocked = [&](const Lane& lane) { return lane.ring >= 0 && lane.ring < 64 && (blocked >> lane.ring) & 1; };
    for (;;) {
        Lane* lane = nullptr;
        for (Lane& other : lp_.lanes) {
            if (other.child_count == 0 && other.finished < other.segments && !is_blocked(other) &&
                (lane == nullptr || other.next_fold < lane->next_fold)) {
                lane = &other;
            }
        }
        if (lane == nullptr) return MPI_SUCCESS;
        const int j = lane->next_fold;
        if (lane->end == LaneEnd::result && lp_.trees > 1) {
            return MPI_ERR_INTERN;  // a sink is in every tree with children; alone, its result's order is its own
        }
        if (lane->end == LaneEnd::parent || lane->end == LaneEnd::result) {
            if (full(*lane) || (lp_.in_turn && j != turn_)) {
                if (lane->ring < 0 || lane->ring >= 64) return MPI_SUCCESS;
                blocked |= uint64_t{1} << lane->ring;
                continue;
            }
            REDUX_MPI(start_send(*lane, own(j), kNoSlot, j));
        } else if (lane->end == LaneEnd::keep && !call_.in_place) {
            REDUX_MPI(copy_elements(own(j), segment_of(call_.recvbuf, j), length(j), call_.datatype, call_.layout,
                                    ws_.pack_scratch));
        }
        ++lane->finished;
        lane->next_fold = next_segment(*lane, j);
        moved = true;
    }
}

int LaneRunner::start_send(Lane& lane, const void* data, int slot, int j) {
    SendRing& ring = lp_.rings[static_cast<size_t>(lane.ring)];
    const size_t index = send_index(ring, ring.started);
    ls_.request_slot[index] = slot;
    ls_.request_segment[index] = j;
    REDUX_MPI(
        MPI_Isend(data, length(j), call_.datatype, lane.send_to, lane.send_tag, call_.comm, &ls_.requests[index]));
    ++ring.started;
    turn_ = j + 1;
    return MPI_SUCCESS;
}

// The ring's sends that have completed, oldest first: their slots are free, and at the root of a result
// transfer their segments may now be received into recvbuf.
int LaneRunner::complete_sends(SendRing& ring, bool& moved) {
    while (ring.done < ring.started) {
        const size_t index = send_index(ring, ring.done);
        int done = 0;
        REDUX_MPI(test_request(ls_.requests[index], done));
        if (!done) return MPI_SUCCESS;
        release(lp_.pools[static_cast<size_t>(ring.pool)], ls_.request_slot[index]);
        ls_.request_slot[index] = kNoSlot;
        if (lp_.result_from >= 0) ls_.segment_left[static_cast<size_t>(ls_.request_segment[index])] = 1;
        ++ring.done;
        moved = true;
    }
    return MPI_SUCCESS;
}

}  // namespace redux
