// An exchange schedule: one rank's part of recursive doubling, recursive halving (with its allgather, gather or
// scatter) and a tree's spread, as data: steps that send, receive, fold or copy ranges of elements, each started
// once the steps it comes after are complete. ScheduleRunner runs it without ever waiting: each step() posts what
// may be posted, takes what has completed and applies the op to one chunk. The schedules are built by
// exchanges.cpp; the tree runner (lanes.cpp) runs the tree phases.
#pragma once

#include "exec/call.hpp"
#include "exec/timeline.hpp"

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace redux {

// Where a step's elements are; resolved at each call (ScheduleRunner::start).
enum class Where : uint8_t {
    input,    // the rank's data (read only)
    recvbuf,  // the call's receive buffer
    vector0,  // Workspace::vectors' first whole vector: received data, or the tree's result to spread
    vector1,  // its second: the accumulator where recvbuf cannot be
};
constexpr int kWheres = 4;

enum class StepKind : uint8_t { send, receive, fold, copy };

struct ScheduleStep {
    StepKind kind = StepKind::send;
    Where buffer = Where::input;  // send: from; receive: into; fold: mine (the accumulator); copy: to
    Where other = Where::input;   // fold: theirs; copy: from
    bool theirs_left = false;     // fold: theirs = elements of lower ranks, folded on the left
    int peer = -1, tag = 0;       // send, receive
    int64_t begin = 0, end = 0;   // the elements
    int32_t barrier = 0;          // every step before this one completes first
    int32_t after[2] = {-1, -1};  // and these (-1: none)
    int64_t to_shift = 0;         // copy: the elements land at [begin + to_shift, end + to_shift); fold: mine is there
};

// What the steps were built for: a call with the same key runs them again.
struct ScheduleKey {
    int algorithm = -1;            // FamilyAlgorithm, or -1: a tree's spread
    const void* spread = nullptr;  // that spread's role (ExecPlan::spread): the key's trees each have their own
    Collective collective = Collective::reduce;
    int rank = -1, size = 0, root = 0, count = 0, segments = 0;
    bool in_place = false;
    int64_t least_piece_bytes = 0;
    int64_t flight_bytes = 0;
    int late_rank = -1;
    bool operator==(const ScheduleKey& o) const {
        return algorithm == o.algorithm && spread == o.spread && collective == o.collective && rank == o.rank &&
               size == o.size && root == o.root && count == o.count && segments == o.segments &&
               in_place == o.in_place && least_piece_bytes == o.least_piece_bytes && flight_bytes == o.flight_bytes &&
               late_rank == o.late_rank;
    }
};

// A schedule and its run's bookkeeping, kept with the plan (Workspace::schedule).
struct ScheduleState {
    ScheduleKey key;
    bool built = false;
    std::vector<ScheduleStep> steps;
    std::vector<MPI_Request> requests;  // by step
    std::vector<uint8_t> status;        // by step: kWaiting, kPosted, kComplete (schedule.cpp)
};

// Runs a ScheduleState's steps for one call. Sends and receives are posted in step order, folds and copies done
// in step order: every message between two ranks is posted by both sides in the same order, so MPI's ordering
// per (source, tag) matches them.
class ScheduleRunner {
public:
    // Resolves the places (Where) for `call`; `vectors` is Workspace::vectors' origins (two whole vectors).
    // `timeline`: the call's (Timeline::active() at its start), or null.
    void start(const ExecCall& call, ScheduleState& state, const std::vector<void*>& vectors, size_t chunk_bytes,
               std::vector<char>& pack_scratch, Timeline* timeline);
    // Does what can be done now without waiting, at most one chunk of a fold (moved: something did); done once
    // every step is complete. Returns an MPI error code.
    int step(bool& moved, bool& done);
    // The requests in flight, for a wait that blocks (SMPI).
    MPI_Request* requests() { return state_->requests.data() + first_open_; }
    int request_count() const { return post_ - first_open_; }
    // After an error: every request posted finished (mpi/abandon.hpp).
    void abandon();

private:
    bool ready(const ScheduleStep& step) const;
    int post(int32_t i);
    int compute(int32_t i, bool& complete);

    const ExecCall* call_ = nullptr;
    ScheduleState* state_ = nullptr;
    std::vector<char>* pack_scratch_ = nullptr;
    void* where_[kWheres] = {};
    int64_t per_chunk_ = 1;
    int32_t first_open_ = 0;        // every step before it is complete
    int32_t post_ = 0;              // the next send or receive to post
    int32_t compute_ = 0;           // the next fold or copy
    int64_t folded_ = 0;            // elements of step compute_ folded
    Timeline* timeline_ = nullptr;  // recording this call (REDUX_TIMELINE), or null
};

}  // namespace redux
