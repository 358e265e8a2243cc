// Exhaustive search over every reduction tree on labelled ranks: the reference the heterogeneous algorithms
// are measured against. With heterogeneous costs who sits where matters, so unlike exhaustive.hpp (tree shapes
// only) every labelled tree counts: n^(n-2) per root (Cayley), enumerated through Pruefer sequences. Test
// support only.
#pragma once

#include "model/hetero_costs.hpp"

#include <cstdint>
#include <functional>
#include <vector>

namespace redux::testing {

// Calls `visit` with the parent array of every tree on ranks 0..n-1 rooted at `root` (parent[root] = -1), or
// rooted anywhere when root < 0.
void for_each_rank_tree(int32_t n, int32_t root, const std::function<void(const std::vector<int32_t>&)>& visit);

// The shortest simulated makespan over those trees (the simulator's rule: parents serve children in order of
// readiness), so an upper bound on the true optimum, which may also choose other service orders.
double best_rank_tree_makespan(const HeteroCosts& costs, TransferModel model, int32_t root);

}  // namespace redux::testing
