// The executor's one entry: a plan's part at this rank (ExecPlan) run for one call (ExecCall). An Execution
// starts the call and then advances it step by step: progress() never waits, so a call can be resumed from
// anywhere; execute() is a blocking call made of them. See execution.cpp.
#pragma once

#include "exec/call.hpp"
#include "exec/exchanges.hpp"
#include "exec/lanes.hpp"
#include "exec/schedule.hpp"
#include "exec/timeline.hpp"
#include "exec/tree_dyn.hpp"
#include "exec/workspace.hpp"
#include "plan/family.hpp"
#include "plan/planner.hpp"
#include "policy/config.hpp"

#include <mpi.h>

#include <cstdint>
#include <optional>

namespace redux {

// What a plan says this rank runs.
struct ExecPlan {
    FamilyAlgorithm algorithm = FamilyAlgorithm::tree;
    const RankProgram* program = nullptr;  // a tree's: this rank's program
    int segments = 1;                      // a tree's: the vector cut into this many pipelined pieces
    const SpreadRole* spread = nullptr;    // an allreduce's or reduce-scatter-block's tree: its second phase
    const DynBatches* batches = nullptr;   // tree-dyn's
    ExecKnobs knobs;
    int64_t least_piece_bytes = 0;  // recursive halving's pieces' floor (family_pieces, plan/family.hpp)
    int64_t flight_bytes = 0;       // and what it sends ahead of its partner's pieces (family_window)
    int late_rank = -1;             // late-rank's: the rank expected last
};

class Execution {
public:
    Execution() = default;
    Execution(const Execution&) = delete;
    Execution& operator=(const Execution&) = delete;

    // Starts `call` as `plan` says, with `workspace`'s buffers; everything given must outlive the execution.
    // Returns an MPI error code (MPI_ERR_TAG for a program with more trees than tags::kMostTrees).
    int start(const ExecPlan& plan, const ExecCall& call, Workspace& workspace);
    // Does what can be done now without waiting: posts, takes what has completed, folds a bounded amount (moved:
    // something did). done once this rank's part of the call is over.
    int progress(bool& moved, bool& done);
    // Waits for something to happen: polls, yielding the core after kPollsBeforeYield polls; under SMPI blocks
    // until a request in flight completes.
    int wait(int& polls);
    // After an error: every request posted finished.
    void abandon();
    // Progress and wait until done (after start); on error every request posted is finished.
    int finish();

private:
    int start_tree();
    int start_schedule();
    MPI_Request* requests(int& count);

    enum class Part : uint8_t { lanes, schedule, tree_dyn, over };
    Part part_ = Part::over;
    const ExecPlan* plan_ = nullptr;
    const ExecCall* call_ = nullptr;
    ExecCall tree_call_;  // a tree's phase of an allreduce or reduce-scatter-block: the reduction to rank 0
    Workspace* ws_ = nullptr;
    std::optional<LaneRunner> lanes_;
    ScheduleRunner schedule_;
    std::optional<TreeDyn> tree_dyn_;
    Timeline* timeline_ = nullptr;  // recording this call (REDUX_TIMELINE), or null
};

// Runs `call` as `plan` says to its end: start, then progress and wait until done. Returns an MPI error code; on
// error every request it posted is finished.
int execute(const ExecPlan& plan, const ExecCall& call, Workspace& workspace);

}  // namespace redux
