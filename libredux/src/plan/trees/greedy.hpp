// Algorithm 1 (optimal greedy tree) and Algorithm 3 (at most K reducers) of Canon & Antoniu, and the binomial
// and Fibonacci strategies of their Section 7.3. See greedy.cpp for how they work.
#pragma once

#include "model/costs.hpp"
#include "plan/tree.hpp"

namespace redux {

// How Algorithm 1 chooses among machines that are equally early under the costs it plans with.
enum class TieBreak {
    real_costs,    // the one the real costs find earliest, then the lowest index (the default)
    lowest_index,  // the lowest index only: the paper's plain argmin
};

// Algorithm 1 with the real costs: optimal (Theorem 4).
Tree optimal_tree(int32_t n, const Costs& costs);

// Algorithm 3: optimal when at most `reducer_limit` machines may reduce (Theorem 9).
Tree reducers_limited_tree(int32_t n, const Costs& costs, int32_t reducer_limit);

// Algorithm 1 with min(d, c) set to zero: binomial trees when n is a power of two.
Tree binomial_strategy_tree(int32_t n, const Costs& costs, TieBreak tie_break = TieBreak::real_costs);

// Algorithm 1 with d = c: Fibonacci trees when n is a Fibonacci number.
Tree fibonacci_strategy_tree(int32_t n, const Costs& costs, TieBreak tie_break = TieBreak::real_costs);

// The common engine: Algorithm 1 (reducer_limit == 0) or Algorithm 3, choosing by `plan_costs` and breaking
// ties as `tie_break` says, with `real_costs` as the secondary clock.
Tree greedy_tree(int32_t n, const Costs& plan_costs, const Costs& real_costs, int32_t reducer_limit,
                 TieBreak tie_break);

}  // namespace redux
