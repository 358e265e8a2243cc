// Transfer costs between the nodes of a communicator, pair by pair.
//
// The link classes (link_costs.hpp) give one curve d(bytes) for every pair of ranks on different nodes,
// measured on one pair. On a cluster whose nodes hang off links of different speeds the pairs differ by far
// more than the noise, and a plan made with the one measured pair predicts too little for the slower pairs. So
// calibration also measures every pair of node leaders, at the few sizes kPairBytes (a few round trips each, the
// pairs of a round of a round-robin schedule at once: n - 1 rounds for n nodes), and this file turns them into
// d and L at any size:
//   - d_ab(s): up to the largest size measured, the pair's own times, linearly interpolated like a class's
//     curve (fit_link: monotone); beyond it, the class's curve scaled by the pair's ratio to it at that size,
//     r_ab = t_ab / d. The pair's sizes are points of the class's curve: a ratio compares like with like.
//     A ratio is not used below the largest size: over TCP the class's points, measured first on a fresh
//     connection, can be slower than the same pair's measured later, and a ratio there can make a larger
//     message faster than a smaller one;
//   - L_ab(s) = L(s) + (t_ab(8 B) - d(8 B)): the class's time in flight at that size (LinkFit::flight_at) plus
//     what the pair's small message adds over the class's. The port's part of a message (overheads, gap) is the
//     hosts', not the distance's, so a longer path adds flight only. Clamped to [0, d_ab(s)].
// A pair's two directions are measured apart and kept apart. Pure functions.
#include "model/node_pairs.hpp"

#include <algorithm>

namespace redux {
namespace {

int32_t find_index(const std::vector<int32_t>& ids, int32_t id) {
    const auto it = std::lower_bound(ids.begin(), ids.end(), id);
    return it != ids.end() && *it == id ? static_cast<int32_t>(it - ids.begin()) : -1;
}

double ratio(double measured_s, double class_s) { return class_s > 0 ? measured_s / class_s : 1.0; }

// Pair k's curve (module comment).
LinkFit pair_fit(const NodePairTimes& times, const LinkFit& other_node, size_t k) {
    std::vector<PingSample> samples;
    for (size_t i = 0; i < kPairBytes.size(); ++i) samples.push_back({kPairBytes[i], times.one_way_s[i][k]});
    const double r = ratio(times.one_way_s.back()[k], other_node.at(kPairBytes.back()));
    for (const PingSample& point : other_node.points) {
        if (point.bytes > kPairBytes.back()) samples.push_back({point.bytes, point.one_way_s * r});
    }
    return fit_link(samples);
}

}  // namespace

int32_t NodePairTimes::index_of(int32_t node_id) const { return find_index(node_ids, node_id); }
int32_t NodePairCosts::index_of(int32_t node_id) const { return find_index(node_ids, node_id); }

NodePairCosts node_pair_costs(const NodePairTimes& times, const LinkFit& other_node, size_t bytes) {
    NodePairCosts out;
    if (times.empty()) return out;
    const auto n = static_cast<size_t>(times.nodes());
    out.node_ids = times.node_ids;
    out.transfer_s.assign(n * n, 0.0);
    out.flight_s.assign(n * n, 0.0);
    const double class_small = other_node.at(kPairBytes.front());
    for (size_t a = 0; a < n; ++a) {
        for (size_t b = 0; b < n; ++b) {
            if (a == b) continue;
            const size_t k = a * n + b;
            out.transfer_s[k] = pair_fit(times, other_node, k).at(bytes);
            out.flight_s[k] = std::clamp(other_node.flight_at(bytes) + (times.one_way_s.front()[k] - class_small), 0.0,
                                         out.transfer_s[k]);
        }
    }
    return out;
}

int32_t pair_rounds(int32_t nodes) {
    if (nodes < 2) return 0;
    return nodes % 2 == 0 ? nodes - 1 : nodes;
}

// The circle method on m = n rounded up to even: m - 1 rounds; in round r nodes i, j < m - 1 meet when
// i + j = 2r (mod m - 1), and the node with i = r (mod m - 1) meets node m - 1 (nobody, for odd n).
int32_t pair_partner(int32_t nodes, int32_t round, int32_t node) {
    const int32_t m = nodes + nodes % 2, last = m - 1;
    if (nodes < 2 || round < 0 || round >= last || node < 0 || node >= nodes) return -1;
    int32_t partner = 0;
    if (node == last) {
        partner = round;
    } else {
        partner = ((2 * round - node) % last + last) % last;
        if (partner == node) partner = last;
    }
    return partner < nodes ? partner : -1;
}

}  // namespace redux
