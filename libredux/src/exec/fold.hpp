// The fold every algorithm applies: the op over a range of elements, a chunk at a time, so that a runner can let
// MPI move the messages in flight between two chunks (the standard lets an op be applied to any split of the
// elements; Open MPI has no progress thread, so a long message advances only inside MPI calls).
//
// MPI_Reduce_local(in, inout) computes inout = in o inout. A partial result `theirs` that comes from lower ranks
// joins on the left: mine = theirs o mine, in place. One from higher ranks joins on the right: mine = mine o theirs,
// which, unless the op commutes, is computed into theirs and copied back (the tree runner avoids the copy by
// making theirs the accumulator; see lanes.cpp).
#pragma once

#include "exec/call.hpp"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace redux {

// Elements per chunk of `chunk_bytes` (at least one, at most `count`).
inline int64_t chunk_elements(const ElementLayout& layout, size_t chunk_bytes, int64_t count) {
    if (layout.extent <= 0) return std::max<int64_t>(count, 1);
    return std::clamp<int64_t>(static_cast<int64_t>(chunk_bytes / static_cast<size_t>(layout.extent)), 1,
                               std::max<int64_t>(count, 1));
}

// Elements [first, first + n) of `theirs` folded into the same elements of `mine`, `theirs` on the left when
// theirs_left. Returns an MPI error code.
inline int fold_elements(const void* theirs, void* mine, int64_t first, int n, bool theirs_left, const ExecCall& call,
                         std::vector<char>& pack_scratch) {
    const MPI_Aint offset = static_cast<MPI_Aint>(first) * call.layout.extent;
    void* t = at_offset(theirs, offset);
    void* m = at_offset(mine, offset);
    if (theirs_left || call.commutative) return MPI_Reduce_local(t, m, n, call.datatype, call.op);
    const int rc = MPI_Reduce_local(m, t, n, call.datatype, call.op);
    if (rc != MPI_SUCCESS) return rc;
    return copy_elements(t, m, n, call.datatype, call.layout, pack_scratch);
}

}  // namespace redux
