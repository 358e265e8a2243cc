// tree-dyn (pairs chosen while the reduction runs) under ranks that arrive at different times: before each call
// every rank sleeps as the call's arrival pattern says (together; one rank, any one, root included, 3 ms late; every
// rank up to 2 ms late), so the pairs, the order of the folds and the ranks told in advance where to send differ
// from call to call. Random counts, roots, operands (commutative or not, derived datatypes with gaps) and
// MPI_IN_PLACE, as in reduce_random_test.cpp; every call is checked against the test's own computation (for a
// non-commutative op, the rank-order product), every fourth against PMPI_Reduce as well. Every rank draws the same
// choices from the same seeded generator. REDUX_TEST_SEED=<n> replays another sequence.
#include "random_calls.hpp"
#include "reduce_check.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <unistd.h>

#include <random>

namespace {

using redux_test::Operand;

// This rank's delay before a call, in microseconds: the same draws on every rank.
useconds_t arrival_delay_us(std::mt19937_64& random, int rank, int size) {
    const uint64_t pattern = random() % 3;
    const auto late = static_cast<int>(random() % static_cast<uint64_t>(size));
    useconds_t mine = 0;
    for (int r = 0; r < size; ++r) {
        const auto spread = static_cast<useconds_t>(random() % 2000);
        if (r == rank) mine = pattern == 2 ? spread : 0;
    }
    if (pattern == 1 && rank == late) mine = 3000;
    return mine;
}

TEST(ReduceTreeDyn, RanksArrivingAtRandomTimes) {
    const auto operands = redux_test::mixed_operands();
    const uint64_t seed = redux_test::test_seed(20261128);
    std::mt19937_64 random(seed);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 120; ++i) {
        redux_test::ReduceCall call;
        const Operand& operand = *operands[random() % operands.size()];
        call.count = redux_test::random_count(random);
        call.root = static_cast<int>(random() % static_cast<uint64_t>(size));
        call.in_place = random() % 2 == 0;
        call.seed = seed * 1000 + static_cast<uint64_t>(i);
        call.compare_with_pmpi = i % 4 == 0;
        call.options.algorithm = REDUX_ALGORITHM_TREE_DYN;
        const useconds_t delay = arrival_delay_us(random, rank, size);
        SCOPED_TRACE("call " + std::to_string(i) + " of REDUX_TEST_SEED=" + std::to_string(seed));
        if (delay > 0) usleep(delay);
        redux_test::check_reduce(operand, call);
    }
}

}  // namespace
