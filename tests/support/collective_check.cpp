#include "collective_check.hpp"

#include "reduce_check.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace redux_test {
namespace {

// Where a TypedBuffer's origin lies in its bytes.
size_t origin_offset(const TypedBuffer& buffer) { return static_cast<size_t>(buffer.origin() - buffer.bytes().data()); }

int call_collective(const CollectiveCall& call, const Operand& operand, const void* sendbuf, void* recvbuf) {
    switch (call.kind) {
        case CollectiveKind::reduce:
            return redux_reduce_ex(sendbuf, recvbuf, call.count, operand.datatype(), operand.op(), call.root, call.comm,
                                   &call.options, nullptr);
        case CollectiveKind::allreduce:
            return redux_allreduce_ex(sendbuf, recvbuf, call.count, operand.datatype(), operand.op(), call.comm,
                                      &call.options, nullptr);
        case CollectiveKind::reduce_scatter_block:
            return redux_reduce_scatter_block_ex(sendbuf, recvbuf, call.count, operand.datatype(), operand.op(),
                                                 call.comm, &call.options, nullptr);
    }
    return MPI_ERR_INTERN;
}

// "" when `got` equals `want` byte for byte, else the first difference, and whether the byte is the result's data.
std::string first_difference(const std::string& got, const std::string& want, const std::string& result_mask,
                             const char* buffer) {
    for (size_t i = 0; i < got.size(); ++i) {
        if (got[i] == want[i]) continue;
        std::ostringstream out;
        out << buffer << " byte " << i << (result_mask[i] != 0 ? " (result data)" : " (outside the result)") << " is 0x"
            << std::hex << +static_cast<unsigned char>(got[i]) << ", expected 0x"
            << +static_cast<unsigned char>(want[i]);
        return out.str();
    }
    return "";
}

}  // namespace

const char* kind_name(CollectiveKind kind) {
    switch (kind) {
        case CollectiveKind::reduce:
            return "reduce";
        case CollectiveKind::allreduce:
            return "allreduce";
        case CollectiveKind::reduce_scatter_block:
            return "reduce_scatter_block";
    }
    return "?";
}

std::string describe(const Operand& operand, const CollectiveCall& call) {
    int size = 0;
    MPI_Comm_size(call.comm, &size);
    std::ostringstream out;
    out << kind_name(call.kind) << " of " << operand.name() << ", comm size " << size;
    if (call.kind == CollectiveKind::reduce) out << ", root " << call.root;
    out << ", count " << call.count << (call.in_place ? ", in place" : "") << ", algorithm "
        << static_cast<int>(call.options.algorithm);
    if (call.options.segment_bytes >= 0) out << ", segment bytes " << call.options.segment_bytes;
    out << ", seed " << call.seed;
    return out.str();
}

bool check_collective(const Operand& operand, const CollectiveCall& call) {
    SCOPED_TRACE(describe(operand, call));
    static const bool trace = std::getenv("REDUX_TEST_TRACE") != nullptr;  // for hangs and crashes: which call
    int rank = 0, size = 1;
    MPI_Comm_rank(call.comm, &rank);
    MPI_Comm_size(call.comm, &size);
    if (trace) std::fprintf(stderr, "[rank %d] %s\n", rank, describe(operand, call).c_str());
    const MPI_Datatype datatype = operand.datatype();
    const bool scatter = call.kind == CollectiveKind::reduce_scatter_block;
    const int whole = scatter ? size * call.count : call.count;  // input elements per rank
    const bool in_place = call.in_place && (call.kind != CollectiveKind::reduce || rank == call.root);
    // Which elements of the whole reduction this rank receives, into its receive buffer's first elements.
    const bool receives = call.kind != CollectiveKind::reduce || rank == call.root;
    const int first = scatter ? rank * call.count : 0;

    TypedBuffer send(datatype, whole);
    if (!in_place) operand.fill(send.origin(), whole, rank, call.seed);
    const std::string send_before = send.bytes();
    TypedBuffer recv(datatype, whole);
    operand.fill(recv.origin(), whole, rank, in_place ? call.seed : ~call.seed);
    std::string want = recv.bytes();

    const int rc = call_collective(call, operand, in_place ? MPI_IN_PLACE : send.origin(), recv.origin());
    EXPECT_EQ(rc, MPI_SUCCESS);

    std::string result_mask(want.size(), '\0');
    if (receives && call.count > 0) {
        TypedBuffer full(datatype, whole);
        operand.expect(full.origin(), whole, size, call.seed);
        MPI_Aint lb = 0, extent = 0;
        MPI_Type_get_extent(datatype, &lb, &extent);
        const TypedBuffer shape(datatype, call.count);
        const std::string mask = data_mask(datatype, call.count);
        const auto shape_origin = static_cast<std::ptrdiff_t>(origin_offset(shape));
        const auto recv_origin = static_cast<std::ptrdiff_t>(origin_offset(recv));
        const auto full_origin = static_cast<std::ptrdiff_t>(origin_offset(full)) + first * extent;
        for (size_t i = 0; i < mask.size(); ++i) {
            if (mask[i] == 0) continue;
            const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(i) - shape_origin;  // from the origin
            want[static_cast<size_t>(recv_origin + at)] = full.bytes()[static_cast<size_t>(full_origin + at)];
            result_mask[static_cast<size_t>(recv_origin + at)] = 1;
        }
    }
    const std::string recv_difference = first_difference(recv.bytes(), want, result_mask, "recvbuf");
    EXPECT_EQ(recv_difference, "");
    const std::string send_difference =
        first_difference(send.bytes(), send_before, std::string(send_before.size(), '\0'), "sendbuf");
    EXPECT_EQ(send_difference, "");
    return rc == MPI_SUCCESS && recv_difference.empty() && send_difference.empty();
}

}  // namespace redux_test
