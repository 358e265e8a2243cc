// The executor's constants (exec/executor.cpp), in one place where the planner reads them too. No MPI.
//
// The planner predicts a plan with the executor's behaviour in mind: program_for (plan/planner.cpp) asks for every
// child's receive posted at once (RankProgram::receive_together) only where the scratch that takes fits within
// together_bytes, so the executor does what the plan says and never overrides it. The windows bound how far a rank
// runs ahead of its parent and of its own folds; the segmented model (plan/predict/segments.cpp) takes the receive
// window from the request (ExecKnobs::recv_window) and lets sends overlap without a bound, which these windows
// leave true unless a parent falls behind by more than send_window segments.
#pragma once

#include <cstdint>

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
};

inline constexpr ExecLimits kExecLimits{};

static_assert((kExecLimits.send_window & (kExecLimits.send_window - 1)) == 0, "send_window is a power of two");

}  // namespace redux
