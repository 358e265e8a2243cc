// Laying a reduction tree out on ranks (Canon & Antoniu, INRIA RR-7898, Section 4.1: machines are
// interchangeable, so any optimal tree can be relabelled to respect a non-commutative operator).
//
// Every node gets a position in 0..n-1 such that each subtree covers a contiguous interval of positions and
// each fold joins two adjacent intervals. A non-sink node sits at the left end of its interval and its
// children, in fold order, take the following intervals one after the other: every fold is acc o child with
// acc = [p, x) and child = [x, y). The sink may sit anywhere its children allow: the children that join on
// the left take, in fold order, the intervals just left of what it has gathered (child o acc), the others
// the intervals just right of it. Its position is therefore the total size of its left-joining children.
//
// Non-commutative operators: rank = position, so the result is v0 o v1 o ... o v(n-1). To end on the MPI
// root we need a subset of the sink's children whose sizes add up to root: a subset-sum over at most a few
// dozen children (the trees have logarithmic degree), solved exactly with bitsets, or -- past a memory budget
// (degenerate stars) -- greedily, largest first. Binomial trees (sizes 1, 2, 4, ...) reach every root. When no
// subset exists the sink sits at position 0 and the plan ends with one transfer of the result to the root
// (final_transfer), which the planner's prediction counts.
//
// Commutative operators: the sink sits at position 0 and rank = (position + root) mod n, so the sink is the
// root and each subtree is a contiguous run of ranks counted from the root.
#include "plan/layout.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace redux {
namespace {

constexpr size_t kSubsetSumBudgetWords = size_t{1} << 22;  // 32 MiB of bitsets at most

// Which of `sizes` (indices) add up to `target`, or nothing if no subset does.
std::optional<std::vector<uint8_t>> subset_with_sum(const std::vector<int32_t>& sizes, int32_t target) {
    const size_t m = sizes.size();
    const size_t words = static_cast<size_t>(target) / 64 + 1;
    std::vector<uint8_t> take(m, 0);
    if (m * words > kSubsetSumBudgetWords) {
        std::vector<size_t> order(m);
        for (size_t k = 0; k < m; ++k) order[k] = k;
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return sizes[a] > sizes[b]; });
        int32_t left = target;
        for (size_t k : order) {
            if (sizes[k] <= left) {
                take[k] = 1;
                left -= sizes[k];
            }
        }
        if (left != 0) return std::nullopt;
        return take;
    }
    // reach[k] holds the sums (<= target) reachable with the first k children.
    std::vector<std::vector<uint64_t>> reach(m + 1, std::vector<uint64_t>(words, 0));
    reach[0][0] = 1;
    for (size_t k = 0; k < m; ++k) {
        const auto shift = static_cast<size_t>(sizes[k]);
        const size_t word_shift = shift / 64, bit_shift = shift % 64;
        const auto& from = reach[k];
        auto& to = reach[k + 1];
        to = from;
        for (size_t w = word_shift; w < words; ++w) {
            uint64_t v = from[w - word_shift] << bit_shift;
            if (bit_shift != 0 && w > word_shift) v |= from[w - word_shift - 1] >> (64 - bit_shift);
            to[w] |= v;
        }
    }
    auto has = [&](size_t k, int32_t sum) { return (reach[k][sum / 64] >> (sum % 64)) & 1U; };
    if (!has(m, target)) return std::nullopt;
    int32_t sum = target;
    for (size_t k = m; k-- > 0;) {
        if (!has(k, sum)) {
            take[k] = 1;
            sum -= sizes[k];
        }
    }
    return take;
}

}  // namespace

Layout lay_out(const std::vector<int32_t>& parent, const ChildLists& fold, int32_t root, bool commutative) {
    const auto n = static_cast<int32_t>(parent.size());
    Layout layout;
    layout.rank_of.assign(static_cast<size_t>(n), 0);
    layout.joins_left.assign(static_cast<size_t>(n), 0);
    if (n == 0) return layout;

    std::vector<int32_t> size(static_cast<size_t>(n), 1);
    for (int32_t i = n - 1; i > 0; --i) size[parent[i]] += size[i];

    const int32_t* sink_children = fold.child.data() + fold.offset[0];
    const int32_t sink_degree = fold.offset[1] - fold.offset[0];
    std::vector<uint8_t> take_left(static_cast<size_t>(sink_degree), 0);
    if (!commutative && root != 0) {
        std::vector<int32_t> sizes(sink_children, sink_children + sink_degree);
        for (int32_t& s : sizes) s = size[s];
        if (auto subset = subset_with_sum(sizes, root)) {
            take_left = std::move(*subset);
        } else {
            layout.final_transfer = true;
        }
    }

    std::vector<int32_t> position(static_cast<size_t>(n), 0);
    int32_t left_size = 0;
    for (int32_t k = 0; k < sink_degree; ++k) left_size += take_left[k] ? size[sink_children[k]] : 0;
    position[0] = left_size;
    int32_t left_edge = left_size, right_edge = left_size + 1;
    for (int32_t k = 0; k < sink_degree; ++k) {
        const int32_t child = sink_children[k];
        if (take_left[k]) {
            left_edge -= size[child];
            position[child] = left_edge;
            layout.joins_left[child] = 1;
        } else {
            position[child] = right_edge;
            right_edge += size[child];
        }
    }
    for (int32_t i = 1; i < n; ++i) {  // parents come before children
        int32_t next = position[i] + 1;
        for (int32_t k = fold.offset[i]; k < fold.offset[i + 1]; ++k) {
            position[fold.child[k]] = next;
            next += size[fold.child[k]];
        }
    }
    for (int32_t i = 0; i < n; ++i) {
        layout.rank_of[i] = commutative ? static_cast<int32_t>((int64_t{position[i]} + root) % n) : position[i];
    }
    layout.sink_rank = layout.rank_of[0];
    return layout;
}

}  // namespace redux
