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
//   wisdom_driver decide|start [shift]
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
    for (const Key& key : keys) {
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
