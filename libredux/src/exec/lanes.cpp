// The tree runner: one rank's part of a planned reduction, with the overlap the model assumes made real.
//
// The rank's program runs as lanes (lane_program.hpp), one per tree of the plan, and one LaneRunner runs them all:
// a one-tree plan is one lane; a two-tree plan a lane of each tree (the rank is interior in at most one of them);
// a plan dealt to weighted trees one lane per tree, each receiving on its own; the root of a plan whose sink is
// elsewhere receives the result transfer. The vector is reduced in `segments` pieces of whole elements
// (plan/predict/segments.hpp; one piece unless the plan pipelines); segment j belongs to lane tree_of(j): it is
// folded from each of the lane's children, then sent to the lane's parent while the next segment arrives.
//   1. Receives. Stream lanes (Receives::stream) share the rank's one receive stream, segment by segment, each
//      segment's children in fold order, posted into scratch slots of one segment up to stream_window beyond the
//      one being folded (post_stream): one transfer in flight at a time, as in the model's single receive port
//      (receive q + 1 is posted once q has arrived), or the window's together (a single source), or all of them
//      at once (receive_together). A per_child lane (post_lane) posts each child's receives up to its window.
//   2. Folds, strictly in plan order (never arrival order), so every call gives the same bits: the stream in
//      stream order (fold_stream), a per_child lane in its own (fold_lane). MPI_Reduce_local(in, inout) computes
//      inout = in o inout, so a child joining on the left folds into the accumulator, and one joining on the
//      right takes the accumulator as its left operand and the result stays in the child's slot, which becomes
//      the accumulator (no copy). With a commutative op the accumulator stays put once it is writable. The rank's
//      own data is read in place from sendbuf; it is copied only when a left join needs it writable. At the root
//      (not in place, the result its own) each segment's first child is received straight into recvbuf
//      (root_direct), so a commutative reduction ends there without a copy.
//   3. Open MPI has no progress thread: a transfer advances only inside MPI calls. So a step applies the op to
//      one chunk of chunk_bytes in each fold loop (the stream's, each per_child lane's; a fold of more goes on at
//      the next steps), and every step begins with progress(): it completes sends, starts a leaf's sends, posts
//      receives and tests the stream's receive in flight. A caller's MPI_Test thus returns after a bounded amount
//      of op work (the standard lets an op be applied to any split of the elements).
//   4. Sends (finish, start_send): a finished segment goes to the lane's parent (or, at a sink whose root is
//      elsewhere, to the root) with MPI_Isend while the next is folded, through a send ring (lane_program.hpp) of
//      at most send_window sends in flight (plan/exec_limits.hpp): one for the stream's lanes, as the model's one
//      send port; one per per_child lane. A finished segment that finds its ring full waits (Lane::pending),
//      holding up its lane's folds. A slot holding a partial result being sent is reused once the send has
//      completed. A lane without children sends its own segments ahead through a ring of their own: in a
//      two-tree plan a tree's root, a leaf of the other tree, would otherwise hold that tree's next segment until
//      it had finished its own, and the trees would take turns instead of running together. At the root of a
//      result transfer over several trees the segments go in turn instead (LaneProgram::in_turn): segment j's
//      folds and send start once segment j - 1's send has.
//   5. The result transfer: the root receives segment j from the sink into recvbuf once its own send of segment j
//      has completed (in place, recvbuf holds its input until then), in segment order, the order the sink's stream
//      finishes them.
//   6. Waiting: step() does whatever can be done without waiting and returns; the caller (execution.cpp) waits
//      for an event in between. A fold that needs a scratch slot while every slot is held by receives and sends
//      waits for a send to free one (stalled_).
// Every edge carries each tree's segments in order with that tree's tag, so MPI's non-overtaking rule matches them.
// A repeated call allocates nothing and, with the same sizes, sets nothing up (LaneState::ready). A leaf of a
// one-tree plan that sends its data in one piece (most ranks of a small message's plan) makes that one send and
// nothing else (alone_): its set-up would be on the critical path of its parent's receive. A one-tree,
// one-segment call's path divides once, for the chunk's length (set_up; a 64-bit division costs tens of cycles,
// and a 2-rank call at 8 B takes a microsecond): the rings' sizes are powers of two. On an error every request posted
// is finished (abandon).
#include "exec/lanes.hpp"

#include "exec/fold.hpp"
#include "mpi/abandon.hpp"
#include "mpi/mpi_check.hpp"
#include "mpi/tags.hpp"
#include "mpi/yielding.hpp"
#include "plan/exec_limits.hpp"
#include "plan/predict/segments.hpp"

#include <algorithm>

namespace redux {

LaneRunner::LaneRunner(const RankProgram& program, int segments, const ExecCall& call, Workspace& workspace,
                       const ExecKnobs& knobs)
    : program_(program),
      segments_(std::max(1, std::min(segments, std::max(call.count, 1)))),
      call_(call),
      knobs_(knobs),
      ws_(workspace),
      ls_(workspace.lanes),
      lp_(workspace.lanes.program) {}

int LaneRunner::start() {
    if (sends_alone(program_, segments_, call_.count)) {
        alone_ = true;
        return MPI_Isend(own(0), call_.count, call_.datatype, program_.parent, tags::tree(0), call_.comm,
                         &alone_request_);
    }
    if (!build_lanes(program_, segments_, {call_.rank, call_.root, call_.in_place, knobs_.recv_window, kSimulatedRanks},
                     lp_)) {
        return MPI_ERR_TAG;
    }
    set_up();
    if (lp_.stream_receives > 0) fold_segment_ = next_stream_segment(0);
    return MPI_SUCCESS;
}

int LaneRunner::step(bool& moved, bool& done) {
    if (alone_) {
        int sent = 0;
        REDUX_MPI(test_request(alone_request_, sent));
        moved = done = sent != 0;
        return MPI_SUCCESS;
    }
    stalled_ = false;
    REDUX_MPI(progress(moved));
    REDUX_MPI(fold_stream(moved));
    for (Lane& lane : lp_.lanes) {
        if (lane.receives == Receives::per_child && lane.child_count > 0) REDUX_MPI(fold_lane(lane, moved));
    }
    // A fold waits for a slot that only a send can free: with none in flight, nothing ever will.
    if (stalled_ && !moved && !sends_in_flight()) return MPI_ERR_INTERN;
    done = finished();
    if (done) ls_.ready = shape_;
    return MPI_SUCCESS;
}

MPI_Request* LaneRunner::requests() { return alone_ ? &alone_request_ : ls_.requests.data(); }
int LaneRunner::request_count() const { return alone_ ? 1 : lp_.requests; }

void LaneRunner::abandon() {
    if (alone_) return abandon_send(alone_request_);
    for (const SendRing& ring : lp_.rings) {
        for (int i = 0; i < kExecLimits.send_window; ++i) abandon_send(ls_.requests[send_index(ring, i)]);
    }
    for (MPI_Request& request : ls_.requests) abandon_receive(request);
}

// Segment j's elements. One segment (every small message): no division.
int64_t LaneRunner::begin(int j) const {
    return segments_ == 1 ? (j == 0 ? 0 : call_.count) : segment_begin(call_.count, segments_, j);
}

int LaneRunner::next_segment(const Lane& lane, int j) const {
    if (lp_.trees == 1) return j + 1;
    for (++j; j < segments_ && program_.tree_of(j) != lane.tree;) ++j;
    return j;
}

int LaneRunner::stream_children(int j) {
    const Lane& lane = lane_of(j);
    return lane.receives == Receives::stream ? lane.child_count : 0;
}

// The first segment from j on with receives in the stream (segments_ when none).
int LaneRunner::next_stream_segment(int j) {
    while (j < segments_ && stream_children(j) == 0) ++j;
    return j;
}

// The workspace's vectors as the lanes lay them out; as the last call left them when the sizes are the same.
void LaneRunner::set_up() {
    // the longest segment
    const int most = std::max(1, segments_ == 1 ? call_.count : (call_.count + segments_ - 1) / segments_);
    shape_ = {lp_.requests, lp_.slots, most};
    const bool ready = ls_.ready == shape_ && static_cast<int>(ls_.free_slots.size()) == lp_.slots &&
                       (lp_.slots == 0 || ws_.slots.holds(call_.layout, most, lp_.slots));
    ls_.ready = {};  // until this call ends without an error
    chunk_ = chunk_elements(call_.layout, knobs_.chunk_bytes, call_.count);
    if (lp_.result_from >= 0) ls_.segment_left.assign(static_cast<size_t>(segments_), 0);
    if (ready) return;  // every request null, every slot free (in some pool: all slots are alike)
    ls_.slot.clear();
    if (lp_.slots > 0) ls_.slot = ws_.slots.ensure(call_.layout, most, lp_.slots);
    ls_.free_slots.clear();
    for (int s = 0; s < lp_.slots; ++s) ls_.free_slots.push_back(s);
    ls_.requests.assign(static_cast<size_t>(lp_.requests), MPI_REQUEST_NULL);
    ls_.request_slot.assign(static_cast<size_t>(lp_.requests), kNoSlot);
    ls_.request_segment.assign(static_cast<size_t>(lp_.requests), 0);
    ls_.indices.resize(static_cast<size_t>(lp_.stream_ring));
}

bool LaneRunner::finished() const {
    if (stream_folded_ < lp_.stream_receives) return false;
    for (const Lane& lane : lp_.lanes) {
        if (lane.finished < lane.segments) return false;
    }
    if (sends_in_flight()) return false;
    return lp_.result_from < 0 || results_done_ == segments_;
}

bool LaneRunner::sends_in_flight() const {
    for (const SendRing& ring : lp_.rings) {
        if (ring.done < ring.started) return true;
    }
    return false;
}

bool LaneRunner::full(const Lane& lane) const {
    const SendRing& ring = lp_.rings[static_cast<size_t>(lane.ring)];
    return ring.started - ring.done == kExecLimits.send_window;
}

int LaneRunner::take_slot(const Lane& lane) {
    SlotPool& pool = lp_.pools[static_cast<size_t>(lane.pool)];
    --pool.free;
    return ls_.free_slots[static_cast<size_t>(pool.first + pool.free)];
}

void LaneRunner::release(SlotPool& pool, int slot) {
    if (slot == kNoSlot) return;
    ls_.free_slots[static_cast<size_t>(pool.first + pool.free)] = slot;
    ++pool.free;
}

// Everything but a fold that can be done now: the stream's receive in flight tested, sends completed, finished
// segments and a leaf's own segments sent, receives posted, the result transfer's receives posted and tested.
int LaneRunner::progress(bool& moved) {
    if (stream_posted_ > stream_folded_ + 1) {  // receives posted ahead: one in flight at most, the rest null
        int done = 0;
        REDUX_MPI(MPI_Testsome(lp_.stream_ring, ls_.requests.data(), &done, ls_.indices.data(), MPI_STATUSES_IGNORE));
    }
    for (SendRing& ring : lp_.rings) REDUX_MPI(complete_sends(ring, moved));
    for (Lane& lane : lp_.lanes) {
        if (lane.pending) REDUX_MPI(flush(lane, moved));
        if (lane.receives == Receives::per_child) REDUX_MPI(post_lane(lane));
    }
    REDUX_MPI(send_own(moved));
    REDUX_MPI(post_stream());
    if (lp_.result_from >= 0) REDUX_MPI(advance_results(moved));
    return MPI_SUCCESS;
}

// The stream's next receives, as far as its posting allows. Stream position q = stream_posted_ is child
// post_child_ of segment post_segment_.
int LaneRunner::post_stream() {
    const int64_t window = lp_.stream_window;
    while (stream_posted_ < lp_.stream_receives && stream_posted_ - stream_folded_ < window &&
           (lp_.stream_posting != StreamPosting::one_in_flight || stream_posted_ == stream_folded_ ||
            stream_request(stream_posted_ - 1) == MPI_REQUEST_NULL)) {
        while (post_child_ == stream_children(post_segment_)) {
            ++post_segment_;  // a segment with no (more) receives here; one follows
            post_child_ = 0;
        }
        const int j = post_segment_;
        Lane& lane = lane_of(j);
        const size_t index = stream_index(stream_posted_);
        REDUX_MPI(post_receive(lane, j, post_child_, index));
        if (ls_.requests[index] == MPI_REQUEST_NULL) return MPI_SUCCESS;  // no free slot: a send will free one
        ++stream_posted_;
        ++post_child_;
    }
    return MPI_SUCCESS;
}

// A per_child lane's receives: each child's, up to the lane's window ahead of the segment being folded.
int LaneRunner::post_lane(Lane& lane) {
    const int32_t folding = lane.finished + (lane.pending ? 1 : 0);
    for (int k = 0; k < lane.child_count; ++k) {
        const size_t c = static_cast<size_t>(lane.first_child + k);
        int32_t& posted = lp_.child_posted[c];
        int32_t& j = lp_.child_next[c];
        int32_t& ring = lp_.child_ring[c];
        while (posted < lane.segments && posted - folding < lane.window) {
            const size_t index = static_cast<size_t>(lane.first_receive + k * lane.window + ring);
            REDUX_MPI(post_receive(lane, j, k, index));
            if (ls_.requests[index] == MPI_REQUEST_NULL) break;  // no free slot
            ++posted;
            j = next_segment(lane, j);
            if (++ring == lane.window) ring = 0;
        }
    }
    return MPI_SUCCESS;
}

// Posts the receive of segment j from the lane's child k as request `index`: into recvbuf for the root's first
// child (root_direct), otherwise into a slot of the lane's pool; none when the pool has no free slot.
int LaneRunner::post_receive(Lane& lane, int j, int k, size_t index) {
    void* buffer = nullptr;
    int slot = kNoSlot;
    if (lane.root_direct && k == 0) {
        buffer = segment_of(call_.recvbuf, j);
    } else {
        if (lp_.pools[static_cast<size_t>(lane.pool)].free == 0) return MPI_SUCCESS;
        slot = take_slot(lane);
        buffer = ls_.slot[static_cast<size_t>(slot)];
    }
    ls_.request_slot[index] = slot;
    return MPI_Irecv(buffer, length(j), call_.datatype, lane.children[k].rank, lane.tag, call_.comm,
                     &ls_.requests[index]);
}

// The root's receives of the sink's result: segment by segment, each once this rank's own part has left.
int LaneRunner::advance_results(bool& moved) {
    for (; results_posted_ < segments_ && ls_.segment_left[static_cast<size_t>(results_posted_)] != 0;
         ++results_posted_) {
        const int j = results_posted_;
        REDUX_MPI(MPI_Irecv(segment_of(call_.recvbuf, j), length(j), call_.datatype, lp_.result_from, tags::kResult,
                            call_.comm, &ls_.requests[static_cast<size_t>(lp_.first_result + j)]));
    }
    for (; results_done_ < results_posted_; ++results_done_) {
        int done = 0;
        REDUX_MPI(test_request(ls_.requests[static_cast<size_t>(lp_.first_result + results_done_)], done));
        if (!done) return MPI_SUCCESS;
        moved = true;
    }
    return MPI_SUCCESS;
}

}  // namespace redux
