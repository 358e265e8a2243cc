// Exhaustive searches over every reduction tree of a small n: the independent references that the papers'
// optimality theorems are tested against. Test support only.
#pragma once

#include "model/costs.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace redux::testing {

// Calls `visit` with every parent array where parent[0] = -1 and parent[i] is in [0, i): every rooted tree
// shape on n nodes appears (label any tree breadth-first), (n - 1)! arrays in all.
void for_each_tree(int32_t n, const std::function<void(const std::vector<int32_t>&)>& visit);

// The shortest makespan over all trees, each timed by the simulator (Proposition 3 timing). With
// max_reducers > 0 only trees with at most that many internal nodes count (Theorem 9's search space).
double best_makespan(int32_t n, const Costs& costs, int32_t max_reducers = 0);

// The shortest length over all trees when at most `transfer_limit` transfers may overlap (Theorem 7's search
// space). Each tree is built in reversed time in insertion order, each transfer placed at the earliest time
// that keeps at most K transfers in flight and respects one port per machine; the proof of Theorem 7 shows
// earliest placement loses nothing, so the minimum over all trees and orders is the optimum.
double best_makespan_transfers_limited(int32_t n, const Costs& costs, int32_t transfer_limit);

// The grid of (d, c) the theorem tests sweep: 0 included for both, d < c, d = c and d > c.
std::vector<Costs> cost_grid();

// d, c and a time in flight L: d in {1, 2}, L from 0 to d, c on both sides of the port's part d - L.
std::vector<Costs> flight_grid();

// "d=... c=... L=..." for failure messages.
std::string describe(const Costs& costs);

}  // namespace redux::testing
