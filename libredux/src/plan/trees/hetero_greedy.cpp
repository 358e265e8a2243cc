// The heterogeneous greedy tree: Algorithm 1 of Canon & Antoniu (INRIA RR-7898, Section 5) with costs that
// depend on the ranks -- c_M for a fold on M, d_iM for the transfer i -> M.
//
// As in Algorithm 1 time runs backwards: the reduction becomes a broadcast in which the sink "un-computes" its
// result at time 0 and hands elements out. s[M] is the soonest reversed time at which a placed rank M can
// un-compute an element and start a transfer. Attaching an unplaced rank i below M gives
//     s[i] = s[M] + c_M + d_iM                   (i holds its element after M's fold and the transfer)
// and moves M's clock on by
//     max(c_M, d_iM)   under overlap     (M's next fold waits for its reducer, its next transfer for its port)
//     c_M + d_iM       under no_overlap  (a rank does not fold while it receives).
// The homogeneous algorithm may insert the nodes in any order: every node is alike. Here they are not, so each
// step takes, over every unplaced rank i and every placed rank M, the pair with the smallest s[i] -- the rank
// that can be attached earliest, where it is earliest -- ties to the lower rank i, then the lower M. This is the
// list-scheduling view of Algorithm 1 ("attach each rank where it yields the earliest completion"); with
// uniform costs and sink 0 it makes exactly Algorithm 1's tree. With heterogeneous costs it is a heuristic: an
// early choice can take the slot a slower rank needed more (tests/unit/hetero_greedy_test.cpp measures the gap
// to exhaustive search).
//
// The length is the largest s[i]: the last leaf sends at forward time 0. Each unplaced rank keeps its best M;
// a step raises only the chosen M's clock, so only ranks whose best was that M are rescanned. O(n^2) time in
// practice (O(n^3) when every rank prefers the same M at every step, as with uniform costs).
#include "plan/trees/hetero_greedy.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <vector>

namespace redux {

RankTree hetero_greedy_tree(const HeteroCosts& costs, int32_t sink, TransferModel model) {
    const int32_t n = costs.size();
    if (sink < 0 || sink >= n) throw std::invalid_argument("hetero_greedy_tree: sink out of range");
    const auto count = static_cast<size_t>(n);
    RankTree tree;
    tree.sink = sink;
    tree.parent.assign(count, -1);

    std::vector<double> s(count, 0.0);
    std::vector<uint8_t> placed(count, 0);
    std::vector<int32_t> placed_ranks{sink};
    placed[sink] = 1;
    std::vector<double> best_s(count, std::numeric_limits<double>::infinity());
    std::vector<int32_t> best_parent(count, -1);

    auto attach_s = [&](int32_t i, int32_t m) { return s[m] + costs.compute_s(m) + costs.transfer_s(i, m); };
    auto offer = [&](int32_t i, int32_t m) {
        const double v = attach_s(i, m);
        if (v < best_s[i] || (v == best_s[i] && m < best_parent[i])) {
            best_s[i] = v;
            best_parent[i] = m;
        }
    };
    for (int32_t i = 0; i < n; ++i) {
        if (!placed[i]) offer(i, sink);
    }

    for (int32_t step = 1; step < n; ++step) {
        int32_t i = -1;
        for (int32_t j = 0; j < n; ++j) {
            if (!placed[j] && (i < 0 || best_s[j] < best_s[i])) i = j;
        }
        const int32_t m = best_parent[i];
        tree.parent[i] = m;
        s[i] = best_s[i];
        const double d = costs.transfer_s(i, m), c = costs.compute_s(m);
        s[m] += model == TransferModel::overlap ? std::max(c, d) : c + d;
        tree.builder_makespan_s = std::max(tree.builder_makespan_s, s[i]);
        placed[i] = 1;
        placed_ranks.push_back(i);

        for (int32_t j = 0; j < n; ++j) {
            if (placed[j]) continue;
            if (best_parent[j] == m) {  // m's clock moved on: look at every placed rank again
                best_s[j] = std::numeric_limits<double>::infinity();
                best_parent[j] = -1;
                for (const int32_t candidate : placed_ranks) offer(j, candidate);
            } else {
                offer(j, i);
            }
        }
    }
    return tree;
}

}  // namespace redux
