// Transfer costs between the nodes of a communicator, pair by pair. See node_pairs.cpp.
#pragma once

#include "model/link_costs.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace redux {

// The sizes every pair of nodes is measured at, increasing: sizes the link classes are measured at too
// (calib/ping_pong.cpp), so that a pair's time and the class's are of the same kind of message. 64 KiB:
// there Open MPI's TCP transport switches from eager sends to a rendezvous, one round trip more, a step that a
// line from 32 to 256 KiB smooths away. 8 KiB: over TCP d is flat from 8 B to some size and then climbs, and a
// line from 8 B to 32 KiB puts 8 KiB above the flat part, which a root receiving from many nodes would pay for
// every message.
constexpr std::array<size_t, 5> kPairBytes{8, size_t{8} << 10, size_t{32} << 10, size_t{64} << 10, size_t{256} << 10};

// One-way times between the nodes' leaders, measured (calib/link_calibration.cpp, node_pairs). Nodes by
// index 0 .. n-1; node_ids[k] is the RankPlace::node of index k (the lowest rank on it), increasing.
struct NodePairTimes {
    std::vector<int32_t> node_ids;
    // one_way_s[k][a * n + b]: kPairBytes[k] from a to b; the diagonal is 0
    std::array<std::vector<double>, kPairBytes.size()> one_way_s;

    int32_t nodes() const { return static_cast<int32_t>(node_ids.size()); }
    bool empty() const { return node_ids.empty(); }
    int32_t index_of(int32_t node_id) const;  // -1 if it is not one of node_ids
};

// d and L between every two nodes for one message size: [a * n + b], nodes by index as in NodePairTimes.
struct NodePairCosts {
    std::vector<int32_t> node_ids;
    std::vector<double> transfer_s;
    std::vector<double> flight_s;

    bool empty() const { return node_ids.empty(); }
    int32_t index_of(int32_t node_id) const;
};

// The costs of a message of `bytes` between every two nodes: the other-node class's curve `other_node` scaled
// pair by pair (node_pairs.cpp). Empty times give empty costs.
NodePairCosts node_pair_costs(const NodePairTimes& times, const LinkFit& other_node, size_t bytes);

// The round-robin schedule that meets every pair of `nodes` once (the circle method): pair_rounds(n) rounds; in
// round r, node i meets pair_partner(n, r, i), -1 when it sits the round out (odd n).
int32_t pair_rounds(int32_t nodes);
int32_t pair_partner(int32_t nodes, int32_t round, int32_t node);

}  // namespace redux
