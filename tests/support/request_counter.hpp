// Counts the nonblocking point-to-point requests this process starts and completes (KaMPIng counts PMPI calls
// in its tests the same way).
//
// request_counter.cpp defines the MPI_ entry points that start requests (MPI_Isend and its siblings, MPI_Irecv),
// request_completions.cpp those that complete them (the MPI_Wait and MPI_Test families, MPI_Request_free); each
// forwards to its PMPI_ twin. A test of libredux's own completion calls links the first half only
// (redux_request_starts), for its fault injection on isend and irecv. Linked into a test executable, these definitions
// win over the MPI library's for every caller in the process, libredux.so included (it calls the MPI_ names so that
// tools can intercept them). A request counts as started when a start call returns it, and as completed when a wait or
// test call turns its handle into MPI_REQUEST_NULL or MPI_Request_free releases it; persistent requests are not
// counted.
//
// The tests' own synchronisation calls the PMPI_ functions directly, so the counts are libredux's alone.
#pragma once

namespace redux_test {

struct RequestCounts {
    long long started = 0;
    long long completed = 0;
};

RequestCounts request_counts();

// Fault injection: after `calls_before` more calls of `entry` in this process, the next one returns `error`
// without calling MPI (request handles untouched), once. For testing what libredux does with an MPI error
// midway. injected_failures() counts the failures handed out so far.
enum class Entry { irecv, isend, test, testsome };
void inject_failure(Entry entry, int calls_before, int error);
long long injected_failures();

// Shared by the two halves of the counter (request_counter.cpp starts, request_completions.cpp completions): true
// when this call of `entry` must fail (then `error` is what it returns); counts completed requests.
bool fails(Entry entry, int& error);
void count_completions(long long done);

}  // namespace redux_test
