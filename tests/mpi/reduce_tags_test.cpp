// The tags on libredux's private communicator (mpi/tags.hpp): one table of disjoint ranges, so that a message
// of one protocol never matches a receive of another, whatever order they meet in.
//
// TagTable: the fixed tags are distinct, below the trees' range, and the last tree's tag is within both the
// 32767 every MPI library allows and this library's MPI_TAG_UB.
//
// CalibrationInFlight: every rank sends every other rank messages with the executor's tags (trees 0, 1, 2 and
// the last, the sink's result) and the start message's tag, and leaves them unreceived, as a plan's segments
// are while a peer has moved on; then all ranks calibrate the links on that same communicator. It is the
// process's first calibration, so a pair of ranks ping-pongs (calibrate_links's step 3). MPI hands a receive the
// earliest matching message from its source, so a calibration receive that matched any of those tags (a receive
// with MPI_ANY_TAG, or a ping sharing a tree's tag) would take one of them: the 8 B ping's receive fails
// truncated (the messages are 24 B) and the job is aborted, or a message received afterwards is not the one
// sent. Afterwards each message is received with its own tag and checked. Runs in a process of its own
// (the registration's --gtest_filter), where nothing has calibrated before it.
//
// SkewedCalls: the library end to end, with REDUX_ALGORITHM=two-tree and REDUX_SEGMENT_BYTES=64 (set by the
// registration), so each call sends dozens of tagged segments along two trees. On each of a series of
// communicators (a duplicate of MPI_COMM_WORLD, then ones with the ranks reordered or split in two) calls with
// given costs, which plan without calibrating, alternate with calls that take the library's own costs, the first
// of which calibrates the communicator right after a two-tree call; one rank, a different one each call, sleeps
// before it, so its peers are ahead of it. Every result, of a non-commutative matrix product and of a sum, is
// checked against the test's own computation: a message taken by the wrong receive gives a wrong or permuted
// product. Through the library the protocols are also kept apart by order: a rank leaves a call only once it has
// received every message of it meant for it, and a calibration begins with a collective, so no segment of the
// previous call is left for a ping to meet. CalibrationInFlight is the test that fails if the tags overlap
// (calibration receiving with MPI_ANY_TAG, or a ping with tree 0's tag); this one keeps the whole path honest.
#include "calib/link_calibration.hpp"
#include "calib/topology.hpp"
#include "mpi/tags.hpp"
#include "predefined_ops.hpp"
#include "reduce_check.hpp"
#include "user_ops.hpp"

#include "redux/redux.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

namespace {

namespace tags = redux::tags;

// The tags of the messages a plan (and auto's trials) may leave in flight towards a rank that calibrates.
const std::vector<int>& executor_tags() {
    static const std::vector<int> all{tags::kStart,  tags::kResult, tags::tree(0),
                                      tags::tree(1), tags::tree(2), tags::tree(tags::kMostTrees - 1)};
    return all;
}

TEST(TagTable, RangesAreDisjointAndWithinTheTagBound) {
    const int fixed[] = {tags::kStart, tags::kPing, tags::kResult};
    for (size_t i = 0; i < std::size(fixed); ++i) {
        EXPECT_GE(fixed[i], 0);  // MPI_ANY_TAG is negative
        EXPECT_LT(fixed[i], tags::tree(0));
        for (size_t j = 0; j < i; ++j) EXPECT_NE(fixed[i], fixed[j]);
    }
    EXPECT_EQ(tags::tree(0), tags::kFirstTree);
    EXPECT_LE(tags::tree(tags::kMostTrees - 1), 32767);
    int* upper_bound = nullptr;
    int found = 0;
    ASSERT_EQ(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &upper_bound, &found), MPI_SUCCESS);
    ASSERT_TRUE(found);
    EXPECT_LE(tags::tree(tags::kMostTrees - 1), *upper_bound);
}

// 24 B: larger than calibration's first ping (8 B), so a ping receive that takes one fails at once.
using Message = std::array<int64_t, 3>;  // source, tag, index

constexpr int kPerTag = 3;

// Completes `requests` by polling; false if they are not done within a minute (a message taken by another receive
// never arrives for its own).
bool wait_or_give_up(std::vector<MPI_Request>& requests) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    for (;;) {
        int done = 0;
        EXPECT_EQ(MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE),
                  MPI_SUCCESS);
        if (done) return true;
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
}

TEST(CalibrationInFlight, TakesOnlyItsOwnMessages) {
    MPI_Comm comm = MPI_COMM_NULL;
    ASSERT_EQ(MPI_Comm_dup(MPI_COMM_WORLD, &comm), MPI_SUCCESS);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);

    std::vector<Message> out, in;
    for (int peer = 0; peer < size; ++peer) {
        if (peer == rank) continue;
        for (int tag : executor_tags()) {
            for (int i = 0; i < kPerTag; ++i) out.push_back({rank, tag, i});
        }
    }
    in.resize(out.size());
    std::vector<MPI_Request> sends;
    size_t at = 0;
    for (int peer = 0; peer < size; ++peer) {
        if (peer == rank) continue;
        for (int tag : executor_tags()) {
            for (int i = 0; i < kPerTag; ++i, ++at) {
                sends.emplace_back();
                ASSERT_EQ(MPI_Isend(out[at].data(), 3, MPI_INT64_T, peer, tag, comm, &sends.back()), MPI_SUCCESS);
            }
        }
    }

    redux::Topology topology;
    ASSERT_EQ(redux::gather_topology(comm, topology), MPI_SUCCESS);
    redux::LinkCalibration links;
    const int rc = redux::calibrate_links(comm, topology, {}, links);
    if (rc != MPI_SUCCESS) {
        ADD_FAILURE() << "calibrate_links failed (error " << rc << ") with the executor's messages in flight";
        MPI_Abort(MPI_COMM_WORLD, 1);  // its peer in the ping-pong waits for it
    }
    if (size > 1) {
        EXPECT_EQ(links.source, "measured");  // a pair ping-ponged
    }

    std::vector<MPI_Request> receives;
    at = 0;
    for (int peer = 0; peer < size; ++peer) {
        if (peer == rank) continue;
        for (int tag : executor_tags()) {
            for (int i = 0; i < kPerTag; ++i, ++at) {
                receives.emplace_back();
                ASSERT_EQ(MPI_Irecv(in[at].data(), 3, MPI_INT64_T, peer, tag, comm, &receives.back()), MPI_SUCCESS);
            }
        }
    }
    if (!wait_or_give_up(receives)) {
        ADD_FAILURE() << "a message sent before the calibration never arrived for its own receive";
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    at = 0;
    for (int peer = 0; peer < size; ++peer) {
        if (peer == rank) continue;
        for (int tag : executor_tags()) {
            for (int i = 0; i < kPerTag; ++i, ++at) {
                const Message want{peer, tag, i};
                EXPECT_EQ(in[at], want) << "from rank " << peer << ", tag " << tag << ", message " << i;
            }
        }
    }
    if (!wait_or_give_up(sends)) {
        ADD_FAILURE() << "a send was never received";
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_free(&comm);
}

// The communicators of the skewed calls, one per round, each with libredux's own private duplicate: the world in
// order, then reordered and split into halves in turn.
MPI_Comm round_communicator(int round) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm comm = MPI_COMM_NULL;
    if (round == 0) {
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    } else if (round % 2 == 1) {
        MPI_Comm_split(MPI_COMM_WORLD, 0, (rank + round) % size, &comm);  // rotated
    } else {
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &comm);  // halves, reversed
    }
    return comm;
}

TEST(SkewedCalls, TwoTreeInSegmentsAroundCalibration) {
    const auto product = redux_test::packed_matrix_operand();
    const auto sum = redux_test::predefined_operand<int64_t>("MPI_INT64_T", MPI_INT64_T, MPI_SUM);
    const redux_test::Operand* operands[] = {product.get(), sum.get()};

    redux_options given = REDUX_OPTIONS_INIT;  // costs given: the call plans without calibrating
    given.transfer_s = 1e-6;
    given.compute_s = 1e-7;
    const redux_options own = REDUX_OPTIONS_INIT;  // the library's costs: the first such call calibrates

    constexpr int kRounds = 5, kCalls = 8, kCount = 200;  // 200 elements of 8 B: 25 segments of 64 B
    uint64_t seed = 7000;
    for (int round = 0; round < kRounds; ++round) {
        MPI_Comm comm = round_communicator(round);
        int rank = 0, size = 1;
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &size);
        for (int call = 0; call < kCalls; ++call) {
            if (rank == (round + call) % size) std::this_thread::sleep_for(std::chrono::milliseconds(2));
            for (const redux_test::Operand* operand : operands) {
                redux_test::ReduceCall reduce;
                reduce.comm = comm;
                reduce.root = (call + round) % size;
                reduce.count = kCount;
                reduce.seed = seed++;
                reduce.options = call % 3 == 2 ? own : given;  // calibration after two two-tree calls
                redux_test::check_reduce(*operand, reduce);
            }
        }
        if (size > 1) {  // the calls above ran the two-tree plan, in segments
            std::vector<uint64_t> data(kCount, 1), result(kCount);
            redux_call_info info{};
            ASSERT_EQ(
                redux_reduce_ex(data.data(), result.data(), kCount, MPI_UINT64_T, product->op(), 0, comm, &own, &info),
                MPI_SUCCESS);
            EXPECT_EQ(info.planned, 1);
            EXPECT_EQ(info.algorithm, REDUX_ALGORITHM_TWO_TREE);
            EXPECT_GT(info.segments, 1);
        }
        MPI_Comm_free(&comm);
    }
}

}  // namespace
