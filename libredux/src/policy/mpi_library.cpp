#include "policy/mpi_library.hpp"

#include <cctype>
#include <cstdio>

namespace redux {
namespace {

// The first "X.Y[.Z]" at or after `from` (digits only), into library's version fields.
void read_version(const std::string& text, size_t from, MpiLibrary& library) {
    for (size_t i = from; i < text.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(text[i]))) continue;
        int major = -1, minor = -1, patch = -1;
        if (std::sscanf(text.c_str() + i, "%d.%d.%d", &major, &minor, &patch) >= 2) {
            library.major = major;
            library.minor = minor;
            library.patch = patch < 0 ? 0 : patch;
            return;
        }
        while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;  // a lone number
    }
}

}  // namespace

std::string MpiLibrary::describe() const {
    if (family == MpiFamily::unknown) return "an unrecognised MPI library";
    std::string text = name;
    if (major >= 0) {
        text += " " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
    }
    return text;
}

bool MpiLibrary::at_least(int want_major, int want_minor, int want_patch) const {
    if (major < 0) return false;
    if (major != want_major) return major > want_major;
    if (minor != want_minor) return minor > want_minor;
    return patch >= want_patch;
}

MpiLibrary parse_mpi_library(const std::string& text) {
    MpiLibrary library;
    // Derivatives of MPICH name MPICH further down their text (or not at all): look for them first.
    struct Known {
        const char* marker;
        const char* name;
        MpiFamily family;
    };
    static const Known kKnown[] = {
        {"Open MPI", "Open MPI", MpiFamily::open_mpi},
        {"Intel(R) MPI", "Intel MPI", MpiFamily::mpich},
        {"MVAPICH", "MVAPICH", MpiFamily::mpich},
        {"MPICH", "MPICH", MpiFamily::mpich},  // "MPICH Version:", "CRAY MPICH version"
    };
    for (const Known& known : kKnown) {
        const size_t at = text.find(known.marker);
        if (at == std::string::npos) continue;
        library.family = known.family;
        library.name = known.name;
        read_version(text, at, library);
        return library;
    }
    return library;
}

const char* family_name(MpiFamily family) {
    switch (family) {
        case MpiFamily::open_mpi:
            return "Open MPI";
        case MpiFamily::mpich:
            return "MPICH";
        case MpiFamily::unknown:
            break;
    }
    return "an unknown MPI";
}

}  // namespace redux
