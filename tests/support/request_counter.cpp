// The counting MPI_ entry points described in request_counter.hpp. Each one forwards to PMPI_ and compares
// the request handles before and after the call, so one rule covers every wait and test variant.
#include "request_counter.hpp"

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <vector>

namespace {

std::atomic<long long> g_started{0};
std::atomic<long long> g_completed{0};

int count_started(int rc, const MPI_Request* request) {
    if (rc == MPI_SUCCESS && *request != MPI_REQUEST_NULL) g_started.fetch_add(1, std::memory_order_relaxed);
    return rc;
}

// Fault injection (request_counter.hpp): per entry, the calls left before the failing one (-1: none armed).
constexpr int kEntries = 4;
std::atomic<int> g_calls_left[kEntries] = {-1, -1, -1, -1};
std::atomic<int> g_error[kEntries] = {MPI_SUCCESS, MPI_SUCCESS, MPI_SUCCESS, MPI_SUCCESS};
std::atomic<long long> g_injected{0};

// True when this call of `entry` must fail (then `error` is what it returns).
bool fails(redux_test::Entry entry, int& error) {
    const auto e = static_cast<size_t>(entry);
    if (g_calls_left[e].load(std::memory_order_relaxed) < 0) return false;
    if (g_calls_left[e].fetch_sub(1, std::memory_order_relaxed) != 0) return false;
    error = g_error[e].load(std::memory_order_relaxed);
    g_injected.fetch_add(1, std::memory_order_relaxed);
    return true;
}

// The handles before a call, one vector for every wrapper of the thread, with room for more requests than any
// libredux call tests at once: the allocation test counts every operator new in a call, this file's too, and a
// wrapper first used, or a call testing more requests than any before, would allocate.
std::vector<MPI_Request>& handles_before() {
    thread_local std::vector<MPI_Request> before = [] {
        std::vector<MPI_Request> v;
        v.reserve(4096);
        return v;
    }();
    return before;
}

// Runs `call` on `count` requests and counts those whose handles it turned into MPI_REQUEST_NULL.
template <typename Call>
int count_completed(int count, MPI_Request* requests, Call call) {
    std::vector<MPI_Request>& before = handles_before();
    before.assign(requests, requests + (count > 0 ? count : 0));
    const int rc = call();
    long long done = 0;
    for (int i = 0; i < count; ++i) {
        if (before[static_cast<size_t>(i)] != MPI_REQUEST_NULL && requests[i] == MPI_REQUEST_NULL) ++done;
    }
    g_completed.fetch_add(done, std::memory_order_relaxed);
    return rc;
}

}  // namespace

namespace redux_test {

RequestCounts request_counts() {
    return {g_started.load(std::memory_order_relaxed), g_completed.load(std::memory_order_relaxed)};
}

void inject_failure(Entry entry, int calls_before, int error) {
    const auto e = static_cast<size_t>(entry);
    g_error[e].store(error, std::memory_order_relaxed);
    g_calls_left[e].store(calls_before, std::memory_order_relaxed);
}

long long injected_failures() { return g_injected.load(std::memory_order_relaxed); }

}  // namespace redux_test

extern "C" {

int MPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
    if (int error = MPI_SUCCESS; fails(redux_test::Entry::isend, error)) return error;
    return count_started(PMPI_Isend(buf, count, datatype, dest, tag, comm, request), request);
}

int MPI_Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
    return count_started(PMPI_Issend(buf, count, datatype, dest, tag, comm, request), request);
}

int MPI_Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
    return count_started(PMPI_Ibsend(buf, count, datatype, dest, tag, comm, request), request);
}

int MPI_Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
    return count_started(PMPI_Irsend(buf, count, datatype, dest, tag, comm, request), request);
}

int MPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request* request) {
    if (int error = MPI_SUCCESS; fails(redux_test::Entry::irecv, error)) return error;
    return count_started(PMPI_Irecv(buf, count, datatype, source, tag, comm, request), request);
}

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
    return count_completed(1, request, [&] { return PMPI_Wait(request, status); });
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
    return count_completed(count, requests, [&] { return PMPI_Waitall(count, requests, statuses); });
}

int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
    return count_completed(count, requests, [&] { return PMPI_Waitany(count, requests, index, status); });
}

int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
    return count_completed(incount, requests,
                           [&] { return PMPI_Waitsome(incount, requests, outcount, indices, statuses); });
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
    if (int error = MPI_SUCCESS; fails(redux_test::Entry::test, error)) return error;
    return count_completed(1, request, [&] { return PMPI_Test(request, flag, status); });
}

int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
    return count_completed(count, requests, [&] { return PMPI_Testall(count, requests, flag, statuses); });
}

int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
    return count_completed(count, requests, [&] { return PMPI_Testany(count, requests, index, flag, status); });
}

int MPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
    if (int error = MPI_SUCCESS; fails(redux_test::Entry::testsome, error)) return error;
    return count_completed(incount, requests,
                           [&] { return PMPI_Testsome(incount, requests, outcount, indices, statuses); });
}

int MPI_Request_free(MPI_Request* request) {
    return count_completed(1, request, [&] { return PMPI_Request_free(request); });
}

}  // extern "C"
