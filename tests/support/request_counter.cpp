// The counting MPI_ entry points described in request_counter.hpp that start requests, the counts and the fault
// injection; request_completions.cpp has those that complete requests.
#include "request_counter.hpp"

#include <mpi.h>

#include <atomic>
#include <cstddef>

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

}  // namespace

namespace redux_test {

bool fails(Entry entry, int& error) {
    const auto e = static_cast<size_t>(entry);
    if (g_calls_left[e].load(std::memory_order_relaxed) < 0) return false;
    if (g_calls_left[e].fetch_sub(1, std::memory_order_relaxed) != 0) return false;
    error = g_error[e].load(std::memory_order_relaxed);
    g_injected.fetch_add(1, std::memory_order_relaxed);
    return true;
}

void count_completions(long long done) { g_completed.fetch_add(done, std::memory_order_relaxed); }

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
    if (int error = MPI_SUCCESS; redux_test::fails(redux_test::Entry::isend, error)) return error;
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
    if (int error = MPI_SUCCESS; redux_test::fails(redux_test::Entry::irecv, error)) return error;
    return count_started(PMPI_Irecv(buf, count, datatype, source, tag, comm, request), request);
}

}  // extern "C"
