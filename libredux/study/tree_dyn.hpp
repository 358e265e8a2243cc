// The dynamic (non-clairvoyant) reductions of Benoit, Canon & Marchal (RR-8315, Section 3.2), run inside the
// simulator: Tree-dyn (commutative operators) and Non-Commut-Tree-dyn (any associative operator). They build the
// tree while the reduction runs, pairing ranks as they become idle, and learn each cost only when it is paid.
// See tree_dyn.cpp.
#pragma once

#include "model/cost_sampler.hpp"
#include "model/hetero_costs.hpp"
#include "plan/predict/simulator.hpp"

#include <cstdint>

namespace redux {

// The Simulation's `parent` is the tree the run built and `sink` the rank that ends with the result.
Simulation simulate_tree_dyn(int32_t n, CostSampler& costs, TransferModel model = TransferModel::overlap);
Simulation simulate_non_commut_tree_dyn(int32_t n, CostSampler& costs, TransferModel model = TransferModel::overlap);

}  // namespace redux
