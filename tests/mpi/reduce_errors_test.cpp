// redux_reduce with wrong arguments behaves as PMPI_Reduce does with the same arguments: the same error class,
// the communicator's error handler called as often (with an error of that class), no request left behind, no
// hang (ctest's timeout would catch one). Every rank passes the same wrong arguments, so PMPI_Reduce itself
// returns on every rank. The expectation is computed in the test by calling PMPI_Reduce first.
//
// Also: operator/datatype combinations outside the standard's table, which each MPI library accepts or
// rejects in its own way (MPI_CHAR, MPI_BYTE with arithmetic, ...): libredux must do what the library does.
#include "counting_errhandler.hpp"
#include "predefined_ops.hpp"
#include "reduce_check.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace {

int error_class(int code) {
    int cls = MPI_SUCCESS;
    MPI_Error_class(code, &cls);
    return cls;
}

struct Outcome {
    int rc = MPI_SUCCESS;
    int handler_calls = 0;
    int handler_class = MPI_SUCCESS;
};

// Runs `call` with the handler counters reset and returns what it saw.
Outcome observe(const std::function<int()>& call) {
    redux_test::reset_error_count();
    Outcome outcome;
    outcome.rc = call();
    outcome.handler_calls = redux_test::error_count().calls;
    outcome.handler_class = redux_test::error_count().last_class;
    return outcome;
}

struct BadCall {
    std::string what;
    int count = 4;
    MPI_Datatype datatype = MPI_INT;
    MPI_Op op = MPI_SUM;
    int root = 0;
    MPI_Comm comm = MPI_COMM_NULL;
};

// PMPI_Reduce first, then redux_reduce, with the same arguments; both must fail alike.
void expect_same_failure(const BadCall& bad) {
    SCOPED_TRACE(bad.what);
    std::vector<char> send(4096, 1), recv(4096, 0), recv_ref(4096, 0);
    const Outcome expected = observe(
        [&] { return PMPI_Reduce(send.data(), recv_ref.data(), bad.count, bad.datatype, bad.op, bad.root, bad.comm); });
    long long started = 0;
    const Outcome actual = observe([&] {
        const auto result =
            redux_test::counted_reduce(send.data(), recv.data(), bad.count, bad.datatype, bad.op, bad.root, bad.comm);
        started = result.requests_started;
        return result.rc;
    });
    ASSERT_NE(expected.rc, MPI_SUCCESS) << "PMPI_Reduce accepted these arguments: the test case is wrong";
    EXPECT_NE(actual.rc, MPI_SUCCESS);
    EXPECT_EQ(error_class(actual.rc), error_class(expected.rc));
    EXPECT_EQ(actual.handler_calls, expected.handler_calls);
    EXPECT_EQ(actual.handler_class, expected.handler_class);
    EXPECT_EQ(started, 0) << "requests started for a call that fails its argument checks";
    EXPECT_TRUE(recv == recv_ref) << "the receive buffer was written";
}

class ReduceErrors : public ::testing::Test {
protected:
    void SetUp() override {
        MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
        handler_ = redux_test::make_counting_errhandler();
        MPI_Comm_set_errhandler(comm_, handler_);
        MPI_Comm_size(comm_, &size_);
    }
    void TearDown() override {
        MPI_Comm_free(&comm_);
        MPI_Errhandler_free(&handler_);
    }
    BadCall bad(std::string what) const {
        BadCall call;
        call.what = std::move(what);
        call.comm = comm_;
        return call;
    }

    MPI_Comm comm_ = MPI_COMM_NULL;
    MPI_Errhandler handler_ = MPI_ERRHANDLER_NULL;
    int size_ = 1;
};

TEST_F(ReduceErrors, RootOutOfRange) {
    BadCall call = bad("root -1");
    call.root = -1;
    expect_same_failure(call);
    call = bad("root = size");
    call.root = size_;
    expect_same_failure(call);
}

TEST_F(ReduceErrors, NegativeCount) {
    if (redux_test::mpi_library_is("MPICH")) {
        GTEST_SKIP() << "MPICH 4.0.2's MPI_Reduce does not check for a negative count (it crashes): nothing to "
                        "compare with";
    }
    BadCall call = bad("count -1");
    call.count = -1;
    expect_same_failure(call);
}

TEST_F(ReduceErrors, NullHandles) {
    BadCall call = bad("MPI_DATATYPE_NULL");
    call.datatype = MPI_DATATYPE_NULL;
    expect_same_failure(call);
    call = bad("MPI_OP_NULL");
    call.op = MPI_OP_NULL;
    expect_same_failure(call);
}

// Errors on MPI_COMM_NULL go to MPI_COMM_WORLD's handler (MPI-4.0 section 9.3); install the counting one there
// for this test.
TEST_F(ReduceErrors, NullCommunicator) {
    MPI_Errhandler world_handler = MPI_ERRHANDLER_NULL;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &world_handler);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, handler_);
    BadCall call = bad("MPI_COMM_NULL");
    call.comm = MPI_COMM_NULL;
    expect_same_failure(call);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, world_handler);
    MPI_Errhandler_free(&world_handler);
}

// Predefined operators on datatypes the standard's table does not list for them.
TEST_F(ReduceErrors, OperatorNotDefinedForDatatype) {
    const struct {
        const char* what;
        MPI_Op op;
        MPI_Datatype datatype;
    } cases[] = {
        {"MPI_SUM on MPI_2INT", MPI_SUM, MPI_2INT},
        {"MPI_MINLOC on MPI_INT", MPI_MINLOC, MPI_INT},
        {"MPI_MAXLOC on MPI_DOUBLE", MPI_MAXLOC, MPI_DOUBLE},
        {"MPI_BAND on MPI_FLOAT", MPI_BAND, MPI_FLOAT},
        {"MPI_BXOR on MPI_DOUBLE", MPI_BXOR, MPI_DOUBLE},
        {"MPI_MAX on MPI_C_DOUBLE_COMPLEX", MPI_MAX, MPI_C_DOUBLE_COMPLEX},
        {"MPI_LAND on MPI_C_DOUBLE_COMPLEX", MPI_LAND, MPI_C_DOUBLE_COMPLEX},
        {"MPI_SUM on MPI_C_BOOL", MPI_SUM, MPI_C_BOOL},
        {"MPI_MAX on MPI_PACKED", MPI_MAX, MPI_PACKED},
        {"MPI_REPLACE on MPI_INT", MPI_REPLACE, MPI_INT},
        {"MPI_NO_OP on MPI_INT", MPI_NO_OP, MPI_INT},
    };
    for (const auto& c : cases) {
        BadCall call = bad(c.what);
        call.op = c.op;
        call.datatype = c.datatype;
        expect_same_failure(call);
    }
}

// A user operator with a datatype that was never committed: the error comes from the first transfer (on the
// tree path, from libredux's own communicator), and must still reach the user's handler once, with the class
// PMPI_Reduce reports.
void add_ints(void* in, void* inout, int* len, MPI_Datatype*) {
    for (int i = 0; i < 2 * *len; ++i) static_cast<int*>(inout)[i] += static_cast<int*>(in)[i];
}

TEST_F(ReduceErrors, UncommittedDatatype) {
    MPI_Datatype uncommitted = MPI_DATATYPE_NULL;
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);
    MPI_Op op = MPI_OP_NULL;
    MPI_Op_create(add_ints, 1, &op);
    BadCall call = bad("uncommitted contiguous(2, MPI_INT), user op");
    call.datatype = uncommitted;
    call.op = op;
    expect_same_failure(call);
    MPI_Op_free(&op);
    MPI_Type_free(&uncommitted);
}

// The standard defines the predefined operators on the predefined datatypes only (MPI-4.0 6.9.2: "Predefined
// operators work only with the MPI types listed below"), and Open MPI 4.1 and MPICH 4.0 both return an error
// for MPI_SUM on any derived datatype, even contiguous(2, MPI_INT). libredux leaves such calls to PMPI_Reduce
// (libredux/src/mpi/op_types.cpp), so the user gets the library's error at every rank count.
TEST_F(ReduceErrors, PredefinedOperatorOnDerivedDatatype) {
    MPI_Datatype pair_of_ints = MPI_DATATYPE_NULL;
    MPI_Type_contiguous(2, MPI_INT, &pair_of_ints);
    MPI_Type_commit(&pair_of_ints);
    BadCall call = bad("MPI_SUM on contiguous(2, MPI_INT)");
    call.datatype = pair_of_ints;
    expect_same_failure(call);
    MPI_Type_free(&pair_of_ints);
}

// Combinations outside the standard's table that an MPI library may accept (MPI_CHAR with arithmetic, MPI_BYTE
// with MPI_MAX, MPI_LAND on MPI_INTEGER, ...): whatever PMPI_Reduce does -- fail with some class, or succeed
// with some result -- redux_reduce does the same.
TEST_F(ReduceErrors, ImplementationDefinedCombinationsAgreeWithMPI) {
    const struct {
        const char* what;
        MPI_Op op;
        MPI_Datatype datatype;
    } cases[] = {
        {"MPI_SUM on MPI_CHAR", MPI_SUM, MPI_CHAR},       {"MPI_MAX on MPI_CHAR", MPI_MAX, MPI_CHAR},
        {"MPI_SUM on MPI_WCHAR", MPI_SUM, MPI_WCHAR},     {"MPI_SUM on MPI_BYTE", MPI_SUM, MPI_BYTE},
        {"MPI_MAX on MPI_BYTE", MPI_MAX, MPI_BYTE},       {"MPI_LAND on MPI_INTEGER", MPI_LAND, MPI_INTEGER},
        {"MPI_BOR on MPI_LOGICAL", MPI_BOR, MPI_LOGICAL}, {"MPI_LOR on MPI_AINT", MPI_LOR, MPI_AINT},
    };
    int rank = 0;
    MPI_Comm_rank(comm_, &rank);
    for (const auto& c : cases) {
        SCOPED_TRACE(c.what);
        const int root = size_ - 1;
        std::vector<char> send(64), recv(64, 0), recv_ref(64, 0);
        for (size_t i = 0; i < send.size(); ++i) send[i] = static_cast<char>((rank + static_cast<int>(i)) % 3);
        const Outcome expected =
            observe([&] { return PMPI_Reduce(send.data(), recv_ref.data(), 3, c.datatype, c.op, root, comm_); });
        const Outcome actual = observe(
            [&] { return redux_test::counted_reduce(send.data(), recv.data(), 3, c.datatype, c.op, root, comm_).rc; });
        EXPECT_EQ(error_class(actual.rc), error_class(expected.rc));
        EXPECT_EQ(actual.handler_calls, expected.handler_calls);
        if (expected.rc == MPI_SUCCESS && rank == root) {
            EXPECT_TRUE(recv == recv_ref) << "different results";
        }
    }
}

}  // namespace
