// The operations' registry and their progress (operations.hpp). One lock guards both: the application may complete
// requests from several threads (MPI_THREAD_MULTIPLE), and every thread that enters a completion call while
// operations are busy advances them all.
#include "api/operations.hpp"

#include "mpi/mpi_check.hpp"
#include "mpi/yielding.hpp"

#include <algorithm>
#include <mutex>
#include <new>
#include <unordered_map>

namespace redux {

std::atomic<int> g_busy_operations{0};
std::atomic<int> g_operations{0};

namespace {

struct Registry {
    std::recursive_mutex lock;  // the library may call a generalized request's free function inside our calls
    std::unordered_map<MPI_Request, std::unique_ptr<Operation>> by_handle;
    std::vector<Operation*> busy;  // in the order they were started
};

Registry& registry() {
    static Registry* r = new Registry;  // never destroyed: requests may be completed during exit
    return *r;
}

thread_local int t_progress_depth = 0;

// Marks `op`'s handle complete for the library, its execution over (error: its first error).
void end(Operation& op, int error) {
    if (op.trials != nullptr && error == MPI_SUCCESS) op.trials->completed(op.trial, MPI_Wtime() - op.started_s);
    op.error = error;
    op.phase = Operation::Phase::ended;
    if (op.line >= 0 && op.lines->holder(op.line) == &op) op.lines->holder(op.line) = nullptr;
    g_busy_operations.fetch_sub(1, std::memory_order_acq_rel);
    if (op.persistent) {  // the receive posted, then the send it takes at once
        PMPI_Start(&op.handle);
        PMPI_Start(&op.signal);
        PMPI_Wait(&op.signal, MPI_STATUS_IGNORE);
    } else {
        PMPI_Grequest_complete(op.handle);
    }
}

// Starts `op`'s execution if its line is free; else it keeps waiting. Returns an MPI error code.
int try_start(Operation& op) {
    if (op.lines->holder(op.line) != nullptr) return MPI_SUCCESS;
    op.lines->holder(op.line) = &op;
    op.call.comm = op.lines->comm(op.line);
    op.phase = Operation::Phase::running;
    const int rc = op.execution.start(op.exec_plan, op.call, op.workspace);
    if (rc != MPI_SUCCESS) op.execution.abandon();
    return rc;
}

// One step of `op`: start it if it waits, else progress its execution. Returns an MPI error code; `moved`: whether
// it started, did something or ended.
int step_once(Operation& op, bool& moved) {
    if (op.runs_library) {
        // With simulated ranks only block_on_operations' wait completes it: SMPI's nonblocking collective does not
        // complete in a wait after a test has found it incomplete.
        int done = op.library == MPI_REQUEST_NULL;
        if (!kBlockingWaits && !done) REDUX_MPI(PMPI_Test(&op.library, &done, MPI_STATUS_IGNORE));
        if (done) {
            moved = true;
            end(op, MPI_SUCCESS);
        }
        return MPI_SUCCESS;
    }
    if (op.phase == Operation::Phase::waiting) {
        REDUX_MPI(try_start(op));
        if (op.phase == Operation::Phase::waiting) return MPI_SUCCESS;
        moved = true;
    }
    bool done = false;
    const int rc = op.execution.progress(moved, done);
    if (rc != MPI_SUCCESS) {
        op.execution.abandon();
        return rc;
    }
    if (done) {
        moved = true;
        end(op, MPI_SUCCESS);
    }
    return MPI_SUCCESS;
}

// An exception (the executor's allocations) as an MPI error code: steps run inside the application's MPI calls.
template <class Step>
int guarded(Step&& step) noexcept {
    try {
        return step();
    } catch (const std::bad_alloc&) {
        return MPI_ERR_NO_MEM;
    } catch (...) {
        return MPI_ERR_INTERN;
    }
}

int step(Operation& op, bool& moved) noexcept {
    return guarded([&] { return step_once(op, moved); });
}

}  // namespace

Lines::~Lines() {
    for (Line& line : lines_) {
        if (line.comm != MPI_COMM_NULL) PMPI_Comm_free(&line.comm);
    }
}

void Lines::adopt(const MPI_Comm* comms) {
    for (int i = 0; i < kLines; ++i) {
        Line& line = lines_[i];
        line.comm = comms[i];
        if (line.comm != MPI_COMM_NULL) PMPI_Comm_set_errhandler(line.comm, MPI_ERRORS_RETURN);
    }
}

MPI_Comm self_comm() {
    static MPI_Comm self = [] {
        MPI_Comm c = MPI_COMM_NULL;
        if (PMPI_Comm_dup(MPI_COMM_SELF, &c) != MPI_SUCCESS) return MPI_COMM_NULL;
        PMPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        return c;
    }();
    return self;
}

Operation* add_operation(std::unique_ptr<Operation> op) {
    Registry& r = registry();
    std::lock_guard<std::recursive_mutex> hold(r.lock);
    Operation* raw = op.get();
    r.by_handle[op->handle] = std::move(op);
    g_operations.fetch_add(1, std::memory_order_acq_rel);
    return raw;
}

Operation* find_operation(MPI_Request handle) {
    if (handle == MPI_REQUEST_NULL) return nullptr;
    Registry& r = registry();
    std::lock_guard<std::recursive_mutex> hold(r.lock);
    const auto it = r.by_handle.find(handle);
    return it != r.by_handle.end() ? it->second.get() : nullptr;
}

bool operation_busy(MPI_Request handle) {
    const Operation* op = find_operation(handle);
    return op != nullptr && op->busy();
}

void remove_operation(const Operation* op) {
    Registry& r = registry();
    std::lock_guard<std::recursive_mutex> hold(r.lock);
    r.busy.erase(std::remove(r.busy.begin(), r.busy.end(), op), r.busy.end());
    if (r.by_handle.erase(op->handle) != 0) g_operations.fetch_sub(1, std::memory_order_acq_rel);
}

int start_operation(Operation& op) {
    Registry& r = registry();
    std::lock_guard<std::recursive_mutex> hold(r.lock);
    op.line = op.runs_library ? -1 : op.lines->take();
    op.phase = op.runs_library ? Operation::Phase::running : Operation::Phase::waiting;
    op.error = MPI_SUCCESS;
    g_busy_operations.fetch_add(1, std::memory_order_acq_rel);
    r.busy.push_back(&op);
    ++t_progress_depth;
    bool moved = false;
    const int rc = step(op, moved);  // nothing waits before it: it may start at once
    --t_progress_depth;
    if (rc != MPI_SUCCESS) end(op, rc);
    return MPI_SUCCESS;
}

bool progress_operations() {
    Registry& r = registry();
    std::lock_guard<std::recursive_mutex> hold(r.lock);
    ++t_progress_depth;
    bool moved = false;
    // In start order: of two operations waiting for one line, the earlier starts first.
    for (size_t i = 0; i < r.busy.size(); ++i) {
        Operation& op = *r.busy[i];
        if (!op.busy()) continue;  // ended at its start, not yet taken off the list
        const int rc = step(op, moved);
        if (rc != MPI_SUCCESS) {
            moved = true;
            end(op, rc);
        }
    }
    r.busy.erase(std::remove_if(r.busy.begin(), r.busy.end(), [](const Operation* op) { return !op->busy(); }),
                 r.busy.end());
    --t_progress_depth;
    return moved;
}

void block_on_operations() {
    Registry& r = registry();
    std::lock_guard<std::recursive_mutex> hold(r.lock);
    const auto running = std::find_if(r.busy.begin(), r.busy.end(),
                                      [](const Operation* op) { return op->phase == Operation::Phase::running; });
    if (running == r.busy.end()) return;
    Operation& op = **running;
    ++t_progress_depth;
    int rc = MPI_SUCCESS;
    if (op.runs_library) {
        rc = PMPI_Wait(&op.library, MPI_STATUS_IGNORE);  // the next progress finds it complete
    } else {
        int polls = 0;
        rc = guarded([&] { return op.execution.wait(polls); });
        if (rc != MPI_SUCCESS) op.execution.abandon();
    }
    --t_progress_depth;
    if (rc != MPI_SUCCESS) end(op, rc);
}

bool inside_progress() { return t_progress_depth > 0; }

}  // namespace redux
