// The executor: one rank's part of a planned reduction, with the overlap the model assumes made real.
//
// The rank's program runs as lanes (lane_program.hpp), one per tree of the plan, and one Runner executes them all:
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
//   3. Open MPI has no progress thread: a transfer advances only inside MPI calls. So a fold applies the op
//      chunk_bytes at a time and calls progress() between chunks: it completes sends, starts a leaf's sends,
//      posts receives and tests the stream's receive in flight (the standard lets an op be applied to any split
//      of the elements).
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
//   6. Waiting (run_lanes): the runner does whatever can be done without waiting, and when nothing can, polls
//      with sched_yield() in between, never a blocking call: with more ranks than cores a rank that blocks inside
//      an MPI library that busy-polls (Debian's MPICH does) keeps the core from the rank it waits for. On a
//      dedicated core sched_yield returns at once. Under SMPI (kBlockingWaits) it blocks in MPI_Waitany on every
//      request it holds.
// Every edge carries each tree's segments in order with that tree's tag, so MPI's non-overtaking rule matches them.
// A repeated call allocates nothing and, with the same sizes, sets nothing up (Workspace::ready). A leaf of a
// one-tree plan that sends its data in one piece (most ranks of a small message's plan) makes that one send and
// nothing else (send_alone): its set-up would be on the critical path of its parent's receive. Nothing on a
// one-tree, one-segment call's path divides (a 64-bit division costs tens of cycles, and a 2-rank call at 8 B
// takes a microsecond): the rings' sizes are powers of two. On an error every request posted is cancelled.
#include "exec/executor.hpp"

#include "mpi/mpi_check.hpp"
#include "mpi/tags.hpp"
#include "mpi/yielding.hpp"
#include "plan/exec_limits.hpp"
#include "plan/predict/segments.hpp"

#include <sched.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace redux {
namespace {

constexpr int kNoSlot = -1;  // a buffer that is not a scratch slot: sendbuf or recvbuf
constexpr int kSendWindow = kExecLimits.send_window;

// `base` moved by `bytes`, on integers: base may be MPI_BOTTOM (absolute addresses), where pointer arithmetic
// would leave every object.
void* at_offset(const void* base, MPI_Aint bytes) {
    return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(base) + static_cast<uintptr_t>(bytes));
}

// After an error: a request the call posted is cancelled and completed, so that nothing it posted stays behind.
void cancel_request(MPI_Request& request) {
    if (request == MPI_REQUEST_NULL) return;
    MPI_Cancel(&request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
}

class Runner {
public:
    Runner(const RankProgram& program, int segments, int rank, const ReduceArgs& args, const ElementLayout& layout,
           MPI_Comm comm, Workspace& workspace, const ExecKnobs& knobs)
        : program_(program),
          segments_(std::max(1, std::min(segments, std::max(args.count, 1)))),
          rank_(rank),
          args_(args),
          layout_(layout),
          comm_(comm),
          knobs_(knobs),
          ws_(workspace),
          lp_(workspace.program) {}

    int run() {
        // One lane, no children, one segment: its one send and nothing else.
        if (program_.more_trees.empty() && program_.children.empty() && program_.parent >= 0 &&
            program_.receive_result_from < 0 && segments_ == 1) {
            return send_alone();
        }
        if (!build_lanes(program_, segments_, {rank_, args_.root, args_.in_place, knobs_.recv_window, kSimulatedRanks},
                         lp_)) {
            return MPI_ERR_TAG;
        }
        set_up();
        if (lp_.stream_receives > 0) fold_segment_ = next_stream_segment(0);
        const int rc = run_lanes();
        if (rc == MPI_SUCCESS) {
            ws_.ready = shape_;
        } else {
            for (MPI_Request& request : ws_.requests) cancel_request(request);
        }
        return rc;
    }

private:
    // Segment j's elements. One segment (every small message): no division.
    int64_t begin(int j) const {
        return segments_ == 1 ? (j == 0 ? 0 : args_.count) : segment_begin(args_.count, segments_, j);
    }
    int length(int j) const { return static_cast<int>(begin(j + 1) - begin(j)); }
    void* segment_of(const void* buffer, int j) const { return at_offset(buffer, begin(j) * layout_.extent); }
    const void* own(int j) const { return segment_of(args_.in_place ? args_.recvbuf : args_.sendbuf, j); }

    Lane& lane_of(int j) { return lp_.lanes[static_cast<size_t>(lp_.trees == 1 ? 0 : program_.tree_of(j))]; }
    int next_segment(const Lane& lane, int j) const {
        if (lp_.trees == 1) return j + 1;
        for (++j; j < segments_ && program_.tree_of(j) != lane.tree;) ++j;
        return j;
    }
    int stream_children(int j) {
        const Lane& lane = lane_of(j);
        return lane.receives == Receives::stream ? lane.child_count : 0;
    }

    int send_alone() {
        MPI_Request request = MPI_REQUEST_NULL;
        REDUX_MPI(MPI_Isend(own(0), args_.count, args_.datatype, program_.parent, tags::tree(0), comm_, &request));
        const int rc = wait_yielding(request);
        if (rc != MPI_SUCCESS) cancel_request(request);
        return rc;
    }

    // The workspace's vectors as the lanes lay them out; as the last call left them when the sizes are the same.
    void set_up() {
        // the longest segment
        const int most = std::max(1, segments_ == 1 ? args_.count : (args_.count + segments_ - 1) / segments_);
        shape_ = {lp_.requests, lp_.slots, most};
        const bool ready = ws_.ready == shape_ && static_cast<int>(ws_.free_slots.size()) == lp_.slots &&
                           (lp_.slots == 0 || ws_.holds(layout_, most, lp_.slots));
        ws_.ready = {};  // until this call ends without an error
        if (lp_.result_from >= 0) ws_.segment_left.assign(static_cast<size_t>(segments_), 0);
        if (ready) return;  // every request null, every slot free (in some pool: all slots are alike)
        ws_.slot.clear();
        if (lp_.slots > 0) ws_.slot = ws_.ensure(layout_, most, lp_.slots);
        ws_.free_slots.clear();
        for (int s = 0; s < lp_.slots; ++s) ws_.free_slots.push_back(s);
        ws_.requests.assign(static_cast<size_t>(lp_.requests), MPI_REQUEST_NULL);
        ws_.request_slot.assign(static_cast<size_t>(lp_.requests), kNoSlot);
        ws_.request_segment.assign(static_cast<size_t>(lp_.requests), 0);
        ws_.indices.resize(static_cast<size_t>(lp_.stream_ring));
    }

    int run_lanes() {
        for (int polls = 0;;) {
            bool moved = false;
            REDUX_MPI(progress(moved));
            REDUX_MPI(fold_stream(moved));
            for (Lane& lane : lp_.lanes) {
                if (lane.receives == Receives::per_child && lane.child_count > 0) REDUX_MPI(fold_lane(lane, moved));
            }
            if (finished()) return MPI_SUCCESS;
            if (moved) {
                polls = 0;
            } else {
                REDUX_MPI(wait_for_event(polls));
            }
        }
    }

    bool finished() const {
        if (stream_folded_ < lp_.stream_receives) return false;
        for (const Lane& lane : lp_.lanes) {
            if (lane.finished < lane.segments) return false;
        }
        if (sends_in_flight()) return false;
        return lp_.result_from < 0 || results_done_ == segments_;
    }

    // Nothing can move: poll, yielding after kPollsBeforeYield; under SMPI, block until a request completes.
    int wait_for_event(int& polls) {
        if constexpr (kBlockingWaits) {
            int index = MPI_UNDEFINED;
            REDUX_MPI(MPI_Waitany(lp_.requests, ws_.requests.data(), &index, MPI_STATUS_IGNORE));
            if (index == MPI_UNDEFINED) return MPI_ERR_INTERN;  // nothing in flight, and nothing can move
        } else if (polls < kPollsBeforeYield) {
            ++polls;
        } else {
            sched_yield();
        }
        return MPI_SUCCESS;
    }

    // Everything but a fold that can be done now: the stream's receive in flight tested, sends completed, finished
    // segments and a leaf's own segments sent, receives posted, the result transfer's receives posted and tested.
    // Between two chunks of a fold too.
    int progress(bool& moved) {
        if (stream_posted_ > stream_folded_ + 1) {  // receives posted ahead: one in flight at most, the rest null
            int done = 0;
            REDUX_MPI(
                MPI_Testsome(lp_.stream_ring, ws_.requests.data(), &done, ws_.indices.data(), MPI_STATUSES_IGNORE));
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
    int post_stream() {
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
            if (ws_.requests[index] == MPI_REQUEST_NULL) return MPI_SUCCESS;  // no free slot: a send will free one
            ++stream_posted_;
            ++post_child_;
        }
        return MPI_SUCCESS;
    }

    // A per_child lane's receives: each child's, up to the lane's window ahead of the segment being folded.
    int post_lane(Lane& lane) {
        const int32_t folding = lane.finished + (lane.pending ? 1 : 0);
        for (int k = 0; k < lane.child_count; ++k) {
            const size_t c = static_cast<size_t>(lane.first_child + k);
            int32_t& posted = lp_.child_posted[c];
            int32_t& j = lp_.child_next[c];
            int32_t& ring = lp_.child_ring[c];
            while (posted < lane.segments && posted - folding < lane.window) {
                const size_t index = static_cast<size_t>(lane.first_receive + k * lane.window + ring);
                REDUX_MPI(post_receive(lane, j, k, index));
                if (ws_.requests[index] == MPI_REQUEST_NULL) break;  // no free slot
                ++posted;
                j = next_segment(lane, j);
                if (++ring == lane.window) ring = 0;
            }
        }
        return MPI_SUCCESS;
    }

    // Posts the receive of segment j from the lane's child k as request `index`: into recvbuf for the root's first
    // child (root_direct), otherwise into a slot of the lane's pool; none when the pool has no free slot.
    int post_receive(Lane& lane, int j, int k, size_t index) {
        void* buffer = nullptr;
        int slot = kNoSlot;
        if (lane.root_direct && k == 0) {
            buffer = segment_of(args_.recvbuf, j);
        } else {
            if (lp_.pools[static_cast<size_t>(lane.pool)].free == 0) return MPI_SUCCESS;
            slot = take_slot(lane);
            buffer = ws_.slot[static_cast<size_t>(slot)];
        }
        ws_.request_slot[index] = slot;
        return MPI_Irecv(buffer, length(j), args_.datatype, lane.children[k].rank, lane.tag, comm_,
                         &ws_.requests[index]);
    }

    // The first segment from j on with receives in the stream (segments_ when none).
    int next_stream_segment(int j) {
        while (j < segments_ && stream_children(j) == 0) ++j;
        return j;
    }

    // The stream's folds, in stream order, as far as its receives have arrived. A segment that waits for room in
    // its lane's send window holds up the stream: the sink's result segments leave in segment order.
    int fold_stream(bool& moved) {
        while (stream_folded_ < stream_posted_ && (held_ == nullptr || !held_->pending)) {
            if (lp_.in_turn && stream_child_ == 0 && fold_segment_ != turn_) return MPI_SUCCESS;
            Lane& lane = lane_of(fold_segment_);
            const size_t index = stream_index(stream_folded_);
            int arrived = 0;
            REDUX_MPI(test_request(ws_.requests[index], arrived));
            if (!arrived) return MPI_SUCCESS;
            REDUX_MPI(post_stream());  // the next transfer, during this fold
            if (stream_child_ == 0) start_segment(lane, fold_segment_);
            REDUX_MPI(fold(lane, index));  // receive q stays in the window until folded
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

    // A per_child lane's folds, in its own order, as far as its receives have arrived.
    int fold_lane(Lane& lane, bool& moved) {
        while (!lane.pending && lane.finished < lane.segments) {
            const int k = lane.fold_child;
            if (lp_.child_posted[static_cast<size_t>(lane.first_child + k)] <= lane.finished) return MPI_SUCCESS;
            const size_t index = static_cast<size_t>(lane.first_receive + k * lane.window + lane.fold_ring);
            int arrived = 0;
            REDUX_MPI(test_request(ws_.requests[index], arrived));
            if (!arrived) return MPI_SUCCESS;
            if (k == 0) start_segment(lane, lane.next_fold);
            REDUX_MPI(fold(lane, index));
            if (lane.fold_child == 0 && ++lane.fold_ring == lane.window) lane.fold_ring = 0;
            REDUX_MPI(post_lane(lane));
            moved = true;
        }
        return MPI_SUCCESS;
    }

    void start_segment(Lane& lane, int j) {
        lane.next_fold = j;
        lane.fold_child = 0;
        lane.acc = own(j);
        lane.acc_writable = args_.in_place;
        lane.acc_slot = kNoSlot;
    }

    // Folds the lane's next child from request `index`'s buffer; after the last child, the segment is finished.
    int fold(Lane& lane, size_t index) {
        const ChildStep& child = lane.children[lane.fold_child];
        const int child_s = ws_.request_slot[index];
        ws_.request_slot[index] = kNoSlot;
        void* child_buf =
            child_s == kNoSlot ? segment_of(args_.recvbuf, lane.next_fold) : ws_.slot[static_cast<size_t>(child_s)];
        if (child.joins_left || (args_.commutative && lane.acc_writable)) {
            if (!lane.acc_writable) REDUX_MPI(make_acc_writable(lane));
            REDUX_MPI(apply_op(lane, child_buf, const_cast<void*>(lane.acc)));  // acc = child o acc
            release(lane, child_s);
        } else {
            REDUX_MPI(apply_op(lane, lane.acc, child_buf));  // child's buffer = acc o child
            release(lane, lane.acc_slot);
            lane.acc = child_buf;
            lane.acc_slot = child_s;
            lane.acc_writable = true;
        }
        if (++lane.fold_child < lane.child_count) return MPI_SUCCESS;
        lane.fold_child = 0;
        return finish(lane);
    }

    int make_acc_writable(Lane& lane) {
        for (int polls = 0; lp_.pools[static_cast<size_t>(lane.pool)].free == 0;) {  // held by receives and sends
            bool moved = false;
            for (SendRing& ring : lp_.rings) REDUX_MPI(complete_sends(ring, moved));
            REDUX_MPI(send_own(moved));  // a leaf's own segments keep going: a parent may need one of them first
            if (moved) continue;
            if (!sends_in_flight()) return MPI_ERR_INTERN;
            REDUX_MPI(wait_for_event(polls));
        }
        const int s = take_slot(lane);
        void* copy = ws_.slot[static_cast<size_t>(s)];
        REDUX_MPI(copy_elements(lane.acc, copy, length(lane.next_fold), args_.datatype, layout_, ws_.pack_scratch));
        lane.acc = copy;
        lane.acc_slot = s;
        lane.acc_writable = true;
        return MPI_SUCCESS;
    }

    bool sends_in_flight() const {
        for (const SendRing& ring : lp_.rings) {
            if (ring.done < ring.started) return true;
        }
        return false;
    }

    // inout = in o inout over the lane's segment, chunk_bytes at a time, calling progress() between two chunks.
    int apply_op(const Lane& lane, const void* in, void* inout) {
        const int count = length(lane.next_fold);
        const int per_chunk =
            layout_.extent > 0
                ? static_cast<int>(std::clamp<size_t>(knobs_.chunk_bytes / static_cast<size_t>(layout_.extent), 1,
                                                      static_cast<size_t>(std::max(count, 1))))
                : count;
        for (int first = 0; first < count; first += per_chunk) {
            const int n = std::min(per_chunk, count - first);
            const MPI_Aint offset = static_cast<MPI_Aint>(first) * layout_.extent;
            REDUX_MPI(MPI_Reduce_local(at_offset(in, offset), at_offset(inout, offset), n, args_.datatype, args_.op));
            bool moved = false;
            if (first + n < count) REDUX_MPI(progress(moved));
        }
        return MPI_SUCCESS;
    }

    // The lane's segment next_fold is folded: sent on (when the send window has room) or kept in recvbuf.
    int finish(Lane& lane) {
        if (lane.end == LaneEnd::parent || lane.end == LaneEnd::result) {
            lane.pending = true;
            bool moved = false;
            return flush(lane, moved);
        }
        if (lane.end != LaneEnd::keep) return MPI_ERR_INTERN;  // a rank with children ends its segments somewhere
        void* result = segment_of(args_.recvbuf, lane.next_fold);
        if (lane.acc != result) {
            REDUX_MPI(
                copy_elements(lane.acc, result, length(lane.next_fold), args_.datatype, layout_, ws_.pack_scratch));
        }
        release(lane, lane.acc_slot);
        return next(lane);
    }

    // A finished segment waiting for room in its send ring is sent when there is.
    int flush(Lane& lane, bool& moved) {
        if (full(lane)) return MPI_SUCCESS;
        REDUX_MPI(start_send(lane, lane.acc, lane.acc_slot, lane.next_fold));
        lane.pending = false;
        moved = true;
        return next(lane);
    }

    // The lane is done with segment next_fold.
    int next(Lane& lane) {
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
    int send_own(bool& moved) {
        uint64_t blocked = 0;  // rings that can take no more now (bit r; rings from 64 on stop every lane)
        auto is_blocked = [&](const Lane& lane) {
            return lane.ring >= 0 && lane.ring < 64 && (blocked >> lane.ring) & 1;
        };
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
            } else if (lane->end == LaneEnd::keep && !args_.in_place) {
                REDUX_MPI(copy_elements(own(j), segment_of(args_.recvbuf, j), length(j), args_.datatype, layout_,
                                        ws_.pack_scratch));
            }
            ++lane->finished;
            lane->next_fold = next_segment(*lane, j);
            moved = true;
        }
    }

    bool full(const Lane& lane) const {
        const SendRing& ring = lp_.rings[static_cast<size_t>(lane.ring)];
        return ring.started - ring.done == kSendWindow;
    }

    int start_send(Lane& lane, const void* data, int slot, int j) {
        SendRing& ring = lp_.rings[static_cast<size_t>(lane.ring)];
        const size_t index = send_index(ring, ring.started);
        ws_.request_slot[index] = slot;
        ws_.request_segment[index] = j;
        REDUX_MPI(MPI_Isend(data, length(j), args_.datatype, lane.send_to, lane.send_tag, comm_, &ws_.requests[index]));
        ++ring.started;
        turn_ = j + 1;
        return MPI_SUCCESS;
    }

    // The ring's sends that have completed, oldest first: their slots are free, and at the root of a result
    // transfer their segments may now be received into recvbuf.
    int complete_sends(SendRing& ring, bool& moved) {
        while (ring.done < ring.started) {
            const size_t index = send_index(ring, ring.done);
            int done = 0;
            REDUX_MPI(test_request(ws_.requests[index], done));
            if (!done) return MPI_SUCCESS;
            release(lp_.pools[static_cast<size_t>(ring.pool)], ws_.request_slot[index]);
            ws_.request_slot[index] = kNoSlot;
            if (lp_.result_from >= 0) ws_.segment_left[static_cast<size_t>(ws_.request_segment[index])] = 1;
            ++ring.done;
            moved = true;
        }
        return MPI_SUCCESS;
    }

    // The root's receives of the sink's result: segment by segment, each once this rank's own part has left.
    int advance_results(bool& moved) {
        for (; results_posted_ < segments_ && ws_.segment_left[static_cast<size_t>(results_posted_)] != 0;
             ++results_posted_) {
            const int j = results_posted_;
            REDUX_MPI(MPI_Irecv(segment_of(args_.recvbuf, j), length(j), args_.datatype, lp_.result_from, tags::kResult,
                                comm_, &ws_.requests[static_cast<size_t>(lp_.first_result + j)]));
        }
        for (; results_done_ < results_posted_; ++results_done_) {
            int done = 0;
            REDUX_MPI(test_request(ws_.requests[static_cast<size_t>(lp_.first_result + results_done_)], done));
            if (!done) return MPI_SUCCESS;
            moved = true;
        }
        return MPI_SUCCESS;
    }

    // The rings: sizes are powers of two, so an index is a mask, not a division.
    size_t stream_index(int64_t q) const { return static_cast<size_t>(q & (lp_.stream_ring - 1)); }
    MPI_Request& stream_request(int64_t q) { return ws_.requests[stream_index(q)]; }
    static size_t send_index(const SendRing& ring, int64_t i) {
        return static_cast<size_t>(ring.first + (i & (kSendWindow - 1)));
    }

    int take_slot(const Lane& lane) {
        SlotPool& pool = lp_.pools[static_cast<size_t>(lane.pool)];
        --pool.free;
        return ws_.free_slots[static_cast<size_t>(pool.first + pool.free)];
    }
    void release(SlotPool& pool, int slot) {
        if (slot == kNoSlot) return;
        ws_.free_slots[static_cast<size_t>(pool.first + pool.free)] = slot;
        ++pool.free;
    }
    void release(const Lane& lane, int slot) { release(lp_.pools[static_cast<size_t>(lane.pool)], slot); }

    const RankProgram& program_;
    const int segments_;
    const int rank_;
    const ReduceArgs& args_;
    const ElementLayout& layout_;
    const MPI_Comm comm_;
    const ExecKnobs& knobs_;
    Workspace& ws_;
    LaneProgram& lp_;
    Workspace::Shape shape_;
    int64_t stream_posted_ = 0, stream_folded_ = 0;  // the stream's receives posted, folded
    int post_segment_ = 0, post_child_ = 0;          // the next one to post
    int fold_segment_ = 0, stream_child_ = 0;        // the next one to fold
    const Lane* held_ = nullptr;                     // the stream's last finished segment's lane
    int results_posted_ = 0, results_done_ = 0;      // the result transfer's receives
    int turn_ = 0;                                   // LaneProgram::in_turn: the segment whose send starts next
};

}  // namespace

const std::vector<void*>& Workspace::ensure(const ElementLayout& layout, int count, int buffers) {
    if (!(layout == layout_) || count != count_) {
        storage_.clear();
        origins_.clear();
        layout_ = layout;
        count_ = count;
    }
    while (static_cast<int>(storage_.size()) < buffers) {
        storage_.emplace_back(layout, count);
        origins_.push_back(storage_.back().data());
    }
    return origins_;
}

int run_program(const RankProgram& program, int segments, int rank, const ReduceArgs& args, const ElementLayout& layout,
                MPI_Comm comm, Workspace& workspace, const ExecKnobs& knobs) {
    return Runner(program, segments, rank, args, layout, comm, workspace, knobs).run();
}

}  // namespace redux
