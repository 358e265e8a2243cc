// Known failures of MPI libraries' own MPI_Reduce: the calls auto must not try natively (policy/auto_select.hpp),
// because the library crashes or answers wrongly there. One table, in native_failures.cpp; MPI-free, so that it
// is unit-tested (tests/core/native_failures_test.cpp). Entries say what was observed, where, and how it was
// reproduced without libredux.
#pragma once

#include "policy/mpi_library.hpp"

namespace redux {

// One MPI_Reduce call as the library sees it. `in_place`: the root passes MPI_IN_PLACE (only the root knows it;
// see api/run_plan.cpp for how the ranks agree on it). `recv_at_bottom`: the root's recvbuf is MPI_BOTTOM (its
// datatype holds absolute addresses).
struct NativeReduceCall {
    int comm_size = 1;
    int root = 0;
    bool in_place = false;
    long long bytes = 0;  // count * the datatype's size
    bool commutative = true;
    bool recv_at_bottom = false;
};

// Why `library`'s own MPI_Reduce is known to fail on `call`, or nullptr when no failure is known. The text is
// for the decision log ("MPICH 4.0.2 crashes in MPI_Reduce with MPI_IN_PLACE at a root other than 0 ..."). Where
// several entries apply, the first in the table.
const char* known_native_reduce_failure(const MpiLibrary& library, const NativeReduceCall& call);

// Why `library`'s own MPI_Reduce_scatter_block is known to fail on a call of `comm_size` ranks whose op is
// `commutative` or not and whose datatype's lower bound is not 0 (`lower_bound_moved`), or nullptr.
const char* known_native_reduce_scatter_block_failure(const MpiLibrary& library, int comm_size, bool commutative,
                                                      bool lower_bound_moved);

}  // namespace redux
