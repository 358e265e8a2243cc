// What one cached plan keeps between calls for the executor: scratch buffers, request arrays and the runners'
// bookkeeping, so that a repeated call allocates nothing and, with the same sizes, sets nothing up.
#pragma once

#include "exec/lane_program.hpp"
#include "exec/schedule.hpp"
#include "mpi/element_buffer.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace redux {

// Scratch buffers of `count` elements of one layout.
class BufferSet {
public:
    // Makes sure `buffers` buffers for `count` elements of `layout` exist (a call with another layout of the
    // same type signature, or another count, replaces them); returns their origins.
    const std::vector<void*>& ensure(const ElementLayout& layout, int count, int buffers);
    // Whether ensure(layout, count, buffers) would change nothing.
    bool holds(const ElementLayout& layout, int count, int buffers) const {
        return layout == layout_ && count == count_ && static_cast<int>(storage_.size()) >= buffers;
    }
    size_t held_bytes() const { return storage_.empty() ? 0 : storage_.size() * layout_.span_bytes(count_); }

private:
    std::vector<ElementBuffer> storage_;
    std::vector<void*> origins_;
    ElementLayout layout_;
    int count_ = -1;
};

// The tree runner's bookkeeping (lanes.cpp).
struct LaneState {
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
};

struct TreeDynState;  // tree_dyn.cpp

class Workspace {
public:
    BufferSet slots;    // the tree runner's scratch slots, a segment each
    BufferSet vectors;  // whole vectors: the exchanges' accumulator and received data, a tree's result to spread
    std::vector<char> pack_scratch;  // for copies of datatypes with gaps (copy_elements)
    LaneState lanes;
    ScheduleState schedule;
    std::shared_ptr<TreeDynState> tree_dyn;  // tree-dyn's bookkeeping, made on its first call

    // The bytes of scratch memory it holds: what a cached plan costs beyond its program.
    size_t held_bytes() const { return slots.held_bytes() + vectors.held_bytes() + pack_scratch.capacity(); }
};

}  // namespace redux
