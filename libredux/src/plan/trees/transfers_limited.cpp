// Algorithm 2 of Canon & Antoniu (INRIA RR-7898, Section 6.1): the optimal reduction tree and transfer times
// when no more than K transfers may be in flight at once (a shared switch, a bandwidth-limited uplink).
//
// As in Algorithm 1 (greedy.cpp) time is reversed and nodes are inserted one by one, each taking as parent
// the machine M with the smallest s[M]. What changes is that transfer times become part of the answer:
//     t[i] = max(s[M] + c, t[i-K]) + d     (line 8: the transfer M -> i ends at t[i]; t[j] = 0 for j < 1.
//                                           Reversed transfer ends never decrease with i, so transfer i-K
//                                           must have ended before transfer i starts: at most K at once)
//     s[i] = t[i]                          (line 9: i can compute once its element has arrived)
//     s[M] = max(s[M] + c, t[i] - c)       (line 10: M's next computation follows this one, and M's next
//                                           transfer, ending no earlier than s[M] + c + d, must follow this
//                                           one, which ends at t[i])
// The length is L = max t[i] = t[n-1]. Running time forward again, node i starts sending at L - t[i]
// (the paper writes t_n - t_i + c on line 14; with s_1 = 0 as the sink's first reversed computation, the
// forward start of the transfer that ends at reversed time t[i] is L - t[i]: the simulator confirms it).
// Those forward start times are returned as release_s; the simulator replays them and must find length L
// and never more than K concurrent transfers (tests/unit/limited_test.cpp).
#include "plan/trees/transfers_limited.hpp"

#include <queue>
#include <stdexcept>
#include <vector>

namespace redux {
namespace {

struct Machine {
    double s;
    int32_t node;
};

struct LaterFirst {
    bool operator()(const Machine& a, const Machine& b) const {
        if (a.s != b.s) return a.s > b.s;
        return a.node > b.node;
    }
};

}  // namespace

Tree transfers_limited_tree(int32_t n, const Costs& costs, int32_t transfer_limit) {
    if (n < 1) throw std::invalid_argument("transfers_limited_tree: n must be >= 1");
    if (transfer_limit < 1) throw std::invalid_argument("transfers_limited_tree: limit must be >= 1");
    const double d = costs.transfer_s;
    const double c = costs.compute_s;

    Tree tree;
    tree.parent.assign(static_cast<size_t>(n), -1);
    std::vector<double> t_end(static_cast<size_t>(n), 0.0);  // reversed time at which transfer to i ends
    std::priority_queue<Machine, std::vector<Machine>, LaterFirst> heap;
    heap.push({0.0, 0});
    for (int32_t i = 1; i < n; ++i) {
        Machine m = heap.top();
        heap.pop();
        const double earlier_end = i - transfer_limit >= 1 ? t_end[i - transfer_limit] : 0.0;
        t_end[i] = std::max(m.s + c, earlier_end) + d;
        m.s = std::max(m.s + c, t_end[i] - c);
        tree.parent[i] = m.node;
        heap.push(m);
        heap.push({t_end[i], i});
    }

    double length_s = 0;
    for (int32_t i = 1; i < n; ++i) length_s = std::max(length_s, t_end[i]);
    tree.builder_makespan_s = length_s;
    tree.release_s.assign(static_cast<size_t>(n), 0.0);
    for (int32_t i = 1; i < n; ++i) tree.release_s[i] = length_s - t_end[i];
    return tree;
}

}  // namespace redux
