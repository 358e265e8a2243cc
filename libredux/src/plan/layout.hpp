// Placing a tree's nodes on ranks so that the reduction is correct for the operator (Canon & Antoniu,
// Section 4.1). See layout.cpp.
#pragma once

#include "plan/tree.hpp"

namespace redux {

struct Layout {
    std::vector<int32_t> rank_of;     // by node
    std::vector<uint8_t> joins_left;  // by node: its subtree's interval lies left of its parent's accumulator
    int32_t sink_rank = 0;
    bool final_transfer = false;  // the sink is not the root: one more transfer carries the result there
};

// `fold` lists each node's children in fold order (schedule.hpp). Requires parent[i] < i for i > 0.
Layout lay_out(const std::vector<int32_t>& parent, const ChildLists& fold, int32_t root, bool commutative);

}  // namespace redux
