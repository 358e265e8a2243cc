// The executor's runner for plans dealt to weighted trees (the multi-tree strategy): one pipeline per tree. See
// lane_run.cpp; exec/executor.cpp picks it.
#pragma once

#include "exec/executor.hpp"

namespace redux {

// As run_program (exec/executor.hpp), for a program with RankProgram::deal and no final transfer.
int run_lanes(const RankProgram& program, int segments, int rank, const ReduceArgs& args, const ElementLayout& layout,
              MPI_Comm comm, Workspace& workspace, const ExecKnobs& knobs);

}  // namespace redux
