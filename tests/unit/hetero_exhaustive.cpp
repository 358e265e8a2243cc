#include "hetero_exhaustive.hpp"

#include "plan/predict/simulator.hpp"

#include <algorithm>
#include <limits>
#include <queue>

namespace redux::testing {
namespace {

// The tree a Pruefer sequence codes, as adjacency lists.
std::vector<std::vector<int32_t>> decode(const std::vector<int32_t>& code, int32_t n) {
    std::vector<std::vector<int32_t>> adjacent(static_cast<size_t>(n));
    std::vector<int32_t> degree(static_cast<size_t>(n), 1);
    for (const int32_t v : code) ++degree[v];
    auto link = [&](int32_t a, int32_t b) {
        adjacent[a].push_back(b);
        adjacent[b].push_back(a);
    };
    for (const int32_t v : code) {
        const auto leaf = static_cast<int32_t>(std::find(degree.begin(), degree.end(), 1) - degree.begin());
        link(leaf, v);
        --degree[leaf];
        --degree[v];
    }
    int32_t a = -1, b = -1;
    for (int32_t v = 0; v < n; ++v) {
        if (degree[v] == 1) (a < 0 ? a : b) = v;
    }
    link(a, b);
    return adjacent;
}

std::vector<int32_t> rooted(const std::vector<std::vector<int32_t>>& adjacent, int32_t root) {
    std::vector<int32_t> parent(adjacent.size(), -2);
    parent[root] = -1;
    std::queue<int32_t> frontier;
    frontier.push(root);
    while (!frontier.empty()) {
        const int32_t v = frontier.front();
        frontier.pop();
        for (const int32_t w : adjacent[v]) {
            if (parent[w] == -2) {
                parent[w] = v;
                frontier.push(w);
            }
        }
    }
    return parent;
}

}  // namespace

void for_each_rank_tree(int32_t n, int32_t root, const std::function<void(const std::vector<int32_t>&)>& visit) {
    const int32_t first_root = root < 0 ? 0 : root, last_root = root < 0 ? n - 1 : root;
    if (n == 1) {
        visit({-1});
        return;
    }
    std::vector<int32_t> code(static_cast<size_t>(n - 2), 0);
    while (true) {
        const auto adjacent = decode(code, n);
        for (int32_t r = first_root; r <= last_root; ++r) visit(rooted(adjacent, r));
        size_t k = 0;  // next sequence, as a base-n counter
        while (k < code.size() && ++code[k] == n) code[k++] = 0;
        if (k == code.size()) break;
    }
}

double best_rank_tree_makespan(const HeteroCosts& costs, TransferModel model, int32_t root) {
    double best = std::numeric_limits<double>::infinity();
    for_each_rank_tree(costs.size(), root, [&](const std::vector<int32_t>& parent) {
        best = std::min(best, simulate(parent, costs, model).makespan_s);
    });
    return best;
}

}  // namespace redux::testing
