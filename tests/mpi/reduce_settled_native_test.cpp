// The settled-native record (api/settled_native.hpp): once auto has settled a key on the MPI library's own
// reduce, a call that repeats the thread's last such call goes to PMPI_Reduce from a per-thread record, without
// looking the communicator or the plan up. The record must never outlive what it points at nor answer for
// another call. Each case makes it (a key auto decided for native, then repeated) and changes one thing: the
// communicator freed and another made in its place (often at the same handle), the plan evicted by
// kMaxCachedPlans other keys, the root, the count, the options, MPI_IN_PLACE at the root. And the record is a
// cache of route()'s answer (api/route.hpp), never a decision of its own: calls of the settled key that it does
// not take (other options) get the same answer from route(), and options that are not valid are MPI_ERR_ARG
// however often the key ran before. Every call's data depend on the call and every result is checked against a
// closed form computed here.
//
// ctest runs this with REDUX_CHUNK_BYTES=1 REDUX_RECV_WINDOW=1 REDUX_SEGMENT_BYTES=0 (the planned tree folds one
// byte at a time: several times slower than native on 1 MB, as mpi.reduce_in_place.native_favoured), so that
// auto settles on native and the record is made. With REDUX_TEST_EXPECT_NATIVE=1 the test also requires that
// the calls after each decision ran native (the call info says so), so that the record is known to have been
// used.
#include "api/comm_state.hpp"
#include "counting_errhandler.hpp"
#include "policy/auto_select.hpp"

#include "redux/redux.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

namespace {

constexpr int kCount = 1 << 18;  // ints: 1 MB
// The most calls auto takes to decide whatever its rounds of trials (it reports when it has).
constexpr int kDecide = redux::AutoSelect::kMaxCallsToDecide + 4;
constexpr int kRepeats = 12;  // calls after a decision

int g_rank = 0, g_size = 1;

int value(int rank, int i, int call) { return (rank + 1) * (i % 89 + 1) + call; }
int sum(int i, int call) { return g_size * (g_size + 1) / 2 * (i % 89 + 1) + g_size * call; }

bool expect_native() {
    const char* expect = std::getenv("REDUX_TEST_EXPECT_NATIVE");
    return expect != nullptr && std::string(expect) == "1" && g_size > 1;
}

// One MPI_SUM of `count` ints at `root` on `comm` through redux_reduce_ex with `options` (null: the defaults,
// as MPI_Reduce), in place at the root when asked; checks the root's result. Returns whether it ran native, and
// what libredux reported in `reported` when not null.
bool checked_call(MPI_Comm comm, int root, int count, int call, bool in_place = false,
                  const redux_options* options = nullptr, redux_call_info* reported = nullptr) {
    std::vector<int> data(static_cast<size_t>(count)), recv(data.size(), -1);
    for (int i = 0; i < count; ++i) data[static_cast<size_t>(i)] = value(g_rank, i, call);
    const bool is_root = g_rank == root;
    const void* sendbuf = is_root && in_place ? MPI_IN_PLACE : data.data();
    int* result = is_root && in_place ? data.data() : recv.data();
    redux_call_info info{};
    EXPECT_EQ(redux_reduce_ex(sendbuf, result, count, MPI_INT, MPI_SUM, root, comm, options, &info), MPI_SUCCESS);
    if (is_root) {
        for (int i = 0; i < count; ++i) {
            if (result[i] != sum(i, call)) {
                ADD_FAILURE() << "count " << count << " root " << root << " call " << call
                              << (in_place ? " in place" : "") << ": element " << i << " is " << result[i]
                              << ", expected " << sum(i, call);
                break;
            }
        }
    }
    if (reported != nullptr) *reported = info;
    return info.planned == 0;
}

// Calls the key (count kCount at `root`) until libredux reports it decided, then repeats it; returns how many
// repeats ran native. A key's first call under auto is one of its first calls, still deciding (on 2 ranks or
// more: on one, nothing is planned); every repeat reports the key decided.
int decide_and_repeat(MPI_Comm comm, int root, int first_call) {
    redux_call_info info{};
    int calls = 0;
    do {
        checked_call(comm, root, kCount, first_call + calls, false, nullptr, &info);
        if (calls == 0 && g_size > 1) {
            EXPECT_EQ(info.deciding, 1) << "a new key's first call under auto";
        }
        ++calls;
    } while (info.deciding != 0 && calls < kDecide);
    EXPECT_EQ(info.deciding, 0) << "still deciding after " << calls << " calls";
    int native = 0;
    for (int k = 0; k < kRepeats; ++k) {
        native += checked_call(comm, root, kCount, first_call + calls + k, false, nullptr, &info);
        EXPECT_EQ(info.deciding, 0) << "repeat " << k << " of a decided key";
    }
    return native;
}

class SettledNative : public ::testing::Test {
protected:
    void SetUp() override {
        MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
        MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    }
};

// The communicator freed and another duplicated in its place, three times, each time the same arguments: the
// record of the freed one (whose state and plans are gone) must not be used.
TEST_F(SettledNative, CommunicatorFreedAndMadeAgain) {
    for (int cycle = 0; cycle < 3; ++cycle) {
        SCOPED_TRACE(::testing::Message() << "cycle " << cycle);
        MPI_Comm comm = MPI_COMM_NULL;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        const int native = decide_and_repeat(comm, g_size - 1, 100 * cycle);
        if (expect_native()) {
            EXPECT_EQ(native, kRepeats) << "auto was expected to settle on native";
        }
        MPI_Comm_free(&comm);
    }
}

// Between repeats of the settled key: another root, another count, other options, MPI_IN_PLACE at the root, a
// planned tree on the same communicator. Each is its own call; the settled key then runs native again.
TEST_F(SettledNative, OtherCallsBetweenRepeats) {
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    const int root = g_size - 1;
    int native = decide_and_repeat(comm, root, 0);
    redux_options binomial = REDUX_OPTIONS_INIT;
    binomial.algorithm = REDUX_ALGORITHM_BINOMIAL;
    for (int k = 0; k < kRepeats; ++k) {
        const int call = 1000 + 10 * k;
        checked_call(comm, 0, kCount, call + 1);                        // another root
        checked_call(comm, root, 7, call + 2);                          // another count
        checked_call(comm, root, kCount, call + 3, false, &binomial);   // another algorithm, same arguments
        checked_call(comm, root, kCount, call + 4, /*in_place=*/true);  // the key in place: the same key
        native += checked_call(comm, root, kCount, call + 5);
    }
    if (expect_native()) {
        EXPECT_EQ(native, 2 * kRepeats) << "auto was expected to settle on native";
    }
    MPI_Comm_free(&comm);
}

// More keys than a communicator keeps plans for: the settled key's plan is evicted, the record must not be used,
// and the key, called again, is planned and decided anew.
TEST_F(SettledNative, PlanEvicted) {
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    const int root = 0;
    int native = decide_and_repeat(comm, root, 0);
    redux_options binomial = REDUX_OPTIONS_INIT;
    binomial.algorithm = REDUX_ALGORITHM_BINOMIAL;
    for (int key = 0; key < static_cast<int>(redux::kMaxCachedPlans); ++key) {
        checked_call(comm, root, 1 + key, 500 + key, false, &binomial);
    }
    native += decide_and_repeat(comm, root, 1000);
    if (expect_native()) {
        EXPECT_EQ(native, 2 * kRepeats) << "auto was expected to settle on native";
    }
    MPI_Comm_free(&comm);
}

// Calls of the settled key that the record leaves to route() -- auto named instead of configured, a limit (which
// auto's key ignores) -- run native as the record's do; a cost that is not finite is MPI_ERR_ARG through the error
// handler, once, with nothing sent and nothing counted; the record's own calls run native in between.
TEST_F(SettledNative, CallsLeftToTheRouteGetTheSameAnswer) {
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Errhandler handler = redux_test::make_counting_errhandler();
    MPI_Comm_set_errhandler(comm, handler);
    const int root = g_size - 1;
    int native = decide_and_repeat(comm, root, 0);
    redux_options auto_named = REDUX_OPTIONS_INIT;
    auto_named.algorithm = REDUX_ALGORITHM_AUTO;
    redux_options with_limit = REDUX_OPTIONS_INIT;
    with_limit.limit = 3;
    redux_options nan_cost = REDUX_OPTIONS_INIT;
    nan_cost.transfer_s = std::numeric_limits<double>::quiet_NaN();
    for (int k = 0; k < kRepeats; ++k) {
        const int call = 1000 + 10 * k;
        native += checked_call(comm, root, kCount, call + 1, false, &auto_named);
        native += checked_call(comm, root, kCount, call + 2, false, &with_limit);
        native += checked_call(comm, root, kCount, call + 3);
        redux_test::reset_error_count();
        std::vector<int> send(kCount, 1), recv(kCount, -1);
        redux_call_info info{};
        const int rc =
            redux_reduce_ex(send.data(), recv.data(), kCount, MPI_INT, MPI_SUM, root, comm, &nan_cost, &info);
        int cls = MPI_SUCCESS;
        MPI_Error_class(rc, &cls);
        EXPECT_EQ(cls, MPI_ERR_ARG);
        EXPECT_EQ(redux_test::error_count().calls, 1);
        EXPECT_EQ(recv[0], -1) << "recvbuf written by a call that failed its checks";
        native += checked_call(comm, root, kCount, call + 4);
    }
    if (expect_native()) {
        EXPECT_EQ(native, 5 * kRepeats) << "auto was expected to settle on native";
    }
    MPI_Comm_free(&comm);
    MPI_Errhandler_free(&handler);
}

}  // namespace
