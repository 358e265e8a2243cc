// A reduction tree over abstract nodes, as the tree builders produce it.
//
// Node 0 is the sink (it ends with the result). parent[i] is the node that i sends its partial result to;
// builders visit nodes in insertion order, so parent[i] < i for every i > 0 and parent[0] == -1.
// release_s, when not empty, is the earliest time node i may start sending (Algorithm 2 fixes transfer times
// to respect its limit on concurrent transfers); otherwise a node sends as soon as its partial result is ready
// (Proposition 3).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace redux {

struct Tree {
    std::vector<int32_t> parent;
    std::vector<double> release_s;  // empty, or one entry per node
    double builder_makespan_s = 0;  // the length the builder predicts under the real costs (reversed-time clock)

    int32_t size() const { return static_cast<int32_t>(parent.size()); }
};

// A reduction tree over the ranks themselves, as the heterogeneous builders produce it: with per-rank and
// per-link costs who sits where matters, so these trees are never relabelled. parent[sink] == -1.
struct RankTree {
    std::vector<int32_t> parent;
    int32_t sink = 0;
    double builder_makespan_s = 0;  // the builder's own prediction of the length
};

// Children of every node in compressed form: children of i are child[offset[i] .. offset[i+1]).
struct ChildLists {
    std::vector<int32_t> offset;
    std::vector<int32_t> child;
};

// One tree of a plan over ranks with its fold order: parent by rank (-1 for the sink), the children of rank r
// child_rank[child_offset[r] .. child_offset[r + 1]) in fold order, each joining on the left of the accumulated
// interval (child o acc) or on its right (acc o child).
struct TreeShape {
    std::vector<int32_t> parent;
    std::vector<int32_t> child_offset;
    std::vector<int32_t> child_rank;
    std::vector<uint8_t> child_joins_left;
};

inline bool operator==(const TreeShape& a, const TreeShape& b) {
    return a.parent == b.parent && a.child_offset == b.child_offset && a.child_rank == b.child_rank &&
           a.child_joins_left == b.child_joins_left;
}

// Several trees over the ranks that end on one sink, their fold order given (the two-tree strategy: in-order
// trees, whose order makes any associative operator correct; the multi-tree strategy: weighted plain trees).
// Segment j of a pipelined reduction goes along trees[deal[j % deal.size()]], or trees[j % trees.size()] when
// deal is empty. When the sink is not the root (final_transfer), it sends each segment there.
struct RankTrees {
    std::vector<TreeShape> trees;
    int32_t sink = 0;
    bool final_transfer = false;
    std::vector<int32_t> deal;
    // > 0: the builder chose the segment count with the trees (they depend on it) and predicted the time,
    // predicted_s, by its own model; 0: the planner's segmented model does both.
    int32_t segments = 0;
    double predicted_s = 0;
};

// Groups children by parent, each group in increasing node order. `parent` may be any forest labelling with
// -1 for roots.
ChildLists child_lists(const std::vector<int32_t>& parent);

}  // namespace redux
