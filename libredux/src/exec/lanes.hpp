// The tree runner: one rank's part of a plan's reduction trees, run as lanes (lane_program.hpp), step by step.
// See lanes.cpp for the choreography.
#pragma once

#include "exec/call.hpp"
#include "exec/lane_program.hpp"
#include "exec/workspace.hpp"
#include "plan/exec_limits.hpp"
#include "plan/planner.hpp"
#include "policy/config.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdint>

namespace redux {

// A leaf of a one-tree plan that sends its data in one piece (most ranks of a small message's plan): its part is
// one send and nothing else, made before any set-up, which would delay its parent's receive.
inline bool sends_alone(const RankProgram& program, int segments, int count) {
    return program.more_trees.empty() && program.children.empty() && program.parent >= 0 &&
           program.receive_result_from < 0 && std::min(segments, std::max(count, 1)) <= 1;
}

class LaneRunner {
public:
    // `call` is the tree phase's: a reduction of the whole vector to call.root. Everything given must outlive the
    // runner.
    LaneRunner(const RankProgram& program, int segments, const ExecCall& call, Workspace& workspace,
               const ExecKnobs& knobs);
    LaneRunner(const LaneRunner&) = delete;
    LaneRunner& operator=(const LaneRunner&) = delete;

    // Sets the call up and posts what it can: MPI_ERR_TAG for a program with more trees than tags::kMostTrees.
    int start();
    // Does what can be done now without waiting (moved: something did); done once this rank's part is over.
    int step(bool& moved, bool& done);
    // The requests in flight, for a wait that blocks (SMPI).
    MPI_Request* requests();
    int request_count() const;
    // After an error: every request posted finished (mpi/abandon.hpp).
    void abandon();

private:
    static constexpr int kNoSlot = -1;  // a buffer that is not a scratch slot: the input or recvbuf

    int64_t begin(int j) const;
    int length(int j) const { return static_cast<int>(begin(j + 1) - begin(j)); }
    void* segment_of(const void* buffer, int j) const { return at_offset(buffer, begin(j) * call_.layout.extent); }
    const void* own(int j) const { return segment_of(call_.input, j); }
    Lane& lane_of(int j) { return lp_.lanes[static_cast<size_t>(lp_.trees == 1 ? 0 : program_.tree_of(j))]; }
    int next_segment(const Lane& lane, int j) const;
    int stream_children(int j);
    int next_stream_segment(int j);
    void set_up();
    bool finished() const;
    bool sends_in_flight() const;
    bool full(const Lane& lane) const;

    // lanes.cpp: receives and the result transfer
    int progress(bool& moved);
    int post_stream();
    int post_lane(Lane& lane);
    int post_receive(Lane& lane, int j, int k, size_t index);
    int advance_results(bool& moved);
    // lane_folds.cpp: folds and sends
    int fold_stream(bool& moved);
    int fold_lane(Lane& lane, bool& moved);
    void start_segment(Lane& lane, int j);
    int fold(Lane& lane, size_t index, bool& stalled, bool& partial);
    int make_acc_writable(Lane& lane);
    int finish(Lane& lane);
    int flush(Lane& lane, bool& moved);
    int next(Lane& lane);
    int send_own(bool& moved);
    int start_send(Lane& lane, const void* data, int slot, int j);
    int complete_sends(SendRing& ring, bool& moved);

    // The rings: sizes are powers of two, so an index is a mask, not a division.
    size_t stream_index(int64_t q) const { return static_cast<size_t>(q & (lp_.stream_ring - 1)); }
    MPI_Request& stream_request(int64_t q) { return ls_.requests[stream_index(q)]; }
    static size_t send_index(const SendRing& ring, int64_t i) {
        return static_cast<size_t>(ring.first + (i & (kExecLimits.send_window - 1)));
    }
    int take_slot(const Lane& lane);
    void release(SlotPool& pool, int slot);
    void release(const Lane& lane, int slot) { release(lp_.pools[static_cast<size_t>(lane.pool)], slot); }

    const RankProgram& program_;
    const int segments_;
    const ExecCall& call_;
    const ExecKnobs& knobs_;
    Workspace& ws_;
    LaneState& ls_;
    LaneProgram& lp_;
    LaneState::Shape shape_;
    bool alone_ = false;  // the one send of a leaf (send_alone in lanes.cpp)
    MPI_Request alone_request_ = MPI_REQUEST_NULL;
    bool stalled_ = false;                           // a fold waits for a scratch slot
    int64_t chunk_ = 1;                              // elements of a chunk: what a fold loop may fold in one step
    int64_t budget_ = 0;                             // elements the fold loop being run may still fold this step
    int64_t stream_posted_ = 0, stream_folded_ = 0;  // the stream's receives posted, folded
    int post_segment_ = 0, post_child_ = 0;          // the next one to post
    int fold_segment_ = 0, stream_child_ = 0;        // the next one to fold
    const Lane* held_ = nullptr;                     // the stream's last finished segment's lane
    int results_posted_ = 0, results_done_ = 0;      // the result transfer's receives
    int turn_ = 0;                                   // LaneProgram::in_turn: the segment whose send starts next
};

}  // namespace redux
