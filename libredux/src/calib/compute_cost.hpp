// The compute cost c of one call: the user's op on the call's datatype, timed on real operands. See compute_cost.cpp.
#pragma once

#include "mpi/element_buffer.hpp"

#include <mpi.h>

#include <cstdint>

namespace redux {

// c(n) = call_s + element_s x n: what one application of the op to n elements takes.
struct OpCost {
    double call_s = 0;     // paid by every application, whatever its length
    double element_s = 0;  // per element

    double at(int64_t elements) const { return call_s + element_s * static_cast<double>(elements); }
};

// Times `op` applied as MPI_Reduce_local(in, inout) to prefixes of `in_source` and `inout_source` (each holding
// `available` elements laid out as `datatype`), both copied into scratch first, and fits OpCost through at least
// two sizes (one when available is 1). Not collective.
int measure_compute(const void* in_source, const void* inout_source, int available, MPI_Datatype datatype, MPI_Op op,
                    const ElementLayout& layout, OpCost& cost);

// The most elements measure_compute uses of `count`: at most kMaxSampleBytes of them.
int compute_sample_count(int count, const ElementLayout& layout);

}  // namespace redux
