// What a new key costs before its first message (api/first_calls.hpp): under auto, a key's first
// AutoSelect::kNativeFirstCalls calls go to the library's own collective (no trial), the ones before the last
// unplanned (no plan is made, no calibration), the last with the key planned while it runs, so that the next call
// finds the plan made; a predefined op on a predefined datatype is timed once per communicator for
// as many elements as its keys need, so keys of fewer elements plan with the same agreed c(n) = a + b n. Every result
// is checked against the test's own sum. The plans are read from libredux's state of the communicator
// (api/comm_state.hpp).
#include "api/comm_state.hpp"
#include "policy/auto_select.hpp"

#include "redux/redux.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

namespace {

int rank_of(MPI_Comm comm) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    return rank;
}

int size_of(MPI_Comm comm) {
    int size = 0;
    MPI_Comm_size(comm, &size);
    return size;
}

// One MPI_SUM of `count` ints at root 0 (every collective: allreduce, reduce-scatter-block with recvcount `count`)
// with `options`; checks the result on every rank that has one and returns redux_call_info.planned.
int checked_sum(MPI_Comm comm, redux::Collective collective, int count, int call, const redux_options& options) {
    const int rank = rank_of(comm), size = size_of(comm);
    const int whole = collective == redux::Collective::reduce_scatter_block ? size * count : count;
    std::vector<int> send(static_cast<size_t>(whole)), recv(static_cast<size_t>(whole), -1);
    for (int i = 0; i < whole; ++i) send[static_cast<size_t>(i)] = (rank + 1) * (i % 13 + 1) + call;
    redux_call_info info{};
    int rc = MPI_ERR_OTHER;
    switch (collective) {
        case redux::Collective::reduce:
            rc = redux_reduce_ex(send.data(), recv.data(), count, MPI_INT, MPI_SUM, 0, comm, &options, &info);
            break;
        case redux::Collective::allreduce:
            rc = redux_allreduce_ex(send.data(), recv.data(), count, MPI_INT, MPI_SUM, comm, &options, &info);
            break;
        case redux::Collective::reduce_scatter_block:
            rc =
                redux_reduce_scatter_block_ex(send.data(), recv.data(), count, MPI_INT, MPI_SUM, comm, &options, &info);
            break;
    }
    EXPECT_EQ(rc, MPI_SUCCESS);
    const bool has_result = collective != redux::Collective::reduce || rank == 0;
    const int first = collective == redux::Collective::reduce_scatter_block ? rank * count : 0;
    for (int i = 0; has_result && i < count; ++i) {
        const int at = first + i;
        const int want = size * (size + 1) / 2 * (at % 13 + 1) + size * call;
        if (recv[static_cast<size_t>(i)] != want) {
            ADD_FAILURE() << "call " << call << ": element " << i << " is " << recv[static_cast<size_t>(i)]
                          << ", expected " << want;
            break;
        }
    }
    return info.planned;
}

size_t plans_of(MPI_Comm comm) {
    const redux::CommState* state = redux::find_comm_state(comm);
    return state != nullptr ? state->plans.size() : 0;
}

TEST(NewKeys, AutoRunsTheFirstCallsNativeAndPlansBesideTheLast) {
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    redux_options automatic = REDUX_OPTIONS_INIT;
    automatic.algorithm = REDUX_ALGORITHM_AUTO;
    int call = 0;
    for (redux::Collective collective :
         {redux::Collective::reduce, redux::Collective::allreduce, redux::Collective::reduce_scatter_block}) {
        for (int count : {1, 300, 5000}) {
            const size_t before = plans_of(comm);
            const int last = redux::AutoSelect::kNativeFirstCalls - 1;
            for (int k = 0; k <= last; ++k) {
                EXPECT_EQ(checked_sum(comm, collective, count, ++call, automatic), 0) << "a first call ran a plan";
                const size_t want = k < last || size_of(comm) == 1 ? before : before + 1;
                EXPECT_EQ(plans_of(comm), want) << "count " << count << ": after first call " << k + 1;
            }
            checked_sum(comm, collective, count, ++call, automatic);
            if (size_of(comm) > 1) {
                EXPECT_EQ(plans_of(comm), before + 1) << "count " << count << ": planned again";
            }
        }
    }
    MPI_Comm_free(&comm);
}

TEST(NewKeys, APredefinedOpIsTimedOncePerCommunicator) {
    if (size_of(MPI_COMM_WORLD) < 2) GTEST_SKIP() << "one rank applies no op: c is 0";
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    redux_options optimal = REDUX_OPTIONS_INIT;
    optimal.algorithm = REDUX_ALGORITHM_OPTIMAL;
    // The largest first: the smaller keys take its measurement.
    const int counts[] = {4000, 2000, 1000};
    for (int count : counts) EXPECT_EQ(checked_sum(comm, redux::Collective::reduce, count, count, optimal), 1);
    const redux::CommState* state = redux::find_comm_state(comm);
    ASSERT_NE(state, nullptr);
    std::vector<redux::Costs> costs;
    for (int count : counts) {
        for (const auto& [key, plan] : state->plans) {
            if (key.count == count && key.algorithm == REDUX_ALGORITHM_OPTIMAL) costs.push_back(plan->costs);
        }
    }
    ASSERT_EQ(costs.size(), 3u);
    // c(n) = a + b n with the same a and b: equal per-application parts, and c(4000) - c(2000) = 2 (c(2000) - c(1000)).
    EXPECT_EQ(costs[0].compute_call_s, costs[1].compute_call_s);
    EXPECT_EQ(costs[1].compute_call_s, costs[2].compute_call_s);
    const double b_high = (costs[0].compute_s - costs[1].compute_s) / 2000.0;
    const double b_low = (costs[1].compute_s - costs[2].compute_s) / 1000.0;
    EXPECT_NEAR(b_high, b_low, 1e-9 * std::max(std::abs(b_high), 1e-18));
    MPI_Comm_free(&comm);
}

}  // namespace
