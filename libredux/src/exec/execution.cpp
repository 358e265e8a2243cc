// The executor's entry (execution.hpp). A call runs in parts, one at a time:
//   - a reduction tree (MPI_Reduce's, or an allreduce's or reduce-scatter-block's first phase, to rank 0): the
//     lanes of lanes.cpp;
//   - an exchange schedule (schedule.hpp): recursive doubling or halving, the ring, allgather, late-rank, or the
//     tree's second phase, built by exchanges.cpp once per call shape and kept in the workspace;
//   - tree-dyn (tree_dyn.hpp).
// progress() steps the part that runs and moves to the next part when it is done. Waiting happens in one place,
// wait(): with more ranks than cores a rank that blocks inside an MPI library that busy-polls (Debian's MPICH
// does) keeps the core from the rank it waits for, so it polls and yields instead, never a blocking call; on a
// dedicated core sched_yield returns at once. Under SMPI (kBlockingWaits) it blocks in MPI_Waitany on the part's
// requests, handing a completion to the part that needs its status (tree-dyn's orders).
#include "exec/execution.hpp"

#include "exec/timeline.hpp"
#include "mpi/abandon.hpp"
#include "mpi/mpi_check.hpp"
#include "mpi/tags.hpp"
#include "mpi/yielding.hpp"

#include <sched.h>

#include <vector>

namespace redux {

int Execution::start(const ExecPlan& plan, const ExecCall& call, Workspace& workspace) {
    plan_ = &plan;
    call_ = &call;
    ws_ = &workspace;
    lanes_.reset();
    tree_dyn_.reset();
    timeline_ = Timeline::active();
    if (timeline_ != nullptr) timeline_->start(call, family_name(plan.algorithm));
    switch (plan.algorithm) {
        case FamilyAlgorithm::tree:
        case FamilyAlgorithm::arrival_tree:
            return start_tree();
        case FamilyAlgorithm::recursive_doubling:
        case FamilyAlgorithm::reduce_scatter:
        case FamilyAlgorithm::ring:
        case FamilyAlgorithm::late_rank:
        case FamilyAlgorithm::allgather:
            return start_schedule();
        case FamilyAlgorithm::tree_dyn:
            part_ = Part::tree_dyn;
            tree_dyn_.emplace(call, workspace, *plan.batches, plan.knobs.chunk_bytes);
            return tree_dyn_->start();
    }
    return MPI_ERR_INTERN;
}

// The tree: MPI_Reduce's own, or the reduction of the whole vector to rank 0: in recvbuf for an allreduce; for a
// reduce-scatter-block in a scratch vector (vector0), in place too, where recvbuf's blocks after rank 0's own are
// input that the call leaves as it found them.
int Execution::start_tree() {
    part_ = Part::lanes;
    const ExecCall& call = *call_;
    const ExecCall* tree_call = call_;
    if (call.collective != Collective::reduce) {
        tree_call_ = call;
        tree_call_.collective = Collective::reduce;
        tree_call_.root = 0;
        tree_call_.count = call.total();
        tree_call_.in_place = false;
        tree_call_.recvbuf = nullptr;
        if (call.rank == 0) {
            const bool whole_in_recvbuf = call.collective == Collective::allreduce;
            tree_call_.in_place = call.in_place && whole_in_recvbuf;
            tree_call_.recvbuf =
                whole_in_recvbuf ? call.recvbuf : ws_->vectors.ensure(call.layout, tree_call_.count, 1)[0];
        }
        tree_call = &tree_call_;
    }
    lanes_.emplace(*plan_->program, plan_->segments, *tree_call, *ws_, plan_->knobs);
    return lanes_->start();
}

int Execution::start_schedule() {
    const ExecCall& call = *call_;
    ScheduleState& state = ws_->schedule;
    const bool spread = plan_->algorithm == FamilyAlgorithm::tree;
    const ScheduleKey key{spread ? -1 : static_cast<int>(plan_->algorithm),
                          spread ? plan_->spread : nullptr,
                          call.collective,
                          call.rank,
                          call.size,
                          call.root,
                          call.count,
                          spread ? plan_->spread->segments : 0,
                          call.in_place,
                          plan_->least_piece_bytes,
                          plan_->flight_bytes,
                          plan_->late_rank};
    if (!state.built || !(state.key == key)) {
        state.built = false;
        if (spread) {
            build_spread(call, *plan_->spread, state.steps);
        } else if (plan_->algorithm == FamilyAlgorithm::recursive_doubling) {
            build_recursive_doubling(call, state.steps);
        } else if (plan_->algorithm == FamilyAlgorithm::ring) {
            build_ring(call, plan_->least_piece_bytes, plan_->flight_bytes, state.steps);
        } else if (plan_->algorithm == FamilyAlgorithm::allgather) {
            build_allgather(call, state.steps);
        } else if (plan_->algorithm == FamilyAlgorithm::late_rank) {
            build_late_rank(call, plan_->late_rank, plan_->least_piece_bytes, plan_->flight_bytes, state.steps);
        } else {
            build_reduce_scatter(call, plan_->least_piece_bytes, plan_->flight_bytes, state.steps);
        }
        state.key = key;
        state.built = true;
    }
    // Recursive doubling, halving and the ring: the data received and (not an allreduce) the accumulator; a tree's
    // spread of a reduce-scatter-block: rank 0's result, made by start_tree; allgather's allreduce: every rank's
    // vector, in one (the plan keeps size x count within an int: plan_family).
    const bool gathers = plan_->algorithm == FamilyAlgorithm::allgather && call.collective == Collective::allreduce;
    const int vectors =
        spread ? (call.collective == Collective::reduce_scatter_block && call.rank == 0 ? 1 : 0) : (gathers ? 1 : 2);
    const int elements = gathers ? call.total() * call.size : call.total();
    static const std::vector<void*> kNone;
    const std::vector<void*>& origins = vectors > 0 ? ws_->vectors.ensure(call.layout, elements, vectors) : kNone;
    part_ = Part::schedule;
    schedule_.start(call, state, origins, plan_->knobs.chunk_bytes, ws_->pack_scratch, timeline_);
    return MPI_SUCCESS;
}

int Execution::progress(bool& moved, bool& done) {
    done = false;
    switch (part_) {
        case Part::lanes: {
            bool over = false;
            REDUX_MPI(lanes_->step(moved, over));
            if (!over) return MPI_SUCCESS;
            lanes_.reset();
            if (call_->collective == Collective::reduce) break;
            moved = true;
            if (timeline_ != nullptr) timeline_->event(TimelineEvent::phase);
            return start_schedule();  // the tree's second phase
        }
        case Part::schedule: {
            bool over = false;
            REDUX_MPI(schedule_.step(moved, over));
            if (!over) return MPI_SUCCESS;
            break;
        }
        case Part::tree_dyn: {
            bool over = false;
            REDUX_MPI(tree_dyn_->step(moved, over));
            if (!over) return MPI_SUCCESS;
            tree_dyn_.reset();
            break;
        }
        case Part::over:
            break;
    }
    part_ = Part::over;
    done = true;
    if (timeline_ != nullptr) timeline_->event(TimelineEvent::end);
    return MPI_SUCCESS;
}

MPI_Request* Execution::requests(int& count) {
    switch (part_) {
        case Part::lanes:
            count = lanes_->request_count();
            return lanes_->requests();
        case Part::schedule:
            count = schedule_.request_count();
            return schedule_.requests();
        case Part::tree_dyn:
            count = tree_dyn_->request_count();
            return tree_dyn_->requests();
        case Part::over:
            break;
    }
    count = 0;
    return nullptr;
}

int Execution::wait(int& polls) {
    if constexpr (kBlockingWaits) {
        int count = 0;
        MPI_Request* requests = this->requests(count);
        int index = MPI_UNDEFINED;
        MPI_Status status;
        REDUX_MPI(MPI_Waitany(count, requests, &index, &status));
        if (index == MPI_UNDEFINED) return MPI_ERR_INTERN;  // nothing in flight, and nothing can move
        if (part_ == Part::tree_dyn) return tree_dyn_->completed(index, status);
    } else if (polls < kPollsBeforeYield) {
        ++polls;
    } else {
        sched_yield();
    }
    return MPI_SUCCESS;
}

void Execution::abandon() {
    switch (part_) {
        case Part::lanes:
            lanes_->abandon();
            break;
        case Part::schedule:
            schedule_.abandon();
            break;
        case Part::tree_dyn:
            tree_dyn_->abandon();
            break;
        case Part::over:
            break;
    }
    part_ = Part::over;
}

int Execution::finish() {
    int rc = MPI_SUCCESS;
    for (int polls = 0; rc == MPI_SUCCESS;) {
        bool moved = false, done = false;
        rc = progress(moved, done);
        if (rc != MPI_SUCCESS || done) break;
        if (moved) {
            polls = 0;
        } else {
            rc = wait(polls);
        }
    }
    if (rc != MPI_SUCCESS) abandon();
    return rc;
}

// Flattened: every step of the runners it reaches is inlined here (exec/ is one translation unit), as a call of a
// few microseconds pays for each call between them.
[[gnu::flatten]] int execute(const ExecPlan& plan, const ExecCall& call, Workspace& workspace) {
    const bool tree = plan.algorithm == FamilyAlgorithm::tree || plan.algorithm == FamilyAlgorithm::arrival_tree;
    if (tree && call.collective == Collective::reduce &&
        sends_alone(*plan.program, plan.segments, call.count)) {  // the one send, waited for at once
        MPI_Request request = MPI_REQUEST_NULL;
        REDUX_MPI(
            MPI_Isend(call.input, call.count, call.datatype, plan.program->parent, tags::tree(0), call.comm, &request));
        const int rc = wait_yielding(request);
        if (rc != MPI_SUCCESS) abandon_send(request);
        return rc;
    }
    Execution execution;
    const int rc = execution.start(plan, call, workspace);
    if (rc != MPI_SUCCESS) {
        execution.abandon();
        return rc;
    }
    return execution.finish();
}

}  // namespace redux
