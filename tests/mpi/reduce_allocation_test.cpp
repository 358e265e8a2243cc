// Repeated calls allocate nothing: once a key's plan and scratch buffers exist, a call of the same key makes no
// C++ allocation in libredux (tree-dyn's too, whose pairs and roles differ from call to call) -- for predefined
// datatypes, and for derived datatypes with holes, whose copies go through MPI_Pack into a buffer the plan keeps.
// Counted by a global operator new that counts (tests/support/counting_new.hpp; libredux.so's allocations come to
// it too). MPI's own mallocs are not counted: they are the MPI library's business. Non-commutative ops at a root
// other than 0 make trees whose sink is not the root, so the final transfer and the root's copies run too. And a
// dozen keys called in turns, each result checked. And an allocation that fails (the counting operator new throws
// on request) reaches the error handler once.
#include "counting_errhandler.hpp"
#include "counting_new.hpp"
#include "reduce_check.hpp"

#include "redux/redux.h"

#include "policy/auto_select.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

namespace {

// Element type: two doubles with a hole between them (data at 0 and 16, extent 24).
MPI_Datatype pair_with_hole() {
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &type);
    MPI_Type_commit(&type);
    return type;
}

// Sum on either element type, declared non-commutative where asked (the sum's value does not depend on the
// order, so the expected result is simple, but the plan is the non-commutative one).
void sum_op(void* in, void* inout, int* len, MPI_Datatype* datatype) {
    const bool holes = *datatype != MPI_DOUBLE;
    const int per = holes ? 3 : 1;
    auto* a = static_cast<const double*>(in);
    auto* b = static_cast<double*>(inout);
    for (int i = 0; i < *len; ++i) {
        b[i * per] += a[i * per];
        if (holes) b[i * per + 2] += a[i * per + 2];
    }
}

struct Case {
    bool holes;
    bool commutative;
    redux_algorithm algorithm;
};

TEST(ReduceAllocation, RepeatedCallsOfOneKeyAllocateNothing) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype holes_type = pair_with_hole();
    constexpr int kCount = 300;
    for (const Case& c : {Case{false, true, REDUX_ALGORITHM_OPTIMAL}, Case{false, false, REDUX_ALGORITHM_FIBONACCI},
                          Case{true, true, REDUX_ALGORITHM_BINOMIAL}, Case{true, false, REDUX_ALGORITHM_OPTIMAL},
                          Case{true, false, REDUX_ALGORITHM_AUTO}, Case{false, true, REDUX_ALGORITHM_TREE_DYN},
                          Case{true, false, REDUX_ALGORITHM_TREE_DYN}}) {
        SCOPED_TRACE(::testing::Message()
                     << (c.holes ? "holes" : "double") << (c.commutative ? " commutative" : " non-commutative")
                     << " algorithm " << c.algorithm);
        MPI_Op op = MPI_OP_NULL;
        MPI_Op_create(sum_op, c.commutative ? 1 : 0, &op);
        const MPI_Datatype type = c.holes ? holes_type : MPI_DOUBLE;
        const int per = c.holes ? 3 : 1;
        std::vector<double> send(static_cast<size_t>(kCount * per), -1.0), recv(send.size(), 0.0);
        for (int i = 0; i < kCount; ++i) {
            send[static_cast<size_t>(i * per)] = rank + i;
            if (c.holes) send[static_cast<size_t>(i * per + 2)] = 2.0 * rank;
        }
        const int root = size - 1;
        redux_options options = REDUX_OPTIONS_INIT;
        options.algorithm = c.algorithm;
        const auto call = [&] {
            return redux_reduce_ex(send.data(), rank == root ? recv.data() : nullptr, kCount, type, op, root,
                                   MPI_COMM_WORLD, &options, nullptr);
        };
        const long first = redux_test::new_calls();
        ASSERT_EQ(call(), MPI_SUCCESS);
        if (size > 1) {  // one rank plans nothing
            EXPECT_GT(redux_test::new_calls(), first) << "the counter sees libredux's allocations (a new key's plan)";
        }
        // auto keeps its trials' samples until it decides: the repeated calls follow its decision.
        const int warm_calls = c.algorithm == REDUX_ALGORITHM_AUTO ? redux::AutoSelect::kMaxCallsToDecide + 1 : 20;
        for (int warm = 1; warm < warm_calls; ++warm) ASSERT_EQ(call(), MPI_SUCCESS);
        const long before = redux_test::new_calls();
        for (int repeat = 0; repeat < 50; ++repeat) ASSERT_EQ(call(), MPI_SUCCESS);
        const long allocations = redux_test::new_calls() - before;
        EXPECT_EQ(allocations, 0) << "allocations in 50 repeated calls";
        if (rank == root) {
            const double ranks_sum = size * (size - 1) / 2.0;
            for (int i = 0; i < kCount; ++i) {
                ASSERT_EQ(recv[static_cast<size_t>(i * per)], ranks_sum + static_cast<double>(size) * i) << i;
                if (c.holes) {
                    ASSERT_EQ(recv[static_cast<size_t>(i * per + 2)], 2.0 * ranks_sum) << i;
                }
            }
        }
        MPI_Op_free(&op);
    }
    MPI_Type_free(&holes_type);
}

}  // namespace

// Several keys taking turns (more than libredux remembers as recent calls, so remembered calls are replaced
// while others are found): every call's result is right, whichever path it took.
TEST(ReduceAllocation, KeysTakingTurnsGiveTheRightSums) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    constexpr int kKeys = 11;
    const redux_algorithm algorithms[] = {REDUX_ALGORITHM_OPTIMAL, REDUX_ALGORITHM_AUTO, REDUX_ALGORITHM_BINOMIAL,
                                          REDUX_ALGORITHM_NATIVE};
    for (int round = 0; round < 30; ++round) {
        // The first rounds visit the keys in order; later ones only every other key, then all again.
        const int stride = round % 3 == 2 ? 2 : 1;
        for (int key = 0; key < kKeys; key += stride) {
            const int count = 1 + 7 * key;
            const int root = key % size;
            redux_options options = REDUX_OPTIONS_INIT;
            options.algorithm = algorithms[key % 4];
            std::vector<double> send(static_cast<size_t>(count)), recv(send.size(), -1.0);
            for (int i = 0; i < count; ++i) send[static_cast<size_t>(i)] = rank * 1000.0 + i + round;
            ASSERT_EQ(redux_reduce_ex(send.data(), recv.data(), count, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD,
                                      &options, nullptr),
                      MPI_SUCCESS)
                << "round " << round << " key " << key;
            if (rank != root) continue;
            const double ranks_sum = 1000.0 * size * (size - 1) / 2.0;
            for (int i = 0; i < count; ++i) {
                ASSERT_EQ(recv[static_cast<size_t>(i)], ranks_sum + static_cast<double>(size) * (i + round))
                    << "round " << round << " key " << key << " element " << i;
            }
        }
    }
}

// An allocation that fails on every rank while a call makes libredux's state for a communicator, then while
// another call makes a key's plan: each call fails with MPI_ERR_NO_MEM through the communicator's error handler,
// once, and the same call made again works.
TEST(ReduceAllocation, FailedAllocationReachesTheErrorHandlerOnce) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size == 1) GTEST_SKIP() << "one rank: libredux makes nothing, every call goes to the MPI library";
    redux_options tree = REDUX_OPTIONS_INIT;  // a tree on every rank count (auto could settle on native)
    tree.algorithm = REDUX_ALGORITHM_BINOMIAL;
    std::vector<double> send(64, rank + 1.0), recv(send.size(), 0.0);
    // Process-wide set-up first (the settings, the keyvals), on another communicator.
    ASSERT_EQ(redux_reduce_ex(send.data(), recv.data(), 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD, &tree, nullptr),
              MPI_SUCCESS);
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Errhandler handler = redux_test::make_counting_errhandler();
    MPI_Comm_set_errhandler(comm, handler);
    const struct {
        const char* stage;
        int count;
    } stages[] = {{"the communicator's state", 40}, {"a new key's plan", 41}};
    for (const auto& s : stages) {
        SCOPED_TRACE(s.stage);
        const auto call = [&] {
            return redux_reduce_ex(send.data(), recv.data(), s.count, MPI_DOUBLE, MPI_SUM, 0, comm, &tree, nullptr);
        };
        redux_test::reset_error_count();
        redux_test::fail_new_after(0);
        const int rc = call();
        redux_test::fail_new_after(-1);
        int error_class = MPI_SUCCESS;
        MPI_Error_class(rc, &error_class);
        EXPECT_EQ(error_class, MPI_ERR_NO_MEM);
        EXPECT_EQ(redux_test::error_count().calls, 1);
        EXPECT_EQ(redux_test::error_count().last_class, MPI_ERR_NO_MEM);
        ASSERT_EQ(call(), MPI_SUCCESS);
        if (rank == 0) {
            EXPECT_EQ(recv[0], size * (size + 1) / 2.0);
            EXPECT_EQ(recv[static_cast<size_t>(s.count - 1)], size * (size + 1) / 2.0);
        }
    }
    MPI_Comm_free(&comm);
    MPI_Errhandler_free(&handler);
}
