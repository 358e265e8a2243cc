/* Is the MPI library this process runs the one libredux was built for? (C and C++; see mpi_identity.cpp.)
 *
 * libredux.so is built against one MPI's <mpi.h>: its handle types and constants (MPI_COMM_WORLD, MPI_INT,
 * MPI_SUM, MPI_IN_PLACE, ...) are that MPI's. Preloaded into a program of another MPI (LD_PRELOAD), its calls
 * into MPI resolve to the program's library -- the dynamic linker searches the program and its own libraries
 * before libredux's -- while its constants stay the other MPI's, and the first handle it passes kills the
 * process ("Fatal error in MPII_Comm_set_attr: Invalid communicator"). So every entry point asks
 * redux_foreign_mpi() first, before it touches a handle; when it says yes, the call goes to the library's own
 * reduce with its arguments exactly as the program passed them, and one line on stderr (once per process) says
 * why libredux does nothing.
 *
 * The first call asks MPI_Get_library_version (no handles; allowed before MPI_Init and after MPI_Finalize)
 * and compares its family with the one of the <mpi.h> libredux was compiled with; the answer is cached, so
 * every later call costs one relaxed load and a branch. */
#ifndef REDUX_EXEC_MPI_IDENTITY_H
#define REDUX_EXEC_MPI_IDENTITY_H

#define REDUX_INTERNAL __attribute__((visibility("hidden")))

#ifdef __cplusplus
extern "C" {
#endif

/* 0: not asked yet; 1: libredux's own MPI (or one it cannot tell apart from it); 2: another MPI's. */
extern REDUX_INTERNAL int redux_foreign_mpi_state;

/* Asks, caches, and prints the line once when the MPI is foreign. Returns whether it is. */
REDUX_INTERNAL int redux_check_foreign_mpi(void);

/* Whether the loaded MPI library is of another family than the one libredux was built for. */
static inline int redux_foreign_mpi(void) {
    const int state = __atomic_load_n(&redux_foreign_mpi_state, __ATOMIC_RELAXED);
    return state != 0 ? state == 2 : redux_check_foreign_mpi();
}

#ifdef __cplusplus
}

#include "policy/mpi_library.hpp"

namespace redux {

// The MPI library this process runs, from MPI_Get_library_version (asked once).
const MpiLibrary& loaded_mpi_library();

// The MPI libredux was built for, from its <mpi.h>: family, and "Open MPI 4.1.4", "MPICH 4.0.2".
MpiFamily built_for_family();
const char* built_for_description();

}  // namespace redux
#endif

#endif
