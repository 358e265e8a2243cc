// Which MPI: the one libredux is compiled against (its <mpi.h>, at compile time) and the one loaded at run time
// (MPI_Get_library_version). Header-only, for libredux and for its MPI programs (redux-info, mpi_bench): they
// are built in one build tree against the same <mpi.h>, so what they print is what libredux was built for.
#pragma once

#include <mpi.h>

#include <string>

namespace redux {

#define REDUX_MPI_STRINGIFY_(x) #x
#define REDUX_MPI_STRINGIFY(x) REDUX_MPI_STRINGIFY_(x)

// "Open MPI 4.1.4", "MPICH 4.0.2": the library of the <mpi.h> this is compiled with, from its macros.
inline const char* mpi_built_for() {
#if defined(OMPI_MAJOR_VERSION) && defined(OMPI_MINOR_VERSION) && defined(OMPI_RELEASE_VERSION)
    return "Open MPI " REDUX_MPI_STRINGIFY(OMPI_MAJOR_VERSION) "." REDUX_MPI_STRINGIFY(
        OMPI_MINOR_VERSION) "." REDUX_MPI_STRINGIFY(OMPI_RELEASE_VERSION);
#elif defined(MPICH_VERSION)
    return "MPICH " MPICH_VERSION;
#else
    return "an MPI " REDUX_MPI_STRINGIFY(MPI_VERSION) "." REDUX_MPI_STRINGIFY(MPI_SUBVERSION) " library";
#endif
}

// MPI_Get_library_version's text (callable before MPI_Init and after MPI_Finalize), without trailing blank
// lines; `first_line`: its first line only, tabs as spaces ("Open MPI v4.1.4, package: Debian OpenMPI, ...",
// "MPICH Version: 4.0.2").
inline std::string mpi_loaded(bool first_line) {
    // Not MPI_MAX_LIBRARY_VERSION_STRING: the MPI loaded may be another than the one compiled against (an
    // Open MPI build preloaded into an MPICH program), whose text is longer (MPICH's maximum is 8192).
    char text[16384] = {};
    int length = 0;
    if (MPI_Get_library_version(text, &length) != MPI_SUCCESS) return "unknown";
    std::string loaded(text, static_cast<size_t>(length > 0 ? length : 0));
    loaded.resize(loaded.find('\0') == std::string::npos ? loaded.size() : loaded.find('\0'));
    if (first_line) {
        loaded = loaded.substr(0, loaded.find('\n'));
        for (char& c : loaded) {
            if (c == '\t') c = ' ';
        }
        std::string squeezed;  // "MPICH Version:\t4.0.2" -> "MPICH Version: 4.0.2"
        for (char c : loaded) {
            if (!(c == ' ' && !squeezed.empty() && squeezed.back() == ' ')) squeezed += c;
        }
        loaded = squeezed;
    }
    while (!loaded.empty() && (loaded.back() == '\n' || loaded.back() == ' ' || loaded.back() == '\t')) {
        loaded.pop_back();
    }
    return loaded;
}

// The version of the MPI standard the loaded library implements: "3.1".
inline std::string mpi_standard_version() {
    int version = 0, subversion = 0;
    if (MPI_Get_version(&version, &subversion) != MPI_SUCCESS) return "unknown";
    return std::to_string(version) + "." + std::to_string(subversion);
}

}  // namespace redux
