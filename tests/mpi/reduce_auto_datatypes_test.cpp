// auto on derived datatypes: the same contenders as on predefined ones, the MPI library's own reduce included,
// through the trials, a confirmation and the decision. Every call of a key is checked against sums the test
// computes itself from what each rank sent (rank r's value i on call k is a function of r, i and k), and the gaps
// of the receive buffer must be left alone. Enough calls that every key decides (AutoSelect::kMaxCallsToDecide)
// and runs decided for a while; the library's reduce must have run on some call of each key (a trial, at least).
// The datatypes: a vector with gaps, a resized type with a negative lower bound, and data at absolute addresses
// with the root's recvbuf at MPI_BOTTOM (where Open MPI's own reduce leaves the root's result unwritten:
// policy/native_failures.cpp), with MPI_Reduce at every root, in place at some, and with MPI_Allreduce.
#include "user_ops.hpp"

#include "policy/auto_select.hpp"
#include "redux/redux.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <vector>

namespace {

using redux::AutoSelect;
using redux_test::sum_by_layout;

constexpr int kCalls = AutoSelect::kMaxCallsToDecide + 40;
constexpr int kSentinel = -7;

int value(int rank, int i, int call) { return 1000 * rank + 7 * i + call % 13; }
int sum_over_ranks(int size, int i, int call) {
    int sum = 0;
    for (int r = 0; r < size; ++r) sum += value(r, i, call);
    return sum;
}

// A committed derived datatype of ints, where its values lie (displacements of one element's ints from the
// element's origin, and the extent between elements), with the layout attached for the user op.
struct IntType {
    MPI_Datatype type = MPI_DATATYPE_NULL;
    std::vector<MPI_Aint> displacements;
    MPI_Aint extent = 0;
    MPI_Aint lb = 0;  // where the first element's span starts, from its origin
    MPI_Aint span = 0;

    void commit() {
        MPI_Type_commit(&type);
        redux_test::set_value_layout(type, {extent, displacements});
    }
    ~IntType() {
        if (type != MPI_DATATYPE_NULL) MPI_Type_free(&type);
    }
};

struct Counts {
    int calls = 0, native = 0;
};

// `count` elements of `t` in a buffer of ints, sentinels in the gaps; `origin` is where element 0 starts.
struct Buffer {
    std::vector<int> ints;
    char* origin = nullptr;
    Buffer(const IntType& t, int count)
        : ints(static_cast<size_t>((t.span + (count - 1) * t.extent) / 4 + 2), kSentinel) {
        origin = reinterpret_cast<char*>(ints.data() + 1) - t.lb;
    }
    int& at(const IntType& t, int element, size_t d) {
        return *reinterpret_cast<int*>(origin + element * t.extent + t.displacements[d]);
    }
    void fill(const IntType& t, int count, int rank, int call) {
        for (int e = 0; e < count; ++e) {
            for (size_t d = 0; d < t.displacements.size(); ++d) {
                at(t, e, d) = value(rank, e * static_cast<int>(t.displacements.size()) + static_cast<int>(d), call);
            }
        }
    }
    // Every value the sum over ranks, every gap still a sentinel.
    void expect_sums(const IntType& t, int count, int size, int call, const char* what) {
        std::vector<char> is_value(ints.size(), 0);
        for (int e = 0; e < count; ++e) {
            for (size_t d = 0; d < t.displacements.size(); ++d) {
                const int i = e * static_cast<int>(t.displacements.size()) + static_cast<int>(d);
                ASSERT_EQ(at(t, e, d), sum_over_ranks(size, i, call)) << what << " call " << call << " value " << i;
                is_value[static_cast<size_t>(&at(t, e, d) - ints.data())] = 1;
            }
        }
        for (size_t k = 0; k < ints.size(); ++k) {
            if (!is_value[k]) {
                ASSERT_EQ(ints[k], kSentinel) << what << " call " << call << ": gap at int " << k;
            }
        }
    }
};

// kCalls reduces of `count` elements of `t` to `root` under auto (in place at the root where asked), every
// result checked at the root; returns the calls and how many the library's reduce ran, as the root saw them.
Counts reduce_many(const IntType& t, MPI_Op op, int count, int root, bool in_place, const char* what) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    redux_options options = REDUX_OPTIONS_INIT;
    options.algorithm = REDUX_ALGORITHM_AUTO;
    Counts counts;
    for (int call = 0; call < kCalls; ++call) {
        Buffer send(t, count), recv(t, count);
        send.fill(t, count, rank, call);
        if (in_place && rank == root) recv.fill(t, count, rank, call);
        const void* sendbuf = in_place && rank == root ? MPI_IN_PLACE : send.origin;
        redux_call_info info{};
        EXPECT_EQ(redux_reduce_ex(sendbuf, recv.origin, count, t.type, op, root, MPI_COMM_WORLD, &options, &info),
                  MPI_SUCCESS);
        ++counts.calls;
        counts.native += info.planned ? 0 : 1;
        if (rank == root) recv.expect_sums(t, count, size, call, what);
        if (::testing::Test::HasFatalFailure()) break;
    }
    return counts;
}

// A vector with gaps inside each element: int _ int _ int.
void make_vector(IntType& t) {
    MPI_Type_vector(3, 1, 2, MPI_INT, &t.type);
    t.displacements = {0, 8, 16};
    t.extent = 20;
    t.span = 20;
    t.commit();
}

// An int resized to a lower bound 8 bytes below it and 16 bytes of extent: gaps between the elements.
void make_resized(IntType& t) {
    MPI_Type_create_resized(MPI_INT, -8, 16, &t.type);
    t.displacements = {0};
    t.extent = 16;
    t.span = 4;
    t.commit();
}

class AutoDerived : public ::testing::Test {
protected:
    void SetUp() override {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
        MPI_Comm_size(MPI_COMM_WORLD, &size_);
        MPI_Op_create(&sum_by_layout<int>, 1, &op_);
    }
    void TearDown() override { MPI_Op_free(&op_); }
    // The library's reduce ran on some call of the key (one rank decides nothing alone: libredux calls the
    // library's reduce there, and so does every rank).
    void expect_native_ran(const Counts& counts, const char* what) {
        EXPECT_EQ(counts.calls, kCalls) << what;
        EXPECT_GE(counts.native, 1) << what << ": native is a contender on derived datatypes";
    }
    int rank_ = 0, size_ = 1;
    MPI_Op op_ = MPI_OP_NULL;
};

TEST_F(AutoDerived, VectorWithGapsAtEveryRoot) {
    IntType t;
    make_vector(t);
    for (int root = 0; root < size_; ++root) {
        const Counts counts = reduce_many(t, op_, 4 + root, root, false, "vector");
        if (rank_ == root) expect_native_ran(counts, "vector");
    }
}

TEST_F(AutoDerived, ResizedInPlaceAtTheLastRoot) {
    IntType t;
    make_resized(t);
    const int root = size_ - 1;
    const Counts counts = reduce_many(t, op_, 300, root, true, "resized in place");
    if (rank_ == root) expect_native_ran(counts, "resized in place");
}

// Absolute addresses: each rank's datatype names its own send array, and the root's its receive array, given as
// recvbuf = MPI_BOTTOM (the root's sendbuf is then its send array's offset from the receive array).
TEST_F(AutoDerived, AbsoluteAddressesWithTheRootReceivingAtMPIBottom) {
    constexpr int kValues = 6;
    redux_options options = REDUX_OPTIONS_INIT;
    options.algorithm = REDUX_ALGORITHM_AUTO;
    std::vector<int> send(kValues), recv(kValues + 2);
    MPI_Aint address = 0;
    MPI_Get_address(rank_ == 0 ? recv.data() + 1 : send.data(), &address);
    const int length = kValues;
    IntType t;
    MPI_Type_create_hindexed(1, &length, &address, MPI_INT, &t.type);
    for (int i = 0; i < kValues; ++i) t.displacements.push_back(address + 4 * i);
    t.extent = 4 * kValues;
    t.commit();
    const char* const bottom = static_cast<const char*>(MPI_BOTTOM);
    Counts counts;
    for (int call = 0; call < kCalls; ++call) {
        for (int i = 0; i < kValues; ++i) send[static_cast<size_t>(i)] = value(rank_, i, call);
        std::fill(recv.begin(), recv.end(), kSentinel);
        const void* sendbuf = MPI_BOTTOM;
        void* recvbuf = nullptr;
        if (rank_ == 0) {
            sendbuf = bottom + (reinterpret_cast<char*>(send.data()) - reinterpret_cast<char*>(recv.data() + 1));
            recvbuf = MPI_BOTTOM;
        }
        redux_call_info info{};
        ASSERT_EQ(redux_reduce_ex(sendbuf, recvbuf, 1, t.type, op_, 0, MPI_COMM_WORLD, &options, &info), MPI_SUCCESS);
        ++counts.calls;
        counts.native += info.planned ? 0 : 1;
        if (rank_ != 0) continue;
        for (int i = 0; i < kValues; ++i) {
            ASSERT_EQ(recv[static_cast<size_t>(i) + 1], sum_over_ranks(size_, i, call)) << "call " << call;
        }
        ASSERT_EQ(recv.front(), kSentinel);
        ASSERT_EQ(recv.back(), kSentinel);
    }
    if (rank_ == 0) expect_native_ran(counts, "absolute addresses");
}

TEST_F(AutoDerived, AllreduceOnAVectorWithGaps) {
    IntType t;
    make_vector(t);
    redux_options options = REDUX_OPTIONS_INIT;
    options.algorithm = REDUX_ALGORITHM_AUTO;
    constexpr int kCount = 5;
    Counts counts;
    for (int call = 0; call < kCalls; ++call) {
        Buffer send(t, kCount), recv(t, kCount);
        send.fill(t, kCount, rank_, call);
        redux_call_info info{};
        ASSERT_EQ(redux_allreduce_ex(send.origin, recv.origin, kCount, t.type, op_, MPI_COMM_WORLD, &options, &info),
                  MPI_SUCCESS);
        ++counts.calls;
        counts.native += info.planned ? 0 : 1;
        recv.expect_sums(t, kCount, size_, call, "allreduce");
        if (HasFatalFailure()) break;
    }
    expect_native_ran(counts, "allreduce");
}

}  // namespace
