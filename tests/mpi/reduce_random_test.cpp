// Randomised redux_reduce calls: counts from 0 to 5000 elements (so from nothing to many chunks of the op),
// random roots, operands (predefined, user, commutative or not, derived datatypes with gaps and negative lower
// bounds) and MPI_IN_PLACE, on MPI_COMM_WORLD and on a communicator with reversed rank order. Every rank draws
// the same choices from the same seeded generator, so no communication is needed to agree on them. Every call
// is checked against the test's own computation, every eighth against PMPI_Reduce as well.
//
// REDUX_TEST_SEED=<n> replays another sequence (the seed of a failing run is in every failure message).
#include "random_calls.hpp"
#include "reduce_check.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <random>

namespace {

using redux_test::Operand;

TEST(ReduceRandom, ThreeHundredCalls) {
    const auto operands = redux_test::mixed_operands();
    const uint64_t seed = redux_test::test_seed(20261122);
    std::mt19937_64 random(seed);
    int world_rank = 0, world_size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    MPI_Comm reversed = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, 0, world_size - world_rank, &reversed);

    for (int i = 0; i < 300; ++i) {
        redux_test::ReduceCall call;
        call.comm = random() % 4 == 0 ? reversed : MPI_COMM_WORLD;
        const Operand& operand = *operands[random() % operands.size()];
        call.count = redux_test::random_count(random);
        call.root = static_cast<int>(random() % static_cast<uint64_t>(world_size));
        call.in_place = random() % 2 == 0;
        call.seed = seed * 1000 + static_cast<uint64_t>(i);
        call.compare_with_pmpi = i % 8 == 0;
        SCOPED_TRACE("call " + std::to_string(i) + " of REDUX_TEST_SEED=" + std::to_string(seed));
        redux_test::check_reduce(operand, call);
    }
    MPI_Comm_free(&reversed);
}

}  // namespace
