// One job of wisdom_test.sh: four keys under auto, each result checked against the test's own sum. With `decide`
// every key is called until libredux reports it decided (redux_call_info.deciding 0; AutoSelect::kMaxCallsToDecide
// calls at most); with `start` 20 calls each.
// Rank 0 prints, per key, what ran on each of its first 10 calls (the algorithm's number from redux_call_info,
// -1 for the library's own): wisdom_test.sh compares it with the wisdom file.
//   K1  MPI_Reduce       MPI_DOUBLE, MPI_SUM,            1000 + shift elements, root size - 1
//   K2  MPI_Allreduce    MPI_DOUBLE, MPI_SUM,            3000 + shift elements
//   K3  MPI_Reduce       MPI_DOUBLE, wisdom_named_sum,    700 + shift elements, root 0 (a function the program
//                                                        exports: the wisdom file names it)
//   K4  MPI_Reduce       MPI_DOUBLE, a static function,   600 + shift elements, root 0 (no symbol: never kept)
//   K5  MPI_Allreduce    MPI_DOUBLE, MPI_SUM,            2000 + shift elements, `nonblocking` only: blocking calls
//                                                        until decided, then rounds of three MPI_Iallreduce and a
//                                                        blocking call (where the ranks agree on their times) until
//                                                        a nonblocking call is no longer weighed; rank 0 prints
//                                                        "K5 ROUNDS"
//   wisdom_driver decide|start|nonblocking [shift]
#include "policy/auto_select.hpp"

#include <redux/redux.h>

#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" void wisdom_named_sum(void* in, void* inout, int* len, MPI_Datatype*) {
    for (int i = 0; i < *len; ++i) static_cast<double*>(inout)[i] += static_cast<const double*>(in)[i];
}

namespace {

void static_sum(void* in, void* inout, int* len, MPI_Datatype*) {
    for (int i = 0; i < *len; ++i) static_cast<double*>(inout)[i] += static_cast<const double*>(in)[i];
}

int g_failures = 0;

// One call of the key; the result against sum over ranks r of (r + 1) * (i % 7 + 1).
void call(bool allreduce, int count, MPI_Op op, int root, int rank, int size, int& ran, bool& deciding) {
    std::vector<double> send(static_cast<size_t>(count)), recv(static_cast<size_t>(count), -1.0);
    for (int i = 0; i < count; ++i) send[static_cast<size_t>(i)] = (rank + 1.0) * (i % 7 + 1);
    redux_call_info info{};
    const int rc =
        allreduce
            ? redux_allreduce_ex(send.data(), recv.data(), count, MPI_DOUBLE, op, MPI_COMM_WORLD, nullptr, &info)
            : redux_reduce_ex(send.data(), recv.data(), count, MPI_DOUBLE, op, root, MPI_COMM_WORLD, nullptr, &info);
    if (rc != MPI_SUCCESS) {
        std::fprintf(stderr, "rank %d: call failed (%d)\n", rank, rc);
        ++g_failures;
    }
    ran = info.planned != 0 ? static_cast<int>(info.algorithm) : -1;
    deciding = info.deciding != 0;
    if (!allreduce && rank != root) return;
    const double ranks = size * (size + 1) / 2.0;
    for (int i = 0; i < count; ++i) {
        const double want = ranks * (i % 7 + 1);
        if (std::fabs(recv[static_cast<size_t>(i)] - want) > 1e-9 * want) {
            std::fprintf(stderr, "rank %d: element %d is %g, not %g\n", rank, i, recv[static_cast<size_t>(i)], want);
            ++g_failures;
            return;
        }
    }
}

// One nonblocking call of K5, waited for and checked as call() checks; returns redux_request_info's deciding.
bool nonblocking_call(int count, int rank, int size) {
    std::vector<double> send(static_cast<size_t>(count)), recv(static_cast<size_t>(count), -1.0);
    for (int i = 0; i < count; ++i) send[static_cast<size_t>(i)] = (rank + 1.0) * (i % 7 + 1);
    MPI_Request request = MPI_REQUEST_NULL;
    if (MPI_Iallreduce(send.data(), recv.data(), count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &request) != MPI_SUCCESS) {
        ++g_failures;
        return false;
    }
    redux_call_info info{};
    redux_request_info(request, &info);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    const double ranks = size * (size + 1) / 2.0;
    for (int i = 0; i < count; ++i) {
        const double want = ranks * (i % 7 + 1);
        if (std::fabs(recv[static_cast<size_t>(i)] - want) > 1e-9 * want) {
            std::fprintf(stderr, "rank %d: nonblocking element %d is %g, not %g\n", rank, i,
                         recv[static_cast<size_t>(i)], want);
            ++g_failures;
            break;
        }
    }
    return info.deciding != 0;
}

// K5: rounds of three nonblocking calls and a blocking one, after the blocking calls have decided; the rounds until
// a nonblocking call is no longer weighed (at most 40).
int nonblocking_rounds(int count, int rank, int size) {
    bool deciding = true;
    int ran = 0;
    for (int c = 0; c < redux::AutoSelect::kMaxCallsToDecide + 4 && deciding; ++c) {
        call(true, count, MPI_SUM, 0, rank, size, ran, deciding);
    }
    int rounds = 0;
    for (bool weighed = true; weighed && rounds < 40; ++rounds) {
        weighed = false;
        for (int k = 0; k < 3; ++k) weighed = nonblocking_call(count, rank, size) || weighed;
        call(true, count, MPI_SUM, 0, rank, size, ran, deciding);
    }
    return rounds;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const bool decide = argc > 1 && std::strcmp(argv[1], "decide") == 0;
    const int shift = argc > 2 ? std::atoi(argv[2]) : 0;
    MPI_Op named = MPI_OP_NULL, unnamed = MPI_OP_NULL;
    MPI_Op_create(wisdom_named_sum, 1, &named);
    MPI_Op_create(static_sum, 1, &unnamed);
    struct Key {
        const char* name;
        bool allreduce;
        int count;
        MPI_Op op;
        int root;
    } keys[] = {{"K1", false, 1000 + shift, MPI_SUM, size - 1},
                {"K2", true, 3000 + shift, MPI_SUM, 0},
                {"K3", false, 700 + shift, named, 0},
                {"K4", false, 600 + shift, unnamed, 0}};
    const int calls = decide ? redux::AutoSelect::kMaxCallsToDecide + 4 : 20;
    if (argc > 1 && std::strcmp(argv[1], "nonblocking") == 0) {
        const int rounds = nonblocking_rounds(2000 + shift, rank, size);
        if (rank == 0) std::printf("K5 %d\n", rounds);
    }
    for (const Key& key : keys) {
        if (argc > 1 && std::strcmp(argv[1], "nonblocking") == 0) break;
        std::string ran_first;
        bool deciding = true;
        for (int c = 0; c < calls && (deciding || !decide); ++c) {
            int ran = 0;
            call(key.allreduce, key.count, key.op, key.root, rank, size, ran, deciding);
            if (c < 10) ran_first += (c == 0 ? "" : ",") + std::to_string(ran);
        }
        if (rank == 0) std::printf("%s %s\n", key.name, ran_first.c_str());
    }
    MPI_Op_free(&named);
    MPI_Op_free(&unnamed);
    int failures = 0;
    MPI_Allreduce(&g_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return failures == 0 ? 0 : 1;
}
