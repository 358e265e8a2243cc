// The two-tree reduction: Sanders, Speck & Traeff, "Two-tree algorithms for full bandwidth broadcast, reduction
// and scan" (Parallel Computing 35, 2009), Section 2 (the two trees) and Section 4 (reduction).
//
// A pipelined reduction along one binary tree leaves half of the bandwidth unused: an inner rank receives two
// segments (one per child) for every one it sends, so its receive port paces the pipeline at two segment times
// per segment, and the leaves (half the ranks) only send. The two-tree reduction runs two binary trees at once,
// each carrying half of the segments (segment j along tree j % 2), built so that every rank is an inner node of
// at most one of them: over two segments it receives at most two and sends two (one per tree), and each tree
// runs as fast as a single tree with the network to itself. A pipeline of m segments through trees of height h
// then takes about h + m segment times instead of about h + 2m. A collector receives the results of both trees'
// roots and folds its own value.
//
// The trees. The paper builds them as in-order binary trees (each node's subtree covers an interval of
// positions, the node in the middle) over the ranks other than the collector, the second one the first shifted
// by one position or mirrored, so that the inner nodes of one are leaves of the other. We build each directly:
// in_order_tree() over positions [a, b] puts its root at the position of a given parity nearest the middle and
// recurses on both sides, so every inner node (a position whose interval has two or more positions) has that
// parity; tree 0 takes odd positions as inner nodes and tree 1 even ones, and no position is inner in both.
// Height: the two sides of a node differ by at most two positions, so the height stays within a level or two of
// a complete binary tree's. Because the subtrees are intervals, folding the left child's result before the
// node's own value and the right child's after it reduces in position order: positions are ranks in increasing
// order, so the plan is correct for operators that are not commutative. We do not implement the paper's edge
// colouring, which fixes in which step each segment moves in a synchronous schedule: the executor is driven by
// arrivals and the segmented model (segments.cpp) predicts it.
#include "plan/trees/two_tree.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace redux {
namespace {

// Builds the in-order tree over [first, last] under `parent_position`; returns nothing, fills `parent`.
void build_in_order(int32_t first, int32_t last, int32_t parent_position, int32_t parity,
                    std::vector<int32_t>& parent) {
    // Explicit stack of (first, last, parent): the depth is logarithmic, but a stack costs nothing more.
    std::vector<std::pair<std::pair<int32_t, int32_t>, int32_t>> todo{{{first, last}, parent_position}};
    while (!todo.empty()) {
        const auto [range, above] = todo.back();
        todo.pop_back();
        const auto [a, b] = range;
        int32_t middle = a + (b - a) / 2;
        if (a < b && (middle & 1) != parity) ++middle;  // middle < b when a < b
        parent[static_cast<size_t>(middle)] = above;
        if (a < middle) todo.push_back({{a, middle - 1}, middle});
        if (middle < b) todo.push_back({{middle + 1, b}, middle});
    }
}

}  // namespace

std::vector<int32_t> in_order_tree(int32_t count, int32_t inner_parity) {
    std::vector<int32_t> parent(static_cast<size_t>(count), -1);
    if (count > 0) build_in_order(0, count - 1, -1, inner_parity, parent);
    return parent;
}

RankTrees two_tree(int32_t ranks, int32_t root, bool commutative) {
    RankTrees out;
    // The collector, and the rank at each position of the others (in increasing rank order from after the
    // collector, wrapping around: for a non-commutative operator the collector is rank 0 or ranks - 1, so the
    // positions are the other ranks in increasing order).
    const int32_t collector = commutative || root == 0 ? root : ranks - 1;
    out.sink = collector;
    out.final_transfer = collector != root;
    const int32_t count = ranks - 1;
    auto rank_at = [&](int32_t position) { return (collector + 1 + position) % ranks; };
    // The others' interval joins the collector's own value on its right when the collector is rank 0 (its value
    // comes first), on its left when it is rank ranks - 1.
    const bool top_joins_left = collector != 0;
    for (int32_t parity : {1, 0}) {
        const std::vector<int32_t> by_position = in_order_tree(count, parity);
        // Subtree sizes by rank (a parent's position may be on either side: sum over the chain upwards).
        std::vector<int32_t> size(static_cast<size_t>(ranks), 1);
        for (int32_t position = 0; position < count; ++position) {
            for (int32_t above = by_position[static_cast<size_t>(position)]; above >= 0;
                 above = by_position[static_cast<size_t>(above)]) {
                ++size[static_cast<size_t>(rank_at(above))];
            }
        }
        TreeShape shape;
        shape.parent.assign(static_cast<size_t>(ranks), -1);
        std::vector<std::vector<std::pair<int32_t, uint8_t>>> children(static_cast<size_t>(ranks));
        for (int32_t position = 0; position < count; ++position) {
            const int32_t above = by_position[static_cast<size_t>(position)];
            const int32_t rank = rank_at(position);
            const int32_t parent_rank = above < 0 ? collector : rank_at(above);
            const bool joins_left = above < 0 ? top_joins_left : position < above;
            shape.parent[static_cast<size_t>(rank)] = parent_rank;
            children[static_cast<size_t>(parent_rank)].push_back({rank, joins_left ? 1 : 0});
        }
        shape.child_offset.assign(static_cast<size_t>(ranks) + 1, 0);
        for (int32_t r = 0; r < ranks; ++r) {
            // Fold order: the smaller subtree first, which is ready first (on a tie the left one). Either order
            // reduces the interval in rank order: the left child joins on the left, the right one on the right.
            auto& list = children[static_cast<size_t>(r)];
            std::stable_sort(list.begin(), list.end(), [&](const auto& x, const auto& y) {
                const int32_t sx = size[static_cast<size_t>(x.first)], sy = size[static_cast<size_t>(y.first)];
                return sx != sy ? sx < sy : x.second > y.second;
            });
            shape.child_offset[static_cast<size_t>(r) + 1] =
                shape.child_offset[static_cast<size_t>(r)] + static_cast<int32_t>(list.size());
            for (const auto& [child, left] : list) {
                shape.child_rank.push_back(child);
                shape.child_joins_left.push_back(left);
            }
        }
        out.trees.push_back(std::move(shape));
    }
    return out;
}

}  // namespace redux
