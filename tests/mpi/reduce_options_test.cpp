// redux_reduce_ex: per-call options and the call report.
//   - an explicit algorithm wins over REDUX_ALGORITHM (this executable also runs with REDUX_ALGORITHM=native);
//   - NATIVE goes to PMPI_Reduce (no request of libredux's), the planned ones run a tree when there is one;
//   - the call's d and c are the ones the plan is made with, and the predicted makespan is the optimum of the
//     model, computed here from the paper's closed forms for small n and checked against the planner above;
//   - bad options are MPI_ERR_ARG through the communicator's error handler, before any message, also right after
//     calls whose route libredux keeps for the next call (a communicator configured native, a recent call).
#include "counting_errhandler.hpp"
#include "plan/planner.hpp"
#include "policy/auto_select.hpp"
#include "reduce_check.hpp"
#include "request_counter.hpp"

#include <redux/redux.h>

#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

namespace {

class ReduceOptions : public ::testing::Test {
protected:
    void SetUp() override {
        MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
        handler_ = redux_test::make_counting_errhandler();
        MPI_Comm_set_errhandler(comm_, handler_);
        MPI_Comm_size(comm_, &size_);
        MPI_Comm_rank(comm_, &rank_);
    }
    void TearDown() override {
        MPI_Comm_free(&comm_);
        MPI_Errhandler_free(&handler_);
    }

    struct Outcome {
        int rc = MPI_SUCCESS;
        long long started = 0;
        redux_call_info info{};
        std::vector<long long> result;
    };

    // Sums (rank + 1) * (i + 1) over ranks for i < count, at root size - 1, with `options`.
    Outcome sum(const redux_options* options, int count = 5) {
        std::vector<long long> send(count), recv(count, -1);
        for (int i = 0; i < count; ++i) send[i] = static_cast<long long>(rank_ + 1) * (i + 1);
        const auto before = redux_test::request_counts();
        Outcome out;
        std::memset(&out.info, 0x5A, sizeof out.info);  // every field must be written
        out.rc = redux_reduce_ex(send.data(), recv.data(), count, MPI_LONG_LONG, MPI_SUM, size_ - 1, comm_, options,
                                 &out.info);
        const auto after = redux_test::request_counts();
        out.started = after.started - before.started;
        EXPECT_EQ(after.completed - before.completed, out.started) << "a request was left behind";
        if (rank_ == size_ - 1) {
            const long long ranks_sum = static_cast<long long>(size_) * (size_ + 1) / 2;
            for (int i = 0; i < count; ++i) EXPECT_EQ(recv[i], ranks_sum * (i + 1)) << "element " << i;
        }
        return out;
    }

    MPI_Comm comm_ = MPI_COMM_NULL;
    MPI_Errhandler handler_ = MPI_ERRHANDLER_NULL;
    int size_ = 1, rank_ = 0;
};

TEST_F(ReduceOptions, ExplicitPlannedAlgorithmRunsATree) {
    for (redux_algorithm algorithm : {REDUX_ALGORITHM_OPTIMAL, REDUX_ALGORITHM_FIBONACCI, REDUX_ALGORITHM_BINOMIAL}) {
        SCOPED_TRACE(static_cast<int>(algorithm));
        redux_options options = REDUX_OPTIONS_INIT;
        options.algorithm = algorithm;
        const Outcome out = sum(&options);
        EXPECT_EQ(out.rc, MPI_SUCCESS);
        if (size_ == 1) {  // nothing to plan: MPI_Reduce copies
            EXPECT_EQ(out.info.planned, 0);
            EXPECT_EQ(out.started, 0);
            continue;
        }
        EXPECT_EQ(out.info.planned, 1);
        EXPECT_EQ(out.info.algorithm, algorithm);
        EXPECT_EQ(out.info.deciding, 0) << "a strategy the caller named: nothing for auto to decide";
        EXPECT_GT(out.started, 0) << "no request started: the call did not run a tree";
        EXPECT_GT(out.info.predicted_s, 0);
    }
}

// SNF and the heterogeneous greedy tree need several link classes; on one node with unbound or same-package
// ranks (this test's machine) there is one, and they run the optimal tree, which the report says.
TEST_F(ReduceOptions, HeterogeneousTreesFallBackToOptimalOnOneLinkClass) {
    for (redux_algorithm algorithm : {REDUX_ALGORITHM_SNF, REDUX_ALGORITHM_HETERO_GREEDY}) {
        redux_options options = REDUX_OPTIONS_INIT;
        options.algorithm = algorithm;
        const Outcome out = sum(&options);
        EXPECT_EQ(out.rc, MPI_SUCCESS);
        if (size_ == 1) continue;
        int nodes = 0;  // more than one node (the emulated cluster): then the tree may be what was asked
        MPI_Comm node_comm = MPI_COMM_NULL;
        MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node_comm);
        int node_rank = 0;
        MPI_Comm_rank(node_comm, &node_rank);
        const int leader = node_rank == 0;
        MPI_Allreduce(&leader, &nodes, 1, MPI_INT, MPI_SUM, comm_);
        MPI_Comm_free(&node_comm);
        EXPECT_EQ(out.info.planned, 1);
        EXPECT_GT(out.started, 0);
        if (nodes == 1) {
            EXPECT_EQ(out.info.algorithm, REDUX_ALGORITHM_OPTIMAL);
        }
    }
}

TEST_F(ReduceOptions, ExplicitNativeGoesToTheLibrary) {
    redux_options options = REDUX_OPTIONS_INIT;
    options.algorithm = REDUX_ALGORITHM_NATIVE;
    const Outcome out = sum(&options);
    EXPECT_EQ(out.rc, MPI_SUCCESS);
    EXPECT_EQ(out.started, 0);
    EXPECT_EQ(out.info.planned, 0);
    EXPECT_EQ(out.info.algorithm, REDUX_ALGORITHM_NATIVE);
    EXPECT_EQ(out.info.predicted_s, 0);
    EXPECT_EQ(out.info.deciding, 0);
}

// Under auto a key's first AutoSelect::kNativeFirstCalls calls go to the MPI library's own reduce unplanned, the
// next is the first trial call, the library's own too, then the library's own until a tree's turn may come (one
// call in AutoSelect::kExploreEvery); the one after them, the model's tree. auto reports each of them as still
// deciding (on 2 ranks or more); a configured strategy or native, none.
TEST_F(ReduceOptions, NoOptionsFollowTheEnvironment) {
    const char* configured = std::getenv("REDUX_ALGORITHM");
    const bool native = configured != nullptr && std::strcmp(configured, "native") == 0;
    const bool automatic = configured == nullptr || std::strcmp(configured, "auto") == 0;
    const int before_tree = redux::AutoSelect::kNativeFirstCalls + redux::AutoSelect::kExploreEvery - 1;
    for (int call = 0; call < (automatic ? before_tree : 1); ++call) {
        const Outcome first = sum(nullptr);
        EXPECT_EQ(first.rc, MPI_SUCCESS);
        EXPECT_EQ(first.info.planned, native || automatic || size_ == 1 ? 0 : 1) << "call " << call;
        EXPECT_EQ(first.info.deciding, automatic && size_ > 1 ? 1 : 0) << "call " << call;
    }
    const Outcome out = sum(nullptr);
    EXPECT_EQ(out.rc, MPI_SUCCESS);
    EXPECT_EQ(out.info.planned, native || size_ == 1 ? 0 : 1);
    EXPECT_EQ(out.info.deciding, automatic && size_ > 1 ? 1 : 0);
    EXPECT_EQ(out.started > 0, !native && size_ > 1);
}

// Optimal makespans of the model for n <= 3 (Canon & Antoniu, Section 3): two ranks, one transfer and one fold;
// three ranks, either a chain, 2(d + c), or both onto one rank, d + max(d, c) + c.
double optimal_makespan(int n, double d, double c) {
    if (n == 2) return d + c;
    return std::min(2 * (d + c), d + std::max(d, c) + c);
}

TEST_F(ReduceOptions, CallCostsMakeThePlan) {
    if (size_ == 1) GTEST_SKIP() << "nothing to plan on one rank";
    for (auto [d, c] : {std::pair{2e-3, 1e-3}, std::pair{1e-3, 4e-3}, std::pair{0.0, 1e-3}}) {
        SCOPED_TRACE("d = " + std::to_string(d) + ", c = " + std::to_string(c));
        redux_options options = REDUX_OPTIONS_INIT;
        options.algorithm = REDUX_ALGORITHM_OPTIMAL;
        options.transfer_s = d;
        options.compute_s = c;
        const Outcome out = sum(&options, 7);
        EXPECT_EQ(out.rc, MPI_SUCCESS);
        EXPECT_EQ(out.info.transfer_s, d);
        EXPECT_EQ(out.info.compute_s, c);
        if (size_ <= 3) {
            EXPECT_NEAR(out.info.predicted_s, optimal_makespan(size_, d, c), 1e-12);
        }
        const redux::Plan plan = redux::make_plan({size_, {d, c}, redux::Strategy::optimal, 0, size_ - 1, true});
        EXPECT_DOUBLE_EQ(out.info.predicted_s, plan.makespan_s);
    }
}

// sum()'s arguments with `bad` options: MPI_ERR_ARG through the communicator's error handler, once, before any
// message, with the receive buffer untouched.
void expect_argument_error(MPI_Comm comm, int root, const redux_options& bad) {
    redux_test::reset_error_count();
    std::vector<long long> send(3, 1), recv(3, 7);
    const auto before = redux_test::request_counts();
    redux_call_info info{};
    const int rc = redux_reduce_ex(send.data(), recv.data(), 3, MPI_LONG_LONG, MPI_SUM, root, comm, &bad, &info);
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    EXPECT_EQ(cls, MPI_ERR_ARG);
    EXPECT_EQ(redux_test::error_count().calls, 1);
    EXPECT_EQ(redux_test::error_count().last_class, MPI_ERR_ARG);
    EXPECT_EQ(redux_test::request_counts().started, before.started);
    EXPECT_EQ(recv, std::vector<long long>(3, 7)) << "recvbuf written by a call that failed its checks";
    EXPECT_EQ(info.planned, 0);
}

TEST_F(ReduceOptions, BadOptionsAreArgumentErrors) {
    redux_options unknown = REDUX_OPTIONS_INIT;
    unknown.algorithm = static_cast<redux_algorithm>(42);
    redux_options nan_cost = REDUX_OPTIONS_INIT;
    nan_cost.transfer_s = std::numeric_limits<double>::quiet_NaN();
    redux_options infinite_cost = REDUX_OPTIONS_INIT;
    infinite_cost.compute_s = std::numeric_limits<double>::infinity();
    for (const redux_options* bad : {&unknown, &nan_cost, &infinite_cost}) {
        SCOPED_TRACE(bad == &unknown ? "unknown algorithm" : bad == &nan_cost ? "NaN cost" : "infinite cost");
        expect_argument_error(comm_, size_ - 1, *bad);
        // The same after good calls of the same arguments (with REDUX_ALGORITHM=native, the calling thread's
        // record of a communicator configured native; under auto, the communicator's recent calls).
        for (int good = 0; good < 3; ++good) EXPECT_EQ(sum(nullptr, 3).rc, MPI_SUCCESS);
        expect_argument_error(comm_, size_ - 1, *bad);
    }
}

}  // namespace
