// Segmented, pipelined reductions: the vector cut into segments (redux_options.segment_bytes), each folded along
// the tree and sent on while the next arrives. Every call is checked by check_reduce (the operand's own
// computation of the result, gaps and margins untouched, sendbuf unchanged, every request completed):
//   - every strategy of the table that needs no limit, and auto;
//   - operands: predefined ops, user ops commutative or not, derived datatypes with gaps and negative lower
//     bounds (segments are whole elements);
//   - segment sizes giving 2 and 3 segments, one element per segment, and counts of 1, segment - 1,
//     segment + 1 and a prime (1009), so that segments differ in length and some have one element;
//   - every root; MPI_IN_PLACE and not;
//   - a large prime count (100,003) in about a thousand segments.
// Scratch memory stays within the receive window's segments, never children x vector.
// And redux_call_info.segments says the count the call ran with: ceil(bytes / segment_bytes), at most count.
#include "random_calls.hpp"
#include "reduce_check.hpp"

#include "api/comm_state.hpp"

#include <redux/algorithms.h>
#include <redux/redux.h>

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace {

std::vector<redux_algorithm> algorithms() {
    std::vector<redux_algorithm> out = {REDUX_ALGORITHM_AUTO};
#define REDUX_TEST_ALGORITHM_(ENUM, name, text, value, needs) \
    if (std::string(#needs) != "limit") out.push_back(REDUX_ALGORITHM_##ENUM);
    REDUX_STRATEGIES(REDUX_TEST_ALGORITHM_)
#undef REDUX_TEST_ALGORITHM_
    return out;
}

std::vector<int> every_root(int size) {
    std::vector<int> out(static_cast<size_t>(size));
    for (int r = 0; r < size; ++r) out[static_cast<size_t>(r)] = r;
    return out;
}

int type_size(MPI_Datatype datatype) {
    int bytes = 0;
    MPI_Type_size(datatype, &bytes);
    return bytes;
}

TEST(ReduceSegments, EveryStrategyOperandRootAndSegmentCut) {
    const auto operands = redux_test::mixed_operands();
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    uint64_t seed = 1;
    for (const auto& operand : operands) {
        const long long element = std::max(1, type_size(operand->datatype()));
        for (redux_algorithm algorithm : algorithms()) {
            // (count, elements per segment): one element per segment; 2 and 3 segments; segment -1 / +1; a prime.
            const std::vector<std::pair<int, int>> cuts = {{1, 1},   {7, 1},   {10, 5},   {9, 3},
                                                           {15, 16}, {17, 16}, {1009, 64}};
            for (const auto& [count, per_segment] : cuts) {
                for (int root : every_root(size)) {
                    for (bool in_place : {false, true}) {
                        redux_test::ReduceCall call;
                        call.root = root;
                        call.count = count;
                        call.in_place = in_place;
                        call.seed = ++seed;
                        call.options.algorithm = algorithm;
                        call.options.segment_bytes = per_segment * element;
                        SCOPED_TRACE("algorithm " + std::to_string(algorithm) + ", " + std::to_string(per_segment) +
                                     " elements per segment");
                        redux_test::check_reduce(*operand, call);
                    }
                }
            }
        }
    }
}

// A long vector of a large prime count (100,003 elements) in 97 to 98 elements a segment (1021 to 1031
// segments, no two cuts alike), at the first and the last root, in place and not: the commutative sum of int64
// and the non-commutative matrix product on a derived datatype with a negative lower bound.
TEST(ReduceSegments, LargePrimeCountInManySegments) {
    const auto operands = redux_test::mixed_operands();
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    uint64_t seed = 1000;
    for (const std::string wanted : {"MPI_INT64_T", "struct with lb -16"}) {
        const auto found = std::find_if(operands.begin(), operands.end(),
                                        [&](const auto& o) { return o->name().find(wanted) != std::string::npos; });
        ASSERT_NE(found, operands.end()) << "no operand named " << wanted << " in mixed_operands()";
        const redux_test::Operand& operand = **found;
        const long long element = std::max(1, type_size(operand.datatype()));
        for (redux_algorithm algorithm : {REDUX_ALGORITHM_OPTIMAL, REDUX_ALGORITHM_CHAIN, REDUX_ALGORITHM_AUTO}) {
            for (int root : std::set<int>{0, size - 1}) {
                for (bool in_place : {false, true}) {
                    redux_test::ReduceCall call;
                    call.root = root;
                    call.count = 100003;
                    call.in_place = in_place;
                    call.seed = ++seed;
                    call.options.algorithm = algorithm;
                    call.options.segment_bytes = 97 * element + element / 2;
                    SCOPED_TRACE(operand.name() + ", algorithm " + std::to_string(algorithm) + ", root " +
                                 std::to_string(root) + (in_place ? ", in place" : ""));
                    redux_test::check_reduce(operand, call);
                }
            }
        }
    }
}

// Scratch memory is the window's worth of segments, not children x vector: the binomial tree (the root has
// ceil(log2 n) children) over 100,000 doubles in 100 segments holds at most (recv_window + 2) segments of
// scratch on every rank (the default window: 2).
TEST(ReduceSegments, ScratchIsBoundedByTheWindowNotTheVector) {
    int size = 1, rank = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);  // a communicator whose only plan is this one
    const int count = 100000, per_segment = 1000;
    std::vector<double> send(count, rank + 1.0), recv(count, 0.0);
    redux_options options = REDUX_OPTIONS_INIT;
    options.algorithm = REDUX_ALGORITHM_BINOMIAL;
    options.transfer_s = 1e-3;
    options.compute_s = 0;
    options.segment_bytes = 8LL * per_segment;
    redux_call_info info{};
    ASSERT_EQ(redux_reduce_ex(send.data(), recv.data(), count, MPI_DOUBLE, MPI_SUM, 0, comm, &options, &info),
              MPI_SUCCESS);
    if (rank == 0) {
        for (int i = 0; i < count; i += 997) ASSERT_EQ(recv[i], size * (size + 1) / 2.0) << "element " << i;
    }
    const redux::CommState* state = redux::find_comm_state(comm);
    if (size == 1) {  // one rank: MPI_Reduce's own business (libredux keeps no state)
        EXPECT_EQ(state, nullptr);
        MPI_Comm_free(&comm);
        return;
    }
    ASSERT_NE(state, nullptr);
    size_t held = 0;
    for (const auto& [key, plan] : state->plans) held += plan->workspace.held_bytes();
    const size_t bound = (2 + 2) * sizeof(double) * per_segment;
    EXPECT_EQ(info.segments, count / per_segment);
    EXPECT_LE(held, bound) << "rank " << rank << " holds " << held << " bytes of scratch for " << count * sizeof(double)
                           << " bytes of vector";
    MPI_Comm_free(&comm);
}

TEST(ReduceSegments, CallInfoSaysHowManySegments) {
    int size = 1, rank = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int count = 1000;
    std::vector<double> send(count, rank + 1.0), recv(count, 0.0);
    for (long long segment_bytes : {0LL, 8LL * 1000, 8LL * 300, 8LL, 8LL * 5000}) {
        redux_options options = REDUX_OPTIONS_INIT;
        options.algorithm = REDUX_ALGORITHM_BINOMIAL;
        options.segment_bytes = segment_bytes;
        redux_call_info info{};
        ASSERT_EQ(
            redux_reduce_ex(send.data(), recv.data(), count, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD, &options, &info),
            MPI_SUCCESS);
        const long long bytes = 8LL * count;
        const int want =
            segment_bytes == 0
                ? 1
                : static_cast<int>(std::min<long long>(count, (bytes + segment_bytes - 1) / segment_bytes));
        if (size > 1) {
            EXPECT_EQ(info.planned, 1);
            EXPECT_EQ(info.segments, want) << segment_bytes << " bytes per segment";
        }
        if (rank == 0) {
            for (int i = 0; i < count; ++i) ASSERT_EQ(recv[i], size * (size + 1) / 2.0) << "element " << i;
        }
    }
}

}  // namespace
