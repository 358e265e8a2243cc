// Which MPI library: its family (whose ABI: handles, constants) and version, read from the text of
// MPI_Get_library_version. MPI-free, so the parsing and everything decided from it (api/mpi_identity.cpp: is
// the loaded MPI the one libredux was built for; policy/native_failures.hpp: which of its MPI_Reduce calls are
// known to fail) can be unit-tested without an MPI.
#pragma once

#include <string>

namespace redux {

// The ABI family: Open MPI's (handles are pointers to library objects, MPI_IN_PLACE is (void*)1) or MPICH's
// (handles are ints, MPI_IN_PLACE is (void*)-1; MPICH and its ABI-compatible derivatives: Intel MPI, MVAPICH,
// Cray MPICH). A libredux built for one family cannot touch a handle of the other.
enum class MpiFamily { unknown, open_mpi, mpich };

struct MpiLibrary {
    MpiFamily family = MpiFamily::unknown;
    std::string name;                        // "Open MPI", "MPICH", "Intel MPI", "MVAPICH", or empty when unknown
    int major = -1, minor = -1, patch = -1;  // -1: not found in the text

    // "Open MPI 4.1.4", "MPICH 4.0.2", "an unrecognised MPI library"
    std::string describe() const;
    // Whether the version is at least major.minor.patch (false when the version is unknown).
    bool at_least(int major, int minor, int patch) const;
};

// From MPI_Get_library_version's text, e.g. "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, ..." or
// "MPICH Version:\t4.0.2\nMPICH Release date: ...". Text it does not recognise gives family unknown.
MpiLibrary parse_mpi_library(const std::string& version_text);

const char* family_name(MpiFamily family);  // "Open MPI", "MPICH", "an unknown MPI"

}  // namespace redux
