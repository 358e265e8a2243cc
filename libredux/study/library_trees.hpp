// The trees MPI libraries' own reduce algorithms run, so that the cost model can predict what a library's
// MPI_Reduce costs and a measured ratio "libredux / the library" can be held against the model's. They are not
// strategies: libredux never runs them (see library_trees.cpp).
#pragma once

#include "model/costs.hpp"
#include "model/hetero_costs.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace redux {

struct LibraryTree {
    std::string name;             // as parsed: binomial, knomial:K, in-order-binary
    std::vector<int32_t> parent;  // by rank, -1 for the rank where the tree ends
    int32_t sink = 0;             // that rank
    int32_t root = 0;             // where the result must end: the sink sends it there when they differ
};

// "binomial", "knomial:K" (K >= 2) or "in-order-binary"; nothing for anything else (or a root out of range).
// Not commutative: the binomial and k-nomial trees are taken relative to rank 0, which then sends the result to
// the root, as MPICH does to keep rank order.
std::optional<LibraryTree> library_tree(const std::string& name, int32_t ranks, int32_t root, bool commutative = true);

// The time the model predicts for the tree: the overlapped simulation (receives in order of readiness, folds in
// arrival order), plus one transfer from the sink to the root when they differ.
double predict_library_tree(const LibraryTree& tree, const Costs& costs);
double predict_library_tree(const LibraryTree& tree, const HeteroCosts& costs);

}  // namespace redux
