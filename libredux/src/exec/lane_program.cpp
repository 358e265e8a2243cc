// A RankProgram as lanes (lane_program.hpp). What decides each lane's data:
//   - Tree t is lane t, with tags::tree(t): MPI orders messages only per (source, tag), and a rank may send a later
//     segment of one tree ahead of an earlier one of another to the same parent.
//   - Its end: the tree's parent; else, at the sink of a plan whose root is elsewhere, the result transfer to the
//     root; else the root keeps the result; else the rank is not in that tree.
//   - Its receives: plans dealt to weighted trees (RankProgram::deal, the multi-tree strategy) are forecast with
//     links shared by several transfers at once (plan/steady_state/multi_tree.cpp: every link busy, a rank's link
//     in fed by several children together), which one receive stream in segment order cannot deliver: each of
//     their lanes receives per child, at least lane_window ahead (plan/exec_limits.hpp). Every other plan
//     receives in one stream, as the model has it: one receive port per rank. A plan with a result transfer
//     always does, so that the sink sends its result segments in segment order, the order the root posts them.
//   - The stream's posting: every receive at once where the plan asks for it (receive_together, which the
//     planner sets only within ExecLimits::together_bytes); the window's together where every receive comes from
//     one rank (a chain: they come over one link in order, and a long-latency link's rendezvous handshakes then
//     overlap instead of costing a round trip per segment; not under SMPI, where each message is a flow of its
//     own sharing the link with the others in flight, where TCP sends them one after the other on its
//     connection); otherwise one transfer in flight at a time. Posting them all at once would let the children
//     share the link, and with bandwidth-bound transfers the first partial result would arrive no sooner than
//     the last, leaving nothing to overlap. Small (eager) messages are not held back: they travel before their
//     receive is posted.
//   - Scratch: the stream's lanes share window + 2 slots of one segment (receives, the accumulator, one partial
//     result being sent); a per_child lane has its own children x window + send_window + 1, which cover every use.
//   - Sends: a per_child lane has its own ring of send_window; the stream lanes' finished segments share one (the
//     model's one send port), and the own segments of lanes without children, sent ahead, another. At the root
//     of a result transfer in a plan over several trees the rank's segments go in turn, through one ring: each
//     leaves once every earlier one has.
//   - Requests: the stream's ring, then the lanes' per-child rings, then the send rings, then the root's result
//     receives.
// Only plans over several trees look at segments one by one here; a one-tree plan's lane takes every segment.
#include "exec/lane_program.hpp"

#include "mpi/tags.hpp"
#include "plan/exec_limits.hpp"

#include <algorithm>

namespace redux {

namespace {

// Lane t's tree, end, segments and receives (its requests and scratch come later: lay_out_requests).
Lane make_lane(const RankProgram& program, int32_t t, int32_t segments, const CallShape& call, bool per_child) {
    Lane lane;
    lane.tree = t;
    lane.tag = tags::tree(t);
    const std::vector<ChildStep>& children = program.children_in(t);
    lane.children = children.data();
    lane.child_count = static_cast<int32_t>(children.size());
    const int32_t parent = program.parent_in(t);
    if (parent >= 0) {
        lane.end = LaneEnd::parent;
        lane.send_to = parent;
        lane.send_tag = lane.tag;
    } else if (program.send_result_to >= 0) {
        lane.end = LaneEnd::result;
        lane.send_to = program.send_result_to;
        lane.send_tag = tags::kResult;
    } else if (call.rank == call.root) {
        lane.end = LaneEnd::keep;
    }
    lane.root_direct = lane.end == LaneEnd::keep && !call.in_place;
    if (program.trees() == 1) {
        lane.segments = segments;
    } else if (lane.end != LaneEnd::none) {
        lane.first_segment = segments;
        for (int32_t j = segments - 1; j >= 0; --j) {
            if (program.tree_of(j) != t) continue;
            lane.first_segment = j;
            ++lane.segments;
        }
    }
    if (lane.segments == 0) lane.child_count = 0;  // dealt nothing: it receives nothing
    lane.next_fold = lane.first_segment;
    lane.receives = per_child ? Receives::per_child : Receives::stream;
    return lane;
}

// The stream's posting and window, and its pool of scratch slots. `most_children`: the most a stream lane has;
// `one_source`: every stream receive comes from one rank.
void lay_out_stream(const RankProgram& program, const CallShape& call, int32_t most_children, bool one_source,
                    LaneProgram& out) {
    const int64_t ahead = std::max<int64_t>(1, std::min<int64_t>(call.recv_window, out.stream_receives));
    if (program.receive_together) {
        out.stream_posting = StreamPosting::together;
        out.stream_window = static_cast<int32_t>(std::max<int64_t>(1, out.stream_receives));
    } else {
        out.stream_posting = !call.simulated && out.stream_receives > 0 && most_children == 1 && one_source
                                 ? StreamPosting::window
                                 : StreamPosting::one_in_flight;
        out.stream_window = static_cast<int32_t>(ahead);
    }
    out.stream_ring = 1;
    while (out.stream_ring < out.stream_window) out.stream_ring *= 2;
    out.pools[0].size = most_children > 0 ? out.stream_window + 2 : 0;
}

// Requests and scratch: the stream's ring, the per_child lanes' rings and pools, the send rings, the root's
// result receives.
void lay_out_requests(const CallShape& call, int32_t segments, LaneProgram& out) {
    const int32_t send_window = kExecLimits.send_window;
    const int32_t lane_window = std::max(call.recv_window, kExecLimits.lane_window);
    int requests = out.stream_ring, slots = out.pools[0].size;
    for (Lane& lane : out.lanes) {
        if (lane.receives == Receives::per_child && lane.child_count > 0) {
            lane.window = std::max(1, std::min(lane_window, lane.segments));
            lane.first_receive = requests;
            requests += lane.child_count * lane.window;
            lane.pool = static_cast<int>(out.pools.size());
            out.pools.push_back({slots, lane.child_count * lane.window + send_window + 1, 0});
            slots += out.pools.back().size;
            lane.first_child = static_cast<int>(out.child_posted.size());
            out.child_posted.insert(out.child_posted.end(), static_cast<size_t>(lane.child_count), 0);
            out.child_next.insert(out.child_next.end(), static_cast<size_t>(lane.child_count), lane.first_segment);
            out.child_ring.insert(out.child_ring.end(), static_cast<size_t>(lane.child_count), 0);
        }
    }
    // Send rings: one per per_child lane; in the stream, one for the finished segments of every lane and one for
    // the own segments of lanes without children, or one for all where the segments go in turn.
    out.in_turn = out.result_from >= 0 && out.trees > 1;
    int stream_ring = -1, own_ring = -1;
    auto new_ring = [&](int pool) {
        out.rings.push_back({requests, pool, 0, 0});
        requests += send_window;
        return static_cast<int>(out.rings.size()) - 1;
    };
    for (Lane& lane : out.lanes) {
        if ((lane.end != LaneEnd::parent && lane.end != LaneEnd::result) || lane.segments == 0) continue;
        if (lane.receives == Receives::per_child) {
            lane.ring = new_ring(lane.pool);
        } else if (lane.child_count > 0 || out.in_turn) {
            lane.ring = stream_ring = stream_ring >= 0 ? stream_ring : new_ring(0);
        } else {
            lane.ring = own_ring = own_ring >= 0 ? own_ring : new_ring(0);
        }
    }
    out.first_result = requests;
    if (out.result_from >= 0) requests += segments;
    out.requests = requests;
    out.slots = slots;
    for (SlotPool& pool : out.pools) pool.free = pool.size;
}

}  // namespace

bool build_lanes(const RankProgram& program, int32_t segments, const CallShape& call, LaneProgram& out) {
    const int32_t trees = program.trees();
    if (trees > tags::kMostTrees) return false;
    const bool result_transfer = program.send_result_to >= 0 || program.receive_result_from >= 0;
    const bool per_child = trees > 1 && !program.deal.empty() && !result_transfer;
    out.lanes.clear();
    out.pools.clear();
    out.rings.clear();
    out.child_posted.clear();
    out.child_next.clear();
    out.child_ring.clear();
    out.trees = trees;
    out.segments = segments;
    out.result_from = call.rank == call.root ? program.receive_result_from : -1;
    out.stream_receives = 0;
    out.pools.push_back({});  // the stream's
    int32_t most_children = 0, source = -1;
    bool one_source = true;
    for (int32_t t = 0; t < trees; ++t) {
        const Lane& lane = out.lanes.emplace_back(make_lane(program, t, segments, call, per_child));
        if (lane.receives != Receives::stream) continue;
        out.stream_receives += static_cast<int64_t>(lane.segments) * lane.child_count;
        most_children = std::max(most_children, lane.child_count);
        for (const ChildStep& child : program.children_in(t)) {
            if (source < 0) source = child.rank;
            one_source = one_source && child.rank == source;
        }
    }
    lay_out_stream(program, call, most_children, one_source, out);
    lay_out_requests(call, segments, out);
    return true;
}

}  // namespace redux
