// The executor: runs one rank's program from a plan (plan/planner.hpp) with nonblocking MPI. See executor.cpp.
#pragma once

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

// One tree's pipeline at a rank (the executor's LaneRun, for plans dealt to weighted trees). Receive q of its stream
// (segment-major, children in fold order) uses request first_request + q % window; its sends use the kSendWindow
// requests after those.
struct LaneState {
    int tree = 0;
    int children = 0;
    int32_t parent = -1;
    int segments = 0;    // dealt to this tree
    int64_t stream = 0;  // receives in all: segments x children
    int window = 1;      // receives posted together
    int first_request = 0;
    int first_slot = 0, slots = 0;  // its scratch slots
    int first_free = 0, free = 0;   // its free slots: Workspace::free_slots[first_free, first_free + free)
    int64_t folded = 0;             // receives folded, in stream order
    int first_child = 0;            // its children's entries in Workspace::child_posted and child_next
    int next_fold = 0;              // the segment being folded (or sent, for a leaf)
    int finished = 0;               // segments folded and sent on (or kept, at the root)
    int64_t sends_started = 0, sends_done = 0;
    const void* acc = nullptr;
    int acc_slot = -1;  // the accumulator's scratch slot; -1: sendbuf or recvbuf
    bool acc_writable = false;
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
    // The sizes the last call of the one-stream runner (executor.cpp's ProgramRun) left the vectors below in, every
    // request null and every slot free: a call of the same sizes (the key's tree again) sets nothing up. Zero after
    // an error, and while the other runner (LaneRun) uses them.
    struct Shape {
        int ring = 0, slots = 0, most = 0, results = 0;
        bool operator==(const Shape& o) const {
            return ring == o.ring && slots == o.slots && most == o.most && results == o.results;
        }
    };
    Shape ready;

    std::vector<void*> slot;
    std::vector<int> free_slots;
    std::vector<MPI_Request> requests;         // receives in flight, then sends (rings)
    std::vector<int> child_slot;               // the slot of each of those requests
    std::vector<int> indices;                  // for MPI_Testsome
    std::vector<MPI_Request> result_requests;  // the root's receives of the sink's result, one per segment
    std::vector<char> pack_scratch;
    std::vector<LaneState> lanes;   // plans dealt to weighted trees: one per tree
    std::vector<int> child_posted;  // by lane and child: the lane's segments whose receive from it is posted
    std::vector<int> child_next;    // by lane and child: the segment of its next receive

private:
    std::vector<ElementBuffer> storage_;
    std::vector<void*> origins_;
    ElementLayout layout_;
    int count_ = -1;
};

// Runs `program` for `rank` on `comm` (the private duplicate), the vector cut into `segments` pipelined pieces
// (plan/predict/segments.hpp; 1: unsegmented). Returns an MPI error code; on error every request it posted has been
// cancelled or completed.
int run_program(const RankProgram& program, int segments, int rank, const ReduceArgs& args, const ElementLayout& layout,
                MPI_Comm comm, Workspace& workspace, const ExecKnobs& knobs);

}  // namespace redux
