// Nonblocking and persistent reductions that libredux runs (MPI_Iallreduce, MPI_Allreduce_init, ...): each is an
// Operation, found by the MPI_Request the application holds, and advanced by progress_operations() inside the
// application's completion calls (api/completion.cpp) with the executor's progress(), which never waits.
//
// The handle the application holds is an MPI request of the library's own, so that every completion call can be
// handed to the library once libredux's part is over:
//   - nonblocking: a generalized request (MPI_Grequest_start), completed when the execution ends and freed by
//     the application's wait or test (its free function deletes the operation);
//   - persistent: a persistent receive on a duplicate of MPI_COMM_SELF, inactive while the operation is inactive or
//     running, and started when the execution ends together with its persistent send of no data, which it
//     receives at once (MPICH 4.0 takes a started receive from MPI_PROC_NULL for an inactive request in
//     MPI_Testany, MPI_Waitany and MPI_Waitsome); MPI_Request_free frees them.
// While an operation runs, a completion call never hands its handle to the library (a persistent request would
// look inactive, a generalized one would block it): completion.cpp masks it.
//
// An operation may also run the library's own nonblocking call, while auto weighs the key's nonblocking calls
// (api/nonblocking_auto.hpp): it is then timed as the others are, and its progress tests the library's request.
//
// Messages: several operations may be in flight on one communicator, started in the same order on every rank
// (MPI 4.0, 6.12) and finished in any order. Operation i on a communicator runs on line i mod kLines, a
// communicator of its own, duplicated with the communicator's state (create_comm_state), and starts once the line's
// previous operation has ended at this rank. One line carries one operation at a time in the same order on every rank,
// as the private communicator carries the blocking calls, so no message meets another operation's receive.
#pragma once

#include "api/comm_state.hpp"
#include "exec/execution.hpp"

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace redux {

struct Operation;

// The communicators one user communicator's operations run on, in turn. Shared by the communicator's state and
// by every persistent request made on it; the last owner frees them.
class Lines {
public:
    static constexpr int kLines = 2;

    Lines() = default;
    Lines(const Lines&) = delete;
    Lines& operator=(const Lines&) = delete;
    ~Lines();

    // Takes kLines communicators (duplicates of the user's, made with the communicator's state), errors returned.
    void adopt(const MPI_Comm* comms);
    // The line the next operation started on the communicator runs on.
    int take() { return static_cast<int>(started_++ % kLines); }
    MPI_Comm comm(int line) const { return lines_[static_cast<size_t>(line)].comm; }
    Operation*& holder(int line) { return lines_[static_cast<size_t>(line)].holder; }

private:
    struct Line {
        MPI_Comm comm = MPI_COMM_NULL;
        Operation* holder = nullptr;  // the operation running on it
    };
    Line lines_[kLines];
    uint64_t started_ = 0;
};

// What an operation runs, copied from the key's plan at its making: plans may be evicted, operations live on.
struct OperationPlan {
    PlannedTree tree;
    ExecKnobs knobs;
    int64_t op_piece_bytes = 0;
    bool commutative = true;
    ElementLayout layout;
    Costs costs;  // what the plan was made with
};

struct Operation {
    enum class Phase : uint8_t { idle, waiting, running, ended };  // waiting: for its line

    MPI_Request handle = MPI_REQUEST_NULL;  // the application's
    MPI_Request signal = MPI_REQUEST_NULL;  // persistent: the send that completes handle
    bool persistent = false;
    Phase phase = Phase::idle;
    int error = MPI_SUCCESS;  // the execution's, reported when the application completes it
    MPI_Comm user_comm = MPI_COMM_NULL;
    std::shared_ptr<Lines> lines;
    int line = -1;
    OperationPlan plan;
    ExecPlan exec_plan;  // points into plan
    ExecCall call;       // comm: the line's, set at each start
    Workspace workspace;
    Execution execution;
    // A call auto weighs (api/nonblocking_auto.hpp): its time from `started_s` (MPI_Wtime) to its end goes to
    // `trials` as call `trial`. Where it is the library's own call, `library` is that call's request (on the
    // communicator's private duplicate, started by the maker), and no line or execution runs.
    std::shared_ptr<NonblockingTrials> trials;
    int trial = -1;
    double started_s = 0;
    bool runs_library = false;
    MPI_Request library = MPI_REQUEST_NULL;

    bool busy() const { return phase == Phase::waiting || phase == Phase::running; }
};

// Operations that are waiting or running, in this process: completion calls pass straight to the library while
// there are none.
extern __attribute__((visibility("hidden"))) std::atomic<int> g_busy_operations;
extern __attribute__((visibility("hidden"))) std::atomic<int> g_operations;  // registered
inline bool operations_busy() { return g_busy_operations.load(std::memory_order_acquire) > 0; }
inline bool operations_exist() { return g_operations.load(std::memory_order_acquire) > 0; }

// Makes `status` (unless ignored) say what a collective's status says: no source, no tag (MPI 4.0, 3.7.3).
inline void clear_source_and_tag(MPI_Status* status) {
    if (status == MPI_STATUS_IGNORE || status == MPI_STATUSES_IGNORE) return;
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
}

// The communicator of the persistent handles' messages to self (a duplicate of MPI_COMM_SELF, made on first use);
// MPI_COMM_NULL if it could not be made.
MPI_Comm self_comm();

// Registers `op` (its handle made by the caller) and returns it.
Operation* add_operation(std::unique_ptr<Operation> op);
// The operation whose application handle is `handle`, or null.
Operation* find_operation(MPI_Request handle);
// Whether `handle` is an operation that is waiting or running.
bool operation_busy(MPI_Request handle);
// Forgets `op` (its handle freed by the caller or by the library).
void remove_operation(const Operation* op);

// Starts `op` (idle): takes its line and, if the line is ready, starts its execution. Returns an MPI error code.
int start_operation(Operation& op);
// Advances every busy operation once: a bounded amount of work each, never a wait. Returns whether any started, did
// something or ended.
bool progress_operations();
// Waits for the earliest started running operation's next completed request (Execution::wait). With simulated ranks
// the completion calls wait this way, since time passes there only while every rank blocks: it cannot deadlock, as
// every rank starts the operations in the same order and a rank's part of an operation is over only once its
// sends are, so the earliest operation still running anywhere runs at every rank that it needs.
void block_on_operations();

// Whether the calling thread is inside libredux's own progress: the completion calls the executor makes then go
// straight to the library.
bool inside_progress();

}  // namespace redux
