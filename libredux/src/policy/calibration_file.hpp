// The calibration file (REDUX_CALIBRATION_FILE): measured link costs kept between runs. See
// calibration_file.cpp for the format. No MPI: rank 0 reads and writes it, and broadcasts what it read.
#pragma once

#include "model/link_costs.hpp"
#include "model/node_pairs.hpp"

#include <cstdint>
#include <string>

namespace redux {

// 2: links as measured points (d piecewise linear); 1: one line per link class, read as stale.
constexpr int kCalibrationFormatVersion = 2;

struct CalibrationEntry {
    std::string signature;  // Topology::signature: hosts and packages of every rank
    int64_t created_unix = 0;
    LinkFits links;
    NodePairTimes pairs;  // every pair of nodes, where the layout has 3 .. kMaxPairNodes nodes (else empty)
};

enum class LoadStatus { found, missing, unreadable, corrupt, foreign, stale, no_entry };

struct LoadResult {
    LoadStatus status = LoadStatus::missing;
    std::string reason;  // for the warning when not found
    LinkFits links;
    NodePairTimes pairs;
};

// Whether store_calibration may replace a file that loaded with `status`: only a missing file or libredux's own
// (found, stale, no_entry); never one that is corrupt, foreign or unreadable (calibration_file.cpp says why).
bool calibration_file_replaceable(LoadStatus status);

// The entry for `signature`, if the file holds a valid, fresh one (created at most max_age_s before now_unix).
LoadResult load_calibration(const std::string& path, const std::string& signature, int64_t now_unix, int64_t max_age_s);

// Adds (or replaces) `entry`, keeping the other valid entries of the file, newest first, at most 32. Writes a
// temporary file next to `path` and renames it over `path`, so readers and concurrent writers only ever see a
// whole file. Only a missing file or libredux's own is written (calibration_file_replaceable, decided on what
// is at `path` when storing); any other file is left as it is, byte for byte. Returns false with `error` set
// when it does not write: the error names `path` and why (a refused file, or the OS's reason).
bool store_calibration(const std::string& path, const CalibrationEntry& entry, std::string& error);

}  // namespace redux
