// Nonblocking and persistent reductions through the MPI symbols libredux defines (linked: this program calls
// MPI_Allreduce_init, MPI_Iallreduce, MPI_Wait, ... and gets libredux's). Every result is checked against the
// reduction computed here from every rank's data, in rank order: the op is not commutative (affine maps composed),
// so a wrong order fails too.
//
// REDUX_EXPECT_PLANNED=1 (set with a strategy in REDUX_ALGORITHM): every request of more than one rank must be
// libredux's (redux_request_info); 0 (native): none may be, the library's own ran; unset (auto, which decides by
// timing at each persistent init): either. Cases: persistent
// allreduce restarted with new data, persistent reduce at every root (in place at the root), persistent
// reduce-scatter-block, a derived datatype with gaps, more nonblocking calls in flight on one communicator than it
// has lines with a blocking call between them, completed in reverse order; a communicator planned at barriers
// alone; every completion call mixed with
// point-to-point requests; MPI_Startall; a communicator freed after its requests; starting an active request; an
// MPI error inside an operation (the request counter's fault injection) reported at its completion.
#include "counting_errhandler.hpp"
#include "counting_new.hpp"
#include "redux/redux.h"
#include "request_counter.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

// The persistent inits: MPI 4.0's names, Open MPI 4.1's extension (mpi-ext.h) there.
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#define PERSISTENT(name) MPIX_##name
#else
#define PERSISTENT(name) MPI_##name
#endif

namespace {

constexpr long long kPrime = 1000003;

// An affine map t -> a t + b (mod kPrime); composing two is associative, not commutative.
struct Affine {
    long long a = 1, b = 0;
};

// x then y.
Affine compose(const Affine& x, const Affine& y) { return {x.a * y.a % kPrime, (x.b * y.a + y.b) % kPrime}; }

void compose_op(void* in, void* inout, int* len, MPI_Datatype*) {
    auto* x = static_cast<Affine*>(in);
    auto* y = static_cast<Affine*>(inout);
    for (int i = 0; i < *len; ++i) y[i] = compose(x[i], y[i]);
}

Affine value(int rank, int i, int round) {
    return {2 + (rank + 3 * i + 5 * round) % 7, (rank * 11 + i * 13 + round * 17) % 101};
}

struct World {
    int rank = 0, size = 1;
    bool planned = false;  // requests must be libredux's
    bool native = false;   // requests must be the library's
    MPI_Datatype affine = MPI_DATATYPE_NULL;
    MPI_Op op = MPI_OP_NULL;
};

World& world() {
    static World w = [] {
        World v;
        MPI_Comm_rank(MPI_COMM_WORLD, &v.rank);
        MPI_Comm_size(MPI_COMM_WORLD, &v.size);
        const char* expect = std::getenv("REDUX_EXPECT_PLANNED");
        v.planned = expect != nullptr && expect[0] == '1' && v.size > 1;
        v.native = (expect != nullptr && expect[0] == '0') || v.size == 1;
        MPI_Type_contiguous(2, MPI_LONG_LONG, &v.affine);
        MPI_Type_commit(&v.affine);
        MPI_Op_create(compose_op, 0, &v.op);
        return v;
    }();
    return w;
}

std::vector<Affine> mine(int count, int round, int rank) {
    std::vector<Affine> v(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) v[static_cast<size_t>(i)] = value(rank, i, round);
    return v;
}

// mine() written into `buffer` where it is: a persistent request holds its address.
void refill(std::vector<Affine>& buffer, int round, int rank) {
    const std::vector<Affine> v = mine(static_cast<int>(buffer.size()), round, rank);
    std::copy(v.begin(), v.end(), buffer.begin());
}

// Elements [first, first + count) of the reduction over every rank, in rank order.
std::vector<Affine> expected(int first, int count, int round) {
    std::vector<Affine> r(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) {
        Affine acc = value(0, first + i, round);
        for (int p = 1; p < world().size; ++p) acc = compose(acc, value(p, first + i, round));
        r[static_cast<size_t>(i)] = acc;
    }
    return r;
}

void expect_equal(const std::vector<Affine>& got, const std::vector<Affine>& want, const char* what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i].a, want[i].a) << what << " element " << i;
        ASSERT_EQ(got[i].b, want[i].b) << what << " element " << i;
    }
}

// `ours`: a request's redux_request_info.
void expect_ours_info(int ours) {
    if (world().planned) {
        EXPECT_EQ(ours, 1);
    }
    if (world().native) {
        EXPECT_EQ(ours, 0);
    }
}

void expect_ours(MPI_Request request) { expect_ours_info(redux_request_info(request, nullptr)); }

TEST(Persistent, AllreduceRestartedWithNewData) {
    const World& w = world();
    constexpr int kCount = 37;
    std::vector<Affine> send(kCount), recv(kCount);
    MPI_Request request = MPI_REQUEST_NULL;
    ASSERT_EQ(PERSISTENT(Allreduce_init)(send.data(), recv.data(), kCount, w.affine, w.op, MPI_COMM_WORLD,
                                         MPI_INFO_NULL, &request),
              MPI_SUCCESS);
    expect_ours(request);
    for (int round = 0; round < 5; ++round) {
        refill(send, round, w.rank);
        ASSERT_EQ(MPI_Start(&request), MPI_SUCCESS);
        MPI_Status status;
        ASSERT_EQ(MPI_Wait(&request, &status), MPI_SUCCESS);
        if (w.planned) {
            EXPECT_EQ(status.MPI_SOURCE, MPI_ANY_SOURCE);
        }
        EXPECT_NE(request, MPI_REQUEST_NULL);  // persistent: inactive, not freed
        expect_equal(recv, expected(0, kCount, round), "allreduce");
    }
    ASSERT_EQ(MPI_Request_free(&request), MPI_SUCCESS);
    EXPECT_EQ(request, MPI_REQUEST_NULL);
}

TEST(Persistent, ReduceAtEveryRootInPlace) {
    const World& w = world();
    constexpr int kCount = 5;
    for (int root = 0; root < w.size; ++root) {
        std::vector<Affine> data(kCount);
        const bool at_root = w.rank == root;
        MPI_Request request = MPI_REQUEST_NULL;
        ASSERT_EQ(PERSISTENT(Reduce_init)(at_root ? MPI_IN_PLACE : data.data(), at_root ? data.data() : nullptr, kCount,
                                          w.affine, w.op, root, MPI_COMM_WORLD, MPI_INFO_NULL, &request),
                  MPI_SUCCESS);
        expect_ours(request);
        for (int round = 0; round < 2; ++round) {
            refill(data, round + root, w.rank);
            ASSERT_EQ(MPI_Start(&request), MPI_SUCCESS);
            ASSERT_EQ(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
            if (at_root) expect_equal(data, expected(0, kCount, round + root), "reduce at its root");
        }
        ASSERT_EQ(MPI_Request_free(&request), MPI_SUCCESS);
    }
}

TEST(Persistent, ReduceScatterBlock) {
    const World& w = world();
    constexpr int kBlock = 3;
    std::vector<Affine> send = mine(kBlock * w.size, 4, w.rank), recv(kBlock);
    MPI_Request request = MPI_REQUEST_NULL;
    ASSERT_EQ(PERSISTENT(Reduce_scatter_block_init)(send.data(), recv.data(), kBlock, w.affine, w.op, MPI_COMM_WORLD,
                                                    MPI_INFO_NULL, &request),
              MPI_SUCCESS);
    expect_ours(request);
    ASSERT_EQ(MPI_Start(&request), MPI_SUCCESS);
    ASSERT_EQ(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
    expect_equal(recv, expected(w.rank * kBlock, kBlock, 4), "reduce-scatter-block");
    ASSERT_EQ(MPI_Request_free(&request), MPI_SUCCESS);
}

void add_doubles(void* in, void* inout, int* len, MPI_Datatype*) {  // on the spaced type: every other double
    for (int i = 0; i < *len; ++i) static_cast<double*>(inout)[2 * i] += static_cast<const double*>(in)[2 * i];
}

// A vector of every other double, summed by a user op (the predefined ones are for predefined types); the doubles
// between are left as they were.
TEST(Persistent, DatatypeWithGaps) {
    const World& w = world();
    constexpr int kCount = 9;
    MPI_Datatype spaced = MPI_DATATYPE_NULL;
    MPI_Type_create_resized(MPI_DOUBLE, 0, 2 * sizeof(double), &spaced);
    MPI_Type_commit(&spaced);
    MPI_Op add = MPI_OP_NULL;
    MPI_Op_create(add_doubles, 1, &add);
    std::vector<double> send(2 * kCount), recv(2 * kCount, -1.0);
    for (int i = 0; i < kCount; ++i) send[static_cast<size_t>(2 * i)] = w.rank + i;
    MPI_Request request = MPI_REQUEST_NULL;
    ASSERT_EQ(PERSISTENT(Allreduce_init)(send.data(), recv.data(), kCount, spaced, add, MPI_COMM_WORLD, MPI_INFO_NULL,
                                         &request),
              MPI_SUCCESS);
    expect_ours(request);
    ASSERT_EQ(MPI_Start(&request), MPI_SUCCESS);
    ASSERT_EQ(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
    for (int i = 0; i < kCount; ++i) {
        EXPECT_EQ(recv[static_cast<size_t>(2 * i)], w.size * (w.size - 1) / 2.0 + w.size * i) << i;
        EXPECT_EQ(recv[static_cast<size_t>(2 * i + 1)], -1.0) << "gap " << i;
    }
    MPI_Request_free(&request);
    MPI_Type_free(&spaced);
    MPI_Op_free(&add);
}

// Ten MPI_Iallreduce in flight on one communicator (its key planned by a persistent init first), a blocking
// allreduce after the fifth, completed last to first.
TEST(Nonblocking, ManyInFlightCompletedInReverse) {
    const World& w = world();
    constexpr int kCount = 11, kCalls = 10;
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    std::vector<std::vector<Affine>> send(kCalls), recv(kCalls, std::vector<Affine>(kCount));
    MPI_Request init = MPI_REQUEST_NULL;
    ASSERT_EQ(
        PERSISTENT(Allreduce_init)(recv[0].data(), recv[1].data(), kCount, w.affine, w.op, comm, MPI_INFO_NULL, &init),
        MPI_SUCCESS);
    std::vector<MPI_Request> requests(kCalls, MPI_REQUEST_NULL);
    int blocking_max = -1;
    for (int k = 0; k < kCalls; ++k) {
        send[static_cast<size_t>(k)] = mine(kCount, k, w.rank);
        ASSERT_EQ(MPI_Iallreduce(send[static_cast<size_t>(k)].data(), recv[static_cast<size_t>(k)].data(), kCount,
                                 w.affine, w.op, comm, &requests[static_cast<size_t>(k)]),
                  MPI_SUCCESS);
        expect_ours(requests[static_cast<size_t>(k)]);
        if (k == 4) MPI_Allreduce(&w.rank, &blocking_max, 1, MPI_INT, MPI_MAX, comm);
    }
    for (int k = kCalls - 1; k >= 0; --k) {
        ASSERT_EQ(MPI_Wait(&requests[static_cast<size_t>(k)], MPI_STATUS_IGNORE), MPI_SUCCESS);
        EXPECT_EQ(requests[static_cast<size_t>(k)], MPI_REQUEST_NULL);
        expect_equal(recv[static_cast<size_t>(k)], expected(0, kCount, k), "iallreduce");
    }
    EXPECT_EQ(blocking_max, w.size - 1);
    MPI_Request_free(&init);
    MPI_Comm_free(&comm);
}

// A blocking reduction on `comm`: where libredux plans the nonblocking calls it kept there.
int blocking_max(MPI_Comm comm) {
    int most = -1;
    MPI_Allreduce(&world().rank, &most, 1, MPI_INT, MPI_MAX, comm);
    return most;
}

// A nonblocking call of each collective on keys the communicator holds no plan for: the library's own runs them;
// the next blocking reduction plans them, and the same calls then run libredux's (under a strategy).
TEST(Nonblocking, KeysPlannedAtTheNextBlockingCall) {
    const World& w = world();
    constexpr int kCount = 13;
    const int root = w.size - 1;
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    EXPECT_EQ(blocking_max(comm), w.size - 1);  // makes the communicator's state
    for (int pass = 0; pass < 2; ++pass) {
        const std::vector<Affine> send = mine(kCount * w.size, pass, w.rank);
        std::vector<Affine> reduced(kCount), all(kCount), block(kCount);
        std::vector<MPI_Request> requests(3, MPI_REQUEST_NULL);
        ASSERT_EQ(MPI_Ireduce(send.data(), w.rank == root ? reduced.data() : nullptr, kCount, w.affine, w.op, root,
                              comm, &requests[0]),
                  MPI_SUCCESS);
        ASSERT_EQ(MPI_Iallreduce(send.data(), all.data(), kCount, w.affine, w.op, comm, &requests[1]), MPI_SUCCESS);
        ASSERT_EQ(MPI_Ireduce_scatter_block(send.data(), block.data(), kCount, w.affine, w.op, comm, &requests[2]),
                  MPI_SUCCESS);
        for (MPI_Request request : requests) {
            if (pass == 0) {
                EXPECT_EQ(redux_request_info(request, nullptr), 0) << "no plan yet";
            } else {
                expect_ours(request);
            }
        }
        ASSERT_EQ(MPI_Waitall(3, requests.data(), MPI_STATUSES_IGNORE), MPI_SUCCESS);
        if (w.rank == root) expect_equal(reduced, expected(0, kCount, pass), "ireduce");
        expect_equal(all, expected(0, kCount, pass), "iallreduce");
        expect_equal(block, expected(w.rank * kCount, kCount, pass), "ireduce-scatter-block");
        EXPECT_EQ(blocking_max(comm), w.size - 1);
    }
    MPI_Comm_free(&comm);
}

// A communicator whose reductions are only ever nonblocking, with MPI_Barrier between them: the first barrier after a
// nonblocking call makes the communicator's state, the next plans the call kept since, and from the third call on the
// requests are libredux's (under a strategy; under auto, its weighing's).
TEST(Nonblocking, PlannedAtBarriers) {
    const World& w = world();
    constexpr int kCount = 17;  // a key of its own
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    for (int pass = 0; pass < 4; ++pass) {
        const std::vector<Affine> send = mine(kCount, pass, w.rank);
        std::vector<Affine> all(kCount);
        MPI_Request request = MPI_REQUEST_NULL;
        ASSERT_EQ(MPI_Iallreduce(send.data(), all.data(), kCount, w.affine, w.op, comm, &request), MPI_SUCCESS);
        if (pass < 2) {
            EXPECT_EQ(redux_request_info(request, nullptr), 0) << "pass " << pass << ": nothing planned yet";
        } else {
            expect_ours(request);
        }
        ASSERT_EQ(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
        expect_equal(all, expected(0, kCount, pass), "iallreduce between barriers");
        ASSERT_EQ(MPI_Barrier(comm), MPI_SUCCESS);
    }
    MPI_Comm_free(&comm);
}

// Under auto (asked per call, whatever REDUX_ALGORITHM says), a planned key's nonblocking calls are weighed: they
// take turns, the library's own first (a request of libredux's too, saying native and deciding), then each tree, in
// a period the same at every turn; a blocking reduction agrees on their times, and once each has enough calls every
// later call runs one decision, the same on every rank, untimed. A weighed call still running at a blocking
// reduction is left out of the agreement, and the weighing goes on.
TEST(Nonblocking, AutoWeighsItsNonblockingCalls) {
    const World& w = world();
    if (w.size == 1) GTEST_SKIP() << "one rank: nothing to plan";
    constexpr int kCount = 23;  // a key of its own
    redux_options options = REDUX_OPTIONS_INIT;
    options.algorithm = REDUX_ALGORITHM_AUTO;
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    int round = 0;
    auto blocking = [&] {  // a blocking call of the key, checked
        const std::vector<Affine> send = mine(kCount, round, w.rank);
        std::vector<Affine> recv(kCount);
        redux_call_info info{};
        EXPECT_EQ(redux_allreduce_ex(send.data(), recv.data(), kCount, w.affine, w.op, comm, &options, &info),
                  MPI_SUCCESS);
        expect_equal(recv, expected(0, kCount, round++), "allreduce");
        return info.deciding;
    };
    // Starts a nonblocking call of the key; `send` and `recv` must live until it completes.
    auto start = [&](std::vector<Affine>& send, std::vector<Affine>& recv, redux_call_info& info) {
        send = mine(kCount, round, w.rank);
        recv.assign(kCount, Affine{});
        MPI_Request request = MPI_REQUEST_NULL;
        EXPECT_EQ(redux_iallreduce_ex(send.data(), recv.data(), kCount, w.affine, w.op, comm, &options, &request),
                  MPI_SUCCESS);
        redux_request_info(request, &info);
        return request;
    };
    auto finish = [&](MPI_Request& request, const std::vector<Affine>& recv, int of_round) {
        EXPECT_EQ(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
        expect_equal(recv, expected(0, kCount, of_round), "iallreduce");
    };
    for (int call = 0; call < 400 && blocking() != 0; ++call) {
    }  // planned, and decided for blocking calls
    std::vector<Affine> send, recv, late_send, late_recv;
    redux_call_info info{};
    std::vector<int> planned;  // by call weighed
    // Three calls weighed, then one left running over a blocking call: its time is not agreed.
    for (int call = 0; call < 3; ++call) {
        MPI_Request request = start(send, recv, info);
        EXPECT_EQ(info.deciding, 1) << "call " << call;
        planned.push_back(info.planned);
        finish(request, recv, round++);
    }
    MPI_Request late = start(late_send, late_recv, info);
    const int late_round = round++;
    EXPECT_EQ(info.deciding, 1);
    planned.push_back(info.planned);
    blocking();  // too few agreed: the weighing goes on
    finish(late, late_recv, late_round);
    // Weighed until decided, a blocking call after every second call; 6 contenders at most, 8 calls of each.
    MPI_Request request = MPI_REQUEST_NULL;
    for (int call = 4; call <= 6 * 8; ++call) {
        request = start(send, recv, info);
        if (info.deciding == 0) break;
        EXPECT_EQ(redux_request_info(request, nullptr), 1) << "call " << call;
        planned.push_back(info.planned);
        finish(request, recv, round++);
        if (call % 2 == 1) blocking();
    }
    ASSERT_EQ(info.deciding, 0) << "not decided after " << planned.size() << " calls weighed";
    finish(request, recv, round++);
    // The library's own at every turn of a period of 1 + the trees weighed (at least one).
    const auto period = static_cast<size_t>(std::find(planned.begin() + 1, planned.end(), 0) - planned.begin());
    ASSERT_GE(period, 2u);
    for (size_t k = 0; k < planned.size(); ++k) EXPECT_EQ(planned[k], k % period == 0 ? 0 : 1) << "call " << k;
    const redux_call_info decided = info;
    int mine_and_not[4] = {decided.planned, -decided.planned, decided.algorithm, -decided.algorithm};
    MPI_Allreduce(MPI_IN_PLACE, mine_and_not, 4, MPI_INT, MPI_MAX, comm);
    EXPECT_EQ(mine_and_not[0], -mine_and_not[1]) << "every rank runs the same";
    EXPECT_EQ(mine_and_not[2], -mine_and_not[3]) << "every rank runs the same";
    for (int call = 0; call < 3; ++call) {  // the decision holds, blocking calls between or not
        request = start(send, recv, info);
        EXPECT_EQ(info.deciding, 0);
        EXPECT_EQ(info.planned, decided.planned);
        EXPECT_EQ(info.algorithm, decided.algorithm);
        finish(request, recv, round++);
        if (call == 1) blocking();
    }
    MPI_Comm_free(&comm);
}

void compose_op_too(void* in, void* inout, int* len, MPI_Datatype* type) { compose_op(in, inout, len, type); }

// An MPI_Iallreduce on a key with no plan, completed; then `op` and `datatype` freed. With `fail_allocation`, the
// call's first operator new throws (its entry among the kept calls). Returns the request's redux_request_info.
int iallreduce_then_free(MPI_Comm comm, int count, int round, MPI_Datatype& datatype, MPI_Op& op,
                         bool fail_allocation = false) {
    const std::vector<Affine> send = mine(count, round, world().rank);
    std::vector<Affine> recv(static_cast<size_t>(count));
    MPI_Request request = MPI_REQUEST_NULL;
    if (fail_allocation) redux_test::fail_new_after(0);
    const int rc = MPI_Iallreduce(send.data(), recv.data(), count, datatype, op, comm, &request);
    redux_test::fail_new_after(-1);
    EXPECT_EQ(rc, MPI_SUCCESS);
    const int ours = redux_request_info(request, nullptr);
    EXPECT_EQ(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
    expect_equal(recv, expected(0, count, round), "iallreduce");
    if (datatype != world().affine) MPI_Type_free(&datatype);
    if (op != world().op) MPI_Op_free(&op);
    return ours;
}

// A kept call whose user op is freed before the blocking call is not planned (its handle may name another op by
// then); one whose derived datatype is freed is (libredux holds a duplicate of it).
TEST(Nonblocking, KeptCallsOutliveTheirHandles) {
    const World& w = world();
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    EXPECT_EQ(blocking_max(comm), w.size - 1);
    constexpr int kFreedOp = 15, kFreedType = 17;  // keys of their own
    MPI_Datatype affine = w.affine;
    MPI_Op freed = MPI_OP_NULL, op = w.op;
    MPI_Op_create(compose_op_too, 0, &freed);
    EXPECT_EQ(iallreduce_then_free(comm, kFreedOp, 1, affine, freed), 0) << "no plan yet";
    EXPECT_EQ(blocking_max(comm), w.size - 1);  // drops the kept call
    EXPECT_EQ(iallreduce_then_free(comm, kFreedOp, 2, affine, op), 0) << "not planned: its op was freed";
    EXPECT_EQ(blocking_max(comm), w.size - 1);
    const int planned = iallreduce_then_free(comm, kFreedOp, 3, affine, op);
    expect_ours_info(planned);

    MPI_Datatype pair = MPI_DATATYPE_NULL;
    MPI_Type_contiguous(2, MPI_LONG_LONG, &pair);
    MPI_Type_commit(&pair);
    EXPECT_EQ(iallreduce_then_free(comm, kFreedType, 4, pair, op), 0) << "no plan yet";
    EXPECT_EQ(blocking_max(comm), w.size - 1);  // plans it on libredux's duplicate of the freed type
    MPI_Type_contiguous(2, MPI_LONG_LONG, &pair);
    MPI_Type_commit(&pair);
    const int ours = iallreduce_then_free(comm, kFreedType, 5, pair, op);
    expect_ours_info(ours);
    MPI_Comm_free(&comm);
}

// A call kept on every rank but rank 0, whose allocation fails there: the next blocking reduction plans none of the
// kept calls (and waits for no rank that skipped them); the same call is kept again and planned at the one after.
TEST(Nonblocking, KeptOnSomeRanksOnly) {
    const World& w = world();
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    EXPECT_EQ(blocking_max(comm), w.size - 1);
    constexpr int kCount = 19;  // a key of its own
    MPI_Datatype affine = w.affine;
    MPI_Op op = w.op;
    EXPECT_EQ(iallreduce_then_free(comm, kCount, 6, affine, op, /*fail_allocation=*/w.rank == 0), 0);
    EXPECT_EQ(blocking_max(comm), w.size - 1);  // plans none
    EXPECT_EQ(iallreduce_then_free(comm, kCount, 7, affine, op), 0) << "not planned: kept on some ranks only";
    EXPECT_EQ(blocking_max(comm), w.size - 1);
    const int ours = iallreduce_then_free(comm, kCount, 8, affine, op);
    expect_ours_info(ours);
    MPI_Comm_free(&comm);
}

// A ring's point-to-point requests beside the reductions, completed by each completion call in turn. MPICH 4.0's
// own persistent collectives are kept out of the mix (it reports MPI_ERR_IN_STATUS from MPI_Testall with every
// status MPI_SUCCESS for one): under auto, they are the library's.
#ifdef MPICH_VERSION
constexpr bool kLibraryMixesPersistent = false;
#else
constexpr bool kLibraryMixesPersistent = true;
#endif

class Mixed : public ::testing::TestWithParam<int> {};

TEST_P(Mixed, CompletionCalls) {
    const World& w = world();
    constexpr int kCount = 17;
    const int round = GetParam();
    std::vector<Affine> send = mine(kCount, round, w.rank), recv(kCount);
    MPI_Request persistent = MPI_REQUEST_NULL;
    ASSERT_EQ(PERSISTENT(Allreduce_init)(send.data(), recv.data(), kCount, w.affine, w.op, MPI_COMM_WORLD,
                                         MPI_INFO_NULL, &persistent),
              MPI_SUCCESS);
    std::vector<Affine> isend = mine(kCount, round + 1, w.rank), irecv(kCount);
    MPI_Request requests[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    const int right = (w.rank + 1) % w.size, left = (w.rank + w.size - 1) % w.size;
    int from_left = -1;
    MPI_Irecv(&from_left, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &requests[0]);
    ASSERT_EQ(MPI_Start(&persistent), MPI_SUCCESS);
    const bool mixed = w.planned || kLibraryMixesPersistent;
    if (mixed) requests[1] = persistent;
    const int calls = mixed ? 4 : 3;
    ASSERT_EQ(MPI_Iallreduce(isend.data(), irecv.data(), kCount, w.affine, w.op, MPI_COMM_WORLD, &requests[2]),
              MPI_SUCCESS);
    MPI_Isend(&w.rank, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &requests[3]);
    MPI_Status statuses[4];
    switch (round) {
        case 0:
            ASSERT_EQ(MPI_Waitall(4, requests, statuses), MPI_SUCCESS);
            EXPECT_EQ(statuses[0].MPI_SOURCE, left);
            if (w.planned) {
                EXPECT_EQ(statuses[1].MPI_SOURCE, MPI_ANY_SOURCE);
                EXPECT_EQ(statuses[1].MPI_TAG, MPI_ANY_TAG);
            }
            break;
        case 1:
            for (int flag = 0; !flag;) ASSERT_EQ(MPI_Testall(4, requests, &flag, statuses), MPI_SUCCESS);
            break;
        case 2:
            for (int done = 0; done < calls; ++done) {
                int index = MPI_UNDEFINED;
                ASSERT_EQ(MPI_Waitany(4, requests, &index, statuses), MPI_SUCCESS);
                ASSERT_NE(index, MPI_UNDEFINED);
                if (index == 1) requests[1] = MPI_REQUEST_NULL;  // inactive now: not counted again
            }
            break;
        case 3:
            for (int done = 0; done < calls;) {
                int index = MPI_UNDEFINED, flag = 0;
                ASSERT_EQ(MPI_Testany(4, requests, &index, &flag, statuses), MPI_SUCCESS);
                if (flag && index != MPI_UNDEFINED) {
                    ++done;
                    if (index == 1) requests[1] = MPI_REQUEST_NULL;
                }
                ASSERT_FALSE(flag && index == MPI_UNDEFINED && done < calls);
            }
            break;
        default:
            for (int done = 0; done < calls;) {
                int outcount = 0, indices[4];
                ASSERT_EQ(round == 4 ? MPI_Waitsome(4, requests, &outcount, indices, statuses)
                                     : MPI_Testsome(4, requests, &outcount, indices, statuses),
                          MPI_SUCCESS);
                ASSERT_NE(outcount, MPI_UNDEFINED);
                for (int k = 0; k < outcount; ++k) {
                    if (indices[k] == 1) requests[1] = MPI_REQUEST_NULL;
                }
                done += outcount;
            }
            break;
    }
    if (!mixed) {
        ASSERT_EQ(MPI_Wait(&persistent, MPI_STATUS_IGNORE), MPI_SUCCESS);
    }
    EXPECT_EQ(from_left, left);
    expect_equal(recv, expected(0, kCount, round), "persistent beside point-to-point");
    expect_equal(irecv, expected(0, kCount, round + 1), "nonblocking beside point-to-point");
    // Restarted, and watched with MPI_Request_get_status before its wait.
    refill(send, round + 2, w.rank);
    ASSERT_EQ(MPI_Start(&persistent), MPI_SUCCESS);
    for (int flag = 0; !flag;) ASSERT_EQ(MPI_Request_get_status(persistent, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
    ASSERT_EQ(MPI_Wait(&persistent, MPI_STATUS_IGNORE), MPI_SUCCESS);
    expect_equal(recv, expected(0, kCount, round + 2), "persistent after MPI_Request_get_status");
    MPI_Request_free(&persistent);
}

INSTANTIATE_TEST_SUITE_P(EachCall, Mixed, ::testing::Values(0, 1, 2, 3, 4, 5));

// Two persistent requests started together, twice, on a communicator freed once they are.
TEST(Persistent, StartallThenCommunicatorFreed) {
    const World& w = world();
    constexpr int kCount = 6;
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    std::vector<Affine> send_a = mine(kCount, 7, w.rank), recv_a(kCount);
    std::vector<Affine> send_b = mine(2 * kCount, 8, w.rank), recv_b(2 * kCount);
    MPI_Request requests[2];
    ASSERT_EQ(PERSISTENT(Allreduce_init)(send_a.data(), recv_a.data(), kCount, w.affine, w.op, comm, MPI_INFO_NULL,
                                         &requests[0]),
              MPI_SUCCESS);
    ASSERT_EQ(PERSISTENT(Reduce_init)(send_b.data(), recv_b.data(), 2 * kCount, w.affine, w.op, w.size - 1, comm,
                                      MPI_INFO_NULL, &requests[1]),
              MPI_SUCCESS);
    ASSERT_EQ(MPI_Startall(2, requests), MPI_SUCCESS);
    if (w.planned) {
        EXPECT_EQ(MPI_Start(&requests[0]), MPI_ERR_REQUEST);  // active: erroneous, reported
    }
    ASSERT_EQ(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    expect_equal(recv_a, expected(0, kCount, 7), "allreduce of Startall");
    if (w.rank == w.size - 1) expect_equal(recv_b, expected(0, 2 * kCount, 8), "reduce of Startall");
    ASSERT_EQ(MPI_Startall(2, requests), MPI_SUCCESS);
    ASSERT_EQ(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    expect_equal(recv_a, expected(0, kCount, 7), "allreduce started again");
    MPI_Request_free(&requests[0]);
    MPI_Request_free(&requests[1]);
    ASSERT_EQ(MPI_Comm_free(&comm), MPI_SUCCESS);
}

// An MPI error inside an operation reaches the application at its completion: the root's first receive fails (the
// request counter's fault injection), and the root's MPI_Wait returns it (MPI_Waitall: MPI_ERR_IN_STATUS, the
// status saying which) and calls the communicator's error handler once; the other ranks complete. A binomial
// reduce to rank 0 of 4 ints, whatever REDUX_ALGORITHM says: its root only receives, so nobody waits for it.
// 0: MPI_Ireduce and MPI_Wait; 1: MPI_Reduce_init, MPI_Start and MPI_Wait; 2: MPI_Ireduce and MPI_Waitall.
class Failure : public ::testing::TestWithParam<int> {};

TEST_P(Failure, ReachesTheWaitAndTheHandler) {
    const World& w = world();
    const int how = GetParam();
    MPI_Comm comm = MPI_COMM_NULL;  // set aside at the end, never freed: see executor_test.cpp's failures
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Errhandler handler = redux_test::make_counting_errhandler();
    MPI_Comm_set_errhandler(comm, handler);
    std::vector<int> send(4, w.rank + 1), recv(4, 0);
    redux_options binomial = REDUX_OPTIONS_INIT;
    binomial.algorithm = REDUX_ALGORITHM_BINOMIAL;
    MPI_Request request = MPI_REQUEST_NULL;
    if (how == 1) {
        ASSERT_EQ(redux_reduce_init_ex(send.data(), recv.data(), 4, MPI_INT, MPI_SUM, 0, comm, MPI_INFO_NULL, &binomial,
                                       &request),
                  MPI_SUCCESS);
    } else {  // the plan the nonblocking call runs
        ASSERT_EQ(redux_reduce_ex(send.data(), recv.data(), 4, MPI_INT, MPI_SUM, 0, comm, &binomial, nullptr),
                  MPI_SUCCESS);
    }
    redux_test::reset_error_count();
    const long long injected_before = redux_test::injected_failures();
    if (w.rank == 0) redux_test::inject_failure(redux_test::Entry::irecv, 0, MPI_ERR_OTHER);
    if (how == 1) {
        ASSERT_EQ(MPI_Start(&request), MPI_SUCCESS);
    } else {
        ASSERT_EQ(redux_ireduce_ex(send.data(), recv.data(), 4, MPI_INT, MPI_SUM, 0, comm, &binomial, &request),
                  MPI_SUCCESS);
    }
    const bool ours = redux_request_info(request, nullptr) == 1;
    MPI_Status statuses[2];
    int rc = MPI_SUCCESS;
    if (how == 2) {
        MPI_Request both[2] = {request, MPI_REQUEST_NULL};
        const int token = w.rank;
        PMPI_Isend(&token, 1, MPI_INT, 0, 5, MPI_COMM_SELF, &both[1]);  // completed beside it
        int got = -1;
        ASSERT_EQ(MPI_Recv(&got, 1, MPI_INT, 0, 5, MPI_COMM_SELF, MPI_STATUS_IGNORE), MPI_SUCCESS);
        EXPECT_EQ(got, token);
        rc = MPI_Waitall(2, both, statuses);
        request = both[0];
    } else {
        rc = MPI_Wait(&request, &statuses[0]);
    }
    redux_test::inject_failure(redux_test::Entry::irecv, -1, MPI_SUCCESS);  // disarm, fired or not
    const bool fired = redux_test::injected_failures() > injected_before;
    if (w.rank == 0 && w.size > 1 && ours) {
        EXPECT_TRUE(fired) << "the injected failure was not reached";
    }
    if (fired) {
        int cls = MPI_SUCCESS;
        MPI_Error_class(how == 2 ? statuses[0].MPI_ERROR : rc, &cls);
        EXPECT_EQ(cls, MPI_ERR_OTHER);
        if (how == 2) {
            EXPECT_EQ(rc, MPI_ERR_IN_STATUS);
        }
        EXPECT_EQ(redux_test::error_count().calls, 1);
        EXPECT_EQ(redux_test::error_count().last_class, MPI_ERR_OTHER);
    } else {
        EXPECT_EQ(rc, MPI_SUCCESS);
        EXPECT_EQ(redux_test::error_count().calls, 0);
        if (w.rank == 0) {
            EXPECT_EQ(recv, std::vector<int>(4, w.size * (w.size + 1) / 2));
        }
    }
    if (how == 1) {
        EXPECT_EQ(MPI_Request_free(&request), MPI_SUCCESS);  // inactive again after the failed start
    } else {
        EXPECT_EQ(request, MPI_REQUEST_NULL);
    }
    static std::vector<MPI_Comm> failed;
    failed.push_back(comm);
    MPI_Errhandler_free(&handler);
}

INSTANTIATE_TEST_SUITE_P(EachCompletion, Failure, ::testing::Values(0, 1, 2));

}  // namespace
