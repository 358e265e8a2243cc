// The two-level tree (node-aware, as MPI libraries build hierarchical collectives): each node reduces onto
// its leader with Algorithm 1 of Canon & Antoniu planned with that node's own costs (the mean d over its
// pairs, the mean c of its ranks), then the leaders reduce onto the root with Algorithm 1 planned with the mean
// d over pairs of leaders. Algorithm 1's trees are over abstract nodes with node 0 the sink; here node 0 is
// the leader (resp. the root) and the others are the remaining members in rank order, which is all a
// commutative reduction needs. The planner predicts the result with the simulator under the real per-link
// costs, like every other candidate, and auto takes it when it is predicted fastest.
#include "plan/trees/two_level.hpp"

#include "plan/trees/greedy.hpp"

#include <map>
#include <stdexcept>

namespace redux {
namespace {

// Algorithm 1 over `members` (members[0] is the sink) with the mean costs among them; writes their parents.
void reduce_group(const HeteroCosts& costs, const std::vector<int32_t>& members, std::vector<int32_t>& parent) {
    const auto m = static_cast<int32_t>(members.size());
    if (m < 2) return;
    double d = 0, c = 0;
    for (int32_t a : members) {
        c += costs.compute_s(a);
        for (int32_t b : members) d += a == b ? 0.0 : costs.transfer_s(a, b);
    }
    const Costs mean{d / (static_cast<double>(m) * (m - 1)), c / m};
    const Tree tree = optimal_tree(m, mean);
    for (int32_t k = 1; k < m; ++k) parent[members[k]] = members[tree.parent[k]];
}

}  // namespace

RankTree two_level_tree(const HeteroCosts& costs, const std::vector<int32_t>& node_of, int32_t root) {
    const int32_t n = costs.size();
    if (static_cast<int32_t>(node_of.size()) != n) {
        throw std::invalid_argument("two_level_tree: node_of has another number of ranks");
    }
    std::map<int32_t, std::vector<int32_t>> members;  // by node, the leader first
    members[node_of[root]].push_back(root);
    for (int32_t r = 0; r < n; ++r) {
        if (r != root) members[node_of[r]].push_back(r);
    }
    RankTree tree;
    tree.parent.assign(static_cast<size_t>(n), -1);
    tree.sink = root;
    std::vector<int32_t> leaders{root};
    for (const auto& [node, ranks] : members) {
        reduce_group(costs, ranks, tree.parent);
        if (node != node_of[root]) leaders.push_back(ranks.front());
    }
    reduce_group(costs, leaders, tree.parent);
    return tree;
}

}  // namespace redux
