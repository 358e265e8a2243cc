// A heterogeneous greedy tree: Algorithm 1 of Canon & Antoniu generalised to per-rank compute costs c_i and
// per-link transfer costs d_ij. A heuristic (not optimal in general). See hetero_greedy.cpp.
#pragma once

#include "model/hetero_costs.hpp"
#include "plan/tree.hpp"

namespace redux {

// The tree ends on `sink`; `model` says whether a receiver may take its next element while it folds
// (overlap) or not (no_overlap). builder_makespan_s is the length of the reversed-time schedule it builds.
RankTree hetero_greedy_tree(const HeteroCosts& costs, int32_t sink, TransferModel model = TransferModel::overlap);

}  // namespace redux
