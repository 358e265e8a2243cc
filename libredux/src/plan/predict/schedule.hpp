// Proposition 3 of Canon & Antoniu: the earliest transfer times of a given tree, and the fold order they
// imply. See schedule.cpp.
#pragma once

#include "model/costs.hpp"
#include "plan/tree.hpp"

namespace redux {

struct TreeSchedule {
    std::vector<double> ready_s;  // by node: its partial result is complete (Proposition 3's t_i)
    ChildLists fold;              // children of each node in fold order (earliest send first, then index)
    double makespan_s = 0;        // ready_s of the sink
};

// Requires parent[i] < i for i > 0 (the builders' insertion order). Uses tree.release_s when present.
TreeSchedule earliest_schedule(const Tree& tree, const Costs& costs);

}  // namespace redux
