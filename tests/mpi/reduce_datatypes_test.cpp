// redux_reduce on derived datatypes: vectors with strides, contiguous, resized types with negative and
// positive lower bounds and padding, structs with leading and negative displacements, hindexed, indexed-block
// and subarray types, nested and duplicated types, a zero-size type, at counts of 1, 4 and 300 elements. The
// harness fills every gap of the receive buffer with a sentinel and checks that the reduce left each gap alone.
//
// The operator is a user-defined sum (user_ops.hpp): the standard defines the predefined operators on the
// predefined datatypes only ("Predefined operators work only with the MPI types listed", MPI-4.0 6.9.2), and
// Open MPI 4.1 and MPICH 4.0 both reject them on any derived datatype (reduce_errors_test.cpp has that case).
// The non-commutative matrix product on derived layouts is in reduce_user_ops_test.cpp.
#include "predefined_ops.hpp"
#include "reduce_check.hpp"
#include "user_ops.hpp"
#include "yielding_wait.hpp"

#include "mpi/element_buffer.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using redux_test::Operand;
using redux_test::user_sum_on;

MPI_Datatype committed(MPI_Datatype type) {
    MPI_Type_commit(&type);
    return type;
}

// Checks the test's picture of the datatype (extent, lower bound) against MPI's before using it.
void expect_layout(MPI_Datatype type, MPI_Aint lb, MPI_Aint extent, const char* name) {
    MPI_Aint actual_lb = 0, actual_extent = 0;
    MPI_Type_get_extent(type, &actual_lb, &actual_extent);
    EXPECT_EQ(actual_lb, lb) << name;
    EXPECT_EQ(actual_extent, extent) << name;
}

std::vector<std::unique_ptr<Operand>> derived_operands() {
    std::vector<std::unique_ptr<Operand>> out;
    MPI_Datatype t = MPI_DATATYPE_NULL, inner = MPI_DATATYPE_NULL;

    MPI_Type_vector(3, 1, 2, MPI_INT, &t);  // int _ int _ int
    t = committed(t);
    expect_layout(t, 0, 20, "vector(3, 1, 2, MPI_INT)");
    out.push_back(user_sum_on<int>("vector(3, 1, 2, MPI_INT)", t, {20, {0, 8, 16}}, {t}));

    MPI_Type_vector(3, 1, -2, MPI_INT, &t);  // negative stride: lb = true_lb = -16
    t = committed(t);
    expect_layout(t, -16, 20, "vector(3, 1, -2, MPI_INT)");
    out.push_back(user_sum_on<int>("vector(3, 1, -2, MPI_INT)", t, {20, {0, -8, -16}}, {t}));

    MPI_Type_vector(2, 3, 5, MPI_DOUBLE, &t);
    t = committed(t);
    expect_layout(t, 0, 64, "vector(2, 3, 5, MPI_DOUBLE)");
    out.push_back(user_sum_on<double>("vector(2, 3, 5, MPI_DOUBLE)", t, {64, {0, 8, 16, 40, 48, 56}}, {t}));

    MPI_Type_contiguous(3, MPI_INT, &t);
    t = committed(t);
    out.push_back(user_sum_on<int>("contiguous(3, MPI_INT)", t, {12, {0, 4, 8}}, {t}));

    MPI_Type_create_resized(MPI_INT, 0, 12, &t);  // 8 bytes of padding after each int
    t = committed(t);
    out.push_back(user_sum_on<int>("resized(MPI_INT, 0, 12)", t, {12, {0}}, {t}));

    MPI_Type_create_resized(MPI_INT, -8, 16, &t);  // lb below the data
    t = committed(t);
    expect_layout(t, -8, 16, "resized(MPI_INT, -8, 16)");
    out.push_back(user_sum_on<int>("resized(MPI_INT, -8, 16)", t, {16, {0}}, {t}));

    MPI_Type_create_resized(MPI_DOUBLE, 8, 24, &t);  // lb above the data
    t = committed(t);
    out.push_back(user_sum_on<double>("resized(MPI_DOUBLE, 8, 24)", t, {24, {0}}, {t}));

    {  // a struct with a leading displacement: lb = true_lb = 8
        const int lengths[2] = {2, 1};
        const MPI_Aint displacements[2] = {8, 20};
        const MPI_Datatype types[2] = {MPI_INT, MPI_INT};
        MPI_Type_create_struct(2, lengths, displacements, types, &t);
        t = committed(t);
        expect_layout(t, 8, 16, "struct {2 int at 8, int at 20}");
        out.push_back(user_sum_on<int>("struct {2 int at 8, int at 20}", t, {16, {8, 12, 20}}, {t}));
    }
    {  // a struct with a negative displacement: lb = true_lb = -8
        const int lengths[2] = {1, 2};
        const MPI_Aint displacements[2] = {-8, 4};
        const MPI_Datatype types[2] = {MPI_INT, MPI_INT};
        MPI_Type_create_struct(2, lengths, displacements, types, &t);
        t = committed(t);
        expect_layout(t, -8, 20, "struct {int at -8, 2 int at 4}");
        out.push_back(user_sum_on<int>("struct {int at -8, 2 int at 4}", t, {20, {-8, 4, 8}}, {t}));
    }
    {
        const int lengths[3] = {2, 1, 3};
        const MPI_Aint displacements[3] = {0, 24, 40};
        MPI_Type_create_hindexed(3, lengths, displacements, MPI_INT64_T, &t);
        t = committed(t);
        out.push_back(
            user_sum_on<int64_t>("hindexed int64 {2 at 0, 1 at 24, 3 at 40}", t, {64, {0, 8, 24, 40, 48, 56}}, {t}));
    }
    {  // blocks out of address order: the type map order is 0, 5, 3 (in shorts)
        const int starts[3] = {0, 5, 3};
        MPI_Type_create_indexed_block(3, 2, starts, MPI_SHORT, &t);
        t = committed(t);
        out.push_back(user_sum_on<short>("indexed_block(2, {0, 5, 3}, MPI_SHORT)", t, {14, {0, 2, 10, 12, 6, 8}}, {t}));
    }
    {  // the 2x3 block at (1, 1) of a 4x5 int array
        const int sizes[2] = {4, 5}, subsizes[2] = {2, 3}, starts[2] = {1, 1};
        MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &t);
        t = committed(t);
        out.push_back(
            user_sum_on<int>("subarray 2x3 at (1, 1) of 4x5 MPI_INT", t, {80, {24, 28, 32, 44, 48, 52}}, {t}));
    }
    MPI_Type_vector(2, 1, 2, MPI_INT64_T, &t);  // resized to a lower bound inside the element
    MPI_Type_create_resized(t, 8, 32, &inner);
    std::swap(t, inner);
    t = committed(t);
    out.push_back(user_sum_on<int64_t>("resized(vector(2, 1, 2, MPI_INT64_T), 8, 32)", t, {32, {0, 16}}, {t, inner}));

    MPI_Type_vector(2, 1, 3, MPI_INT, &inner);  // nested: contiguous(2) of a vector
    MPI_Type_contiguous(2, inner, &t);
    t = committed(t);
    out.push_back(user_sum_on<int>("contiguous(2, vector(2, 1, 3, MPI_INT))", t, {32, {0, 12, 16, 28}}, {t, inner}));

    MPI_Type_dup(MPI_FLOAT, &t);
    t = committed(t);
    out.push_back(user_sum_on<float>("dup(MPI_FLOAT)", t, {4, {0}}, {t}));
    return out;
}

TEST(ReduceDatatypes, DerivedTypes) {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const auto operands = derived_operands();
    uint64_t seed = 1;
    int i = 0;
    for (const auto& operand : operands) {
        for (int count : {1, 4, 300}) {
            redux_test::ReduceCall call;
            call.root = i % size;
            call.count = count;
            call.in_place = i % 3 == 1;
            call.seed = seed++;
            call.compare_with_pmpi = true;
            redux_test::check_reduce(*operand, call);
            ++i;
        }
    }
}

// A datatype whose elements hold no data: count 5 reduces nothing, and touches nothing.
TEST(ReduceDatatypes, ZeroSizeType) {
    MPI_Datatype empty = MPI_DATATYPE_NULL;
    MPI_Type_contiguous(0, MPI_INT, &empty);
    MPI_Type_commit(&empty);
    const auto operand = user_sum_on<int>("contiguous(0, MPI_INT)", empty, {0, {}}, {empty});
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int root = 0; root < size; ++root) {
        redux_test::ReduceCall call;
        call.root = root;
        call.count = 5;
        call.in_place = root % 2 == 1;
        call.compare_with_pmpi = true;
        call.tree_optional = true;  // nothing to reduce: either way is right
        redux_test::check_reduce(*operand, call);
    }
}

// Data addressed absolutely: each rank describes its own array by its address (MPI_Get_address) and passes
// MPI_BOTTOM as sendbuf; the root receives into an array addressed relative to its datatype.
void reduce_from_bottom(bool recv_at_bottom) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    constexpr int kValues = 5;
    int send[kValues], recv[kValues];
    for (int i = 0; i < kValues; ++i) send[i] = 10 * rank + i, recv[i] = -1;
    // The datatype names `send`, or at the root in the second form `recv` (then sendbuf is send's offset).
    const bool described_by_recv = recv_at_bottom && rank == 0;
    MPI_Aint address = 0;
    MPI_Get_address(described_by_recv ? recv : send, &address);
    const int length = kValues;
    MPI_Datatype absolute = MPI_DATATYPE_NULL;
    MPI_Type_create_hindexed(1, &length, &address, MPI_INT, &absolute);
    MPI_Type_commit(&absolute);
    std::vector<MPI_Aint> displacements;
    for (int i = 0; i < kValues; ++i) displacements.push_back(address + 4 * i);
    const auto operand = user_sum_on<int>("absolute addresses", absolute, {4 * kValues, displacements}, {absolute});

    const char* const bottom = static_cast<const char*>(MPI_BOTTOM);
    const void* sendbuf = MPI_BOTTOM;
    void* recvbuf = nullptr;
    if (rank == 0 && !recv_at_bottom)
        recvbuf = const_cast<char*>(bottom) + (reinterpret_cast<char*>(recv) - reinterpret_cast<char*>(send));
    if (described_by_recv) {
        sendbuf = bottom + (reinterpret_cast<char*>(send) - reinterpret_cast<char*>(recv));
        recvbuf = MPI_BOTTOM;
    }
    const auto result = redux_test::counted_reduce(sendbuf, recvbuf, 1, absolute, operand->op(), 0, MPI_COMM_WORLD);
    EXPECT_EQ(result.rc, MPI_SUCCESS);
    if (rank == 0) {
        for (int i = 0; i < kValues; ++i) EXPECT_EQ(recv[i], 10 * size * (size - 1) / 2 + size * i) << "value " << i;
    }
}

TEST(ReduceDatatypes, AbsoluteAddressesFromMPIBottom) { reduce_from_bottom(false); }

// The same with MPI_BOTTOM as the root's recvbuf as well: legal (recvbuf is then the null pointer), and every
// rank must take the same path (an earlier libredux sent such a root to PMPI_Reduce and the others to the
// tree: the job hung).
TEST(ReduceDatatypes, AbsoluteAddressesWithRecvbufAtMPIBottom) {
    const char* algorithm = std::getenv("REDUX_ALGORITHM");
    if (algorithm != nullptr && std::string(algorithm) == "native") {
        GTEST_SKIP() << "checks libredux's path; Open MPI 4.1's own MPI_Reduce writes nothing to recvbuf = MPI_BOTTOM";
    }
    reduce_from_bottom(true);
}

// A datatype with a negative extent (resized(MPI_INT, 0, -4): element k at origin - 4k) is legal, and libredux
// leaves such layouts to the MPI library (an earlier libredux computed a negative span and threw std::bad_alloc
// through the C API). The decision is checked here without making the call: Open MPI 4.1's own MPI_Reduce
// fails on this type at the root only, leaving the other ranks' messages behind and later reduces wrong, and
// MPICH 4.0.2's crashes.
TEST(ReduceDatatypes, NegativeExtentIsLeftToTheLibrary) {
    MPI_Datatype backwards = MPI_DATATYPE_NULL;
    MPI_Type_create_resized(MPI_INT, 0, -4, &backwards);
    MPI_Type_commit(&backwards);
    redux::ElementLayout layout;
    ASSERT_EQ(redux::describe_layout(backwards, layout), MPI_SUCCESS);
    EXPECT_FALSE(layout.fits(3));
    ASSERT_EQ(redux::describe_layout(MPI_INT, layout), MPI_SUCCESS);
    EXPECT_TRUE(layout.fits(3));
    MPI_Type_free(&backwards);
}

}  // namespace
