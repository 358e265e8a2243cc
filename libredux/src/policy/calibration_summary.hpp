// What a calibration file holds, for people (redux-info): read-only, and judged by policy/calibration_file.hpp's
// own load_calibration, so that what is shown is what libredux would do with the file. No MPI.
#pragma once

#include "policy/calibration_file.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace redux {

// "found", "missing", "unreadable", "corrupt", "foreign", "stale", "no_entry".
const char* load_status_name(LoadStatus status);

struct CalibrationEntrySummary {
    std::string signature;  // Topology::signature: "<ranks>-<hash of the hosts and packages of every rank>"
    int64_t created_unix = 0;
    int64_t age_s = 0;   // now - created_unix
    bool fresh = false;  // load_calibration takes it: not older than the maximum age, not from the future
    std::string reason;  // why not, when not fresh
    LinkFits links;      // d per link class: its points, alpha and beta (measured: false for classes not in it)
};

struct CalibrationFileSummary {
    std::string path;
    bool exists = false;  // something is at the path
    // The file as a whole: found (libredux's calibration file of this format version, every entry well
    // formed), missing, unreadable, corrupt, foreign, or stale (libredux's, another format version).
    LoadStatus status = LoadStatus::missing;
    std::string reason;                            // what load_calibration says when status is not found
    bool libredux_format = false;                  // found or stale: libredux's format marker
    std::vector<CalibrationEntrySummary> entries;  // when found, in the file's order (newest first)
};

// Reads `path` as libredux would at `now_unix` with REDUX_CALIBRATION_MAX_AGE `max_age_s`. Never writes.
CalibrationFileSummary summarize_calibration_file(const std::string& path, int64_t now_unix, int64_t max_age_s);

}  // namespace redux
