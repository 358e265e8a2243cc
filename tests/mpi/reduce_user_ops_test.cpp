// redux_reduce with user-defined operators (user_ops.hpp): the non-commutative 2x2 matrix product at every
// root, on a predefined datatype and on derived datatypes of every layout the executor must handle (gaps,
// positive and negative lower bounds, padding between elements, entries in permuted order); commutative user
// ops, and a commutative operation declared non-commutative. The result must be exactly M0 M1 ... M(n-1).
#include "reduce_check.hpp"
#include "user_ops.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

namespace {

using redux_test::MatrixLayout;

// Every root, with and without MPI_IN_PLACE, at each count.
void every_root(const redux_test::Operand& operand, std::initializer_list<int> counts, uint64_t seed) {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int count : counts) {
        for (int root = 0; root < size; ++root) {
            for (bool in_place : {false, true}) {
                redux_test::ReduceCall call;
                call.root = root;
                call.count = count;
                call.in_place = in_place;
                call.seed = seed++;
                call.compare_with_pmpi = true;
                redux_test::check_reduce(operand, call);
            }
        }
    }
}

TEST(ReduceUserOps, NonCommutativeMatrixProductOnPredefinedType) {
    every_root(*redux_test::packed_matrix_operand(), {1, 5, 1000}, 1000);
}

TEST(ReduceUserOps, NonCommutativeMatrixProductOnDerivedTypes) {
    uint64_t seed = 2000;
    for (MatrixLayout layout :
         {MatrixLayout::contiguous, MatrixLayout::vector_with_gap, MatrixLayout::struct_positive_lb,
          MatrixLayout::struct_negative_lb, MatrixLayout::resized_padded, MatrixLayout::hindexed_permuted}) {
        every_root(*redux_test::matrix_operand(layout), {3, 257}, seed);
        seed += 1000;
    }
}

TEST(ReduceUserOps, CommutativeUserOps) {
    every_root(*redux_test::user_sum_operand(true), {1, 1000}, 3000);
    every_root(*redux_test::struct_operand(), {77}, 4000);
}

TEST(ReduceUserOps, CommutativeOperationDeclaredNonCommutative) {
    every_root(*redux_test::user_sum_operand(false), {1, 1000}, 5000);
}

}  // namespace
