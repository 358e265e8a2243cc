// The compute cost c of one call: the user's op on the call's datatype and count, timed. See compute_cost.cpp.
#pragma once

#include "mpi/element_buffer.hpp"

#include <mpi.h>

namespace redux {

// Seconds one application of `op` to `count` elements takes on this rank (extrapolated from a sample for large
// counts), measured on scratch copies of `source` (the call's own data). Not collective.
int measure_compute(const void* source, int count, MPI_Datatype datatype, MPI_Op op, const ElementLayout& layout,
                    double& seconds);

}  // namespace redux
