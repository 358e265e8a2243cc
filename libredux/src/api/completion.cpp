// The application's completion calls (MPI_Wait, MPI_Test and their families, MPI_Request_get_status) and the calls
// on persistent requests (MPI_Start, MPI_Startall, MPI_Request_free), where libredux's operations may be among the
// requests (operations.hpp). Where none exists, each is the library's own call. Else each first advances every
// busy operation (a bounded amount of work each), then hands the library the requests with every busy operation's
// masked as MPI_REQUEST_NULL; a wait does so in a loop that polls and then yields the core, as the executor's
// waits do, so that the operations progress while the application waits for anything (with simulated ranks it
// blocks instead, on the operations' requests: operations.hpp).
//
// A finished operation's handle is the library's completed request (operations.hpp), whose completion never fails:
// its status is made empty (MPI_SOURCE = MPI_ANY_SOURCE, MPI_TAG = MPI_ANY_TAG, MPI 4.0, 3.7.3), and an error of
// the execution goes through the user's communicator's error handler, not the library's (a generalized request's
// errors go to MPI_COMM_SELF's, fatal by default).
#include "api/operations.hpp"
#include "api/raw_call.h"
#include "mpi/yielding.hpp"
#include "redux/redux.h"

#include <sched.h>

#include <vector>

namespace redux {
namespace {

// Between two rounds of a wait: polls, then yields the core. With simulated ranks (kBlockingWaits), where time
// passes only while every rank blocks, it blocks until a request of the operations completes, unless the round
// (`moved`) did something.
void pause(int& polls, bool moved) {
    if constexpr (kBlockingWaits) {
        if (!moved) block_on_operations();
    } else if (polls < kPollsBeforeYield) {
        ++polls;
    } else {
        sched_yield();
    }
}

// Calls the library's own: nothing of libredux's is among the requests or needs progress (the common case first:
// the executor's own tests pass here on every poll, and the thread-local costs a call of __tls_get_addr).
bool pass_through() { return !operations_exist() || inside_progress(); }

bool any_busy(int count, const MPI_Request* requests) {
    for (int i = 0; i < count; ++i) {
        if (operation_busy(requests[i])) return true;
    }
    return false;
}

// What the completion of a request means for libredux, taken before the library completes it: a nonblocking
// operation is deleted while the library frees its handle.
struct Ending {
    Operation* op = nullptr;  // null: not an operation; else to be dereferenced only if persistent
    bool persistent = false;
    int error = MPI_SUCCESS;  // the execution's
    MPI_Comm comm = MPI_COMM_NULL;
};

Ending ending_of(Operation* op) {
    if (op == nullptr) return {};
    return {op, op->persistent, op->error, op->user_comm};
}
Ending ending_of(MPI_Request handle) { return ending_of(find_operation(handle)); }

// ending_of() for each of `count` requests, in the thread's copy.
const Ending* endings(int count, const MPI_Request* requests) {
    thread_local std::vector<Ending> copy;
    copy.resize(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) copy[static_cast<size_t>(i)] = ending_of(requests[i]);
    return copy.data();
}

// `requests` in the thread's copy, busy operations as MPI_REQUEST_NULL (`busy`: whether there was one), and in
// `ends` each request's ending_of(), from one lookup per request.
MPI_Request* masked(int count, const MPI_Request* requests, bool& busy, const Ending*& ends) {
    thread_local std::vector<MPI_Request> copy;
    thread_local std::vector<Ending> copy_ends;
    copy.assign(requests, requests + count);
    copy_ends.assign(static_cast<size_t>(count), Ending{});
    busy = false;
    for (int i = 0; i < count; ++i) {
        Operation* op = find_operation(requests[i]);
        if (op == nullptr) continue;
        if (op->busy()) {
            copy[static_cast<size_t>(i)] = MPI_REQUEST_NULL;
            busy = true;
        } else {
            copy_ends[static_cast<size_t>(i)] = ending_of(op);
        }
    }
    ends = copy_ends.data();
    return copy.data();
}

// After the library completed an operation's handle with `status` (rc its code): the status made empty, a persistent
// operation made inactive, an execution's error reported through the user's communicator's error handler and
// returned (the library's handle itself always completes without error).
int settle(const Ending& e, MPI_Status* status, int rc) {
    if (e.op == nullptr) return rc;
    if (e.persistent) {
        e.op->phase = Operation::Phase::idle;
        e.op->error = MPI_SUCCESS;
    }
    clear_source_and_tag(status);
    if (rc != MPI_SUCCESS || e.error == MPI_SUCCESS) return rc;
    if (status != MPI_STATUS_IGNORE && status != MPI_STATUSES_IGNORE) status->MPI_ERROR = e.error;
    MPI_Comm_call_errhandler(e.comm, e.error);
    return e.error;
}

// settle() for each request the library completed in a call on several (`indices`; null: all `count`): an
// operation's error makes the call's code MPI_ERR_IN_STATUS, its status saying which (MPI 4.0, 3.7.5).
int settle_all(int count, const Ending* ends, const int* indices, MPI_Status* statuses, int rc) {
    for (int k = 0; k < count; ++k) {
        const int i = indices != nullptr ? indices[k] : k;
        const int r = settle(ends[i], statuses != MPI_STATUSES_IGNORE ? &statuses[k] : MPI_STATUS_IGNORE, rc);
        if (rc == MPI_SUCCESS && r != MPI_SUCCESS) rc = MPI_ERR_IN_STATUS;
    }
    return rc;
}

int wait(MPI_Request* request, MPI_Status* status) {
    const MPI_Request handle = *request;
    for (int polls = 0; operations_busy();) {
        const bool moved = progress_operations();
        if (!operation_busy(handle)) {
            const Ending e = ending_of(handle);
            int flag = 0;
            const int rc = PMPI_Test(request, &flag, status);
            if (rc != MPI_SUCCESS || flag) return settle(e, status, rc);
        }
        pause(polls, moved);
    }
    const Ending e = ending_of(handle);
    return settle(e, status, PMPI_Wait(request, status));
}

int test(MPI_Request* request, int* flag, MPI_Status* status) {
    progress_operations();
    if (operation_busy(*request)) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    const Ending e = ending_of(*request);
    const int rc = PMPI_Test(request, flag, status);
    return *flag ? settle(e, status, rc) : rc;
}

// Once none of the requests is a busy operation, the library's own wait (not MPI_Testall in the loop: MPICH 4.0's
// reports MPI_ERR_IN_STATUS, every status MPI_SUCCESS, for one of its own persistent collectives among them).
// Operations not among the requests then wait, as in any other blocking MPI call (docs/usage.md, "Progress").
int waitall(int count, MPI_Request* requests, MPI_Status* statuses) {
    for (int polls = 0; operations_busy() && any_busy(count, requests);) pause(polls, progress_operations());
    const Ending* ends = endings(count, requests);
    return settle_all(count, ends, nullptr, statuses, PMPI_Waitall(count, requests, statuses));
}

int testall(int count, MPI_Request* requests, int* flag, MPI_Status* statuses) {
    progress_operations();
    if (any_busy(count, requests)) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    const Ending* ends = endings(count, requests);
    const int rc = PMPI_Testall(count, requests, flag, statuses);
    return *flag ? settle_all(count, ends, nullptr, statuses, rc) : rc;
}

// Testany on the masked requests; a request it completed is written back. `flag`: the answer for the caller (an
// operation still busy means not every request is inactive).
int testany_masked(int count, MPI_Request* requests, int* index, int* flag, MPI_Status* status) {
    bool busy = false;
    const Ending* ends = nullptr;
    MPI_Request* m = masked(count, requests, busy, ends);
    const int rc = PMPI_Testany(count, m, index, flag, status);
    if (rc != MPI_SUCCESS) return rc;
    if (*index != MPI_UNDEFINED) {
        requests[*index] = m[*index];
        return settle(ends[*index], status, rc);
    }
    if (busy) *flag = 0;
    return rc;
}

int waitany(int count, MPI_Request* requests, int* index, MPI_Status* status) {
    for (int polls = 0; operations_busy();) {
        const bool moved = progress_operations();
        int flag = 0;
        const int rc = testany_masked(count, requests, index, &flag, status);
        if (rc != MPI_SUCCESS || flag) return rc;
        pause(polls, moved);
    }
    const Ending* ends = endings(count, requests);
    const int rc = PMPI_Waitany(count, requests, index, status);
    return *index != MPI_UNDEFINED ? settle(ends[*index], status, rc) : rc;
}

int testany(int count, MPI_Request* requests, int* index, int* flag, MPI_Status* status) {
    progress_operations();
    return testany_masked(count, requests, index, flag, status);
}

// Testsome on the masked requests, completed ones written back; outcount MPI_UNDEFINED only when every request is
// inactive and no operation busy.
int testsome_masked(int count, MPI_Request* requests, int* outcount, int* indices, MPI_Status* statuses) {
    bool busy = false;
    const Ending* ends = nullptr;
    MPI_Request* m = masked(count, requests, busy, ends);
    const int rc = PMPI_Testsome(count, m, outcount, indices, statuses);
    if (*outcount == MPI_UNDEFINED) {
        if (busy) *outcount = 0;
        return rc;
    }
    for (int k = 0; k < *outcount; ++k) requests[indices[k]] = m[indices[k]];
    return settle_all(*outcount, ends, indices, statuses, rc);
}

int waitsome(int count, MPI_Request* requests, int* outcount, int* indices, MPI_Status* statuses) {
    for (int polls = 0; operations_busy();) {
        const bool moved = progress_operations();
        const int rc = testsome_masked(count, requests, outcount, indices, statuses);
        if (rc != MPI_SUCCESS || *outcount != 0) return rc;
        pause(polls, moved);
    }
    const Ending* ends = endings(count, requests);
    const int rc = PMPI_Waitsome(count, requests, outcount, indices, statuses);
    return *outcount != MPI_UNDEFINED ? settle_all(*outcount, ends, indices, statuses, rc) : rc;
}

int testsome(int count, MPI_Request* requests, int* outcount, int* indices, MPI_Status* statuses) {
    progress_operations();
    return testsome_masked(count, requests, outcount, indices, statuses);
}

int request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
    progress_operations();
    if (operation_busy(request)) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    const int rc = PMPI_Request_get_status(request, flag, status);
    Operation* op = find_operation(request);
    if (*flag && op != nullptr && op->persistent) clear_source_and_tag(status);
    return rc;
}

// MPI_ERR_REQUEST through the operation's communicator's handler: a persistent request started while active (not
// completed since its last start), or freed while running.
int active_request(const Operation& op) {
    MPI_Comm_call_errhandler(op.user_comm, MPI_ERR_REQUEST);
    return MPI_ERR_REQUEST;
}

int start(MPI_Request* request) {
    Operation* op = find_operation(*request);
    if (op == nullptr) return PMPI_Start(request);
    if (op->phase != Operation::Phase::idle) return active_request(*op);  // running, or not completed since
    const int rc = start_operation(*op);
    if (rc != MPI_SUCCESS) MPI_Comm_call_errhandler(op->user_comm, rc);
    return rc;
}

int request_free(MPI_Request* request) {
    Operation* op = find_operation(*request);
    if (op == nullptr || !op->persistent) return PMPI_Request_free(request);
    if (op->busy()) return active_request(*op);
    const int rc = PMPI_Request_free(request);
    PMPI_Request_free(&op->signal);
    remove_operation(op);
    return rc;
}

}  // namespace
}  // namespace redux

using redux::pass_through;

extern "C" {

int redux_wait_raw(void* request, void* status) {
    auto* r = static_cast<MPI_Request*>(request);
    auto* s = static_cast<MPI_Status*>(status);
    return pass_through() ? PMPI_Wait(r, s) : redux::wait(r, s);
}

int redux_test_raw(void* request, int* flag, void* status) {
    auto* r = static_cast<MPI_Request*>(request);
    auto* s = static_cast<MPI_Status*>(status);
    return pass_through() ? PMPI_Test(r, flag, s) : redux::test(r, flag, s);
}

int redux_waitall_raw(int count, void* requests, void* statuses) {
    auto* r = static_cast<MPI_Request*>(requests);
    auto* s = static_cast<MPI_Status*>(statuses);
    return pass_through() ? PMPI_Waitall(count, r, s) : redux::waitall(count, r, s);
}

int redux_testall_raw(int count, void* requests, int* flag, void* statuses) {
    auto* r = static_cast<MPI_Request*>(requests);
    auto* s = static_cast<MPI_Status*>(statuses);
    return pass_through() ? PMPI_Testall(count, r, flag, s) : redux::testall(count, r, flag, s);
}

int redux_waitany_raw(int count, void* requests, int* index, void* status) {
    auto* r = static_cast<MPI_Request*>(requests);
    auto* s = static_cast<MPI_Status*>(status);
    return pass_through() ? PMPI_Waitany(count, r, index, s) : redux::waitany(count, r, index, s);
}

int redux_testany_raw(int count, void* requests, int* index, int* flag, void* status) {
    auto* r = static_cast<MPI_Request*>(requests);
    auto* s = static_cast<MPI_Status*>(status);
    return pass_through() ? PMPI_Testany(count, r, index, flag, s) : redux::testany(count, r, index, flag, s);
}

int redux_waitsome_raw(int count, void* requests, int* outcount, int* indices, void* statuses) {
    auto* r = static_cast<MPI_Request*>(requests);
    auto* s = static_cast<MPI_Status*>(statuses);
    return pass_through() ? PMPI_Waitsome(count, r, outcount, indices, s)
                          : redux::waitsome(count, r, outcount, indices, s);
}

int redux_testsome_raw(int count, void* requests, int* outcount, int* indices, void* statuses) {
    auto* r = static_cast<MPI_Request*>(requests);
    auto* s = static_cast<MPI_Status*>(statuses);
    return pass_through() ? PMPI_Testsome(count, r, outcount, indices, s)
                          : redux::testsome(count, r, outcount, indices, s);
}

int redux_request_get_status_raw(redux_raw_handle request, int* flag, void* status) {
    const auto r = (MPI_Request)request;
    auto* s = static_cast<MPI_Status*>(status);
    return pass_through() ? PMPI_Request_get_status(r, flag, s) : redux::request_get_status(r, flag, s);
}

int redux_start_raw(void* request) {
    auto* r = static_cast<MPI_Request*>(request);
    return pass_through() ? PMPI_Start(r) : redux::start(r);
}

int redux_startall_raw(int count, void* requests) {
    auto* r = static_cast<MPI_Request*>(requests);
    if (pass_through()) return PMPI_Startall(count, r);
    for (int i = 0; i < count; ++i) {
        const int rc = redux::start(&r[i]);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

int redux_request_free_raw(void* request) {
    auto* r = static_cast<MPI_Request*>(request);
    return pass_through() ? PMPI_Request_free(r) : redux::request_free(r);
}

int redux_request_wait(MPI_Request* request, MPI_Status* status) { return redux_wait_raw(request, status); }
int redux_request_test(MPI_Request* request, int* flag, MPI_Status* status) {
    return redux_test_raw(request, flag, status);
}
int redux_request_start(MPI_Request* request) { return redux_start_raw(request); }
int redux_request_free(MPI_Request* request) { return redux_request_free_raw(request); }

}  // extern "C"
