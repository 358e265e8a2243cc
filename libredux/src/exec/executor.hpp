// The executor: runs one rank's program from a plan (plan/planner.hpp) with nonblocking MPI. See executor.cpp.
#pragma once

#include "exec/lane_program.hpp"
#include "mpi/element_buffer.hpp"
#include "plan/planner.hpp"
#include "policy/config.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace redux {

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
    // The bytes of scratch memory it holds (buffers and pack scratch): what a cached plan costs beyond its program.
    size_t held_bytes() const {
        return (storage_.empty() ? 0 : storage_.size() * layout_.span_bytes(count_)) + pack_scratch.capacity();
    }

    // Whether `buffers` buffers for `count` elements of `layout` are there already (ensure would change nothing).
    bool holds(const ElementLayout& layout, int count, int buffers) const {
        return layout == layout_ && count == count_ && static_cast<int>(storage_.size()) >= buffers;
    }
    // The sizes the last call left the vectors below in, every request null and every slot free: a call of the same
    // sizes (the key's tree again) sets nothing up. Zero after an error.
    struct Shape {
        int requests = 0, slots = 0, most = 0;
        bool operator==(const Shape& o) const { return requests == o.requests && slots == o.slots && most == o.most; }
    };
    Shape ready;

    LaneProgram program;                // the call's lanes (exec/lane_program.hpp)
    std::vector<void*> slot;            // the scratch slots' origins
    std::vector<int> free_slots;        // by pool (LaneProgram::pools)
    std::vector<MPI_Request> requests;  // laid out as LaneProgram says
    std::vector<int> request_slot;      // the scratch slot each request's buffer is
    std::vector<int> request_segment;   // the segment each send carries
    std::vector<int> indices;           // for MPI_Testsome on the stream's ring
    std::vector<uint8_t> segment_left;  // the root of a result transfer: its own part of segment j has been sent
    std::vector<char> pack_scratch;

private:
    std::vector<ElementBuffer> storage_;
    std::vector<void*> origins_;
    ElementLayout layout_;
    int count_ = -1;
};

// Runs `program` for `rank` on `comm` (the private duplicate), the vector cut into `segments` pipelined pieces
// (plan/predict/segments.hpp; 1: unsegmented). Returns an MPI error code (MPI_ERR_TAG for a program with more trees
// than tags::kMostTrees); on error every request it posted has been cancelled or completed.
int run_program(const RankProgram& program, int segments, int rank, const ReduceArgs& args, const ElementLayout& layout,
                MPI_Comm comm, Workspace& workspace, const ExecKnobs& knobs);

}  // namespace redux
