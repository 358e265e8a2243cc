// The executor's constants (exec/), in one place where the planner reads them too. No MPI.
//
// The planner predicts a plan with the executor's behaviour in mind: program_for (plan/planner.cpp) asks for every
// child's receive posted at once (RankProgram::receive_together) only where the scratch that takes fits within
// together_bytes, so the executor does what the plan says and never overrides it. The windows bound how far a rank
// runs ahead of its parent and of its own folds; the segmented model (plan/predict/segments.cpp) takes the receive
// window from the request (ExecKnobs::recv_window) and lets sends overlap without a bound, which these windows
// leave true unless a parent falls behind by more than send_window segments.
#pragma once

#include "model/costs.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace redux {

struct ExecLimits {
    // Sends of one lane (one tree) in flight at a rank: partial results going to the parent, or a leaf's own
    // segments sent ahead of the rank's folds. A power of two: the executor's rings index by mask.
    int32_t send_window = 4;
    // A lane that receives on its own (plans dealt to weighted trees) posts at least this many receives per
    // child ahead: its forecast has every link busy, several transfers into a rank at once.
    int32_t lane_window = 4;
    // Receives posted together (RankProgram::receive_together) take one scratch buffer of the vector per child:
    // a plan asks for them only where children x vector bytes stay within this.
    int64_t together_bytes = int64_t{16} << 20;
    // Receives a rank posts ahead into scratch slots of one segment: ExecKnobs::recv_window's default, and the
    // plans' (PlanRequest::recv_window).
    int32_t recv_window = 2;
    // Recursive halving sends each step's half in pieces of this many bytes (under the eager limits of Open MPI
    // and MPICH), at most family_most_pieces of them (family_pieces, plan/family.hpp).
    int64_t family_piece_bytes = int64_t{32} << 10;
    int32_t family_most_pieces = 64;
    // Tree-dyn makes a scratch buffer for every rank at its first call where they take at most this many bytes
    // together: a rank can be told to receive from all the others.
    int64_t tree_dyn_prepared_bytes = int64_t{1} << 20;
    // Allgather then a local reduce keeps every rank's piece at every rank (allreduce: ranks x vector bytes;
    // reduce-scatter-block: the vector): auto weighs it only where that stays within this.
    int64_t allgather_bytes = int64_t{1} << 20;
};

inline constexpr ExecLimits kExecLimits{};

// The op's per-application cost (Costs::compute_call_s, a) is at most this fraction of the per-element work of a
// piece the executor applies it to at once (a chunk of a fold, a piece of recursive halving).
inline constexpr double kOpCallShare = 0.05;

// The fewest bytes of a `vector_bytes` vector, folded whole in compute_s, that the executor applies the op to at
// once, so that a stays within kOpCallShare of the piece's per-element work: a / (kOpCallShare b) elements, b the
// per-element part. 0 when the op has no per-application part; the whole vector when it has nothing else.
inline int64_t op_piece_bytes(const Costs& costs, int64_t vector_bytes) {
    const double per_call_s = std::min(costs.compute_call_s, costs.compute_s);
    if (per_call_s <= 0 || vector_bytes <= 0) return 0;
    const double per_byte_s = (costs.compute_s - per_call_s) / static_cast<double>(vector_bytes);
    const double bytes = per_byte_s > 0 ? per_call_s / (kOpCallShare * per_byte_s) : static_cast<double>(vector_bytes);
    return static_cast<int64_t>(std::min(bytes, static_cast<double>(std::numeric_limits<int64_t>::max() / 2)));
}

static_assert((kExecLimits.send_window & (kExecLimits.send_window - 1)) == 0, "send_window is a power of two");

}  // namespace redux
