// Every tag of every point-to-point message libredux sends on its private communicator (api/comm_state.hpp), in
// one table of disjoint ranges, so that no message of one protocol can match a receive of another, whatever
// the order they meet in: a rank may start the next call's calibration while its parent still receives the
// last call's segments, or take its start message while a tree's transfers are in flight.
//
// The agreements (settings, plan hashes, auto's timings) are collectives, which never match point-to-point
// messages (MPI 4.0, 6.1), and take no tag.
#pragma once

#include <cstdint>

namespace redux::tags {

// start_together_yielding (mpi/yielding.cpp): "I have come" and "go".
constexpr int kStart = 1;
// Link calibration (calib/ping_pong.cpp): its round trips.
constexpr int kPing = 2;
// The executor: the sink's result on its way to the root (a non-commutative plan whose sink is not the root).
constexpr int kResult = 3;
// The reduction family (exec/exchanges.cpp): recursive doubling's and halving's exchanges, and a tree's second phase
// (its result broadcast down the tree).
constexpr int kFamily = 4;
constexpr int kSpread = 5;
// The op's compute cost (api/planning_costs.cpp): rank 1's data to rank 0, which times the op on the two.
constexpr int kOpSample = 6;
// Tree-dyn (exec/tree_dyn.hpp): a rank's "I am idle" to the root, the root's orders (send to, receive from), and the
// partial results between the pairs.
constexpr int kDynReady = 7;
constexpr int kDynOrder = 8;
constexpr int kDynData = 9;
// The executor: tree t's segments travel with tag kFirstTree + t. Each tree has its own tag because MPI orders
// messages only per (source, tag): a rank may send a later segment of one tree ahead of an earlier segment of
// another to the same parent.
constexpr int kFirstTree = 16;
// Every MPI library allows tags up to at least 32767 (MPI_TAG_UB, MPI 4.0, 8.1.2).
constexpr int kMostTrees = 32767 - kFirstTree + 1;

constexpr int tree(int32_t t) { return kFirstTree + t; }

static_assert(kStart < kPing && kPing < kResult && kResult < kFamily && kFamily < kSpread && kSpread < kOpSample &&
                  kOpSample < kDynReady && kDynReady < kDynOrder && kDynOrder < kDynData && kDynData < kFirstTree,
              "the ranges are disjoint");

}  // namespace redux::tags
