#include "plan/tree.hpp"

namespace redux {

ChildLists child_lists(const std::vector<int32_t>& parent) {
    const auto n = static_cast<int32_t>(parent.size());
    ChildLists lists;
    lists.offset.assign(static_cast<size_t>(n) + 1, 0);
    for (int32_t i = 0; i < n; ++i) {
        if (parent[i] >= 0) ++lists.offset[parent[i] + 1];
    }
    for (int32_t i = 0; i < n; ++i) lists.offset[i + 1] += lists.offset[i];
    lists.child.resize(lists.offset[n]);
    std::vector<int32_t> fill(lists.offset.begin(), lists.offset.end() - 1);
    for (int32_t i = 0; i < n; ++i) {
        if (parent[i] >= 0) lists.child[fill[parent[i]]++] = i;
    }
    return lists;
}

}  // namespace redux
