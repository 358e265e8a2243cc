// The executor: one rank's part of a planned reduction, with the overlap the model assumes made real.
//
// The plan gives this rank a parent, children in fold order (each joining on the left or the right of the
// accumulated interval) and, for non-commutative plans whose sink is not the root, a final transfer. Here:
//   1. Receives are posted ahead into free scratch slots, up to recv_window children beyond the one being
//      folded, so the transfer of the next child's partial result proceeds while the current one is folded.
//      One receive is in flight at a time, in fold order, as in the model (one port per rank): child k + 1's
//      receive is posted once child k's has arrived. Posting them all at once would let the children share
//      the link, and with bandwidth-bound transfers the first partial result would arrive no sooner than the
//      last, leaving nothing to overlap (measured on the emulated cluster: slower than no overlap at all).
//      Small (eager) messages are not held back by this: they travel before their receive is posted.
//   2. Children are folded strictly in plan order (never arrival order), so every call gives the same bits.
//      MPI_Reduce_local(in, inout) computes inout = in o inout, so a child joining on the left folds into
//      the accumulator, and one joining on the right takes the accumulator as its left operand and the
//      result stays in the child's slot, which becomes the accumulator (no copy). With a commutative op the
//      accumulator stays put once it is writable. The rank's own data is read in place from sendbuf; it
//      is copied only when a left join needs it writable.
//   3. Open MPI has no progress thread: a transfer advances only inside MPI calls. So a fold applies the op
//      chunk_bytes at a time and calls MPI_Testsome on the posted receives between chunks (the standard
//      lets an op be applied to any split of the elements).
//   4. Waiting is MPI_Test with sched_yield() in between, never a blocking call: with more ranks than cores
//      a rank that blocks inside an MPI library that busy-polls (Debian's MPICH does) keeps the core from
//      the rank it waits for. On a dedicated core sched_yield returns at once.
//   5. The partial result goes to the parent with MPI_Isend; the root accumulates in recvbuf (which also
//      serves as a receive slot when not in place), and copies there only if operand order left the result
//      elsewhere. Non-commutative plans whose sink is not the root end with sink -> root.
// Slots: recv_window receive slots plus one for the accumulator, plus recvbuf at the root.
#include "exec/executor.hpp"

#include "exec/mpi_check.hpp"

#include <sched.h>

#include <algorithm>

namespace redux {
namespace {

constexpr int kTagPartial = 1;
constexpr int kTagResult = 2;

// Polls a while before giving the core away: on a dedicated core a short message arrives within the spin.
constexpr int kPollsBeforeYield = 200;

int wait_yielding(MPI_Request& request) {
    for (int polls = 0;; ++polls) {
        int done = 0;
        REDUX_MPI(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
        if (done) return MPI_SUCCESS;
        if (polls >= kPollsBeforeYield) sched_yield();
    }
}

class ProgramRun {
public:
    ProgramRun(const RankProgram& program, int rank, const ReduceArgs& args, const ElementLayout& layout, MPI_Comm comm,
               Workspace& workspace, const ExecKnobs& knobs)
        : program_(program),
          rank_(rank),
          args_(args),
          layout_(layout),
          comm_(comm),
          knobs_(knobs),
          slot_(workspace.slot),
          free_(workspace.free_slots),
          requests_(workspace.requests),
          child_slot_(workspace.child_slot),
          indices_(workspace.indices) {
        const int children = static_cast<int>(program.children.size());
        window_ = std::max(1, std::min(knobs.recv_window, children));
        slot_.clear();
        if (children > 0) slot_ = workspace.ensure(layout, args.count, window_ + 1);
        if (rank == args.root && !args.in_place) slot_.push_back(args.recvbuf);
        free_.clear();
        for (int s = 0; s < static_cast<int>(slot_.size()); ++s) free_.push_back(s);  // recvbuf popped first
        requests_.assign(static_cast<size_t>(children), MPI_REQUEST_NULL);
        child_slot_.assign(static_cast<size_t>(children), -1);
        acc_ = args.in_place ? args.recvbuf : args.sendbuf;
        acc_writable_ = args.in_place;
    }

    int run() {
        const int rc = fold_children_and_send();
        if (rc != MPI_SUCCESS) cancel_posted();
        return rc;
    }

private:
    int fold_children_and_send() {
        const int children = static_cast<int>(program_.children.size());
        for (folded_ = 0; folded_ < children; ++folded_) {
            REDUX_MPI(post_receives());
            REDUX_MPI(wait_yielding(requests_[folded_]));
            REDUX_MPI(post_receives());  // the next child's transfer, during this fold
            REDUX_MPI(fold_child(program_.children[folded_]));
        }
        if (program_.parent >= 0) REDUX_MPI(send(program_.parent, kTagPartial));
        if (program_.send_result_to >= 0) REDUX_MPI(send(program_.send_result_to, kTagResult));
        if (rank_ != args_.root) return MPI_SUCCESS;
        if (program_.receive_result_from >= 0) {
            return MPI_Recv(args_.recvbuf, args_.count, args_.datatype, program_.receive_result_from, kTagResult, comm_,
                            MPI_STATUS_IGNORE);
        }
        return copy_elements(acc_, args_.recvbuf, args_.count, args_.datatype, layout_);
    }

    int post_receives() {
        const int children = static_cast<int>(program_.children.size());
        while (posted_ < children && posted_ - folded_ < window_ && !free_.empty() &&
               (posted_ == 0 || requests_[posted_ - 1] == MPI_REQUEST_NULL)) {  // one in flight
            const int s = take_slot();
            child_slot_[posted_] = s;
            REDUX_MPI(MPI_Irecv(slot_[s], args_.count, args_.datatype, program_.children[posted_].rank, kTagPartial,
                                comm_, &requests_[posted_]));
            ++posted_;
        }
        return MPI_SUCCESS;
    }

    int fold_child(const ChildStep& child) {
        const int child_s = child_slot_[folded_];
        void* child_buf = slot_[child_s];
        if (child.joins_left || (args_.commutative && acc_writable_)) {
            if (!acc_writable_) REDUX_MPI(make_acc_writable());
            REDUX_MPI(apply_op(child_buf, const_cast<void*>(acc_)));  // acc = child o acc
            free_.push_back(child_s);
        } else {
            REDUX_MPI(apply_op(acc_, child_buf));  // child slot = acc o child
            if (acc_slot_ >= 0) free_.push_back(acc_slot_);
            acc_ = child_buf;
            acc_slot_ = child_s;
            acc_writable_ = true;
        }
        return post_receives();
    }

    int make_acc_writable() {
        const int s = take_slot();
        REDUX_MPI(copy_elements(acc_, slot_[s], args_.count, args_.datatype, layout_));
        acc_ = slot_[s];
        acc_slot_ = s;
        acc_writable_ = true;
        return MPI_SUCCESS;
    }

    // inout = in o inout, chunk by chunk, letting posted transfers progress between chunks.
    int apply_op(const void* in, void* inout) {
        const int per_chunk = layout_.extent > 0
                                  ? static_cast<int>(std::clamp<size_t>(knobs_.chunk_bytes / layout_.extent, 1,
                                                                        static_cast<size_t>(args_.count)))
                                  : args_.count;
        for (int first = 0; first < args_.count; first += per_chunk) {
            const int n = std::min(per_chunk, args_.count - first);
            const MPI_Aint offset = static_cast<MPI_Aint>(first) * layout_.extent;
            REDUX_MPI(MPI_Reduce_local(static_cast<const char*>(in) + offset, static_cast<char*>(inout) + offset, n,
                                       args_.datatype, args_.op));
            if (first + n < args_.count) REDUX_MPI(poll_receives());
        }
        return MPI_SUCCESS;
    }

    int poll_receives() {
        const int pending = posted_ - (folded_ + 1);
        if (pending <= 0) return MPI_SUCCESS;
        int done = 0;
        indices_.resize(static_cast<size_t>(pending));
        REDUX_MPI(MPI_Testsome(pending, &requests_[folded_ + 1], &done, indices_.data(), MPI_STATUSES_IGNORE));
        return done > 0 ? post_receives() : MPI_SUCCESS;
    }

    int send(int to, int tag) {
        MPI_Request& request = requests_.emplace_back(MPI_REQUEST_NULL);
        REDUX_MPI(MPI_Isend(acc_, args_.count, args_.datatype, to, tag, comm_, &request));
        return wait_yielding(request);
    }

    int take_slot() {
        const int s = free_.back();
        free_.pop_back();
        return s;
    }

    // After an error: nothing this call posted may stay behind.
    void cancel_posted() {
        for (MPI_Request& request : requests_) {
            if (request == MPI_REQUEST_NULL) continue;
            MPI_Cancel(&request);
            MPI_Wait(&request, MPI_STATUS_IGNORE);
        }
    }

    const RankProgram& program_;
    const int rank_;
    const ReduceArgs& args_;
    const ElementLayout& layout_;
    const MPI_Comm comm_;
    const ExecKnobs& knobs_;
    std::vector<void*>& slot_;            // scratch slots (and recvbuf at the root), by index
    std::vector<int>& free_;              // indices of free slots
    std::vector<MPI_Request>& requests_;  // one per child, then the sends
    std::vector<int>& child_slot_;        // slot receiving each child
    std::vector<int>& indices_;           // for MPI_Testsome
    int window_ = 1;
    const void* acc_ = nullptr;
    int acc_slot_ = -1;
    bool acc_writable_ = false;
    int posted_ = 0;
    int folded_ = 0;
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

int run_program(const RankProgram& program, int rank, const ReduceArgs& args, const ElementLayout& layout,
                MPI_Comm comm, Workspace& workspace, const ExecKnobs& knobs) {
    return ProgramRun(program, rank, args, layout, comm, workspace, knobs).run();
}

}  // namespace redux
