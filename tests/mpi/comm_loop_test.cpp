// Communicators made, used and freed in a loop, as MPICH's allred tests and many applications do, with a
// collective on MPI_COMM_WORLD between them: every decision libredux takes that leads to a collective call must be
// the same on every rank, whatever each process did before (a rank that freed a communicator the others never
// had, a rank that held MPI_COMM_NULL). Each round takes MPI_COMM_WORLD, then its duplicate, its reverse (split
// with reversed keys) and its first half (split: the other ranks get MPI_COMM_NULL), one at a time:
//   - on the communicator, where this rank belongs to it, one collective call (reduce, allreduce or
//     reduce-scatter-block; in place or not; a predefined op, or a non-commutative user op on a derived datatype
//     with gaps, or on a predefined one; an algorithm asked per call, every one in turn), checked byte for byte
//     (collective_check.hpp);
//   - frees it;
//   - then every rank calls MPI_Allreduce (the interposed symbol: the configured algorithm) in place on
//     MPI_COMM_WORLD, REDUX_TEST_AGREE_COUNT ints (default 1), the result checked.
// A watchdog thread aborts the process when a round takes longer than REDUX_TEST_WATCHDOG_S seconds (default 60):
// a deadlock fails the test with the round it stopped in instead of waiting for ctest's timeout.
//
// ctest runs it as configured (auto), and with REDUX_CHUNK_BYTES=1 REDUX_RECV_WINDOW=1 REDUX_SEGMENT_BYTES=0 and
// REDUX_TEST_AGREE_COUNT=262144 (1 MiB, every planned tree folding one byte at a time: auto settles the world
// call on the library's own allreduce, and the thread's settled-native record takes it on the ranks that freed
// nothing since, while the ranks of the half communicator, which freed a communicator state, go through route()).
#include "collective_check.hpp"
#include "predefined_ops.hpp"
#include "user_ops.hpp"

#include "redux/redux.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using redux_test::CollectiveCall;
using redux_test::CollectiveKind;

#define REDUX_TEST_ALGORITHM_(ENUM, ...) REDUX_ALGORITHM_##ENUM,
constexpr redux_algorithm kAlgorithms[] = {REDUX_ALGORITHM_CONFIGURED, REDUX_ALGORITHM_AUTO, REDUX_ALGORITHM_NATIVE,
                                           REDUX_STRATEGIES(REDUX_TEST_ALGORITHM_)
                                               REDUX_FAMILY_ALGORITHMS(REDUX_TEST_ALGORITHM_)};
#undef REDUX_TEST_ALGORITHM_
constexpr int kAlgorithmCount = static_cast<int>(sizeof kAlgorithms / sizeof kAlgorithms[0]);

int env_int(const char* name, int fallback) {
    const char* value = std::getenv(name);
    return value != nullptr && *value != '\0' ? std::atoi(value) : fallback;
}

int world_rank() {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

int world_size() {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
}

// Aborts the process when beat() has not been called for `limit_s` seconds.
class Watchdog {
public:
    explicit Watchdog(int limit_s) : limit_(limit_s), thread_([this] { watch(); }) {}
    ~Watchdog() {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            done_ = true;
        }
        wake_.notify_all();
        thread_.join();
    }
    void beat(int round) {
        const std::lock_guard<std::mutex> lock(mutex_);
        round_ = round;
        last_ = std::chrono::steady_clock::now();
    }

private:
    void watch() {
        std::unique_lock<std::mutex> lock(mutex_);
        while (!done_) {
            wake_.wait_for(lock, std::chrono::seconds(1));
            if (!done_ && std::chrono::steady_clock::now() - last_ > limit_) {
                std::fprintf(stderr, "[rank %d] watchdog: round %d not done after %lld s: deadlock\n", world_rank(),
                             round_, static_cast<long long>(limit_.count()));
                std::fflush(stderr);
                std::abort();
            }
        }
    }

    std::chrono::seconds limit_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool done_ = false;
    int round_ = -1;
    std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
    std::thread thread_;  // last: starts once the members above are made
};

// The round's call on `comm` (the k-th communicator of the round): its kind, algorithm, operand, in-place choice
// and count follow from (round, k), so every rank of comm makes the same call.
bool call_on(MPI_Comm comm, int round, int k, const std::vector<std::unique_ptr<redux_test::Operand>>& operands) {
    int size = 1;
    MPI_Comm_size(comm, &size);
    const int turn = round * 4 + k;
    CollectiveCall call;
    call.kind = static_cast<CollectiveKind>(turn % 3);
    call.comm = comm;
    call.root = (round + k) % size;
    call.count = 1 + (turn * 7) % 11;
    call.in_place = (turn / 3) % 2 == 1;
    call.seed = static_cast<uint64_t>(turn) + 1;
    call.options.algorithm = kAlgorithms[(turn / 2) % kAlgorithmCount];
    call.options.limit = 2;
    return redux_test::check_collective(*operands[static_cast<size_t>(turn % 3)], call);
}

// The collective between two communicators: MPI_Allreduce (the interposed symbol) in place on MPI_COMM_WORLD, its
// result checked. `turn` makes each call's data its own.
bool world_allreduce(std::vector<int>& agree, int turn) {
    const int rank = world_rank(), size = world_size();
    const auto n = static_cast<int>(agree.size());
    for (int i = 0; i < n; ++i) agree[static_cast<size_t>(i)] = rank + turn + i % 7;
    EXPECT_EQ(MPI_Allreduce(MPI_IN_PLACE, agree.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int i = 0; i < n; ++i) {
        const int want = size * (size - 1) / 2 + size * (turn + i % 7);
        if (agree[static_cast<size_t>(i)] != want) {
            ADD_FAILURE() << "turn " << turn << ": the world allreduce's element " << i << " is "
                          << agree[static_cast<size_t>(i)] << ", expected " << want;
            return false;
        }
    }
    return true;
}

TEST(CommLoop, FreedCommunicatorsAndWorldBetween) {
    const int rounds = env_int("REDUX_TEST_ROUNDS", 200);
    const int agree_count = env_int("REDUX_TEST_AGREE_COUNT", 1);
    Watchdog watchdog(env_int("REDUX_TEST_WATCHDOG_S", 60));
    std::vector<std::unique_ptr<redux_test::Operand>> operands;
    operands.push_back(redux_test::predefined_operand<int>("MPI_INT", MPI_INT, MPI_SUM));
    operands.push_back(redux_test::matrix_operand(redux_test::MatrixLayout::vector_with_gap));
    operands.push_back(redux_test::packed_matrix_operand());
    const int rank = world_rank(), size = world_size();
    std::vector<int> agree(static_cast<size_t>(agree_count));
    int failed_rounds = 0;
    for (int round = 0; round < rounds; ++round) {
        watchdog.beat(round);
        bool ok = true;
        for (int k = 0; k < 4; ++k) {
            MPI_Comm comm = MPI_COMM_NULL;
            if (k == 0) comm = MPI_COMM_WORLD;
            if (k == 1) MPI_Comm_dup(MPI_COMM_WORLD, &comm);
            if (k == 2) MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &comm);
            if (k == 3) MPI_Comm_split(MPI_COMM_WORLD, rank < (size + 1) / 2 ? 0 : MPI_UNDEFINED, rank, &comm);
            if (comm != MPI_COMM_NULL) ok = call_on(comm, round, k, operands) && ok;
            if (comm != MPI_COMM_NULL && comm != MPI_COMM_WORLD) MPI_Comm_free(&comm);
            ok = world_allreduce(agree, round * 4 + k) && ok;
        }
        if (!ok && ++failed_rounds >= 3) ADD_FAILURE() << "stopping after 3 failed rounds on this rank";
        // Every rank stops at the same round, so that the collectives stay matched.
        const int any_stop = failed_rounds >= 3 ? 1 : 0;
        int stop = 0;
        PMPI_Allreduce(&any_stop, &stop, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (stop != 0) break;
    }
}

}  // namespace
