// The exchange schedules (schedule.hpp) of the reduction family's non-tree algorithms and of a tree's second
// phase, built from plan/family.hpp's shapes; why the op always folds in rank order is said there.
#pragma once

#include "exec/call.hpp"
#include "exec/schedule.hpp"

#include <cstdint>
#include <vector>

namespace redux {

// This rank's part of a broadcast (or scatter) from rank 0 after a tree's reduction: parent -1 at rank 0.
struct SpreadRole {
    int parent = -1;
    std::vector<int> children;
    int segments = 1;  // an allreduce's result goes down in this many pipelined pieces
};

// MPI_Allreduce by recursive doubling. Places: the accumulator is recvbuf, vector0 the partner's vector.
void build_recursive_doubling(const ExecCall& call, std::vector<ScheduleStep>& steps);
// Recursive halving; then an allgather (allreduce), each rank's block to its rank (reduce-scatter-block), or every
// block to the root (reduce: Rabenseifner's reduce-scatter then gather). Each step's half goes in family_pieces
// (plan/family.hpp) messages of at least `least_piece_bytes`, family_window(flight_bytes, ...) of them ahead of the
// partner's. Places: the accumulator is recvbuf (allreduce) or vector1, vector0 the partner's.
void build_reduce_scatter(const ExecCall& call, int64_t least_piece_bytes, int64_t flight_bytes,
                          std::vector<ScheduleStep>& steps);
// The ring (commutative ops; plan/family.hpp): p - 1 steps of reduce-scatter around the ranks, then (allreduce) p - 1
// of allgather, or (reduce-scatter-block) this rank's block copied out. Each block goes in family_pieces messages of
// at least `least_piece_bytes`, a piece leaving once the step before has folded (or received) it, the n-th piece sent
// (counting every step's) once the (n - family_window(flight_bytes, ...))-th has come from the left. Places: the
// accumulator is recvbuf (allreduce) or vector1, vector0 the received partials.
void build_ring(const ExecCall& call, int64_t least_piece_bytes, int64_t flight_bytes,
                std::vector<ScheduleStep>& steps);
// MPI_Allreduce with one rank, `late`, expected to come last (commutative ops; plan/family.hpp): the other ranks
// reduce-scatter among themselves around the ring of build_ring while they wait, the late rank sends each of them
// its part of the block it keeps, and each folds that in and sends its block's result to every other rank. Places:
// the accumulator is recvbuf, vector0 the ring's received partials, vector1 the late rank's part. Not an allreduce,
// or `late` not a rank: build_ring.
void build_late_rank(const ExecCall& call, int late, int64_t least_piece_bytes, int64_t flight_bytes,
                     std::vector<ScheduleStep>& steps);
// Allgather then a local reduce (plan/family.hpp): allreduce, every rank's vector to every other rank; reduce-scatter-
// block, block q of it to rank q; each rank folds the p pieces itself in the ranks' order. Places: vector0 holds the
// p pieces (an allreduce's: p whole vectors), the accumulator is recvbuf (allreduce) or vector1.
void build_allgather(const ExecCall& call, std::vector<ScheduleStep>& steps);
// The second phase of a tree: rank 0 holds the reduction of the whole vector (allreduce: in recvbuf; reduce-
// scatter-block: in vector0). Allreduce: role.segments pipelined pieces down the role's tree into recvbuf;
// reduce-scatter-block: each rank's block from rank 0.
void build_spread(const ExecCall& call, const SpreadRole& role, std::vector<ScheduleStep>& steps);

}  // namespace redux
