#include "reduce_check.hpp"

#include "redux/redux.h"
#include "yielding_wait.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace redux_test {
namespace {

bool native_configured() {
    const char* algorithm = std::getenv("REDUX_ALGORITHM");
    return algorithm != nullptr && std::strcmp(algorithm, "native") == 0;
}

// auto (the default) runs some calls on the MPI library's own reduce: its trials alternate, and it may keep
// the native one.
bool auto_configured() {
    const char* algorithm = std::getenv("REDUX_ALGORITHM");
    return algorithm == nullptr || *algorithm == '\0' || std::strcmp(algorithm, "auto") == 0;
}

int rank_in_world() {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

}  // namespace

std::string data_mask(MPI_Datatype datatype, int count) {
    TypedBuffer mask(datatype, count, 0x00);
    int type_size = 0;
    MPI_Type_size(datatype, &type_size);
    const int packed_bytes = type_size * count;
    if (packed_bytes > 0) {
        std::string ones(static_cast<size_t>(packed_bytes), '\xff');
        int position = 0;
        MPI_Unpack(ones.data(), packed_bytes, &position, mask.origin(), count, datatype, MPI_COMM_SELF);
    }
    return mask.bytes();
}

namespace {

// "" when every non-data byte of `after` equals the same byte of `before`.
std::string gaps_changed(const std::string& before, const std::string& after, const std::string& mask) {
    for (size_t i = 0; i < after.size(); ++i) {
        if (mask[i] == 0 && after[i] != before[i]) {
            std::ostringstream out;
            out << "byte " << i << " of the receive buffer is not data of the datatype but was changed (from 0x"
                << std::hex << +static_cast<unsigned char>(before[i]) << " to 0x"
                << +static_cast<unsigned char>(after[i]) << ")";
            return out.str();
        }
    }
    return "";
}

}  // namespace

TypedBuffer::TypedBuffer(MPI_Datatype datatype, int count, unsigned char fill, size_t margin) {
    MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
    MPI_Type_get_extent(datatype, &lb, &extent);
    MPI_Type_get_true_extent(datatype, &true_lb, &true_extent);
    // Element k's data lies in [k * extent + true_lb, k * extent + true_lb + true_extent).
    MPI_Aint low = 0, high = 0;
    if (count > 0) {
        const MPI_Aint last = static_cast<MPI_Aint>(count - 1) * extent;
        low = std::min<MPI_Aint>({0, true_lb, last + true_lb});
        high = std::max<MPI_Aint>({0, true_lb + true_extent, last + true_lb + true_extent});
    }
    origin_offset_ = margin + static_cast<size_t>(-low);
    bytes_.assign(static_cast<size_t>(high - low) + 2 * margin, static_cast<char>(fill));
}

bool mpi_library_is(const char* vendor) {
    static const std::string version = [] {
        char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
        int length = 0;
        MPI_Get_library_version(text, &length);
        return std::string(text);
    }();
    return version.find(vendor) != std::string::npos;
}

bool in_place_is_safe(MPI_Datatype datatype, int count, int root, bool may_reach_pmpi) {
    int type_size = 0;
    MPI_Type_size(datatype, &type_size);
    return !(mpi_library_is("MPICH") && (native_configured() || may_reach_pmpi) && root != 0 &&
             static_cast<long long>(type_size) * count > 2048);
}

bool tree_expected(MPI_Comm comm, int count, bool native) {
    int inter = 0, size = 1;
    MPI_Comm_test_inter(comm, &inter);
    MPI_Comm_size(comm, &size);
    return !native && count > 0 && !inter && size >= 2;
}

bool tree_expected(MPI_Comm comm, int count) { return tree_expected(comm, count, native_configured()); }

CountedResult counted_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                             MPI_Comm comm, const redux_options* options) {
    const RequestCounts before = request_counts();
    CountedResult result;
    result.rc = redux_reduce_ex(sendbuf, recvbuf, count, datatype, op, root, comm, options, nullptr);
    const RequestCounts after = request_counts();
    result.requests_started = after.started - before.started;
    EXPECT_EQ(after.started - before.started, after.completed - before.completed)
        << "requests started and completed during one redux_reduce differ (started " << after.started - before.started
        << ", completed " << after.completed - before.completed << ")";
    EXPECT_EQ(after.started - after.completed, before.started - before.completed);
    return result;
}

std::string describe(const Operand& operand, const ReduceCall& call) {
    int size = 0;
    MPI_Comm_size(call.comm, &size);
    std::ostringstream out;
    out << operand.name() << ", comm size " << size << ", root " << call.root << ", count " << call.count
        << (call.in_place ? ", in place" : "") << ", seed " << call.seed;
    return out.str();
}

void check_reduce(const Operand& operand, const ReduceCall& call) {
    SCOPED_TRACE(describe(operand, call));
    static const bool trace = std::getenv("REDUX_TEST_TRACE") != nullptr;  // for crashes: which call it was
    if (trace) std::fprintf(stderr, "[rank %d] %s\n", rank_in_world(), describe(operand, call).c_str());
    int rank = 0, size = 1;
    MPI_Comm_rank(call.comm, &rank);
    MPI_Comm_size(call.comm, &size);
    const bool is_root = rank == call.root;
    const MPI_Datatype datatype = operand.datatype();
    const redux_algorithm asked = call.options.algorithm;
    const bool runs_auto = asked == REDUX_ALGORITHM_AUTO || (asked == REDUX_ALGORITHM_CONFIGURED && auto_configured());
    const bool runs_native =
        asked == REDUX_ALGORITHM_NATIVE || (asked == REDUX_ALGORITHM_CONFIGURED && native_configured());
    const bool in_place = is_root && call.in_place &&
                          in_place_is_safe(datatype, call.count, call.root, call.tree_optional || runs_native);

    TypedBuffer send(datatype, call.count);
    operand.fill(send.origin(), call.count, rank, call.seed);
    const std::string send_before = send.bytes();
    TypedBuffer recv(datatype, is_root ? call.count : 0);
    if (in_place) operand.fill(recv.origin(), call.count, rank, call.seed);
    const std::string recv_before = recv.bytes();

    const CountedResult result =
        counted_reduce(in_place ? MPI_IN_PLACE : send.origin(), is_root ? recv.origin() : nullptr, call.count, datatype,
                       operand.op(), call.root, call.comm, &call.options);
    EXPECT_EQ(result.rc, MPI_SUCCESS);
    const bool tree = tree_expected(call.comm, call.count, runs_native);
    if (call.tree_optional || (runs_auto && tree)) {
        // either way is right
    } else if (tree) {
        EXPECT_GT(result.requests_started, 0) << "no request started: the tree did not run";
    } else {
        EXPECT_EQ(result.requests_started, 0) << "requests started where libredux should leave the call to MPI";
    }
    EXPECT_TRUE(send.bytes() == send_before) << "sendbuf was changed";

    TypedBuffer want(datatype, is_root ? call.count : 0);
    std::string mask;
    if (is_root) {
        operand.expect(want.origin(), call.count, size, call.seed);
        mask = data_mask(datatype, call.count);
        const std::string difference = operand.compare(recv.origin(), want.origin(), call.count);
        EXPECT_EQ(difference, "") << "redux_reduce's result differs from the test's own computation";
        const std::string gap = gaps_changed(recv_before, recv.bytes(), mask);
        EXPECT_EQ(gap, "");
    }
    if (!call.compare_with_pmpi) return;

    TypedBuffer reference(datatype, is_root ? call.count : 0);
    if (in_place) operand.fill(reference.origin(), call.count, rank, call.seed);
    const int rc = reference_reduce(in_place ? MPI_IN_PLACE : send.origin(), is_root ? reference.origin() : nullptr,
                                    call.count, datatype, operand.op(), call.root, call.comm);
    EXPECT_EQ(rc, MPI_SUCCESS);
    if (is_root) {
        EXPECT_EQ(operand.compare(recv.origin(), reference.origin(), call.count), "")
            << "redux_reduce's result differs from PMPI_Reduce's";
        EXPECT_EQ(operand.compare(reference.origin(), want.origin(), call.count), "")
            << "PMPI_Reduce's result differs from the test's own computation (the test's model is wrong)";
    }
}

}  // namespace redux_test
