// The model simulator: replays any reduction tree under the homogeneous cost model, event by event.
//
// It is written independently of the tree builders so it can check them. Given the parent of every rank
// (-1 for the sink), the costs (d, c) and optionally the earliest time each rank may send, it runs a
// discrete-event simulation of the one-port, overlapping model of Canon & Antoniu (Section 3.1):
//   - every rank holds its own element at time 0; a leaf is ready at once;
//   - a ready rank asks its parent's port; the parent serves requests one at a time in the order they are
//     made (order of readiness; equal times in rank order), each transfer taking d;
//   - the parent folds arrived elements one at a time, in arrival order, each fold taking c, overlapping
//     with the next transfer;
//   - a rank is ready when its last fold ends; the makespan is when the sink is ready.
#pragma once

#include "model/costs.hpp"

#include <cstdint>
#include <vector>

namespace redux {

struct Simulation {
    std::vector<double> ready_s;       // by rank: partial result complete
    std::vector<double> send_start_s;  // by rank: transfer to the parent starts (-1 for the sink)
    double makespan_s = 0;             // the sink's ready time
    int32_t sink = -1;
};

// Throws std::invalid_argument if `parent` is not a tree (exactly one -1, no cycle, indices in range) or if
// release_s is neither empty nor one entry per rank.
Simulation simulate(const std::vector<int32_t>& parent, const Costs& costs, const std::vector<double>& release_s = {});

// Largest number of transfers in flight at one instant (intervals [start, start + d), d > 0).
int max_concurrent_transfers(const Simulation& sim, const Costs& costs);

}  // namespace redux
