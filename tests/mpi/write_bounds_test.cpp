// Every collective libredux runs writes its result and nothing else (collective_check.hpp): MPI_Reduce,
// MPI_Allreduce and MPI_Reduce_scatter_block, under every algorithm asked per call (auto, native, every strategy,
// every family algorithm), with and without MPI_IN_PLACE, unsegmented and in forced segments, on a predefined
// datatype and on derived datatypes with gaps inside and between elements (a non-commutative user op), at the
// first and the last root. Each call's every byte is checked: the receive buffer's tail (for a reduce-scatter-block
// in place, the other ranks' blocks of the input), a non-root rank's receive buffer, the send buffer, margins and
// gaps.
#include "collective_check.hpp"
#include "predefined_ops.hpp"
#include "reduce_check.hpp"
#include "user_ops.hpp"

#include "redux/redux.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <memory>
#include <vector>

namespace {

using redux_test::CollectiveCall;
using redux_test::CollectiveKind;

// Every value REDUX_ALGORITHM or a call can ask for, from redux/algorithms.h's tables.
#define REDUX_TEST_ALGORITHM_(ENUM, ...) REDUX_ALGORITHM_##ENUM,
constexpr redux_algorithm kAlgorithms[] = {REDUX_ALGORITHM_AUTO, REDUX_ALGORITHM_NATIVE,
                                           REDUX_STRATEGIES(REDUX_TEST_ALGORITHM_)
                                               REDUX_FAMILY_ALGORITHMS(REDUX_TEST_ALGORITHM_)};
#undef REDUX_TEST_ALGORITHM_

constexpr CollectiveKind kKinds[] = {CollectiveKind::reduce, CollectiveKind::allreduce,
                                     CollectiveKind::reduce_scatter_block};

int world_size() {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
}

std::vector<std::unique_ptr<redux_test::Operand>> operands() {
    std::vector<std::unique_ptr<redux_test::Operand>> all;
    all.push_back(redux_test::predefined_operand<int>("MPI_INT", MPI_INT, MPI_SUM));
    all.push_back(redux_test::matrix_operand(redux_test::MatrixLayout::vector_with_gap));
    all.push_back(redux_test::matrix_operand(redux_test::MatrixLayout::resized_padded));
    return all;
}

// MPICH 4.0's own MPI_Reduce_scatter_block returns wrong blocks, and crashes, for a non-commutative op on a
// datatype whose lower bound is not 0 (policy/native_failures.hpp): asking it for native there tests MPICH.
bool native_fails(const redux_test::Operand& operand, CollectiveKind kind) {
    MPI_Aint lb = 0, extent = 0;
    MPI_Type_get_extent(operand.datatype(), &lb, &extent);
    return kind == CollectiveKind::reduce_scatter_block && lb != 0 && redux_test::mpi_library_is("MPICH");
}

// Every algorithm, in place or not, unsegmented or in 8-byte segments, on one operand and collective.
void every_algorithm(const redux_test::Operand& operand, CollectiveKind kind, uint64_t& seed) {
    const int size = world_size();
    std::vector<int> roots{0};
    if (kind == CollectiveKind::reduce && size > 1) roots.push_back(size - 1);
    for (redux_algorithm algorithm : kAlgorithms) {
        if (algorithm == REDUX_ALGORITHM_NATIVE && native_fails(operand, kind)) continue;
        for (int root : roots) {
            for (bool in_place : {false, true}) {
                for (long long segment_bytes : {-1LL, 8LL}) {
                    CollectiveCall call;
                    call.kind = kind;
                    call.root = root;
                    call.count = 7;
                    call.in_place = in_place;
                    call.seed = seed++;
                    call.options.algorithm = algorithm;
                    call.options.limit = 2;  // for the strategies that need one; the others ignore it
                    call.options.segment_bytes = segment_bytes;
                    redux_test::check_collective(operand, call);
                }
            }
        }
    }
}

TEST(WriteBounds, Reduce) {
    uint64_t seed = 1000;
    for (const auto& operand : operands()) every_algorithm(*operand, CollectiveKind::reduce, seed);
}

TEST(WriteBounds, Allreduce) {
    uint64_t seed = 2000;
    for (const auto& operand : operands()) every_algorithm(*operand, CollectiveKind::allreduce, seed);
}

TEST(WriteBounds, ReduceScatterBlock) {
    uint64_t seed = 3000;
    for (const auto& operand : operands()) every_algorithm(*operand, CollectiveKind::reduce_scatter_block, seed);
}

// The same key called again: a repeated call runs from cached state (workspaces, scratch, auto's records), which
// must not leave anything of the last call where this one's caller looks.
TEST(WriteBounds, RepeatedCalls) {
    const auto matrices = redux_test::matrix_operand(redux_test::MatrixLayout::vector_with_gap);
    uint64_t seed = 4000;
    for (CollectiveKind kind : kKinds) {
        for (redux_algorithm algorithm :
             {REDUX_ALGORITHM_AUTO, REDUX_ALGORITHM_OPTIMAL, REDUX_ALGORITHM_TWO_TREE, REDUX_ALGORITHM_REDUCE_SCATTER,
              REDUX_ALGORITHM_RING, REDUX_ALGORITHM_LATE_RANK, REDUX_ALGORITHM_ALLGATHER}) {
            for (int repeat = 0; repeat < 6; ++repeat) {
                CollectiveCall call;
                call.kind = kind;
                call.count = 5;
                call.in_place = repeat % 2 == 1;
                call.seed = seed++;
                call.options.algorithm = algorithm;
                redux_test::check_collective(*matrices, call);
            }
        }
    }
}

}  // namespace
