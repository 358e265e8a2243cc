// What the executor runs: one rank's part of a plan for one call, as data. The plan's RankProgram
// (plan/planner.hpp) says which trees the rank is in, its parent and children in each and where the result goes;
// build_lanes() turns it into one lane per tree with everything the tree runner (lanes.cpp) needs: the tag, where
// the finished segments go, the segments dealt to the lane, how its receives are posted, and where its requests
// and scratch slots are. No MPI.
#pragma once

#include "plan/planner.hpp"

#include <cstdint>
#include <vector>

namespace redux {

// How a lane's receives are posted.
enum class Receives : uint8_t {
    // Part of the rank's one receive stream: every stream lane's receives segment by segment (each segment's
    // children in its lane's fold order), posted as LaneProgram::stream_posting says and folded in stream order.
    stream,
    // The lane's own: each child's receives, up to Lane::window posted ahead, folded as they arrive.
    per_child,
};

// How the stream posts its receives ahead of the one being folded (at most LaneProgram::stream_window).
enum class StreamPosting : uint8_t {
    one_in_flight,  // receive q + 1 is posted once q has arrived: one child's transfer at a time
    window,         // every receive comes from one rank: the window's are posted together
    together,       // every receive of the stream at once (RankProgram::receive_together)
};

// Where a lane's finished segments go.
enum class LaneEnd : uint8_t {
    parent,  // to the tree's parent, with the tree's tag
    result,  // this rank is the sink of a plan whose root is elsewhere: to the root, tag tags::kResult
    keep,    // this rank is the root: into recvbuf
    none,    // the rank takes no part in this tree
};

struct Lane {
    // What the program says.
    int32_t tree = 0;  // segment j is this lane's when RankProgram::tree_of(j) == tree
    int tag = 0;       // its receives' tag: tags::tree(tree)
    LaneEnd end = LaneEnd::none;
    int32_t send_to = -1;                 // LaneEnd::parent, LaneEnd::result: the rank its segments go to
    int send_tag = 0;                     // and their tag
    const ChildStep* children = nullptr;  // in fold order (the RankProgram's, which outlives the call)
    int32_t child_count = 0;
    Receives receives = Receives::stream;
    int32_t window = 1;        // Receives::per_child: receives posted ahead per child
    bool root_direct = false;  // the root's first child of each segment is received straight into recvbuf
    int32_t segments = 0;      // dealt to this lane
    int32_t first_segment = 0;
    int pool = 0;         // its scratch slots: LaneProgram::pools[pool]
    int ring = -1;        // LaneEnd::parent, LaneEnd::result: its send ring, LaneProgram::rings[ring]
    int first_child = 0;  // Receives::per_child: its children's entries in LaneProgram::child_*
    // Receives::per_child: child k's ring of `window` requests starts at first_receive + k x window.
    int first_receive = 0;

    // Where the run is (set by build_lanes, moved by the runner).
    int32_t next_fold = 0;   // the segment being folded (a lane without children: the one it sends or keeps next)
    int32_t fold_child = 0;  // the child of next_fold folded next
    int32_t finished = 0;    // segments folded and sent on (or kept)
    bool pending = false;    // next_fold is folded and waits for room in its send ring
    int fold_ring = 0;       // Receives::per_child: next_fold's place in each child's ring
    const void* acc = nullptr;
    int acc_slot = -1;  // the accumulator's scratch slot; -1: sendbuf or recvbuf
    bool acc_writable = false;
    // The fold of child fold_child into next_fold, while it runs over several steps (a chunk per step).
    bool folding = false;
    int64_t folded = 0;      // its elements folded so far
    void* theirs = nullptr;  // the child's partial result
    int theirs_slot = -1;    // its scratch slot; -1: recvbuf
    bool into_acc = false;   // acc = theirs o acc; else theirs = acc o theirs, and it becomes the accumulator
};

// Sends in flight, at most ExecLimits::send_window, completed oldest first: requests [first, first + send_window).
// The slots they hold go back to `pool`.
struct SendRing {
    int first = 0;
    int pool = 0;
    int64_t started = 0, done = 0;
};

// The scratch slots one pool lends: LaneProgram's free slots [first, first + free) of the workspace's free list.
struct SlotPool {
    int first = 0, size = 0, free = 0;
};

// One rank's part of one call.
struct LaneProgram {
    std::vector<Lane> lanes;  // lane t runs tree t
    int32_t trees = 1;
    int32_t segments = 1;  // the vector is cut into this many
    // The rank's receive stream (Receives::stream lanes).
    StreamPosting stream_posting = StreamPosting::one_in_flight;
    int32_t stream_window = 1;    // receives posted ahead of the one being folded, at most
    int32_t stream_ring = 1;      // its requests, the first of all: stream_window rounded up to a power of two
    int64_t stream_receives = 0;  // in all
    // The result transfer's receiving end: at the root of a plan whose sink is elsewhere, the sink; segment j is
    // received into recvbuf once this rank's own send of segment j has completed (in place, recvbuf holds its data
    // until then). The sending end is the sink's lanes, LaneEnd::result.
    int32_t result_from = -1;
    int first_result = 0;  // its requests, one per segment
    int requests = 0;      // in all
    // The rank's segments in turn: each one's send starts only once every earlier segment's has (the root of a
    // result transfer in a plan over several trees), through one send ring.
    bool in_turn = false;
    std::vector<SendRing> rings;  // the stream lanes' finished segments share one, lanes without children another
    std::vector<SlotPool> pools;  // pool 0: the stream's (shared by its lanes); then one per per_child lane
    int slots = 0;                // in all
    // Receives::per_child lanes, by lane and child: segments posted, the segment posted next, its ring place.
    std::vector<int32_t> child_posted, child_next, child_ring;
};

// The call's shape, as far as the lanes depend on it.
struct CallShape {
    int rank = 0;
    int root = 0;
    bool in_place = false;
    int recv_window = 1;     // ExecKnobs::recv_window
    bool simulated = false;  // SMPI's simulated ranks: the stream never posts a window together (lane_program.cpp)
};

// Builds `out` (reusing its vectors) for `program` with the vector cut into `segments` (>= 1). Returns false, and
// builds nothing, when the program has more trees than there are tags (tags::kMostTrees).
bool build_lanes(const RankProgram& program, int32_t segments, const CallShape& call, LaneProgram& out);

}  // namespace redux
