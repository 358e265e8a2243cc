// One call as the executor runs it: the call's arguments, resolved, and the communicator it runs on. The plan's
// side of a run is ExecPlan (exec/execution.hpp).
#pragma once

#include "mpi/element_buffer.hpp"
#include "plan/family.hpp"

#include <mpi.h>

#include <cstdint>

namespace redux {

struct ExecCall {
    Collective collective = Collective::reduce;
    int root = 0;                 // MPI_Reduce's
    const void* input = nullptr;  // the rank's data: sendbuf, or recvbuf when the call is in place
    void* recvbuf = nullptr;      // MPI_Reduce: the root's only
    bool in_place = false;        // input is recvbuf, and the call may overwrite it
    int count = 0;                // the vector's; MPI_Reduce_scatter_block: the block's (recvcount)
    MPI_Datatype datatype = MPI_DATATYPE_NULL;
    MPI_Op op = MPI_OP_NULL;
    bool commutative = true;
    ElementLayout layout;           // the datatype's at this rank
    MPI_Comm comm = MPI_COMM_NULL;  // libredux's private duplicate
    int rank = 0, size = 1;

    // The elements of the whole vector: count, or count x size blocks for MPI_Reduce_scatter_block.
    int total() const { return collective == Collective::reduce_scatter_block ? count * size : count; }
};

// `base` moved by `bytes`, on integers: base may be MPI_BOTTOM (absolute addresses), where pointer arithmetic
// would leave every object.
inline void* at_offset(const void* base, MPI_Aint bytes) {
    return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(base) + static_cast<uintptr_t>(bytes));
}

}  // namespace redux
