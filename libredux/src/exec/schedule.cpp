// The exchange schedule's runner (schedule.hpp). Three cursors move forward over the steps: first_open_ (every
// step before it is complete), post_ (the next send or receive: posted once its barrier and the steps it comes
// after are complete; a later one waits behind it, so both ends of a link post in the same order) and compute_
// (the next fold or copy, likewise). A fold is applied a chunk per step() call, and a caller that loops on
// step() tests the requests in flight in between: a transfer advances while the op runs.
#include "exec/schedule.hpp"

#include "exec/fold.hpp"
#include "exec/timeline.hpp"
#include "mpi/abandon.hpp"
#include "mpi/mpi_check.hpp"
#include "mpi/yielding.hpp"

#include <algorithm>

namespace redux {
namespace {

constexpr uint8_t kWaiting = 0, kPosted = 1, kComplete = 2;

bool is_transfer(const ScheduleStep& step) { return step.kind == StepKind::send || step.kind == StepKind::receive; }

}  // namespace

void ScheduleRunner::start(const ExecCall& call, ScheduleState& state, const std::vector<void*>& vectors,
                           size_t chunk_bytes, std::vector<char>& pack_scratch, Timeline* timeline) {
    call_ = &call;
    state_ = &state;
    pack_scratch_ = &pack_scratch;
    where_[static_cast<int>(Where::input)] = const_cast<void*>(call.input);
    where_[static_cast<int>(Where::recvbuf)] = call.recvbuf;
    where_[static_cast<int>(Where::vector0)] = vectors.size() > 0 ? vectors[0] : nullptr;
    where_[static_cast<int>(Where::vector1)] = vectors.size() > 1 ? vectors[1] : nullptr;
    per_chunk_ = chunk_elements(call.layout, chunk_bytes, call.total());
    // Every request is null after a run (completed, or finished by abandon()): only a new schedule sizes them.
    const size_t n = state.steps.size();
    if (state.requests.size() != n) state.requests.assign(n, MPI_REQUEST_NULL);
    state.status.assign(n, kWaiting);
    first_open_ = post_ = compute_ = 0;
    timeline_ = timeline;
    folded_ = 0;
}

bool ScheduleRunner::ready(const ScheduleStep& step) const {
    if (step.barrier > first_open_) return false;
    for (int32_t a : step.after) {
        if (a >= 0 && state_->status[static_cast<size_t>(a)] != kComplete) return false;
    }
    return true;
}

int ScheduleRunner::post(int32_t i) {
    const ScheduleStep& step = state_->steps[static_cast<size_t>(i)];
    void* data = at_offset(where_[static_cast<int>(step.buffer)], step.begin * call_->layout.extent);
    const int n = static_cast<int>(step.end - step.begin);
    MPI_Request* request = &state_->requests[static_cast<size_t>(i)];
    state_->status[static_cast<size_t>(i)] = kPosted;
    const bool send = step.kind == StepKind::send;
    if (timeline_ != nullptr) {
        timeline_->event(send ? TimelineEvent::post_send : TimelineEvent::post_receive, i, step.peer, step.begin,
                         step.end);
    }
    if (send) return MPI_Isend(data, n, call_->datatype, step.peer, step.tag, call_->comm, request);
    return MPI_Irecv(data, n, call_->datatype, step.peer, step.tag, call_->comm, request);
}

int ScheduleRunner::compute(int32_t i, bool& complete) {
    const ScheduleStep& step = state_->steps[static_cast<size_t>(i)];
    void* to = where_[static_cast<int>(step.buffer)];
    const void* from = where_[static_cast<int>(step.other)];
    if (step.kind == StepKind::copy) {
        const MPI_Aint extent = call_->layout.extent;
        complete = true;
        if (timeline_ != nullptr) timeline_->event(TimelineEvent::copy, i, -1, step.begin, step.end);
        REDUX_MPI(
            copy_elements(at_offset(from, step.begin * extent), at_offset(to, (step.begin + step.to_shift) * extent),
                          static_cast<int>(step.end - step.begin), call_->datatype, call_->layout, *pack_scratch_));
        if (timeline_ != nullptr) timeline_->event(TimelineEvent::copied, i, -1, step.begin, step.end);
        return MPI_SUCCESS;
    }
    const int64_t first = step.begin + folded_;
    const int n = static_cast<int>(std::min(per_chunk_, step.end - first));
    if (timeline_ != nullptr) timeline_->event(TimelineEvent::fold, i, -1, first, first + n);
    REDUX_MPI(fold_elements(from, at_offset(to, step.to_shift * call_->layout.extent), first, n, step.theirs_left,
                            *call_, *pack_scratch_));
    if (timeline_ != nullptr) timeline_->event(TimelineEvent::folded, i, -1, first, first + n);
    folded_ += n;
    complete = step.begin + folded_ >= step.end;
    if (complete) folded_ = 0;
    return MPI_SUCCESS;
}

int ScheduleRunner::step(bool& moved, bool& done) {
    std::vector<ScheduleStep>& steps = state_->steps;
    std::vector<uint8_t>& status = state_->status;
    const auto n = static_cast<int32_t>(steps.size());
    // Rounds while something moves, until one chunk of a fold is done: a step that completes posts or frees the
    // next at once.
    for (bool again = true; again;) {
        again = false;
        // What has completed: a posted request that MPI_Test (or a blocking wait) has made null.
        for (int32_t i = first_open_; i < post_; ++i) {
            if (status[static_cast<size_t>(i)] != kPosted) continue;
            int complete = 0;
            REDUX_MPI(test_request(state_->requests[static_cast<size_t>(i)], complete));
            if (!complete) continue;
            status[static_cast<size_t>(i)] = kComplete;
            if (timeline_ != nullptr) {
                const ScheduleStep& s = steps[static_cast<size_t>(i)];
                timeline_->event(s.kind == StepKind::send ? TimelineEvent::sent : TimelineEvent::received, i, s.peer,
                                 s.begin, s.end);
            }
        }
        while (first_open_ < n && status[static_cast<size_t>(first_open_)] == kComplete) ++first_open_;
        for (; post_ < n; ++post_) {
            const ScheduleStep& s = steps[static_cast<size_t>(post_)];
            if (!is_transfer(s)) continue;
            if (!ready(s)) break;
            REDUX_MPI(post(post_));
            moved = true;
        }
        while (compute_ < n && is_transfer(steps[static_cast<size_t>(compute_)])) ++compute_;
        if (compute_ < n && ready(steps[static_cast<size_t>(compute_)])) {
            bool complete = false;
            REDUX_MPI(compute(compute_, complete));
            moved = true;
            again = steps[static_cast<size_t>(compute_)].kind == StepKind::copy;  // a fold's chunk ends the step
            if (complete) {
                status[static_cast<size_t>(compute_)] = kComplete;
                ++compute_;
                while (first_open_ < n && status[static_cast<size_t>(first_open_)] == kComplete) ++first_open_;
            }
        }
    }
    done = first_open_ == n;
    return MPI_SUCCESS;
}

void ScheduleRunner::abandon() {
    if (state_ == nullptr) return;
    for (int32_t i = first_open_; i < post_; ++i) {
        MPI_Request& request = state_->requests[static_cast<size_t>(i)];
        if (state_->steps[static_cast<size_t>(i)].kind == StepKind::send) {
            abandon_send(request);
        } else {
            abandon_receive(request);
        }
    }
}

}  // namespace redux
