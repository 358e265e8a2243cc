// Greedy reduction trees built in reversed time: Algorithm 1 and Algorithm 3 of Canon & Antoniu, "Scheduling
// Associative Reductions with Homogeneous Costs when Overlapping Communications and Computations" (INRIA
// RR-7898, 2012), Sections 5 and 6.2, and the binomial and Fibonacci strategies of Section 7.3.
//
// Reverse time and a reduction becomes a broadcast with computations: the sink (node 0) "un-computes" its
// result at time 0 and hands elements out. s[j] is the soonest reversed time at which machine j can compute
// an element and start a transfer. Nodes are inserted one by one (i = 1 .. n-1); node i takes as its parent
// the machine M with the smallest s[M] (line 6; the constant c + d of the paper's argmin drops out), then
//     s[i] = s[M] + c + d          (i receives its element after M's computation and the transfer, line 7)
//     s[M] = s[M] + max(d, c)      (M's next computation waits for both, line 8).
// With a time in flight (costs.hpp: L of d leaves the port free), line 8 becomes s[M] + max(d - L, c): M hands out its
// next element once its port and its reducer are free, while the previous one is still on its way. L = 0 is
// the paper's algorithm; with L > 0 this is Algorithm 1 generalised to the LogP-like model, and L near d with
// c near 0 makes wide, shallow trees (a star in the limit), the shape of Karp, Sahay, Santos & Schauser's
// optimal LogP summation when one processor's gap is small against L (ksss.cpp builds their tree on its own and
// gets the same lengths). tests/unit/flight_test.cpp checks it against exhaustive search.
// A min-heap keyed on s gives the argmin, so the whole build is Theta(n log n) time and Theta(n) memory.
// The length of the schedule is the largest s[i] at insertion (the last leaf's element travels at time 0
// when time runs forward again); forward transfer times follow from Proposition 3 (schedule.hpp).
//
// Algorithm 3 only lets the first K inserted machines be parents: only they enter the heap.
//
// Strategies (Section 7.3) plan with surrogate costs: binomial sets min(d, c) to zero, Fibonacci sets d = c.
// Surrogate costs create many exact ties -- every machine with the same surrogate s is equally good for the
// surrogate problem -- but trees that are equally good there can differ by a third in length under the real
// costs. Tie-break (TieBreak::real_costs): alongside the surrogate clock we run the same recurrence with the
// real (d, c) and, among machines with equal surrogate s, take the one whose real s is smallest, then the
// lowest index. The choice keeps the strategy's tree family (the surrogate argmin is respected) while making
// each choice the one Algorithm 1 itself would make under the real costs. tests/unit/special_trees_test.cpp
// (TieBreak) checks that it never loses to the paper's plain argmin.
#include "plan/trees/greedy.hpp"

#include <queue>
#include <stdexcept>
#include <vector>

namespace redux {
namespace {

struct Candidate {
    double plan_s;  // s under the costs the algorithm plans with
    double tie_s;   // s under the real costs (or 0 when ties go by index only)
    int32_t node;
};

struct LaterFirst {
    bool operator()(const Candidate& a, const Candidate& b) const {
        if (a.plan_s != b.plan_s) return a.plan_s > b.plan_s;
        if (a.tie_s != b.tie_s) return a.tie_s > b.tie_s;
        return a.node > b.node;
    }
};

}  // namespace

Tree greedy_tree(int32_t n, const Costs& plan_costs, const Costs& real_costs, int32_t reducer_limit,
                 TieBreak tie_break) {
    if (n < 1) throw std::invalid_argument("greedy_tree: n must be >= 1");
    const int32_t parents_allowed = reducer_limit > 0 ? reducer_limit : n;
    const bool use_real = tie_break == TieBreak::real_costs;

    Tree tree;
    tree.parent.assign(static_cast<size_t>(n), -1);
    std::vector<Candidate> storage;
    storage.reserve(static_cast<size_t>(std::min(n, parents_allowed)));
    std::priority_queue<Candidate, std::vector<Candidate>, LaterFirst> heap(LaterFirst{}, std::move(storage));
    heap.push({0.0, 0.0, 0});
    // The real-cost clock of every machine. Running it for every strategy gives the builder's own prediction
    // of the length under the real costs: the reversed-time schedule it describes is feasible, so it bounds
    // the simulated length from above (and equals it for Algorithms 1 and 3, which are optimal).
    std::vector<double> real_s_of(static_cast<size_t>(n), 0.0);

    double length_s = 0;
    for (int32_t i = 1; i < n; ++i) {
        Candidate m = heap.top();
        heap.pop();
        const double real_s = real_s_of[m.node];
        const Candidate child{m.plan_s + plan_costs.step_s(), use_real ? real_s + real_costs.step_s() : 0.0, i};
        real_s_of[i] = real_s + real_costs.step_s();
        real_s_of[m.node] = real_s + real_costs.pace_s();
        m.plan_s += plan_costs.pace_s();
        m.tie_s = use_real ? real_s_of[m.node] : 0.0;
        tree.parent[i] = m.node;
        length_s = std::max(length_s, real_s_of[i]);
        heap.push(m);
        if (i < parents_allowed) heap.push(child);
    }
    tree.builder_makespan_s = length_s;
    return tree;
}

Tree optimal_tree(int32_t n, const Costs& costs) { return greedy_tree(n, costs, costs, 0, TieBreak::lowest_index); }

Tree reducers_limited_tree(int32_t n, const Costs& costs, int32_t reducer_limit) {
    if (reducer_limit < 1) throw std::invalid_argument("reducers_limited_tree: limit must be >= 1");
    return greedy_tree(n, costs, costs, reducer_limit, TieBreak::lowest_index);
}

Tree binomial_strategy_tree(int32_t n, const Costs& costs, TieBreak tie_break) {
    // Keep the larger cost, zero the smaller: the surrogate is a pure transfer or a pure reduction problem.
    const Costs surrogate = costs.transfer_s >= costs.compute_s ? Costs{1.0, 0.0, 0.0} : Costs{0.0, 1.0, 0.0};
    return greedy_tree(n, surrogate, costs, 0, tie_break);
}

Tree fibonacci_strategy_tree(int32_t n, const Costs& costs, TieBreak tie_break) {
    return greedy_tree(n, Costs{1.0, 1.0, 0.0}, costs, 0, tie_break);
}

}  // namespace redux
