// MPI_IN_PLACE at every root under REDUX_ALGORITHM=auto (unset), where the MPI library's own reduce is known to
// fail (policy/native_failures.hpp: Debian 12's MPICH 4.0.2 crashes in MPI_Reduce with MPI_IN_PLACE at a root
// other than 0 for commutative ops over 2048 bytes). auto runs trial calls of the library's reduce, and an
// in-place trial there dies with SIGSEGV under MPICH: auto must not try native on such a key -- the planned tree
// answers -- and every result must be right. Under Open MPI (nothing known to fail) they check the results all
// the same.
//
// Each key is called kCalls times, more than auto's first round of trials (2 * AutoSelect::kTrials), half through
// MPI_Reduce (libredux's interposed definition) and half through redux_reduce_ex, whose call info tells what ran. Every
// call's data depend on the call, and the results are checked against a closed form computed here.
#include "policy/auto_select.hpp"
#include "policy/mpi_library.hpp"
#include "policy/native_failures.hpp"

#include "redux/redux.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr int kCalls = 2 * redux::AutoSelect::kTrials + 4;

int g_rank = 0, g_size = 1;

// The MPI library this process runs, as libredux reads it (independently asked here).
const redux::MpiLibrary& library() {
    static const redux::MpiLibrary parsed = [] {
        static char text[16384];
        int length = 0;
        MPI_Get_library_version(text, &length);
        return redux::parse_mpi_library(text);
    }();
    return parsed;
}

// Adds ints; created commutative or not (the sum is the same either way, but the plan and MPICH's path differ).
void add_ints(void* in, void* inout, int* len, MPI_Datatype*) {
    const int* a = static_cast<const int*>(in);
    int* b = static_cast<int*>(inout);
    for (int i = 0; i < *len; ++i) b[i] += a[i];
}

enum class Kind { int_sum, double_max, user_sum, user_sum_noncommutative };

struct Case {
    Kind kind;
    int count;
    const char* name;
};

// Rank r's element i at call k, and the reduction over all ranks.
int int_value(int rank, int i, int call) { return (rank + 1) * (i % 97 + 1) + call; }
int int_sum(int i, int call) { return g_size * (g_size + 1) / 2 * (i % 97 + 1) + g_size * call; }
double double_value(int rank, int i, int call) { return (g_size - 1 - rank) + 0.5 * i + call; }
double double_max(int i, int call) { return (g_size - 1) + 0.5 * i + call; }

class InPlace : public ::testing::Test {
protected:
    void SetUp() override {
        MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
        MPI_Comm_size(MPI_COMM_WORLD, &g_size);
        MPI_Op_create(add_ints, 1, &user_sum_);
        MPI_Op_create(add_ints, 0, &user_sum_noncommutative_);
    }
    void TearDown() override {
        MPI_Op_free(&user_sum_);
        MPI_Op_free(&user_sum_noncommutative_);
    }

    MPI_Op op_of(Kind kind) const {
        switch (kind) {
            case Kind::int_sum:
                return MPI_SUM;
            case Kind::double_max:
                return MPI_MAX;
            case Kind::user_sum:
                return user_sum_;
            case Kind::user_sum_noncommutative:
                return user_sum_noncommutative_;
        }
        return MPI_OP_NULL;
    }

    // One call of `c` at `root` on `comm`, in place at the root when `in_place`; checks the root's result.
    // Through redux_reduce_ex when `info` is given, else through MPI_Reduce. Returns the failures seen.
    int call(const Case& c, int root, int call_index, bool in_place, MPI_Comm comm, redux_call_info* info) {
        const bool doubles = c.kind == Kind::double_max;
        const MPI_Datatype type = doubles ? MPI_DOUBLE : MPI_INT;
        std::vector<int> ints(doubles ? 0 : static_cast<size_t>(c.count)), ints_recv(ints.size(), -1);
        std::vector<double> dbls(doubles ? static_cast<size_t>(c.count) : 0), dbls_recv(dbls.size(), -1);
        for (int i = 0; i < c.count; ++i) {
            if (doubles) {
                dbls[static_cast<size_t>(i)] = double_value(g_rank, i, call_index);
            } else {
                ints[static_cast<size_t>(i)] = int_value(g_rank, i, call_index);
            }
        }
        void* data = doubles ? static_cast<void*>(dbls.data()) : static_cast<void*>(ints.data());
        void* recv = doubles ? static_cast<void*>(dbls_recv.data()) : static_cast<void*>(ints_recv.data());
        const bool is_root = g_rank == root;
        const void* sendbuf = is_root && in_place ? MPI_IN_PLACE : data;
        void* recvbuf = is_root ? (in_place ? data : recv) : nullptr;
        const int rc = info != nullptr
                           ? redux_reduce_ex(sendbuf, recvbuf, c.count, type, op_of(c.kind), root, comm, nullptr, info)
                           : MPI_Reduce(sendbuf, recvbuf, c.count, type, op_of(c.kind), root, comm);
        EXPECT_EQ(rc, MPI_SUCCESS);
        if (!is_root) return rc != MPI_SUCCESS;
        for (int i = 0; i < c.count; ++i) {
            const size_t at = static_cast<size_t>(i);
            const bool right = doubles ? static_cast<double*>(recvbuf)[at] == double_max(i, call_index)
                                       : static_cast<int*>(recvbuf)[at] == int_sum(i, call_index);
            if (!right) {
                ADD_FAILURE() << c.name << " count " << c.count << " root " << root << " call " << call_index
                              << (in_place ? " in place" : "") << ": element " << i << " is "
                              << (doubles ? static_cast<double*>(recvbuf)[at] : static_cast<int*>(recvbuf)[at])
                              << ", expected " << (doubles ? double_max(i, call_index) : int_sum(i, call_index));
                return 1;
            }
        }
        return rc != MPI_SUCCESS;
    }

    // Why the library's reduce would fail on c in place at root (null: nothing known).
    const char* known_failure(const Case& c, int root) const {
        redux::NativeReduceCall native;
        native.comm_size = g_size;
        native.root = root;
        native.in_place = true;
        native.bytes = static_cast<long long>(c.count) * (c.kind == Kind::double_max ? 8 : 4);
        native.commutative = c.kind != Kind::user_sum_noncommutative;
        return redux::known_native_reduce_failure(library(), native);
    }

    MPI_Op user_sum_ = MPI_OP_NULL, user_sum_noncommutative_ = MPI_OP_NULL;
};

// Over MPICH 4.0.2's 2048 bytes, and at or under it; predefined and user ops, commutative or not.
const Case kCases[] = {
    {Kind::int_sum, 513, "int sum"},       {Kind::int_sum, 4096, "int sum"},
    {Kind::double_max, 257, "double max"}, {Kind::int_sum, 3, "int sum"},
    {Kind::user_sum, 1000, "user sum"},    {Kind::user_sum_noncommutative, 1000, "user non-commutative sum"},
};

TEST_F(InPlace, EveryRootEveryCallUnderAuto) {
    for (const Case& c : kCases) {
        for (int root = 0; root < g_size; ++root) {
            int native_calls = 0;
            for (int k = 0; k < kCalls; ++k) {
                redux_call_info info{};
                const bool through_ex = k % 2 == 1;
                call(c, root, k, /*in_place=*/true, MPI_COMM_WORLD, through_ex ? &info : nullptr);
                if (through_ex && !info.planned) ++native_calls;
            }
            if (known_failure(c, root) != nullptr && g_size > 1) {
                EXPECT_EQ(native_calls, 0) << c.name << " count " << c.count << " root " << root
                                           << ": auto tried the MPI library's reduce where it is known to fail";
            }
        }
    }
}

// In place only from the third call of the trials on: auto has tried native once already (not in place), and
// must stop trying it from the first in-place call.
TEST_F(InPlace, FromTheMiddleOfTheTrials) {
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);  // fresh keys
    const Case c{Kind::int_sum, 2000, "int sum"};
    const int root = g_size - 1;
    int native_after = 0;
    for (int k = 0; k < kCalls; ++k) {
        redux_call_info info{};
        call(c, root, k, /*in_place=*/k >= 2, comm, &info);
        if (k >= 2 && !info.planned) ++native_after;
    }
    if (known_failure(c, root) != nullptr && g_size > 1) {
        EXPECT_EQ(native_after, 0) << "auto tried the MPI library's reduce after the root passed MPI_IN_PLACE";
    }
    MPI_Comm_free(&comm);
}

// A key that auto decided for, not in place (so it may be native), then called in place with 1 MB at the last
// rank: right results. If the decision was native, the root hands the library a copy of its data. The variant
// mpi.reduce_in_place.native_favoured (REDUX_CHUNK_BYTES=1 REDUX_RECV_WINDOW=1: a slow planned tree) makes
// native win and sets REDUX_TEST_EXPECT_NATIVE=1, so that this path is known to have run.
TEST_F(InPlace, AfterADecisionMadeNotInPlace) {
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    const Case c{Kind::int_sum, 1 << 18, "int sum"};
    const int root = g_size - 1;
    // Until libredux reports the key decided (AutoSelect::kMaxCallsToDecide calls at most).
    redux_call_info decision{};
    int calls = 0;
    do {
        call(c, root, calls++, /*in_place=*/false, comm, &decision);
    } while (decision.deciding != 0 && calls < redux::AutoSelect::kMaxCallsToDecide + 4);
    EXPECT_EQ(decision.deciding, 0) << "still deciding after " << calls << " calls";
    int native_in_place = 0;
    for (int k = 0; k < kCalls; ++k) {
        redux_call_info info{};
        call(c, root, kCalls + k, /*in_place=*/true, comm, &info);
        if (!info.planned) ++native_in_place;
    }
    if (g_rank == 0) {
        std::printf("[rank 0] after a decision made not in place: %d of %d in-place calls ran native\n",
                    native_in_place, kCalls);
    }
    const char* expect = std::getenv("REDUX_TEST_EXPECT_NATIVE");
    if (expect != nullptr && std::string(expect) == "1" && g_size > 1) {
        EXPECT_EQ(native_in_place, kCalls) << "auto was expected to decide for native (REDUX_CHUNK_BYTES=1)";
    }
    MPI_Comm_free(&comm);
}

}  // namespace
