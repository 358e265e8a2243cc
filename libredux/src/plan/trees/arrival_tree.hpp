// A reduction tree for ranks that come to the call at known times: the clairvoyant side of Tree-dyn (Benoit, Canon &
// Marchal, RR-8315). Where every rank's arrival is known ahead, the pairs Tree-dyn would make as ranks come can be
// made before the call, and run as a static tree with no matchmaker. See arrival_tree.cpp for how it is built.
#pragma once

#include "model/costs.hpp"
#include "plan/planner.hpp"

#include <cstdint>
#include <vector>

namespace redux {

struct ArrivalTree {
    std::vector<int32_t> parent;                   // by rank; -1 for the root
    std::vector<std::vector<ChildStep>> children;  // by rank, in fold order
    std::vector<double> done_s;                    // by rank: its partial result ready (the root's: the result)
};

// The tree for ranks ready at `ready_s` (one entry per rank, seconds from any common origin), ending on `root`, under
// the homogeneous costs `costs` (d, its time in flight L and c; the simulator's one-port model, plan/predict/
// simulator.hpp). Under a non-commutative op every partial result is an interval of ranks and only neighbouring
// intervals combine. Throws std::invalid_argument on a bad root or an empty `ready_s`.
ArrivalTree arrival_tree(const std::vector<double>& ready_s, int32_t root, const Costs& costs, bool commutative);

}  // namespace redux
