// The executor: one rank's part of a planned reduction, with the overlap the model assumes made real.
//
// The plan gives this rank a parent, children in fold order (each joining on the left or the right of the
// accumulated interval) and, for non-commutative plans whose sink is not the root, a final transfer. The vector
// is reduced in `segments` pieces of whole elements (plan/predict/segments.hpp; one piece unless the plan pipelines):
// segment j is folded from every child, then sent to the parent while segment j + 1 arrives. Here:
//   1. The receives form one stream, segment by segment, children in fold order. They are posted ahead into
//      scratch slots of one segment each, up to recv_window beyond the one being folded, so the next transfer
//      proceeds while the current one is folded. One child's transfer is in flight at a time, in stream order,
//      as in the model (one receive port per rank): with several children receive q + 1 is posted once q has
//      arrived. Posting them all at once would let the children share the link, and with bandwidth-bound
//      transfers the first partial result would arrive no sooner than the last, leaving nothing to overlap
//      (measured on the emulated cluster: slower than no overlap at all). Small (eager) messages are not held
//      back by this: they travel before their receive is posted. A rank with one child (a chain) posts the
//      window's segments together: they come over one link in order, and a long-latency link's rendezvous
//      handshakes then overlap instead of costing a round trip per segment. A plan predicted with a time in
//      flight (RankProgram::receive_together: latency-bound links, where the model lets the children's messages
//      travel together) gets what it assumed: every child's receive posted at once, one slot each, as long as
//      they take at most kTogetherBytes. Otherwise a message above the MPI library's eager limit would wait for
//      its receive, and each child after the first would pay a round trip of handshake (measured on the
//      emulated cluster at 64 KiB: a wide tree predicted at 9 ms took 20 ms).
//   2. Children are folded strictly in plan order (never arrival order), so every call gives the same bits.
//      MPI_Reduce_local(in, inout) computes inout = in o inout, so a child joining on the left folds into the
//      accumulator, and one joining on the right takes the accumulator as its left operand and the result stays
//      in the child's slot, which becomes the accumulator (no copy). With a commutative op the accumulator stays
//      put once it is writable. The rank's own data is read in place from sendbuf; it is copied only when a
//      left join needs it writable. At the root (not in place, the result its own) the first child of each
//      segment is received straight into recvbuf, so a commutative reduction ends there without a copy.
//   3. Open MPI has no progress thread: a transfer advances only inside MPI calls. So a fold applies the op
//      chunk_bytes at a time and, between chunks, tests the receive in flight (posting the next) and the sends
//      (the standard lets an op be applied to any split of the elements).
//   4. Waiting is MPI_Test with sched_yield() in between, never a blocking call: with more ranks than cores a
//      rank that blocks inside an MPI library that busy-polls (Debian's MPICH does) keeps the core from the
//      rank it waits for. On a dedicated core sched_yield returns at once.
//   5. A finished segment goes to the parent with MPI_Isend while the next is folded; at most send_window
//      sends are outstanding, and a slot holding a partial result being sent is reused only once the send
//      completed. Non-commutative plans whose sink is not the root send each finished segment from the sink to
//      the root, which receives it into recvbuf once its own part of that segment has left (in place, recvbuf
//      holds its input until then).
// Plans over several trees (the two-tree and multi-tree strategies, RankProgram::more_trees) send segment j along
// tree tree_of(j) (j % trees, or the plan's deal of segments to weighted trees):
// the receive stream then holds each segment's children in its tree, and each segment goes to that tree's parent
// with the tree's own tag. The segments a rank is a leaf for (its own data) go out ahead of its folds, in order,
// up to kLeafWindow at a time: were they sent in turn, a tree's root, a leaf of the other tree, would hold that
// tree's next segment until it had finished its own, and the trees would take turns instead of running together.
// A root that receives the result from the sink sends in turn (it may receive into recvbuf only after its send).
// Plans dealt to weighted trees (multi-tree, RankProgram::deal) run differently, one pipeline per tree (LaneRun,
// exec/lane_run.cpp): their forecast has links shared by several transfers at once, which one receive stream cannot
// give. Scratch: recv_window + 2 slots of one segment (receives, accumulator, one partial result being sent; children
// + 2 when receiving together); when all are taken, the oldest send is waited for. Every edge carries each tree's
// segments in order with that tree's tag, so MPI's non-overtaking rule matches them; repeated calls allocate
// nothing (Workspace). A leaf of a one-tree plan that sends its data in one piece (most ranks of a small message's
// plan) makes that one send and nothing else: its set-up would be on the critical path of its parent's receive.
// Nothing on a call's path divides (a 64-bit division costs tens of cycles, and a 2-rank call at 8 B takes a
// microsecond): the request rings' sizes are powers of two.
#include "exec/executor.hpp"

#include "exec/lane_run.hpp"
#include "exec/run_parts.hpp"

#include "mpi/mpi_check.hpp"
#include "mpi/yielding.hpp"
#include "plan/predict/segments.hpp"

#include <sched.h>

#include <algorithm>
#include <array>
#include <cstdint>

namespace redux {
namespace {

constexpr int kLeafWindow = 4;                         // outstanding sends of a leaf's own segments (several trees)
constexpr int64_t kTogetherBytes = int64_t{16} << 20;  // scratch for receives posted together, at most

class ProgramRun : RunCall {
public:
    ProgramRun(const RankProgram& program, int segments, int rank, const ReduceArgs& args, const ElementLayout& layout,
               MPI_Comm comm, Workspace& workspace, const ExecKnobs& knobs)
        : RunCall(program, segments, rank, args, layout, comm, workspace, knobs), trees_(program.trees()) {
        // The receive stream: every segment's children in its tree, segment by segment.
        int most_children = 0;
        for (int t = 0; t < trees_; ++t) {
            most_children = std::max(most_children, static_cast<int>(program.children_in(t).size()));
        }
        for (int j = 0; j < segments_; ++j) stream_ += static_cast<int64_t>(children_of(j).size());
        // Every receive from one rank (a chain): the window's are posted together (see 1. above). Not under SMPI:
        // there each message is a flow of its own, sharing the link with the others in flight, where TCP sends
        // them one after the other on its connection, so they go one at a time as a tree's do.
        single_source_ = !kSimulatedRanks && stream_ > 0 && most_children == 1;
        int source = -1;
        for (int t = 0; t < trees_; ++t) {
            for (const ChildStep& child : program.children_in(t)) {
                if (source < 0) source = child.rank;
                single_source_ = single_source_ && child.rank == source;
            }
        }
        window_ = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(knobs.recv_window, stream_)));
        const int64_t vector_bytes = static_cast<int64_t>(args.count) * layout.extent;
        const int children = static_cast<int>(program.children.size());
        together_ = program.receive_together && trees_ == 1 && segments_ == 1 && children > 1 &&
                    static_cast<int64_t>(children) * vector_bytes <= kTogetherBytes;
        if (together_) window_ = children;
        while (ring_ < window_) ring_ *= 2;
        root_direct_ = rank == args.root && !args.in_place && program.receive_result_from < 0;
        // Several trees: the segments this rank is a leaf for go out ahead of its folds, except at a root that
        // waits for the sink's result segment by segment after its own send of each.
        ahead_ = trees_ > 1 && program.receive_result_from < 0;
        result_requests_ = program.receive_result_from >= 0 && rank == args.root ? segments_ : 0;
        const int slots = most_children > 0 ? window_ + 2 : 0;
        const int most = std::max(1, (args.count + segments_ - 1) / segments_);  // the longest segment
        shape_ = {ring_, slots, most, result_requests_};
        const bool ready = ws_.ready == shape_ && static_cast<int>(ws_.free_slots.size()) == slots &&
                           (slots == 0 || workspace.holds(layout, most, slots));
        ws_.ready = {};     // until this call ends without an error
        if (ready) return;  // as the last call left them: the same sizes, every request null, every slot free
        ws_.slot.clear();
        if (slots > 0) ws_.slot = workspace.ensure(layout, most, slots);
        ws_.free_slots.clear();
        for (int s = 0; s < slots; ++s) ws_.free_slots.push_back(s);
        ws_.requests.assign(static_cast<size_t>(ring_ + kSendWindow + kLeafWindow), MPI_REQUEST_NULL);
        ws_.child_slot.assign(static_cast<size_t>(ring_ + kSendWindow), kNoSlot);
        ws_.indices.resize(static_cast<size_t>(ring_));
        ws_.result_requests.assign(static_cast<size_t>(result_requests_), MPI_REQUEST_NULL);
    }

    int run() {
        const int rc = reduce_segments();
        if (rc == MPI_SUCCESS) {
            ws_.ready = shape_;
        } else {
            cancel_posted();
        }
        return rc;
    }

private:
    // Requests: receives in a ring of ring_ entries (stream position q at q mod ring_; at most window_ of them
    // posted), then the sends' ring, then the ring of a leaf's sends ahead. Every ring's size is a power of two, so
    // an index is a mask, not a division (tens of cycles, on every call's path).
    static_assert((kSendWindow & (kSendWindow - 1)) == 0 && (kLeafWindow & (kLeafWindow - 1)) == 0);
    size_t recv_index(int64_t q) const { return static_cast<size_t>(q & (ring_ - 1)); }
    size_t send_index(int64_t i) const { return static_cast<size_t>(ring_ + (i & (kSendWindow - 1))); }
    MPI_Request& recv_request(int64_t q) { return ws_.requests[recv_index(q)]; }
    int& recv_slot(int64_t q) { return ws_.child_slot[recv_index(q)]; }
    MPI_Request& send_request(int64_t i) { return ws_.requests[send_index(i)]; }
    int& send_slot(int64_t i) { return ws_.child_slot[send_index(i)]; }
    MPI_Request& leaf_request(int64_t i) {
        return ws_.requests[static_cast<size_t>(ring_ + kSendWindow + (i & (kLeafWindow - 1)))];
    }
    bool sent_ahead(int j) const { return ahead_ && children_of(j).empty() && program_.parent_in(tree_of(j)) >= 0; }

    int tree_of(int j) const { return program_.tree_of(j); }
    const std::vector<ChildStep>& children_of(int j) const { return program_.children_in(tree_of(j)); }

    int reduce_segments() {
        for (int j = 0; j < segments_; ++j) {
            segment_ = j;
            acc_ = segment_of(args_.in_place ? args_.recvbuf : args_.sendbuf, j);
            acc_writable_ = args_.in_place;
            acc_slot_ = kNoSlot;
            REDUX_MPI(advance_leaves(j));
            if (sent_ahead(j)) continue;
            for (const ChildStep& child : children_of(j)) {
                REDUX_MPI(wait_receive(folded_));
                REDUX_MPI(fold_child(child));
                ++folded_;
            }
            REDUX_MPI(finish_segment(j));
        }
        if (folded_ != stream_) return MPI_ERR_INTERN;
        while (sends_done_ < sends_started_) REDUX_MPI(wait_oldest_send());
        for (; leaf_done_ < leaf_started_; ++leaf_done_) REDUX_MPI(wait_yielding(leaf_request(leaf_done_)));
        for (int j = 0; j < result_requests_; ++j)
            REDUX_MPI(wait_yielding(ws_.result_requests[static_cast<size_t>(j)]));
        return MPI_SUCCESS;
    }

    int finish_segment(int j) {
        const int slot = acc_slot_;
        acc_slot_ = kNoSlot;  // a send or the root's copy takes it over
        const int32_t parent = program_.parent_in(tree_of(j));
        if (parent >= 0) return start_send(parent, tag_of(tree_of(j)), slot);
        if (program_.send_result_to >= 0) return start_send(program_.send_result_to, tags::kResult, slot);
        if (rank_ != args_.root) return MPI_ERR_INTERN;  // the sink of a plan is the root or sends there
        void* result = segment_of(args_.recvbuf, j);
        if (acc_ != result) {
            REDUX_MPI(copy_elements(acc_, result, length(j), args_.datatype, layout_, ws_.pack_scratch));
        }
        release(slot);
        return MPI_SUCCESS;
    }

    // Stream position q = posted_ is child post_child_ of segment post_segment_.
    int post_receives() {
        while (posted_ < stream_ && posted_ - folded_ < window_ &&
               (single_source_ || together_ || posted_ == folded_ || recv_request(posted_ - 1) == MPI_REQUEST_NULL)) {
            while (post_child_ == static_cast<int>(children_of(post_segment_).size())) {
                ++post_segment_;  // a segment with no (more) children here; posted_ < stream_: one follows
                post_child_ = 0;
            }
            const int j = post_segment_;
            const int k = post_child_;
            void* buffer = nullptr;
            int slot = kNoSlot;
            if (root_direct_ && k == 0) {
                buffer = segment_of(args_.recvbuf, j);
            } else {
                if (ws_.free_slots.empty()) return MPI_SUCCESS;  // a send will free one
                slot = take_slot();
                buffer = ws_.slot[static_cast<size_t>(slot)];
            }
            recv_slot(posted_) = slot;
            REDUX_MPI(MPI_Irecv(buffer, length(j), args_.datatype, children_of(j)[static_cast<size_t>(k)].rank,
                                tag_of(tree_of(j)), comm_, &recv_request(posted_)));
            ++posted_;
            ++post_child_;
        }
        return MPI_SUCCESS;
    }

    int wait_receive(int64_t q) {
        REDUX_MPI(post_receives());
        while (posted_ <= q) {  // no slot for it: every free one is held by a partial result being sent
            if (sends_done_ == sends_started_) return MPI_ERR_INTERN;
            REDUX_MPI(wait_oldest_send());
            REDUX_MPI(post_receives());
        }
        REDUX_MPI(wait_calling(recv_request(q), [this] { return test_sends(); }));
        return post_receives();  // the next transfer, during this fold
    }

    // As wait_yielding (mpi/yielding.cpp), calling `between` (an MPI error code) between two tests.
    // Under SMPI (kBlockingWaits) it blocks instead of polling, until `request` or one of the requests that
    // `between` tests (the oldest send, the oldest leaf send) completes.
    template <typename Between>
    int wait_calling(MPI_Request& request, Between between) {
        for (int polls = 0;;) {
            int done = 0;
            REDUX_MPI(test_request(request, done));
            if (done) return MPI_SUCCESS;
            REDUX_MPI(between());
            if constexpr (kBlockingWaits) {
                REDUX_MPI(wait_any_event(request));
            } else if (polls < kPollsBeforeYield) {
                ++polls;
            } else {
                sched_yield();
            }
        }
    }

    int wait_any_event(MPI_Request& request) {
        std::array<MPI_Request*, 3> watched{&request, nullptr, nullptr};
        size_t n = 1;
        if (sends_done_ < sends_started_ && &send_request(sends_done_) != &request) {
            watched[n++] = &send_request(sends_done_);
        }
        if (ahead_ && leaf_done_ < leaf_started_ && &leaf_request(leaf_done_) != &request) {
            watched[n++] = &leaf_request(leaf_done_);
        }
        std::array<MPI_Request, 3> handles{};
        for (size_t i = 0; i < n; ++i) handles[i] = *watched[i];
        int index = MPI_UNDEFINED;
        REDUX_MPI(MPI_Waitany(static_cast<int>(n), handles.data(), &index, MPI_STATUS_IGNORE));
        for (size_t i = 0; i < n; ++i) *watched[i] = handles[i];  // the one completed is now MPI_REQUEST_NULL
        return MPI_SUCCESS;
    }

    int fold_child(const ChildStep& child) {
        const int child_s = recv_slot(folded_);
        void* child_buf =
            child_s == kNoSlot ? segment_of(args_.recvbuf, segment_) : ws_.slot[static_cast<size_t>(child_s)];
        if (child.joins_left || (args_.commutative && acc_writable_)) {
            if (!acc_writable_) REDUX_MPI(make_acc_writable());
            REDUX_MPI(apply_op(child_buf, const_cast<void*>(acc_)));  // acc = child o acc
            release(child_s);
        } else {
            REDUX_MPI(apply_op(acc_, child_buf));  // child's buffer = acc o child
            release(acc_slot_);
            acc_ = child_buf;
            acc_slot_ = child_s;
            acc_writable_ = true;
        }
        return post_receives();
    }

    int make_acc_writable() {
        while (ws_.free_slots.empty()) {
            if (sends_done_ == sends_started_) return MPI_ERR_INTERN;
            REDUX_MPI(wait_oldest_send());
        }
        const int s = take_slot();
        void* copy = ws_.slot[static_cast<size_t>(s)];
        REDUX_MPI(copy_elements(acc_, copy, length(segment_), args_.datatype, layout_, ws_.pack_scratch));
        acc_ = copy;
        acc_slot_ = s;
        acc_writable_ = true;
        return MPI_SUCCESS;
    }

    // inout = in o inout, chunk by chunk, letting posted transfers progress between chunks.
    int apply_op(const void* in, void* inout) {
        return reduce_in_chunks(in, inout, length(segment_), args_, layout_, knobs_.chunk_bytes,
                                [this] { return poll(); });
    }

    // Between chunks of a fold: the receives posted ahead (one in flight at most; the others null), then the
    // sends.
    int poll() {
        if (posted_ > folded_ + 1) {
            int done = 0;
            REDUX_MPI(MPI_Testsome(ring_, ws_.requests.data(), &done, ws_.indices.data(), MPI_STATUSES_IGNORE));
            if (done > 0 && done != MPI_UNDEFINED) REDUX_MPI(post_receives());
        }
        REDUX_MPI(test_sends());
        return post_receives();  // a send may have freed the slot the next receive waited for
    }

    int start_send(int to, int tag, int slot) {
        if (sends_started_ - sends_done_ == kSendWindow) REDUX_MPI(wait_oldest_send());
        send_slot(sends_started_) = slot;
        MPI_Request& request = send_request(sends_started_);
        REDUX_MPI(MPI_Isend(acc_, length(segment_), args_.datatype, to, tag, comm_, &request));
        ++sends_started_;
        return segments_ == 1 ? wait_oldest_send() : test_sends();
    }

    // The sends of the segments this rank is a leaf for (sent_ahead): every one up to segment `through` is
    // started (waiting for the oldest when kLeafWindow are out), and then as many more as the window holds.
    int advance_leaves(int through) {
        for (; leaf_done_ < leaf_started_; ++leaf_done_) {
            int done = 0;
            REDUX_MPI(test_request(leaf_request(leaf_done_), done));
            if (!done) break;
        }
        for (; leaf_next_ < segments_; ++leaf_next_) {
            const int j = leaf_next_;
            if (!sent_ahead(j)) continue;
            if (leaf_started_ - leaf_done_ == kLeafWindow) {
                if (j > through) return MPI_SUCCESS;
                REDUX_MPI(wait_yielding(leaf_request(leaf_done_)));
                ++leaf_done_;
            }
            const void* own = segment_of(args_.in_place ? args_.recvbuf : args_.sendbuf, j);
            REDUX_MPI(MPI_Isend(own, length(j), args_.datatype, program_.parent_in(tree_of(j)), tag_of(tree_of(j)),
                                comm_, &leaf_request(leaf_started_)));
            ++leaf_started_;
        }
        return MPI_SUCCESS;
    }

    int test_sends() {
        if (ahead_) REDUX_MPI(advance_leaves(-1));
        while (sends_done_ < sends_started_) {
            int done = 0;
            REDUX_MPI(test_request(send_request(sends_done_), done));
            if (!done) return MPI_SUCCESS;
            REDUX_MPI(on_send_done());
        }
        return MPI_SUCCESS;
    }

    int wait_oldest_send() {
        if (ahead_) {  // keep the leaf's sends going: the parent may need one of them before it takes this one
            REDUX_MPI(wait_calling(send_request(sends_done_), [this] { return advance_leaves(-1); }));
        } else {
            REDUX_MPI(wait_yielding(send_request(sends_done_)));
        }
        return on_send_done();
    }

    // Send i (segment i: each rank sends each segment once) has completed: its slot is free, and a root that
    // waits for the sink's result may now receive segment i into recvbuf.
    int on_send_done() {
        const int64_t i = sends_done_++;
        release(send_slot(i));
        send_slot(i) = kNoSlot;
        if (result_requests_ == 0) return MPI_SUCCESS;
        const int j = static_cast<int>(i);
        return MPI_Irecv(segment_of(args_.recvbuf, j), length(j), args_.datatype, program_.receive_result_from,
                         tags::kResult, comm_, &ws_.result_requests[static_cast<size_t>(j)]);
    }

    int take_slot() {
        const int s = ws_.free_slots.back();
        ws_.free_slots.pop_back();
        return s;
    }

    void release(int slot) {
        if (slot != kNoSlot) ws_.free_slots.push_back(slot);
    }

    // After an error: nothing this call posted may stay behind.
    void cancel_posted() {
        for (MPI_Request& request : ws_.requests) cancel_request(request);
        for (MPI_Request& request : ws_.result_requests) cancel_request(request);
    }

    const int trees_;             // segment j goes along tree tree_of(j) (RankProgram::more_trees)
    int64_t stream_ = 0;          // receives in all: every segment's children
    int window_ = 1;              // receives posted ahead, at most
    int ring_ = 1;                // the receives' ring: window_ rounded up to a power of two
    Workspace::Shape shape_;      // the sizes of the workspace's vectors this call uses
    bool single_source_ = false;  // every receive comes from one child: the window's are posted together
    bool together_ = false;       // every child's receive posted at once (RankProgram::receive_together)
    bool ahead_ = false;          // a leaf's own segments are sent ahead of its folds (several trees)
    int leaf_next_ = 0;           // the next segment advance_leaves() looks at
    int64_t leaf_started_ = 0, leaf_done_ = 0;
    bool root_direct_ = false;  // the root's first child of each segment lands in recvbuf
    int result_requests_ = 0;   // the root's receives of the sink's result, one per segment
    int segment_ = 0;           // being folded
    const void* acc_ = nullptr;
    int acc_slot_ = kNoSlot;
    bool acc_writable_ = false;
    int64_t posted_ = 0;                     // receives posted, in stream order
    int post_segment_ = 0, post_child_ = 0;  // the next one to post
    int64_t folded_ = 0;                     // receives folded
    int64_t sends_started_ = 0, sends_done_ = 0;
};

}  // namespace

const std::vector<void*>& Workspace::ensure(const ElementLayout& layout, int count, int buffers) {
    if (!(layout == layout_) || count != count_) {
        storage_.clear();
        origins_.clear();
        layout_ = layout;
        count_ = count;
    }
    while (static_cast<int>(storage_.size()) < buffers) {
        storage_.emplace_back(layout, count);
        origins_.push_back(storage_.back().data());
    }
    return origins_;
}

int run_program(const RankProgram& program, int segments, int rank, const ReduceArgs& args, const ElementLayout& layout,
                MPI_Comm comm, Workspace& workspace, const ExecKnobs& knobs) {
    if (program.trees() > 1 && !program.deal.empty() && program.receive_result_from < 0 && program.send_result_to < 0) {
        return run_lanes(program, segments, rank, args, layout, comm, workspace, knobs);
    }
    // A leaf of one tree sending its data in one piece: one send (module comment).
    if (program.children.empty() && program.more_trees.empty() && program.parent >= 0 &&
        program.receive_result_from < 0 && (segments <= 1 || args.count <= 1)) {
        MPI_Request request = MPI_REQUEST_NULL;
        REDUX_MPI(MPI_Isend(args.in_place ? args.recvbuf : args.sendbuf, args.count, args.datatype, program.parent,
                            tags::tree(0), comm, &request));
        const int rc = wait_yielding(request);
        if (rc != MPI_SUCCESS) cancel_request(request);
        return rc;
    }
    return ProgramRun(program, segments, rank, args, layout, comm, workspace, knobs).run();
}

}  // namespace redux
