// The counting MPI_ entry points of request_counter.hpp that complete requests (the MPI_Wait and MPI_Test families,
// MPI_Request_free). Each one forwards to PMPI_ and compares the request handles before and after the call, so one
// rule covers every wait and test variant.
#include "request_counter.hpp"

#include <mpi.h>

#include <cstddef>
#include <vector>

namespace {

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
    redux_test::count_completions(done);
    return rc;
}

}  // namespace

extern "C" {

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
    if (int error = MPI_SUCCESS; redux_test::fails(redux_test::Entry::test, error)) return error;
    return count_completed(1, request, [&] { return PMPI_Test(request, flag, status); });
}

int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
    return count_completed(count, requests, [&] { return PMPI_Testall(count, requests, flag, statuses); });
}

int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
    return count_completed(count, requests, [&] { return PMPI_Testany(count, requests, index, flag, status); });
}

int MPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
    if (int error = MPI_SUCCESS; redux_test::fails(redux_test::Entry::testsome, error)) return error;
    return count_completed(incount, requests,
                           [&] { return PMPI_Testsome(incount, requests, outcount, indices, statuses); });
}

int MPI_Request_free(MPI_Request* request) {
    return count_completed(1, request, [&] { return PMPI_Request_free(request); });
}

}  // extern "C"
