// Tree-dyn, run step by step. See tree_dyn.cpp (a rank's part) and tree_dyn_match.cpp (the root's matchmaking).
//
// Tree-dyn and Non-Commut-Tree-dyn (Benoit, Canon & Marchal), MPI_Reduce only: the pairs are chosen while the reduction
// runs, so that ranks that arrive late, or folds that take longer than others, hold up nobody who could do something
// else. The root is the matchmaker of the paper's slot. Every other rank tells it "arrived" (tags::kDynReady) as it
// enters, and follows the orders it gets (tags::kDynOrder; all those of one matching in one message), in their order:
// "receive from s" (it folds s's partial result into its own and tells the root "folded") and at most one "send to t"
// (once all it was told to receive is folded, its partial result goes to t, tags::kDynData, and its part is over). The
// root pairs the idle holders of partial results as it learns of them, all at once: along `batches`' tree for that
// many holders under a commutative op (the root, or the one idle longest, at its top, whose result then goes to the
// busy root); under a non-commutative op only holders of neighbouring intervals of ranks pair, in rounds as in a
// binomial tree, the lower interval folded on the left, so the result is the rank-order reduction. While ranks are
// absent the root waits up to batches.gather_s() for more idle holders before it pairs. Under a commutative op the
// root, while it has fewer than ceil(log2 size) folds to do, takes a lone idle holder, and tells absent ranks in
// advance to send to it, so that a late rank sends the moment it comes; under a non-commutative op an absent rank is
// told in advance only when at most ceil(log2 size) are absent and nobody folds, to an idle neighbour.
// A pairing costs two small messages (the "idle" and the order) besides the transfer; an absent rank's none. The
// whole vector travels in one message (no segments). A repeated call allocates nothing where the ranks are at most
// DynBatches::kPreparedRanks and a buffer per rank takes at most 1 MiB together (beyond, once the batch sizes and
// the receives in flight a call meets have all been met).
#pragma once

#include "exec/call.hpp"
#include "exec/workspace.hpp"
#include "plan/family.hpp"

#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace redux {

// What a call of tree-dyn keeps track of, kept with the plan (Workspace::tree_dyn) and cleared by each call, so
// that a repeated call allocates nothing.
struct TreeDynState {
    enum Kind : uint8_t { kSent, kArrivalReceived, kFoldedReceived, kOrderReceived, kDataReceived };
    struct Event {
        Kind kind = kSent;
        int peer = -1;  // the rank a receive is from
        int slot = -1;  // kDataReceived: the scratch buffer it arrives in
    };
    // A partial result this rank was told to receive, in the order of the orders.
    struct Fold {
        int slot = -1;
        bool left = true;  // its ranks lie left of this rank's (non-commutative)
        bool here = false;
    };
    std::vector<MPI_Request> requests;
    std::vector<Event> events;
    std::vector<void*> slots;
    std::vector<int> free_slots;
    std::vector<Fold> folds;
    std::vector<int> order_in;  // room for every order a rank can get at once
    // The root's view.
    std::vector<int> ready_in;
    std::vector<std::vector<int>> outbox;  // by rank: orders not sent yet
    std::vector<int> sent_orders;          // every order sent in the call, reserved: the buffers stay put while sent
    std::vector<uint8_t> arrived, gone;
    std::vector<int32_t> outstanding, members, lo, hi;  // lo, hi: the interval of ranks a holder holds
    std::vector<int> idle_order;                        // idle holders, the longest idle first
    std::vector<int> holders, depth, order;             // a matching's
};

class TreeDyn {
public:
    // Everything given must outlive the run.
    TreeDyn(const ExecCall& call, Workspace& workspace, const DynBatches& batches, size_t chunk_bytes);
    TreeDyn(const TreeDyn&) = delete;
    TreeDyn& operator=(const TreeDyn&) = delete;

    // Posts this rank's first messages (the root: makes its first pairs).
    int start();
    // Takes what has completed, pairs (the root) and folds one partial result that has come; done once this
    // rank's part is over. Never waits.
    int step(bool& moved, bool& done);
    // The requests in flight, for a wait that blocks (SMPI).
    MPI_Request* requests() { return requests_.data(); }
    int request_count() const { return static_cast<int>(requests_.size()); }
    // Request `index` completed with `status` in a wait outside step() (SMPI's blocking wait).
    int completed(int index, const MPI_Status& status);
    // After an error: every request posted finished (mpi/abandon.hpp).
    void abandon();

private:
    // What the ints of the tags::kDynReady and tags::kDynOrder messages say.
    enum Message : int { kArrived = 0, kFolded = 1, kSendTo = 2, kReceiveFrom = 3 };
    static const int kArrivedMessage, kFoldedMessage;  // sent: the buffers stay put while they travel

    using Kind = TreeDynState::Kind;
    using Event = TreeDynState::Event;
    using Fold = TreeDynState::Fold;
    static constexpr Kind kSent = TreeDynState::kSent;
    static constexpr Kind kArrivalReceived = TreeDynState::kArrivalReceived;
    static constexpr Kind kFoldedReceived = TreeDynState::kFoldedReceived;
    static constexpr Kind kOrderReceived = TreeDynState::kOrderReceived;
    static constexpr Kind kDataReceived = TreeDynState::kDataReceived;

    static TreeDynState& state_of(Workspace& workspace, const DynBatches& batches, const ExecCall& call);

    // tree_dyn.cpp: a rank's part
    MPI_Request* next(Kind kind, int peer = -1, int slot = -1);
    int post(int rc);
    int live() const;
    bool finished() const;
    int take_slot();
    int post_order_receive();
    int post_data_receive(int from, bool left);
    int on_done(const Event e, const MPI_Status& status);
    int on_orders(const MPI_Status& status);
    int send_when_folded();
    size_t next_fold() const;
    bool foldable() const { return folding_.slot >= 0 || next_fold() < folds_.size(); }
    int fold_one();
    // tree_dyn_match.cpp: the root's matchmaking
    void start_matching();
    void on_ready(int r, bool arrival);
    int expect_ready(int r, Kind kind);
    void become_idle(int r) { idle_order_.push_back(r); }
    bool busy() const;
    int pair(int from, int to);
    void give(int r, std::array<int, 3> order);
    int send_orders();
    int match();
    int pair_idle();
    int pair_along_tree(const std::vector<int>& holders);
    int push_to_absent();
    bool root_has_room() const { return outstanding_[static_cast<size_t>(rank_)] < depth_; }
    size_t pairable() const;
    bool neighbours(int x, int y) const;

    const ExecCall& call_;
    const int rank_, size_;
    Workspace& ws_;
    const DynBatches& batches_;
    const int64_t per_chunk_;  // elements folded in one step
    TreeDynState& state_;
    void* acc_ = nullptr;
    Fold folding_;        // the partial result being folded over several steps (slot -1: none)
    int64_t folded_ = 0;  // its elements folded so far
    // state_'s, by their names there.
    std::vector<MPI_Request>& requests_;
    std::vector<Event>& events_;
    std::vector<void*>& slots_;
    std::vector<int>& free_slots_;
    int slot_count_ = 0;
    std::vector<Fold>& folds_;
    std::vector<int>& order_in_;
    int send_to_ = -1;
    bool sent_ = false;
    std::vector<int>& ready_in_;
    std::vector<std::vector<int>>& outbox_;
    std::vector<int>& sent_orders_;
    std::vector<uint8_t>&arrived_, &gone_;
    std::vector<int32_t>&outstanding_, &members_, &lo_, &hi_;
    std::vector<int>& idle_order_;
    int absent_ = 0;
    int depth_ = 1;                // of a binomial tree over the ranks
    double holding_since_s_ = -1;  // >= 0: idle holders wait for more since then
    bool paired_once_ = false;     // the first pairing is made: absent ranks are late from then on
    bool event_ = false;           // a request completed since the root last paired
};

}  // namespace redux
