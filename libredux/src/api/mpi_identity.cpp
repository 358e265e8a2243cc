// The MPI libredux was built for against the one the process runs (see mpi_identity.h).
#include "api/mpi_identity.h"

#include <mpi.h>

#include <cstdio>
#include <string>

int redux_foreign_mpi_state = 0;

namespace redux {
namespace {

#define REDUX_STRINGIFY_(x) #x
#define REDUX_STRINGIFY(x) REDUX_STRINGIFY_(x)

// Larger than MPI_MAX_LIBRARY_VERSION_STRING of either family (Open MPI 4.1: 256, MPICH 4.0: 8192): the
// library that fills the buffer may be the other MPI, whose maximum is not the one of libredux's <mpi.h>.
constexpr int kVersionTextBytes = 16384;
static_assert(MPI_MAX_LIBRARY_VERSION_STRING <= kVersionTextBytes, "a larger buffer is needed");

MpiLibrary ask_library() {
    static char text[kVersionTextBytes];  // static: 16 KiB is much for a stack; asked once
    int length = 0;
    if (MPI_Get_library_version(text, &length) != 0) return MpiLibrary{};  // MPI_SUCCESS is 0 in every MPI
    if (length < 0 || length >= kVersionTextBytes) length = 0;
    text[length] = '\0';
    return parse_mpi_library(text);
}

}  // namespace

const MpiLibrary& loaded_mpi_library() {
    static const MpiLibrary library = ask_library();
    return library;
}

MpiFamily built_for_family() {
#if defined(OMPI_MAJOR_VERSION)
    return MpiFamily::open_mpi;
#elif defined(MPICH_VERSION) || defined(I_MPI_VERSION) || defined(MVAPICH2_VERSION)
    return MpiFamily::mpich;
#else
    return MpiFamily::unknown;
#endif
}

const char* built_for_description() {
#if defined(OMPI_MAJOR_VERSION) && defined(OMPI_MINOR_VERSION) && defined(OMPI_RELEASE_VERSION)
    return "Open MPI " REDUX_STRINGIFY(OMPI_MAJOR_VERSION) "." REDUX_STRINGIFY(OMPI_MINOR_VERSION) "." REDUX_STRINGIFY(
        OMPI_RELEASE_VERSION);
#elif defined(MPICH_VERSION)
    return "MPICH " MPICH_VERSION;
#else
    return "an unrecognised MPI";
#endif
}

}  // namespace redux

extern "C" int redux_check_foreign_mpi(void) {
    using namespace redux;
    const MpiLibrary& loaded = loaded_mpi_library();
    const MpiFamily built = built_for_family();
    // Foreign only when both are known and differ: an MPI libredux cannot name is given the benefit of the doubt.
    const bool foreign = built != MpiFamily::unknown && loaded.family != MpiFamily::unknown && loaded.family != built;
    if (foreign && __atomic_exchange_n(&redux_foreign_mpi_state, 2, __ATOMIC_RELAXED) != 2) {
        std::fprintf(stderr,
                     "libredux: built for %s but the program runs %s: every MPI_Reduce goes to the MPI library's "
                     "own (use a libredux built for %s)\n",
                     built_for_description(), loaded.describe().c_str(), family_name(loaded.family));
    } else if (!foreign) {
        __atomic_store_n(&redux_foreign_mpi_state, 1, __ATOMIC_RELAXED);
    }
    return foreign;
}
