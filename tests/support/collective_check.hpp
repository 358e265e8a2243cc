// One call of redux_reduce_ex, redux_allreduce_ex or redux_reduce_scatter_block_ex, checked for what it writes:
// its result, and nothing else.
//
// check_collective(operand, call) runs on every rank of call.comm:
//   - every buffer is a TypedBuffer (margins on both sides, the datatype's gaps inside) whose data is the operand's
//     input; a receive buffer that is not input holds other data of the operand (a rank's old values), so that a
//     write of any value shows;
//   - the receive buffer always covers the whole input (size x count elements for MPI_Reduce_scatter_block, count
//     otherwise), on every rank, the root's and the others' alike;
//   - after the call every byte of every buffer is compared: the result's data (the root's for MPI_Reduce, each
//     rank's block for MPI_Reduce_scatter_block) equals the operand's own computation, and every other byte is as it
//     was: the send buffer, margins, gaps, the receive buffer of a non-root rank, and the blocks after a
//     reduce-scatter-block's result (input, in place: the MPI libraries leave it there, and programs read it).
// Failures are gtest EXPECTs on the rank that sees them; no rank leaves early, so collectives stay matched.
#pragma once

#include "operand.hpp"

#include "redux/redux.h"

#include <mpi.h>

#include <string>

namespace redux_test {

enum class CollectiveKind { reduce, allreduce, reduce_scatter_block };
const char* kind_name(CollectiveKind kind);

struct CollectiveCall {
    CollectiveKind kind = CollectiveKind::reduce;
    MPI_Comm comm = MPI_COMM_WORLD;
    int root = 0;   // MPI_Reduce only
    int count = 1;  // MPI_Reduce_scatter_block: recvcount
    // MPI_IN_PLACE where the collective takes it: the root of MPI_Reduce, every rank of the others.
    bool in_place = false;
    uint64_t seed = 1;
    redux_options options = REDUX_OPTIONS_INIT;
};

// "allreduce of MPI_INT sum, comm size 4, count 7, in place, algorithm 14, segment bytes 8, seed 3".
std::string describe(const Operand& operand, const CollectiveCall& call);

// Makes the call and checks every byte it may and may not write (above). Returns false on any failure.
bool check_collective(const Operand& operand, const CollectiveCall& call);

}  // namespace redux_test
