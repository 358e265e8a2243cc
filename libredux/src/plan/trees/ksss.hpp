// The optimal summation tree of Karp, Sahay, Santos & Schauser (SPAA 1993) on our model: their optimal
// broadcast tree run backwards, with the cost of the folds. See ksss.cpp.
#pragma once

#include "model/costs.hpp"
#include "plan/tree.hpp"

#include <cstdint>

namespace redux {

// P(T): the most operands, one per rank and all ready at time 0, that one tree can sum by deadline_s under
// `costs`, capped at `cap` (so an unbounded P, as when d - L = c = 0, reads as cap). 0 for a negative deadline.
int64_t ksss_operands(double deadline_s, const Costs& costs, int64_t cap);

// KSSS's summation tree for the smallest deadline T with P(T) >= n, cut down to n nodes; parent[i] < i, node 0
// the sink. builder_makespan_s is that T.
Tree ksss_tree(int32_t n, const Costs& costs);

}  // namespace redux
