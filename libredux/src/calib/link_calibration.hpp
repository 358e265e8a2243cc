// Link costs for a communicator: known in this process, read from the calibration file, or measured. See
// link_calibration.cpp.
#pragma once

#include "calib/topology.hpp"
#include "model/link_costs.hpp"
#include "model/node_pairs.hpp"

#include <mpi.h>

#include <string>

namespace redux {

struct LinkCalibration {
    LinkFits fits;  // the classes the communicator has; the same on every rank
    NodePairTimes
        pairs;  // every pair of nodes, measured on 3 .. kMaxPairNodes nodes (else empty); the same on every rank
    double seconds = 0;        // time this call spent (agreeing, reading, measuring), on this rank
    std::string source;        // "process", "file" or "measured"
    std::string pairs_source;  // the pairs': "process", "file", "measured", or empty (no pairs)
};

struct CalibrationSettings {
    std::string file;                 // REDUX_CALIBRATION_FILE; empty: none
    long long max_age_s = 7 * 86400;  // REDUX_CALIBRATION_MAX_AGE
};

// The most nodes whose pairs calibration measures (n - 1 rounds of a few round trips each); beyond, the class.
constexpr int32_t kMaxPairNodes = 64;

// Collective over comm (libredux's private duplicate).
int calibrate_links(MPI_Comm comm, const Topology& topology, const CalibrationSettings& settings, LinkCalibration& out);

}  // namespace redux
