// redux_reduce on an intercommunicator behaves as MPI_Reduce (libredux hands it to PMPI_Reduce): the root
// passes MPI_ROOT, the rest of its group MPI_PROC_NULL, the other group the root's rank in the root's group;
// the root receives the reduction of the other group's data, in that group's rank order, and nothing else is
// written. Needs two ranks or more (two groups: even and odd ranks of MPI_COMM_WORLD).
#include "predefined_ops.hpp"
#include "reduce_check.hpp"
#include "user_ops.hpp"
#include "yielding_wait.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

namespace {

class ReduceIntercomm : public ::testing::Test {
protected:
    void SetUp() override {
        int world_rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
        MPI_Comm_size(MPI_COMM_WORLD, &world_size_);
        if (world_size_ < 2) GTEST_SKIP() << "an intercommunicator needs two ranks or more";
        color_ = world_rank % 2;
        MPI_Comm_split(MPI_COMM_WORLD, color_, world_rank, &local_);
        // Leaders: world rank 0 for the even group, world rank 1 for the odd one.
        MPI_Intercomm_create(local_, 0, MPI_COMM_WORLD, color_ == 0 ? 1 : 0, 77, &inter_);
    }
    void TearDown() override {
        if (inter_ != MPI_COMM_NULL) MPI_Comm_free(&inter_);
        if (local_ != MPI_COMM_NULL) MPI_Comm_free(&local_);
    }

    // One reduce with root `root` in group `root_color`, checked as described above.
    void reduce_once(const redux_test::Operand& operand, int root_color, int root, int count, uint64_t seed) {
        SCOPED_TRACE(operand.name() + ", root " + std::to_string(root) + " of group " + std::to_string(root_color));
        int local_rank = 0, local_size = 0, remote_size = 0;
        MPI_Comm_rank(inter_, &local_rank);
        MPI_Comm_size(inter_, &local_size);
        MPI_Comm_remote_size(inter_, &remote_size);
        const bool in_root_group = color_ == root_color;
        const bool is_root = in_root_group && local_rank == root;
        const int root_arg = in_root_group ? (is_root ? MPI_ROOT : MPI_PROC_NULL) : root;

        redux_test::TypedBuffer send(operand.datatype(), count), recv(operand.datatype(), count),
            reference(operand.datatype(), count), want(operand.datatype(), count);
        if (!in_root_group) operand.fill(send.origin(), count, local_rank, seed);
        const std::string send_before = send.bytes(), recv_before = recv.bytes();
        const auto result = redux_test::counted_reduce(send.origin(), recv.origin(), count, operand.datatype(),
                                                       operand.op(), root_arg, inter_);
        EXPECT_EQ(result.rc, MPI_SUCCESS);
        EXPECT_EQ(result.requests_started, 0) << "libredux ran a tree on an intercommunicator";
        EXPECT_TRUE(send.bytes() == send_before) << "sendbuf was changed";
        EXPECT_EQ(redux_test::reference_reduce(send.origin(), reference.origin(), count, operand.datatype(),
                                               operand.op(), root_arg, inter_),
                  MPI_SUCCESS);
        if (is_root) {
            operand.expect(want.origin(), count, remote_size, seed);
            EXPECT_EQ(operand.compare(recv.origin(), want.origin(), count), "");
            EXPECT_EQ(operand.compare(recv.origin(), reference.origin(), count), "");
        } else {
            EXPECT_TRUE(recv.bytes() == recv_before) << "recvbuf written on a rank that is not the root";
        }
    }

    int world_size_ = 1;
    int color_ = 0;
    MPI_Comm local_ = MPI_COMM_NULL;
    MPI_Comm inter_ = MPI_COMM_NULL;
};

TEST_F(ReduceIntercomm, EveryRootInEitherGroup) {
    const auto sum = redux_test::predefined_operand<int64_t>("MPI_INT64_T", MPI_INT64_T, MPI_SUM);
    const auto matrices = redux_test::matrix_operand(redux_test::MatrixLayout::struct_negative_lb);
    const int group_size[2] = {(world_size_ + 1) / 2, world_size_ / 2};
    uint64_t seed = 1;
    for (int root_color : {0, 1}) {
        for (int root = 0; root < group_size[root_color]; ++root) {
            reduce_once(*sum, root_color, root, 33, seed++);
            reduce_once(*matrices, root_color, root, 7, seed++);
        }
    }
}

TEST_F(ReduceIntercomm, CountZero) {
    const auto sum = redux_test::predefined_operand<int>("MPI_INT", MPI_INT, MPI_SUM);
    reduce_once(*sum, 1, 0, 0, 5);
}

}  // namespace
