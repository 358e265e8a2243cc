// tree-dyn (pairs chosen while the reduction runs) under ranks that arrive at different times: before each call
// every rank sleeps as the call's arrival pattern says (together; one rank, any one, root included, 3 ms late; every
// rank up to 2 ms late), so the pairs, the order of the folds and the ranks told in advance where to send differ
// from call to call. Random counts, roots, operands (commutative or not, derived datatypes with gaps) and
// MPI_IN_PLACE, as in reduce_random_test.cpp; every call is checked against the test's own computation (for a
// non-commutative op, the rank-order product), every fourth against PMPI_Reduce as well. Every rank draws the same
// choices from the same seeded generator. REDUX_TEST_SEED=<n> replays another sequence.
#include "random_calls.hpp"
#include "reduce_check.hpp"

#include "policy/auto_select.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <unistd.h>

#include <algorithm>
#include <functional>
#include <random>
#include <vector>

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

// 2x2 matrices of unsigned ints (wrapping), multiplied in rank order: associative, not commutative.
void matrix_product(void* in, void* inout, int* count, MPI_Datatype*) {
    const auto* a = static_cast<const unsigned*>(in);
    auto* b = static_cast<unsigned*>(inout);
    for (int k = 0; k < *count; ++k, a += 4, b += 4) {
        const unsigned r[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                               a[2] * b[1] + a[3] * b[3]};
        std::copy(r, r + 4, b);
    }
}

// auto (every rank passing REDUX_ALGORITHM_AUTO) on one key of a communicator of its own, each rank late by
// delay_us(call, size, rank) before each call, after a barrier where `iterations` (a program's iterations that start
// together; without one, ranks that are not late run calls ahead of a late root). The loop stops once `algorithm` has
// run kDynamicCalls times, once two calls in a row after its first ran something else (its weighing, which takes turns,
// is over and it was not kept), or after 300 calls: the ranks come to auto's trials further apart than any reduction
// of 64 matrices takes, so after its trials auto weighs tree-dyn or the arrival tree in place
// (policy/auto_select.hpp), kDynamicCalls calls of it, or kArrivalEarlyCalls of an arrival tree whose calls were all
// slower than the choice's (one kept after its early look runs on); on 2 ranks there is neither. Every result is
// checked against the test's own rank-order product, under a commutative op (MPI_SUM on the unsigned entries) and a
// non-commutative one. `collective` allreduce or reduce_scatter_block: the same as MPI_Allreduce (every rank's result
// checked) or MPI_Reduce_scatter_block (every rank's block of kCount matrices checked); their arrival contender,
// late-rank, is for commutative ops only, so under the matrix product it must never run.
enum class Collective { reduce, allreduce, reduce_scatter_block };

void expect_weighed(const std::function<useconds_t(int call, int size, int rank)>& delay_us, redux_algorithm algorithm,
                    bool iterations, Collective collective = Collective::reduce) {
    const bool every_rank = collective != Collective::reduce;  // every rank's result, late-rank's collectives
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    constexpr int kCount = 64;
    constexpr int kDynamicCalls = redux::AutoSelect::kDynamicCalls;
    constexpr int kArrivalEarlyCalls = redux::AutoSelect::kArrivalEarlyCalls;
    MPI_Datatype matrix = MPI_DATATYPE_NULL;
    MPI_Type_contiguous(4, MPI_UNSIGNED, &matrix);
    MPI_Type_commit(&matrix);
    MPI_Op product = MPI_OP_NULL;
    MPI_Op_create(matrix_product, /*commute=*/0, &product);
    for (const bool commutative : {true, false}) {
        SCOPED_TRACE(commutative ? "MPI_SUM" : "matrix product");
        MPI_Comm comm = MPI_COMM_NULL;  // a communicator of its own: a new plan, auto's trials from the start
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        redux_options options = REDUX_OPTIONS_INIT;
        options.algorithm = REDUX_ALGORITHM_AUTO;
        int weighed_calls = 0, others_after = 0;  // the calls of `algorithm`; then of others in a row
        for (int call = 0; call < 300 && weighed_calls < kDynamicCalls && others_after < 2; ++call) {
            // reduce_scatter_block: kCount matrices per rank's block
            const int total = collective == Collective::reduce_scatter_block ? kCount * size : kCount;
            const auto block = static_cast<size_t>(collective == Collective::reduce_scatter_block ? 4 * kCount : 0);
            std::vector<unsigned> send(4 * static_cast<size_t>(total)), want(send.size());
            std::vector<unsigned> got(block > 0 ? block : send.size(), 0);
            auto entry = [&](int r, int k, int e) { return static_cast<unsigned>(r * 7 + k * 3 + e + call) % 5 + 1; };
            for (int k = 0; k < total; ++k) {
                for (int e = 0; e < 4; ++e) send[static_cast<size_t>(4 * k + e)] = entry(rank, k, e);
            }
            for (int k = 0; k < total; ++k) {
                unsigned* w = &want[static_cast<size_t>(4 * k)];
                for (int e = 0; e < 4; ++e) w[e] = entry(0, k, e);
                for (int r = 1; r < size; ++r) {
                    unsigned next[4];
                    for (int e = 0; e < 4; ++e) next[e] = entry(r, k, e);
                    if (commutative) {
                        for (int e = 0; e < 4; ++e) w[e] += next[e];
                    } else {
                        int one = 1;
                        matrix_product(w, next, &one, nullptr);  // next = w * next: ranks 0 .. r in order
                        std::copy(next, next + 4, w);
                    }
                }
            }
            if (iterations) MPI_Barrier(comm);
            if (size >= 3 && delay_us(call, size, rank) > 0) usleep(delay_us(call, size, rank));
            redux_call_info info{};
            const int count = commutative ? 4 * kCount : kCount;  // unsigned ints, or matrices (a block's)
            const MPI_Datatype type = commutative ? MPI_UNSIGNED : matrix;
            const MPI_Op op = commutative ? MPI_SUM : product;
            int rc = MPI_SUCCESS;
            if (collective == Collective::allreduce) {
                rc = redux_allreduce_ex(send.data(), got.data(), count, type, op, comm, &options, &info);
            } else if (collective == Collective::reduce_scatter_block) {
                rc = redux_reduce_scatter_block_ex(send.data(), got.data(), count, type, op, comm, &options, &info);
            } else {
                rc = redux_reduce_ex(send.data(), got.data(), count, type, op, 0, comm, &options, &info);
            }
            ASSERT_EQ(rc, MPI_SUCCESS);
            if (info.algorithm == algorithm) {
                ++weighed_calls;
                others_after = 0;
            } else if (weighed_calls > 0) {
                ++others_after;
            }
            if (block > 0) {
                const auto mine = want.begin() + static_cast<std::ptrdiff_t>(block * static_cast<size_t>(rank));
                EXPECT_EQ(got, std::vector<unsigned>(mine, mine + static_cast<std::ptrdiff_t>(block)))
                    << "call " << call;
            } else if (rank == 0 || every_rank) {
                EXPECT_EQ(got, want) << "call " << call;
            }
        }
        const bool weighs = size >= 3 && (commutative || !every_rank);
        if (weighs && algorithm != REDUX_ALGORITHM_TREE_DYN && weighed_calls == kArrivalEarlyCalls) {
            EXPECT_GE(others_after, 2) << "an arrival tree that ran only its early look was not kept";
        } else {
            EXPECT_EQ(weighed_calls, weighs ? kDynamicCalls : 0);
        }
        MPI_Comm_free(&comm);
    }
    MPI_Op_free(&product);
    MPI_Type_free(&matrix);
}

// Every rank other than the root late by its own draw for each call, up to 30 ms: arrivals that do not repeat (not a
// rank in turn, which auto's trial calls, one in kExploreEvery, could see as the same rank late at every trial start,
// nor one of the two others on 3 ranks, which is the same one at most starts often enough), tree-dyn.
TEST(ReduceTreeDyn, AutoWeighsItWhereRanksArriveApart) {
    expect_weighed(
        [](int call, int size, int rank) -> useconds_t {
            if (rank == 0) return 0;
            std::mt19937 draw(static_cast<unsigned>(call * size + rank));
            return static_cast<useconds_t>(draw() % 30000);
        },
        REDUX_ALGORITHM_TREE_DYN, false);
}

// The same rank 50 ms late at every iteration, or the root: arrivals that repeat, the arrival tree. (A start holds the
// pattern where every rank comes within a quarter of the lateness of its prediction: 50 ms leaves 12.5 ms to the
// scheduler's noise, which on 7 or 8 ranks sharing 2 cores with other jobs reached the 7.5 ms that 30 ms left.)
constexpr useconds_t kLateUs = 50000;
useconds_t same_rank_late(int, int size, int rank) { return rank == size / 2 ? kLateUs : 0; }
TEST(ReduceTreeDyn, AutoWeighsTheArrivalTreeWhereTheSameRankIsLate) {
    expect_weighed(same_rank_late, REDUX_ALGORITHM_ARRIVAL_TREE, true);
}
TEST(ReduceTreeDyn, AutoWeighsTheArrivalTreeWhereTheRootIsLate) {
    expect_weighed([](int, int, int rank) -> useconds_t { return rank == 0 ? kLateUs : 0; },
                   REDUX_ALGORITHM_ARRIVAL_TREE, true);
}
// MPI_Allreduce with the same rank late at every iteration: late-rank (the arrival tree's part for allreduce).
TEST(ReduceTreeDyn, AutoWeighsTheArrivalTreeOfAllreduceWhereTheSameRankIsLate) {
    expect_weighed(same_rank_late, REDUX_ALGORITHM_LATE_RANK, true, Collective::allreduce);
}
// MPI_Reduce_scatter_block likewise: late-rank's reduce-scatter-block, weighed where it is made.
TEST(ReduceTreeDyn, AutoWeighsTheArrivalTreeOfReduceScatterBlockWhereTheSameRankIsLate) {
    expect_weighed(same_rank_late, REDUX_ALGORITHM_LATE_RANK, true, Collective::reduce_scatter_block);
}

}  // namespace
