// The reduce tests' harness: one call of redux_reduce checked from every angle the tests know.
//
// check_reduce(operand, call) runs on every rank of call.comm:
//   - buffers laid out for the datatype with margins on both sides (negative lower bounds included), filled
//     with a sentinel before the operand's data goes in, so a write outside the datatype's data shows;
//   - redux_reduce through counted_reduce (below), MPI_IN_PLACE at the root when asked, recvbuf = nullptr on
//     the other ranks (it is not significant there);
//   - at the root: the data equals the operand's own computation, every byte that is not data (gaps inside
//     and between elements, margins) is as it was before the call;
//   - on every rank: sendbuf is unchanged byte for byte;
//   - when call.compare_with_pmpi: the MPI library's own reduce with the same arguments (reference_reduce in
//     yielding_wait.hpp) gives the same data, and agrees with the operand's computation.
// Failures are gtest EXPECTs on the rank that sees them; no rank leaves early, so collectives stay matched.
#pragma once

#include "operand.hpp"
#include "request_counter.hpp"

#include "redux/redux.h"

#include <mpi.h>

#include <string>

namespace redux_test {

struct ReduceCall {
    MPI_Comm comm = MPI_COMM_WORLD;
    int root = 0;
    int count = 1;
    bool in_place = false;  // MPI_IN_PLACE at the root
    uint64_t seed = 1;
    bool compare_with_pmpi = false;
    // Normally a call that tree_expected() says runs a tree must start requests. Set where libredux may leave
    // the call to PMPI_Reduce (a datatype its table of predefined operators does not list yet).
    bool tree_optional = false;
    // Per-call choices (redux_reduce_ex); the default is the configured algorithm.
    redux_options options = REDUX_OPTIONS_INIT;
};

void check_reduce(const Operand& operand, const ReduceCall& call);

// Whether libredux is expected to run a tree for this call: count > 0 on an intracommunicator of two ranks or
// more, unless REDUX_ALGORITHM=native. Under auto such a call may also go to the MPI library (check_reduce
// accepts both then).
bool tree_expected(MPI_Comm comm, int count);
// The same for a call that runs native (`native`) or not, whatever REDUX_ALGORITHM says (per-call options).
bool tree_expected(MPI_Comm comm, int count, bool native);

// redux_reduce, with the request counter read around it. Checks (gtest EXPECT) that every request started
// during the call was completed by its end; returns redux_reduce's error code and the requests started.
struct CountedResult {
    int rc = MPI_SUCCESS;
    long long requests_started = 0;
};
CountedResult counted_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                             MPI_Comm comm, const redux_options* options = nullptr);

// Whether the MPI library's version string names `vendor` ("MPICH", "Open MPI"): for working around its bugs.
bool mpi_library_is(const char* vendor);

// False where MPICH 4.0.2's MPI_Reduce would crash on MPI_IN_PLACE (it reads from address -1 when the root is
// not 0 and the message exceeds 2048 bytes; PMPI_Ireduce is fine) and the call may reach it: under
// REDUX_ALGORITHM=native, or when `may_reach_pmpi` (a call libredux may leave to MPI, or that asks for native).
// check_reduce then makes the call without MPI_IN_PLACE. Under auto libredux itself never tries MPICH's reduce
// there (policy/native_failures.hpp), so auto gets in-place calls at every root.
bool in_place_is_safe(MPI_Datatype datatype, int count, int root, bool may_reach_pmpi = false);

// Describes a call for failure messages: "operand name, comm size 4, root 2, count 17, in place".
std::string describe(const Operand& operand, const ReduceCall& call);

// A buffer for `count` elements of `datatype`, with `margin` bytes on each side of the span the elements
// cover, every byte set to `fill`. origin() is what MPI calls take.
class TypedBuffer {
public:
    TypedBuffer(MPI_Datatype datatype, int count, unsigned char fill = 0xA5, size_t margin = 64);
    char* origin() { return bytes_.data() + origin_offset_; }
    const char* origin() const { return bytes_.data() + origin_offset_; }
    const std::string& bytes() const { return bytes_; }
    std::string& bytes() { return bytes_; }

private:
    std::string bytes_;
    size_t origin_offset_ = 0;
};

// Which bytes of TypedBuffer(datatype, count) MPI treats as data (non-zero) and which not (gaps, margins):
// MPI_Unpack of all-ones bytes into a zeroed buffer.
std::string data_mask(MPI_Datatype datatype, int count);

}  // namespace redux_test
