// The executor: runs one rank's program from a plan (plan/planner.hpp) with nonblocking MPI. See executor.cpp.
#pragma once

#include "exec/element_buffer.hpp"
#include "plan/planner.hpp"

#include <mpi.h>

#include <cstddef>
#include <vector>

namespace redux {

// Knobs a plan request can set (tests force tiny chunks and a single receive buffer).
struct ExecKnobs {
    int recv_window = 2;                   // receives posted ahead of the fold (>= 1)
    size_t chunk_bytes = size_t{1} << 16;  // the op is applied this many bytes at a time, polling in between
};

// One MPI_Reduce call, resolved: in_place means the root's own contribution is in recvbuf.
struct ReduceArgs {
    const void* sendbuf = nullptr;
    void* recvbuf = nullptr;
    bool in_place = false;
    int count = 0;
    MPI_Datatype datatype = MPI_DATATYPE_NULL;
    MPI_Op op = MPI_OP_NULL;
    bool commutative = true;
    int root = 0;
};

// What one cached plan keeps between calls: scratch buffers and the executor's bookkeeping, so that a
// repeated call allocates nothing.
class Workspace {
public:
    // Makes sure `buffers` buffers for `count` elements of `layout` exist (a call with another layout of the
    // same type signature replaces them); returns their origins.
    const std::vector<void*>& ensure(const ElementLayout& layout, int count, int buffers);

    std::vector<void*> slot;
    std::vector<int> free_slots;
    std::vector<MPI_Request> requests;
    std::vector<int> child_slot;
    std::vector<int> indices;

private:
    std::vector<ElementBuffer> storage_;
    std::vector<void*> origins_;
    ElementLayout layout_;
    int count_ = -1;
};

// Runs `program` for `rank` on `comm` (the private duplicate). Returns an MPI error code; on error every
// request it posted has been cancelled or completed.
int run_program(const RankProgram& program, int rank, const ReduceArgs& args, const ElementLayout& layout,
                MPI_Comm comm, Workspace& workspace, const ExecKnobs& knobs);

}  // namespace redux
