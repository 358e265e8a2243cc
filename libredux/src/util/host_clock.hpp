// The host's CLOCK_MONOTONIC in seconds: one clock that every process of a host reads alike (MPI_Wtime's origin
// may be per process), for starts that ranks of one host agree on exactly.
#pragma once

#include <time.h>

namespace redux {

inline double host_clock_s() {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

}  // namespace redux
