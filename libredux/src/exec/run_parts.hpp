// What the executor's two runners share: ProgramRun (exec/executor.cpp, one receive stream) and LaneRun
// (exec/lane_run.cpp, one pipeline per tree of a plan dealt to weighted trees): the call they run and its segment
// arithmetic (RunCall), tags, the send window, the chunked fold. Internal to src/exec.
#pragma once

#include "exec/executor.hpp"
#include "mpi/mpi_check.hpp"
#include "mpi/tags.hpp"
#include "plan/predict/segments.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace redux {

constexpr int kSendWindow = 4;  // outstanding sends of partial results per rank
constexpr int kNoSlot = -1;     // a buffer that is not a scratch slot: sendbuf or recvbuf

// `base` moved by `bytes`, on integers: base may be MPI_BOTTOM (absolute addresses), where pointer arithmetic
// would leave every object.
inline void* at_offset(const void* base, MPI_Aint bytes) {
    return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(base) + static_cast<uintptr_t>(bytes));
}

// After an error: a request the call posted is cancelled and completed, so that nothing it posted stays behind.
inline void cancel_request(MPI_Request& request) {
    if (request == MPI_REQUEST_NULL) return;
    MPI_Cancel(&request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
}

// inout = in o inout over `count` elements, chunk_bytes at a time, calling `between` (an MPI error code) between
// two chunks: Open MPI advances posted transfers only inside MPI calls.
template <typename Between>
int reduce_in_chunks(const void* in, void* inout, int count, const ReduceArgs& args, const ElementLayout& layout,
                     size_t chunk_bytes, Between between) {
    const int per_chunk = layout.extent > 0
                              ? static_cast<int>(std::clamp<size_t>(chunk_bytes / static_cast<size_t>(layout.extent), 1,
                                                                    static_cast<size_t>(std::max(count, 1))))
                              : count;
    for (int first = 0; first < count; first += per_chunk) {
        const int n = std::min(per_chunk, count - first);
        const MPI_Aint offset = static_cast<MPI_Aint>(first) * layout.extent;
        REDUX_MPI(MPI_Reduce_local(at_offset(in, offset), at_offset(inout, offset), n, args.datatype, args.op));
        if (first + n < count) REDUX_MPI(between());
    }
    return MPI_SUCCESS;
}

// What both runners hold for one call, and the segment arithmetic and tags they share.
class RunCall {
protected:
    RunCall(const RankProgram& program, int segments, int rank, const ReduceArgs& args, const ElementLayout& layout,
            MPI_Comm comm, Workspace& workspace, const ExecKnobs& knobs)
        : program_(program),
          segments_(std::max(1, std::min(segments, std::max(args.count, 1)))),
          rank_(rank),
          args_(args),
          layout_(layout),
          comm_(comm),
          knobs_(knobs),
          ws_(workspace) {}

    // One segment (every small message): no division, which costs tens of cycles and is on every call's path.
    int64_t begin(int j) const {
        return segments_ == 1 ? (j == 0 ? 0 : args_.count) : segment_begin(args_.count, segments_, j);
    }
    int length(int j) const { return static_cast<int>(begin(j + 1) - begin(j)); }
    void* segment_of(const void* buffer, int j) const { return at_offset(buffer, begin(j) * layout_.extent); }
    // Each tree's segments travel with their own tag: a rank may send a later segment of one tree ahead of an
    // earlier one of another to the same parent, and MPI orders messages only per tag.
    static int tag_of(int tree) { return tags::tree(tree); }

    const RankProgram& program_;
    const int segments_;
    const int rank_;
    const ReduceArgs& args_;
    const ElementLayout& layout_;
    const MPI_Comm comm_;
    const ExecKnobs& knobs_;
    Workspace& ws_;
};

}  // namespace redux
