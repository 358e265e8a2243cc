// redux_reduce on every kind of intracommunicator and at every root: MPI_COMM_WORLD with and without
// MPI_IN_PLACE, count 0, MPI_COMM_SELF, communicators from MPI_Comm_split (odd/even, reversed keys, some ranks
// left out), MPI_Comm_dup and MPI_Comm_create (groups that are not a prefix of MPI_COMM_WORLD), freed
// afterwards (libredux's state on a communicator goes with it, through the attribute's delete callback), and
// a user's wildcard receive that libredux's own messages must never match.
#include "predefined_ops.hpp"
#include "reduce_check.hpp"
#include "user_ops.hpp"
#include "yielding_wait.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

namespace {

int rank_in(MPI_Comm comm) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    return rank;
}

int size_of(MPI_Comm comm) {
    int size = 0;
    MPI_Comm_size(comm, &size);
    return size;
}

// A commutative and a non-commutative reduction at every root of comm, alternating MPI_IN_PLACE.
void reduce_at_every_root(MPI_Comm comm, uint64_t seed) {
    const auto sum = redux_test::predefined_operand<int64_t>("MPI_INT64_T", MPI_INT64_T, MPI_SUM);
    const auto matrices = redux_test::packed_matrix_operand();
    for (int root = 0; root < size_of(comm); ++root) {
        int i = 0;
        for (const redux_test::Operand* operand : {sum.get(), matrices.get()}) {
            redux_test::ReduceCall call;
            call.comm = comm;
            call.root = root;
            call.count = i == 0 ? 17 : 9;
            call.in_place = (root + i) % 2 == 1;
            call.seed = seed++;
            call.compare_with_pmpi = true;
            redux_test::check_reduce(*operand, call);
            ++i;
        }
    }
}

TEST(ReduceCommunicators, WorldEveryRootWithAndWithoutInPlace) {
    const auto sum = redux_test::predefined_operand<int>("MPI_INT", MPI_INT, MPI_SUM);
    const auto matrices = redux_test::packed_matrix_operand();
    uint64_t seed = 10;
    for (int root = 0; root < size_of(MPI_COMM_WORLD); ++root) {
        for (const redux_test::Operand* operand : {sum.get(), matrices.get()}) {
            for (int count : {1, 33}) {
                for (bool in_place : {false, true}) {
                    redux_test::ReduceCall call;
                    call.root = root;
                    call.count = count;
                    call.in_place = in_place;
                    call.seed = seed++;
                    call.compare_with_pmpi = count == 33;
                    redux_test::check_reduce(*operand, call);
                }
            }
        }
    }
}

// Count 0 is a valid reduce of nothing: no request, nothing written (the harness checks both), at any root,
// with and without MPI_IN_PLACE, and with null buffers.
TEST(ReduceCommunicators, CountZero) {
    const auto sum = redux_test::predefined_operand<int>("MPI_INT", MPI_INT, MPI_SUM);
    const auto matrices = redux_test::matrix_operand(redux_test::MatrixLayout::struct_negative_lb);
    for (int root = 0; root < size_of(MPI_COMM_WORLD); ++root) {
        for (const redux_test::Operand* operand : {sum.get(), matrices.get()}) {
            redux_test::ReduceCall call;
            call.root = root;
            call.count = 0;
            call.in_place = root % 2 == 1;
            call.compare_with_pmpi = true;
            redux_test::check_reduce(*operand, call);
        }
        const auto result = redux_test::counted_reduce(nullptr, nullptr, 0, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        EXPECT_EQ(result.rc, MPI_SUCCESS);
        EXPECT_EQ(result.requests_started, 0);
    }
}

TEST(ReduceCommunicators, CommSelf) {
    const auto sum = redux_test::predefined_operand<double>("MPI_DOUBLE", MPI_DOUBLE, MPI_SUM);
    const auto matrices = redux_test::matrix_operand(redux_test::MatrixLayout::vector_with_gap);
    for (const redux_test::Operand* operand : {sum.get(), matrices.get()}) {
        for (bool in_place : {false, true}) {
            redux_test::ReduceCall call;
            call.comm = MPI_COMM_SELF;
            call.count = 100;
            call.in_place = in_place;
            call.seed = 20;
            call.compare_with_pmpi = true;
            redux_test::check_reduce(*operand, call);
        }
    }
}

TEST(ReduceCommunicators, SplitOddEven) {
    MPI_Comm half = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, rank_in(MPI_COMM_WORLD) % 2, rank_in(MPI_COMM_WORLD), &half);
    reduce_at_every_root(half, 30);
    MPI_Comm_free(&half);
}

// Keys in reverse: rank r of MPI_COMM_WORLD is rank n-1-r of the new communicator.
TEST(ReduceCommunicators, SplitWithReversedKeys) {
    MPI_Comm reversed = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, 0, -rank_in(MPI_COMM_WORLD), &reversed);
    EXPECT_EQ(rank_in(reversed), size_of(MPI_COMM_WORLD) - 1 - rank_in(MPI_COMM_WORLD));
    reduce_at_every_root(reversed, 40);
    MPI_Comm_free(&reversed);
}

// Every third rank is left out (MPI_UNDEFINED); the others reduce among themselves.
TEST(ReduceCommunicators, SplitLeavingRanksOut) {
    const int rank = rank_in(MPI_COMM_WORLD);
    MPI_Comm some = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 3 == 2 ? MPI_UNDEFINED : 0, rank, &some);
    if (some != MPI_COMM_NULL) {
        reduce_at_every_root(some, 50);
        MPI_Comm_free(&some);
    }
}

TEST(ReduceCommunicators, Dup) {
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    reduce_at_every_root(dup, 60);
    MPI_Comm_free(&dup);
}

// Groups that are not a prefix of MPI_COMM_WORLD: all ranks in reverse order, and every other rank.
TEST(ReduceCommunicators, CreateFromReversedAndStridedGroups) {
    MPI_Group world_group = MPI_GROUP_NULL;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    const int size = size_of(MPI_COMM_WORLD);
    std::vector<int> reversed(static_cast<size_t>(size)), strided;
    for (int r = 0; r < size; ++r) reversed[static_cast<size_t>(r)] = size - 1 - r;
    for (int r = 1; r < size; r += 2) strided.push_back(r);
    if (strided.empty()) strided.push_back(0);

    uint64_t seed = 70;
    for (const std::vector<int>& members : {reversed, strided}) {
        MPI_Group group = MPI_GROUP_NULL;
        MPI_Group_incl(world_group, static_cast<int>(members.size()), members.data(), &group);
        MPI_Comm comm = MPI_COMM_NULL;
        MPI_Comm_create(MPI_COMM_WORLD, group, &comm);
        if (comm != MPI_COMM_NULL) {
            reduce_at_every_root(comm, seed);
            MPI_Comm_free(&comm);
        }
        MPI_Group_free(&group);
        seed += 100;
    }
    MPI_Group_free(&world_group);
}

// Communicators come and go; MPI may hand out a freed communicator's handle again, and libredux's state for
// the old one must have gone with it (a stale plan for another size or rank order would show).
TEST(ReduceCommunicators, CreateReduceFreeRepeatedly) {
    const int rank = rank_in(MPI_COMM_WORLD);
    for (int round = 0; round < 6; ++round) {
        MPI_Comm comm = MPI_COMM_NULL;
        if (round % 3 == 0) {
            MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        } else if (round % 3 == 1) {
            MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &comm);
        } else {
            MPI_Comm_split(MPI_COMM_WORLD, rank < 3 ? 0 : 1, rank, &comm);
        }
        const auto matrices = redux_test::packed_matrix_operand();
        redux_test::ReduceCall call;
        call.comm = comm;
        call.root = round % size_of(comm);
        call.count = 5 + round;
        call.seed = 200 + static_cast<uint64_t>(round);
        redux_test::check_reduce(*matrices, call);
        MPI_Comm_free(&comm);
    }
}

// Calls on several communicators interleaved: each keeps its own plans and private communicator.
TEST(ReduceCommunicators, InterleavedCommunicators) {
    const int rank = rank_in(MPI_COMM_WORLD);
    MPI_Comm dup = MPI_COMM_NULL, half = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
    const auto matrices = redux_test::packed_matrix_operand();
    const auto sum = redux_test::predefined_operand<int>("MPI_INT", MPI_INT, MPI_SUM);
    for (int i = 0; i < 12; ++i) {
        const MPI_Comm comm = i % 3 == 0 ? MPI_COMM_WORLD : i % 3 == 1 ? dup : half;
        redux_test::ReduceCall call;
        call.comm = comm;
        call.root = (i * 5) % size_of(comm);
        call.count = 1 + i;
        call.seed = 300 + static_cast<uint64_t>(i);
        redux_test::check_reduce(i % 2 ? *sum : *matrices, call);
    }
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
}

// A wildcard receive the user posted on the communicator before the reduce must get the user's message, sent
// after the reduce, and nothing of libredux's.
TEST(ReduceCommunicators, UserWildcardReceiveNeverMatchesLibreduxTraffic) {
    const int rank = rank_in(MPI_COMM_WORLD), size = size_of(MPI_COMM_WORLD);
    constexpr int kTag = 4242;
    int received[2] = {-1, -1};
    MPI_Request receive = MPI_REQUEST_NULL;
    PMPI_Irecv(received, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &receive);

    const auto matrices = redux_test::packed_matrix_operand();
    for (int root = 0; root < size; ++root) {
        redux_test::ReduceCall call;
        call.root = root;
        call.count = 2;
        call.seed = 400 + static_cast<uint64_t>(root);
        redux_test::check_reduce(*matrices, call);
    }

    const int message[2] = {rank, 7 * rank};
    MPI_Request send = MPI_REQUEST_NULL;
    PMPI_Isend(message, 2, MPI_INT, (rank + 1) % size, kTag, MPI_COMM_WORLD, &send);
    MPI_Status status;
    int done = 0;
    do {
        PMPI_Test(&receive, &done, &status);
    } while (!done);
    redux_test::wait_yielding(send);
    const int from = (rank + size - 1) % size;
    EXPECT_EQ(status.MPI_SOURCE, from);
    EXPECT_EQ(status.MPI_TAG, kTag);
    EXPECT_EQ(received[0], from);
    EXPECT_EQ(received[1], 7 * from);
}

}  // namespace
