// The process's configuration: policy/config.hpp's parse of the environment, made once.
#pragma once

#include "policy/config.hpp"

namespace redux {

// Parsed on first use. An invalid value makes every reduce native and is reported once, on stderr, by the rank
// that is rank 0 of MPI_COMM_WORLD; under REDUX_VERBOSE=1 that rank also prints the start-up line
// (api/startup_line.hpp) then.
const Config& config();

}  // namespace redux
