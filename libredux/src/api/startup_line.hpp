// The line REDUX_VERBOSE=1 prints once per job, at the first call (api/process_config.cpp): what an
// `redux-info` would say first -- libredux's version, the MPI it was built for and the one loaded, the
// settings that differ from their defaults, the calibration file.
#pragma once

#include "policy/config.hpp"

#include <string>

namespace redux {

// "libredux: 0.1.0 started; MPI: built for Open MPI 4.1.4, loaded Open MPI v4.1.4, ...; settings:
// REDUX_D=1e-06 REDUX_VERBOSE=1; calibration file: none". `config` is parse_config(lookup).
std::string startup_line(const Config& config, const char* (*lookup)(const char* name));

}  // namespace redux
