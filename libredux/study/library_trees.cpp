// The trees of the MPI libraries' reduce algorithms, built from the libraries' own definitions, for predictions
// only (redux-plan --library-tree; the simulated-ranks sweep holds SimGrid's selectors against them):
//
//   knomial:K  MVAPICH2's k-nomial reduce (and Open MPI's k-nomial tree): with ranks relative to the root,
//              v = (rank - root) mod n, rank v sends to v with its lowest non-zero base-K digit cleared, so the
//              root has (K - 1) children per base-K digit of n - 1.
//   binomial   knomial:2: MPICH's binomial reduce (v sends to v with its lowest set bit cleared). Open MPI's
//              binomial tree clears the highest set bit instead: a different labelling of the same shape, which
//              the homogeneous model cannot tell apart.
//   in-order-binary
//              Open MPI's tree for non-commutative operators (coll/base topo's in-order binary tree): it ends on
//              rank n - 1, which sends the result to the root when that is another rank. A subtree over the
//              ranks [lo, lo + s) has its root at lo + s - 1, its right subtree over [lo, lo + s/2) and its left
//              subtree over [lo + s/2, lo + s - 1), so every subtree is an interval of ranks, folded in order.
//
// The prediction is the model simulator's (simulator.hpp): receives in order of readiness, folds in arrival
// order. The libraries post their receives in a fixed child order; in these trees a child whose subtree is
// smaller is ready no later, so the orders agree except on ties. Theta(n) to build, O(n log n) to simulate.
#include "study/library_trees.hpp"

#include "plan/predict/simulator.hpp"

#include <cstdlib>
#include <utility>

namespace redux {
namespace {

// Both builders leave LibraryTree::root to library_tree().
LibraryTree knomial(std::string name, int32_t n, int32_t root, int64_t k) {
    LibraryTree tree{std::move(name), std::vector<int32_t>(static_cast<size_t>(n), -1), root};
    for (int64_t v = 1; v < n; ++v) {
        int64_t mask = 1;
        while (v % (k * mask) == 0) mask *= k;
        const int64_t parent_v = v / (k * mask) * (k * mask);
        tree.parent[static_cast<size_t>((v + root) % n)] = static_cast<int32_t>((parent_v + root) % n);
    }
    return tree;
}

LibraryTree in_order_binary(int32_t n) {
    LibraryTree tree{"in-order-binary", std::vector<int32_t>(static_cast<size_t>(n), -1), n - 1};
    struct Interval {
        int32_t lo, size, parent;
    };
    std::vector<Interval> pending{{0, n, -1}};
    while (!pending.empty()) {
        const Interval at = pending.back();
        pending.pop_back();
        const int32_t top = at.lo + at.size - 1;
        tree.parent[static_cast<size_t>(top)] = at.parent;
        const int32_t right = at.size / 2;
        if (right > 0) pending.push_back({at.lo, right, top});
        if (at.size - right - 1 > 0) pending.push_back({at.lo + right, at.size - right - 1, top});
    }
    return tree;
}

std::optional<LibraryTree> parse_and_build(const std::string& name, int32_t ranks, int32_t root) {
    if (name == "binomial") return knomial(name, ranks, root, 2);
    if (name == "in-order-binary") return in_order_binary(ranks);
    const std::string prefix = "knomial:";
    if (name.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
    const std::string digits = name.substr(prefix.size());
    char* end = nullptr;
    const long k = std::strtol(digits.c_str(), &end, 10);
    if (digits.empty() || *end != '\0' || k < 2 || k > 1024) return std::nullopt;
    return knomial(name, ranks, root, k);
}

}  // namespace

std::optional<LibraryTree> library_tree(const std::string& name, int32_t ranks, int32_t root, bool commutative) {
    if (ranks < 1 || root < 0 || root >= ranks) return std::nullopt;
    std::optional<LibraryTree> tree = parse_and_build(name, ranks, commutative ? root : 0);
    if (tree) tree->root = root;
    return tree;
}

double predict_library_tree(const LibraryTree& tree, const Costs& costs) {
    const double folded = simulate(tree.parent, costs).makespan_s;
    return folded + (tree.sink != tree.root ? costs.transfer_s : 0.0);
}

double predict_library_tree(const LibraryTree& tree, const HeteroCosts& costs) {
    const double folded = simulate(tree.parent, costs).makespan_s;
    return folded + (tree.sink != tree.root ? costs.transfer_s(tree.sink, tree.root) : 0.0);
}

}  // namespace redux
