// A soak: thousands of consecutive redux_reduce calls with random counts, roots, operands and MPI_IN_PLACE,
// every one checked (result, gaps, sendbuf, requests), on MPI_COMM_WORLD and on communicators created and
// freed along the way. Far more distinct (root, count, datatype) combinations than libredux caches plans for
// per communicator (64), so plans are evicted and rebuilt while the state of freed communicators goes with
// them. Label `soak`; REDUX_TEST_SEED=<n> replays another sequence, REDUX_SOAK_CALLS=<n> sets the length.
#include "random_calls.hpp"
#include "reduce_check.hpp"
#include "yielding_wait.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <random>

namespace {

int soak_calls() {
    const char* text = std::getenv("REDUX_SOAK_CALLS");
    return text != nullptr && *text != '\0' ? std::atoi(text) : 20000;
}

// Soak calls are mostly small, so that thousands fit in seconds; one in twenty is up to 5000 elements.
int soak_count(std::mt19937_64& random) {
    return random() % 20 == 0 ? redux_test::random_count(random) : static_cast<int>(random() % 65);
}

TEST(ReduceSoak, ThousandsOfCalls) {
    const auto operands = redux_test::mixed_operands();
    const uint64_t seed = redux_test::test_seed(7);
    std::mt19937_64 random(seed);
    int world_rank = 0, world_size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);

    MPI_Comm other = MPI_COMM_NULL;  // a communicator that is replaced every 250 calls
    const int calls = soak_calls();
    for (int i = 0; i < calls; ++i) {
        if (i % 250 == 0) {
            if (other != MPI_COMM_NULL) MPI_Comm_free(&other);
            const int kind = static_cast<int>(random() % 3);
            if (kind == 0) MPI_Comm_dup(MPI_COMM_WORLD, &other);
            if (kind == 1) MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, -world_rank, &other);
            if (kind == 2) MPI_Comm_split(MPI_COMM_WORLD, 0, (world_rank * 5) % world_size, &other);
        }
        redux_test::ReduceCall call;
        call.comm = random() % 3 == 0 ? other : MPI_COMM_WORLD;
        int size = 1;
        MPI_Comm_size(call.comm, &size);
        const redux_test::Operand& operand = *operands[random() % operands.size()];
        call.count = soak_count(random);
        call.root = static_cast<int>(random() % static_cast<uint64_t>(size));
        call.in_place = random() % 2 == 0;
        call.seed = seed * 100000 + static_cast<uint64_t>(i);
        call.compare_with_pmpi = i % 100 == 0;
        SCOPED_TRACE("soak call " + std::to_string(i) + " of REDUX_TEST_SEED=" + std::to_string(seed));
        redux_test::check_reduce(operand, call);
        // After a failure, stop soon (all ranks together) rather than repeat it thousands of times.
        if (i % 100 == 99 && !redux_test::all_of(!::testing::Test::HasFailure(), MPI_COMM_WORLD)) break;
    }
    if (other != MPI_COMM_NULL) MPI_Comm_free(&other);
}

}  // namespace
