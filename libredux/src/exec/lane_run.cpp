// The executor for plans dealt to weighted trees (the multi-tree strategy, RankProgram::deal): one lane per
// tree. The planner forecasts them with transfers sharing the links (plan/steady_state/multi_tree.cpp: every link busy,
// a rank's link in fed by several children at once), and a single receive stream in segment order cannot deliver that:
// on simulated ranks (slowpairs, 16 MiB) the root received one segment at a time at 2/3 of its link (the sender's link
// also carried a transfer on its slow path) and, on 8 ranks, every rank waited for its oldest segment, whose tree was
// three slow hops deep, while the segments of its other trees stood still (6.2x the forecast). So each tree t
// is its own pipeline here: its segments in order, each segment's children in fold order, up to window
// receives posted together, sends to the tree's parent with the tree's tag, up to kSendWindow outstanding. A
// rank that is a leaf of t sends its own segments of t ahead. The lanes advance as their transfers complete,
// never waiting for each other; when none can, the rank waits for any of their requests. Scratch: per lane,
// window receives, kSendWindow partial results being sent and one accumulator copy.
#include "exec/lane_run.hpp"

#include "exec/run_parts.hpp"
#include "mpi/yielding.hpp"
#include "plan/predict/segments.hpp"

#include <sched.h>

#include <algorithm>
#include <cstdint>

namespace redux {
namespace {

constexpr int kLaneWindow = 4;  // receives posted together per tree, at least

class LaneRun : RunCall {
public:
    LaneRun(const RankProgram& program, int segments, int rank, const ReduceArgs& args, const ElementLayout& layout,
            MPI_Comm comm, Workspace& workspace, const ExecKnobs& knobs)
        : RunCall(program, segments, rank, args, layout, comm, workspace, knobs) {
        const int window = std::max(knobs.recv_window, kLaneWindow);
        int requests = 0, slots = 0;
        ws_.lanes.clear();  // a repeated call reuses their capacity
        ws_.child_posted.clear();
        ws_.child_next.clear();
        for (int t = 0; t < program.trees(); ++t) {
            Lane& lane = ws_.lanes.emplace_back();
            lane.tree = t;
            lane.children = static_cast<int>(program.children_in(t).size());
            lane.parent = program.parent_in(t);
            lane.next_fold = first_segment(t, 0);
            lane.first_child = static_cast<int>(ws_.child_posted.size());
            ws_.child_posted.insert(ws_.child_posted.end(), static_cast<size_t>(lane.children), 0);
            ws_.child_next.insert(ws_.child_next.end(), static_cast<size_t>(lane.children), lane.next_fold);
            for (int j = lane.next_fold; j < segments_; j = first_segment(t, j + 1)) {
                lane.stream += lane.children;
                ++lane.segments;
            }
            lane.window = std::max(1, std::min(window, lane.segments));
            lane.first_request = requests;
            requests += lane.children * lane.window + kSendWindow;
            lane.first_slot = slots;
            lane.slots = lane.children > 0 ? lane.children * lane.window + kSendWindow + 1 : 0;
            slots += lane.slots;
        }
        const int most = (args.count + segments_ - 1) / segments_;  // the longest segment
        ws_.ready = {};                                             // the vectors are set up for this runner now
        ws_.slot.clear();
        if (slots > 0) ws_.slot = workspace.ensure(layout, std::max(most, 1), slots);
        ws_.free_slots.clear();
        for (Lane& lane : ws_.lanes) {
            lane.first_free = static_cast<int>(ws_.free_slots.size());
            for (int s = 0; s < lane.slots; ++s) ws_.free_slots.push_back(lane.first_slot + s);
            lane.free = lane.slots;
        }
        ws_.requests.assign(static_cast<size_t>(requests), MPI_REQUEST_NULL);
        ws_.child_slot.assign(static_cast<size_t>(requests), kNoSlot);
    }

    int run() {
        const int rc = reduce_lanes();
        if (rc != MPI_SUCCESS) {
            for (MPI_Request& request : ws_.requests) cancel_request(request);
        }
        return rc;
    }

private:
    using Lane = LaneState;

    // The first segment of tree t from j on (segments_ when none).
    int first_segment(int t, int j) const {
        while (j < segments_ && program_.tree_of(j) != t) ++j;
        return j;
    }
    const void* own(int j) const { return segment_of(args_.in_place ? args_.recvbuf : args_.sendbuf, j); }

    // Stream position q is the lane's segment q / children from child q % children: each child has a ring of
    // window receives.
    static size_t ring_index(const Lane& lane, int64_t q) {
        const int64_t k = q % lane.children;
        return static_cast<size_t>(lane.first_request + k * lane.window + (q / lane.children) % lane.window);
    }
    bool posted(const Lane& lane, int64_t q) const {
        return q / lane.children < ws_.child_posted[static_cast<size_t>(lane.first_child + q % lane.children)];
    }
    MPI_Request& recv_request(Lane& lane, int64_t q) { return ws_.requests[ring_index(lane, q)]; }
    int& recv_slot(Lane& lane, int64_t q) { return ws_.child_slot[ring_index(lane, q)]; }
    size_t send_index(const Lane& lane, int64_t i) const {
        return static_cast<size_t>(lane.first_request + lane.children * lane.window + i % kSendWindow);
    }
    bool done(const Lane& lane) const {
        return lane.finished == lane.segments && lane.sends_done == lane.sends_started;
    }

    int take_slot(Lane& lane) {
        --lane.free;
        return ws_.free_slots[static_cast<size_t>(lane.first_free + lane.free)];
    }
    void release(Lane& lane, int slot) {
        if (slot == kNoSlot) return;
        ws_.free_slots[static_cast<size_t>(lane.first_free + lane.free)] = slot;
        ++lane.free;
    }

    int reduce_lanes() {
        for (int polls = 0;;) {
            bool moved = false, all_done = true;
            for (Lane& lane : ws_.lanes) {
                REDUX_MPI(advance(lane, moved));
                all_done = all_done && done(lane);
            }
            if (all_done) return MPI_SUCCESS;
            if (moved) continue;
            if constexpr (kBlockingWaits) {  // until one of the lanes' requests completes (it becomes null)
                int index = MPI_UNDEFINED;
                REDUX_MPI(
                    MPI_Waitany(static_cast<int>(ws_.requests.size()), ws_.requests.data(), &index, MPI_STATUS_IGNORE));
                if (index == MPI_UNDEFINED) return MPI_ERR_INTERN;  // nothing in flight, and no lane can move
            } else if (polls < kPollsBeforeYield) {
                ++polls;
            } else {
                sched_yield();
            }
        }
    }

    // Everything `lane` can do now without waiting: completed sends, receives to post, arrived ones to fold,
    // finished segments to send; a leaf's own segments to send.
    int advance(Lane& lane, bool& moved) {
        while (lane.sends_done < lane.sends_started) {
            int sent = 0;
            REDUX_MPI(test_request(ws_.requests[send_index(lane, lane.sends_done)], sent));
            if (!sent) break;
            int& slot = ws_.child_slot[send_index(lane, lane.sends_done)];
            release(lane, slot);
            slot = kNoSlot;
            ++lane.sends_done;
            moved = true;
        }
        if (lane.children == 0 && lane.parent < 0) {  // not in this tree (or alone in it: its value is the result)
            for (; lane.finished < lane.segments; ++lane.finished) {
                const int j = lane.next_fold;
                lane.next_fold = first_segment(lane.tree, j + 1);
                if (rank_ != args_.root || args_.in_place) continue;
                REDUX_MPI(copy_elements(own(j), segment_of(args_.recvbuf, j), length(j), args_.datatype, layout_,
                                        ws_.pack_scratch));
            }
            return MPI_SUCCESS;
        }
        if (lane.children == 0) {  // a leaf: its own segments, in order
            while (lane.finished < lane.segments && lane.sends_started - lane.sends_done < kSendWindow) {
                REDUX_MPI(start_send(lane, own(lane.next_fold), lane.next_fold, kNoSlot));
                lane.next_fold = first_segment(lane.tree, lane.next_fold + 1);
                ++lane.finished;
                moved = true;
            }
            return MPI_SUCCESS;
        }
        REDUX_MPI(post_receives(lane));
        while (lane.folded < lane.stream) {
            const int k = static_cast<int>(lane.folded % lane.children);
            const bool last = k == lane.children - 1;
            if (last && lane.parent >= 0 && lane.sends_started - lane.sends_done == kSendWindow) break;
            int arrived = 0;
            if (!posted(lane, lane.folded)) break;
            REDUX_MPI(test_request(recv_request(lane, lane.folded), arrived));
            if (!arrived) break;
            if (k == 0) {
                lane.acc = own(lane.next_fold);
                lane.acc_writable = args_.in_place;
                lane.acc_slot = kNoSlot;
            }
            REDUX_MPI(fold_child(lane, program_.children_in(lane.tree)[static_cast<size_t>(k)]));
            ++lane.folded;
            if (last) REDUX_MPI(finish_segment(lane));
            REDUX_MPI(post_receives(lane));
            moved = true;
        }
        return MPI_SUCCESS;
    }

    int post_receives(Lane& lane) {
        const int64_t folding = lane.folded / std::max(lane.children, 1);  // the lane's segment being folded
        for (int k = 0; k < lane.children; ++k) {
            int& count = ws_.child_posted[static_cast<size_t>(lane.first_child + k)];
            int& j = ws_.child_next[static_cast<size_t>(lane.first_child + k)];
            const ChildStep& child = program_.children_in(lane.tree)[static_cast<size_t>(k)];
            while (count < lane.segments && count - folding < lane.window && lane.free > 0) {
                const int64_t q = static_cast<int64_t>(count) * lane.children + k;
                const int slot = take_slot(lane);
                recv_slot(lane, q) = slot;
                REDUX_MPI(MPI_Irecv(ws_.slot[static_cast<size_t>(slot)], length(j), args_.datatype, child.rank,
                                    tag_of(lane.tree), comm_, &recv_request(lane, q)));
                ++count;
                j = first_segment(lane.tree, j + 1);
            }
        }
        return MPI_SUCCESS;
    }

    // As ProgramRun::fold_child, for the lane's segment next_fold.
    int fold_child(Lane& lane, const ChildStep& child) {
        const int child_s = recv_slot(lane, lane.folded);
        recv_slot(lane, lane.folded) = kNoSlot;
        void* child_buf = ws_.slot[static_cast<size_t>(child_s)];
        if (child.joins_left || (args_.commutative && lane.acc_writable)) {
            if (!lane.acc_writable) {  // a slot of the lane's own: window + kSendWindow + 1 cover every use
                if (lane.free == 0) return MPI_ERR_INTERN;
                const int s = take_slot(lane);
                void* copy = ws_.slot[static_cast<size_t>(s)];
                REDUX_MPI(
                    copy_elements(lane.acc, copy, length(lane.next_fold), args_.datatype, layout_, ws_.pack_scratch));
                lane.acc = copy;
                lane.acc_slot = s;
                lane.acc_writable = true;
            }
            REDUX_MPI(apply_op(lane, child_buf, const_cast<void*>(lane.acc)));  // acc = child o acc
            release(lane, child_s);
        } else {
            REDUX_MPI(apply_op(lane, lane.acc, child_buf));  // child's buffer = acc o child
            release(lane, lane.acc_slot);
            lane.acc = child_buf;
            lane.acc_slot = child_s;
            lane.acc_writable = true;
        }
        return MPI_SUCCESS;
    }

    // inout = in o inout, chunk by chunk, testing the lane's next receive in between.
    int apply_op(Lane& lane, const void* in, void* inout) {
        return reduce_in_chunks(in, inout, length(lane.next_fold), args_, layout_, knobs_.chunk_bytes, [&]() -> int {
            int arrived = 0;
            if (lane.folded + 1 < lane.stream && posted(lane, lane.folded + 1)) {
                return test_request(recv_request(lane, lane.folded + 1), arrived);
            }
            return MPI_SUCCESS;
        });
    }

    // The lane's segment next_fold is folded: to the tree's parent, or into recvbuf at the root.
    int finish_segment(Lane& lane) {
        const int j = lane.next_fold;
        lane.next_fold = first_segment(lane.tree, j + 1);
        ++lane.finished;
        if (lane.parent >= 0) return start_send(lane, lane.acc, j, lane.acc_slot);
        void* result = segment_of(args_.recvbuf, j);
        if (lane.acc != result) {
            REDUX_MPI(copy_elements(lane.acc, result, length(j), args_.datatype, layout_, ws_.pack_scratch));
        }
        release(lane, lane.acc_slot);
        return MPI_SUCCESS;
    }

    int start_send(Lane& lane, const void* data, int j, int slot) {
        const size_t index = send_index(lane, lane.sends_started);
        ws_.child_slot[index] = slot;
        REDUX_MPI(
            MPI_Isend(data, length(j), args_.datatype, lane.parent, tag_of(lane.tree), comm_, &ws_.requests[index]));
        ++lane.sends_started;
        return MPI_SUCCESS;
    }
};

}  // namespace

int run_lanes(const RankProgram& program, int segments, int rank, const ReduceArgs& args, const ElementLayout& layout,
              MPI_Comm comm, Workspace& workspace, const ExecKnobs& knobs) {
    return LaneRun(program, segments, rank, args, layout, comm, workspace, knobs).run();
}

}  // namespace redux
