// The table of known native MPI_Reduce failures. Add an entry only with a reproducer that fails without
// libredux; say which versions were observed and which are assumed.
//
// MPICH, MPI_IN_PLACE at a root other than 0 (https://github.com/pmodels/mpich/issues/6540, reported for 4.0.2
// and 4.1.1; fixed by pmodels/mpich#6543 and, for the other reduce compositions, by #6916, a 4.2.x backport for
// issue #6893): the root's MPI_Reduce reads its send buffer, which is MPI_IN_PLACE ((void*)-1), and dies with
// SIGSEGV in memcpy. Observed on Debian 12's MPICH 4.0.2 (ch4:ucx, one host, 2..8 ranks, every non-zero root)
// for every commutative op -- predefined or user -- whenever count * type size > 2048 bytes (setting
// MPIR_CVAR_REDUCE_SHORT_MSG_SIZE does not move that threshold); non-commutative user ops and messages of 2048
// bytes or fewer work. Reproducer (no libredux): docs/testing.md, "Known native failures". 4.1.0 to 4.2.0, not seen
// here, are taken to fail at any size and with any op; 4.2.1 and later to be fixed.
//
// Open MPI, the root's recvbuf at MPI_BOTTOM (a datatype of absolute addresses): the reduce returns
// MPI_SUCCESS and leaves the root's receive buffer as it was. Its tree reduces (coll/base's reduce_generic,
// behind the tuned component's binomial, binary, pipeline and chain choices) take a null receive buffer at the
// root for none and accumulate into a temporary buffer instead, and MPI_BOTTOM is the null pointer there.
// Observed on Debian 12's Open MPI 4.1.4 (2, 3, 4 and 7 ranks, roots 0 and size - 1, in place or not, 20 B to
// 200 KB; at 2 and 3 ranks 2 KB and more went right, where the tuned component picks another algorithm);
// MPI_Allreduce and MPI_Reduce_scatter_block into MPI_BOTTOM went right. Other versions, not seen here, are
// taken to fail alike. MPICH 4.0.2 went right in every case. Reproducer (no libredux): docs/testing.md, "Known
// native failures".
//
// MPICH 4.0, MPI_Reduce_scatter_block with a non-commutative op on a datatype whose lower bound is not 0 (a 2x2
// matrix of uint32 resized to lower bound -8, extent 32): wrong blocks at 2 ranks, a crash with MPI_IN_PLACE.
// Observed on Debian 12's MPICH 4.0.2 by tests/mpi/reduce_scatter_block_test.cpp's native calls (PMPI, no libredux
// algorithm involved); at 3 to 8 ranks those calls went right, taken to fail too. Later versions not seen here are
// taken to be fixed; Open MPI 4.1.4 went right.
#include "policy/native_failures.hpp"

namespace redux {

const char* known_native_reduce_failure(const MpiLibrary& library, const NativeReduceCall& call) {
    if (library.family == MpiFamily::open_mpi && library.name == "Open MPI" && call.recv_at_bottom &&
        call.comm_size >= 2) {
        return "Open MPI's MPI_Reduce leaves the root's result unwritten when its recvbuf is MPI_BOTTOM (its tree "
               "reduces take a null receive buffer for none)";
    }
    const bool mpich_4_0_to_4_2_0 = library.family == MpiFamily::mpich && library.name == "MPICH" &&
                                    library.at_least(4, 0, 0) && !library.at_least(4, 2, 1);
    if (!mpich_4_0_to_4_2_0 || !call.in_place || call.root == 0 || call.comm_size < 2) return nullptr;
    if (!library.at_least(4, 1, 0)) {  // 4.0.x: observed
        if (!call.commutative || call.bytes <= 2048) return nullptr;
        return "MPICH 4.0 crashes in its MPI_Reduce with MPI_IN_PLACE at a root other than 0, commutative op, "
               "more than 2048 bytes (pmodels/mpich#6540)";
    }
    return "MPICH 4.1 to 4.2.0 is reported to crash in its MPI_Reduce with MPI_IN_PLACE at a root other than 0 "
           "(pmodels/mpich#6540, #6893)";
}

const char* known_native_reduce_scatter_block_failure(const MpiLibrary& library, int comm_size, bool commutative,
                                                      bool lower_bound_moved) {
    const bool mpich_4_0 = library.family == MpiFamily::mpich && library.name == "MPICH" && library.at_least(4, 0, 0) &&
                           !library.at_least(4, 1, 0);
    if (!mpich_4_0 || commutative || !lower_bound_moved || comm_size < 2) return nullptr;
    return "MPICH 4.0's MPI_Reduce_scatter_block returns wrong blocks (and crashes in place) for a non-commutative op "
           "on a datatype whose lower bound is not 0";
}

}  // namespace redux
