// arrival_tree (arrival_tree.hpp). Every rank starts as a partial result of its own, ready when it arrives. The
// builder repeatedly combines the two partial results whose combination would be ready first: the earlier of the
// two sends to the later (the later one could not fold before its own partial result is ready anyway), except that
// the root never sends: combined with the root's, the other one sends. The message reaches the receiver's port L
// after it leaves, holds the port for d - L once the port is free (one receive at a time, the simulator's model),
// and is folded, c, once it is in and the receiver's own partial result is ready. It ends when the root holds
// everything. A message may reach a rank before the rank comes to the call: small messages travel eagerly and wait
// for their receive, larger ones pay a rendezvous the model does not count. Each rank sends
// once, to the rank it was combined into, and folds its children in the order they were combined into it, which is
// the order of their readiness.
//
// Ranks that come together give Tree-dyn's first pairs (two ready ranks, one sends); a late non-root rank is
// combined last, into whichever partial result is ready first, and costs one transfer and one fold after it comes;
// a late root finds the others' result already sent to it, and folds once. Under a non-commutative op the candidates
// are the neighbouring intervals only (Non-Commut-Tree-dyn's rule), and the receiver folds the sender's interval on
// its side. Ties go to the lowest ranks, so every rank that holds the same `ready_s` builds the same tree.
// O(p^3) for p ranks under a commutative op (every pair at every step): libredux builds it for small communicators.
#include "plan/trees/arrival_tree.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace redux {

ArrivalTree arrival_tree(const std::vector<double>& ready_s, int32_t root, const Costs& costs, bool commutative) {
    const auto n = static_cast<int32_t>(ready_s.size());
    if (n < 1 || root < 0 || root >= n) throw std::invalid_argument("arrival_tree: root outside the ranks");
    ArrivalTree tree;
    tree.parent.assign(static_cast<size_t>(n), -1);
    tree.children.assign(static_cast<size_t>(n), {});
    tree.done_s = ready_s;
    std::vector<double> port_free_s(ready_s.size(), -std::numeric_limits<double>::infinity());  // by rank
    // The partial results still apart, in rank order (their intervals', under a non-commutative op): the rank that
    // holds each.
    std::vector<int32_t> holders;
    for (int32_t r = 0; r < n; ++r) holders.push_back(r);
    // When the partial results of holders a and b would be ready combined, and which one sends.
    struct Combination {
        double ready_s = std::numeric_limits<double>::infinity();
        double in_s = 0;                  // the transfer ends
        size_t sender = 0, receiver = 0;  // positions in holders
    };
    auto combine = [&](size_t i, size_t j) {
        const double ti = tree.done_s[static_cast<size_t>(holders[i])];
        const double tj = tree.done_s[static_cast<size_t>(holders[j])];
        const bool i_sends = holders[i] != root && (holders[j] == root || ti <= tj);
        Combination c;
        c.sender = i_sends ? i : j;
        c.receiver = i_sends ? j : i;
        const auto receiver = static_cast<size_t>(holders[c.receiver]);
        const double at_port_s = tree.done_s[static_cast<size_t>(holders[c.sender])] + costs.flight_s;
        c.in_s = std::max(port_free_s[receiver], at_port_s) + costs.port_s();
        c.ready_s = std::max(tree.done_s[receiver], c.in_s) + costs.compute_s;
        return c;
    };
    while (holders.size() > 1) {
        Combination best;
        for (size_t i = 0; i + 1 < holders.size(); ++i) {
            const size_t last = commutative ? holders.size() - 1 : i + 1;
            for (size_t j = i + 1; j <= last; ++j) {
                const Combination c = combine(i, j);
                if (c.ready_s < best.ready_s) best = c;
            }
        }
        const int32_t sender = holders[best.sender], receiver = holders[best.receiver];
        tree.parent[static_cast<size_t>(sender)] = receiver;
        // The sender's interval lies left of the receiver's where it comes first in rank order.
        tree.children[static_cast<size_t>(receiver)].push_back({sender, best.sender < best.receiver});
        tree.done_s[static_cast<size_t>(receiver)] = best.ready_s;
        port_free_s[static_cast<size_t>(receiver)] = best.in_s;
        holders.erase(holders.begin() + static_cast<std::ptrdiff_t>(best.sender));
    }
    return tree;
}

}  // namespace redux
