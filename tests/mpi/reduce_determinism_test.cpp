// The same reduction gives the same bits on every call: floating-point sums whose value depends on the order of
// the additions (1e16 + 1 - 1e16 is 0 or 1 depending on which pair goes first) are repeated with a different
// rank arriving late each time and with and without MPI_IN_PLACE, and every result must equal the first, bit
// for bit. The executor folds in the plan's fixed order, never in arrival order.
//
// Under auto (the default), the first calls of a key (at most AutoSelect::kMaxCallsToDecide) take turns between a
// few planned trees and the MPI library's own reduce, which add in other orders: auto promises the same bits once it
// has decided (unless for tree-dyn), so the test makes those calls first.
#include "policy/auto_select.hpp"
#include "reduce_check.hpp"
#include "yielding_wait.hpp"

#include <redux/redux.h>

#include <gtest/gtest.h>
#include <mpi.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

double order_sensitive_value(int rank, int index) {
    const double values[] = {1e16, -1e16, 1.0, 0.5, 3.0, -2.0, 1e-3, 7e15};
    return values[redux_test::input_bits(99, rank, static_cast<uint64_t>(index)) % 8];
}

// The inputs are worth the test: with three ranks or more, summing in rank order and in reverse order differ.
bool order_matters(int size, int count) {
    int differing = 0;
    for (int i = 0; i < count; ++i) {
        double forward = 0, backward = 0;
        for (int r = 0; r < size; ++r) forward += order_sensitive_value(r, i);
        for (int r = size - 1; r >= 0; --r) backward += order_sensitive_value(r, i);
        differing += forward != backward;
    }
    return differing > 0;
}

TEST(ReduceDeterminism, RepeatedSumsAreBitIdentical) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    constexpr int kCount = 1000;
    if (size >= 3) {
        EXPECT_TRUE(order_matters(size, kCount));
    }
    std::vector<double> send(kCount);
    for (int i = 0; i < kCount; ++i) send[static_cast<size_t>(i)] = order_sensitive_value(rank, i);

    const char* algorithm = std::getenv("REDUX_ALGORITHM");
    if (algorithm != nullptr && std::strcmp(algorithm, "tree-dyn") == 0) {
        GTEST_SKIP() << "tree-dyn folds in the order the ranks arrive: it does not promise the same bits";
    }
    for (int root : {0, size - 1}) {
        std::vector<double> first(kCount), result(kCount);
        if (algorithm == nullptr || *algorithm == '\0' || std::strcmp(algorithm, "auto") == 0) {
            for (int trial = 0; trial < redux::AutoSelect::kMaxCallsToDecide; ++trial) {
                redux_test::counted_reduce(send.data(), rank == root ? result.data() : nullptr, kCount, MPI_DOUBLE,
                                           MPI_SUM, root, MPI_COMM_WORLD);
            }
            // Where the ranks came to auto's trials far apart (8 ranks busy-polling on 2 cores), auto may have
            // decided for tree-dyn, which promises no bits (its decision is the same on every rank).
            redux_call_info info{};
            redux_reduce_ex(send.data(), rank == root ? result.data() : nullptr, kCount, MPI_DOUBLE, MPI_SUM, root,
                            MPI_COMM_WORLD, nullptr, &info);
            if (info.planned != 0 && info.algorithm == REDUX_ALGORITHM_TREE_DYN) {
                if (rank == 0) std::printf("root %d: auto decided for tree-dyn; its bits are not compared\n", root);
                continue;
            }
        }
        for (int repeat = 0; repeat < 12; ++repeat) {
            const bool in_place =
                rank == root && repeat % 3 == 2 && redux_test::in_place_is_safe(MPI_DOUBLE, kCount, root);
            if (in_place) result = send;
            redux_test::barrier(MPI_COMM_WORLD);
            if (rank == repeat % size) usleep(2000);  // someone else's partial result arrives first
            const auto outcome = redux_test::counted_reduce(in_place ? MPI_IN_PLACE : send.data(),
                                                            rank == root ? result.data() : nullptr, kCount, MPI_DOUBLE,
                                                            MPI_SUM, root, MPI_COMM_WORLD);
            EXPECT_EQ(outcome.rc, MPI_SUCCESS);
            if (rank != root) continue;
            if (repeat == 0) {
                first = result;
            } else {
                EXPECT_EQ(std::memcmp(first.data(), result.data(), sizeof(double) * kCount), 0)
                    << "root " << root << ", repeat " << repeat << (in_place ? " (in place)" : "")
                    << ": not the same bits as the first call";
            }
        }
    }
}

}  // namespace
