// Tree-dyn, a rank's part: it tells the root it has arrived, follows the orders it gets and folds the partial
// results it is sent, a chunk of one per step (the protocol is tree_dyn.hpp's). The root's matchmaking is
// tree_dyn_match.cpp.
#include "exec/tree_dyn.hpp"

#include "exec/fold.hpp"
#include "mpi/abandon.hpp"
#include "mpi/mpi_check.hpp"
#include "mpi/tags.hpp"
#include "mpi/yielding.hpp"
#include "plan/exec_limits.hpp"
#include "plan/predict/bounds.hpp"

#include <algorithm>

namespace redux {
const int TreeDyn::kArrivedMessage = TreeDyn::kArrived;
const int TreeDyn::kFoldedMessage = TreeDyn::kFolded;

// The state kept with the plan, its vectors at the most a call can need; every batch's tree this communicator
// may need, the slots and the buffer of a derived datatype's copies, made now where they are small. (A role
// changes from call to call: a rank a leaf in every call so far can be told to fold in the next.)
TreeDynState& TreeDyn::state_of(Workspace& ws, const DynBatches& batches, const ExecCall& call) {
    if (ws.tree_dyn) return *ws.tree_dyn;
    const int size = call.size;
    const auto n = static_cast<size_t>(size);
    auto state = std::make_shared<TreeDynState>();
    for (std::vector<int>* v :
         {&state->free_slots, &state->idle_order, &state->holders, &state->depth, &state->order}) {
        v->reserve(n);
    }
    state->slots.reserve(n);
    if (size <= DynBatches::kPreparedRanks) {
        batches.prepare(size);
        state->outbox.resize(n);
        for (std::vector<int>& box : state->outbox) box.reserve(3 * n);  // every receive and a send
    }
    // Slots for every rank where they are small: a call that meets more receives than any before would allocate.
    if (static_cast<int64_t>(call.layout.span_bytes(call.count) * n) <= kExecLimits.tree_dyn_prepared_bytes) {
        ws.vectors.ensure(call.layout, call.count, size);
    }
    int packed_bytes = 0;
    if (!call.layout.contiguous &&
        MPI_Pack_size(call.count, call.datatype, MPI_COMM_SELF, &packed_bytes) == MPI_SUCCESS &&
        ws.pack_scratch.size() < static_cast<size_t>(packed_bytes)) {
        ws.pack_scratch.resize(static_cast<size_t>(packed_bytes));
    }
    ws.tree_dyn = std::move(state);
    return *ws.tree_dyn;
}

TreeDyn::TreeDyn(const ExecCall& call, Workspace& workspace, const DynBatches& batches, size_t chunk_bytes)
    : call_(call),
      rank_(call.rank),
      size_(call.size),
      ws_(workspace),
      batches_(batches),
      per_chunk_(chunk_elements(call.layout, chunk_bytes, call.count)),
      state_(state_of(workspace, batches, call)),
      requests_(state_.requests),
      events_(state_.events),
      slots_(state_.slots),
      free_slots_(state_.free_slots),
      folds_(state_.folds),
      order_in_(state_.order_in),
      ready_in_(state_.ready_in),
      outbox_(state_.outbox),
      sent_orders_(state_.sent_orders),
      arrived_(state_.arrived),
      gone_(state_.gone),
      outstanding_(state_.outstanding),
      members_(state_.members),
      lo_(state_.lo),
      hi_(state_.hi),
      idle_order_(state_.idle_order) {
    for (std::vector<int>* v : {&free_slots_, &ready_in_, &sent_orders_, &idle_order_}) v->clear();
    requests_.clear();
    events_.clear();
    slots_.clear();
    folds_.clear();
}

int TreeDyn::start() {
    const auto n = static_cast<size_t>(size_);
    // At most per call: the root's n - 1 arrivals, n - 1 "folded", n - 1 data receives and two orders per
    // pairing; a rank's order receives, data receives, reports and one send. Reserved: no buffer moves.
    // Orders: two of three ints per pairing, n - 1 pairings.
    requests_.reserve(6 * n + 8);
    events_.reserve(6 * n + 8);
    order_in_.assign(3 * n, 0);
    folds_.reserve(n);
    if (rank_ == call_.root) {
        acc_ = call_.recvbuf;
        if (!call_.in_place) {
            REDUX_MPI(
                copy_elements(call_.input, call_.recvbuf, call_.count, call_.datatype, call_.layout, ws_.pack_scratch));
        }
        start_matching();
        for (int r = 0; r < size_; ++r) {
            if (r != rank_) REDUX_MPI(expect_ready(r, kArrivalReceived));
        }
        return match();
    }
    acc_ = const_cast<void*>(call_.input);
    REDUX_MPI(post(MPI_Isend(&kArrivedMessage, 1, MPI_INT, call_.root, tags::kDynReady, call_.comm, next(kSent))));
    return post_order_receive();
}

// One chunk of one fold at a time, with whatever has completed taken before it: the root pairs what it has
// learnt before each chunk, so that its folds do not hold up the matchmaking, and ranks that arrive together are
// paired in one batch.
int TreeDyn::step(bool& moved, bool& done) {
    for (;;) {
        int index = MPI_UNDEFINED, complete = 0;
        MPI_Status status;
        REDUX_MPI(MPI_Testany(static_cast<int>(requests_.size()), requests_.data(), &index, &complete, &status));
        if (!complete || index == MPI_UNDEFINED) break;
        REDUX_MPI(completed(index, status));
    }
    const bool root = rank_ == call_.root;
    // The root gathering holders pairs when their wait ends (match).
    const bool held_out = holding_since_s_ >= 0 && MPI_Wtime() >= holding_since_s_ + batches_.gather_s();
    if (root && (event_ || held_out)) REDUX_MPI(match());
    moved = moved || event_;
    event_ = false;
    const bool root_folds = root && foldable();
    if (foldable()) moved = true;
    REDUX_MPI(fold_one());
    if (root_folds) REDUX_MPI(match());  // the root may be idle now
    done = finished();
    // Nothing in flight, nothing to fold and nobody held: nothing will ever move.
    if (!done && !moved && live() == 0 && holding_since_s_ < 0) return MPI_ERR_INTERN;
    return MPI_SUCCESS;
}

int TreeDyn::completed(int index, const MPI_Status& status) {
    event_ = true;
    return on_done(events_[static_cast<size_t>(index)], status);
}

void TreeDyn::abandon() {
    for (size_t i = 0; i < requests_.size(); ++i) {
        if (events_[i].kind == kSent) {
            abandon_send(requests_[i]);
        } else {
            abandon_receive(requests_[i]);
        }
    }
}

MPI_Request* TreeDyn::next(Kind kind, int peer, int slot) {
    requests_.push_back(MPI_REQUEST_NULL);
    events_.push_back({kind, peer, slot});
    return &requests_.back();
}

// A start that failed leaves its request null: its place is taken back.
int TreeDyn::post(int rc) {
    if (rc != MPI_SUCCESS) {
        requests_.pop_back();
        events_.pop_back();
    }
    return rc;
}

int TreeDyn::live() const {
    return static_cast<int>(
        std::count_if(requests_.begin(), requests_.end(), [](MPI_Request r) { return r != MPI_REQUEST_NULL; }));
}

bool TreeDyn::finished() const {
    if (rank_ != call_.root) return sent_ && live() == 0;
    return members_[static_cast<size_t>(rank_)] == size_ && outstanding_[static_cast<size_t>(rank_)] == 0 &&
           live() == 0;
}

// A scratch buffer for one partial result: slot 0 is a non-root rank's accumulator.
int TreeDyn::take_slot() {
    if (!free_slots_.empty()) {
        const int slot = free_slots_.back();
        free_slots_.pop_back();
        return slot;
    }
    slots_ = ws_.vectors.ensure(call_.layout, call_.count, ++slot_count_);
    return slot_count_ - 1;
}

int TreeDyn::post_order_receive() {
    return post(MPI_Irecv(order_in_.data(), static_cast<int>(order_in_.size()), MPI_INT, call_.root, tags::kDynOrder,
                          call_.comm, next(kOrderReceived)));
}

int TreeDyn::post_data_receive(int from, bool left) {
    const int slot = take_slot();
    REDUX_MPI(post(MPI_Irecv(slots_[static_cast<size_t>(slot)], call_.count, call_.datatype, from, tags::kDynData,
                             call_.comm, next(kDataReceived, from, slot))));
    folds_.push_back({slot, left, false});
    return MPI_SUCCESS;
}

int TreeDyn::on_done(const Event e, const MPI_Status& status) {
    switch (e.kind) {
        case kSent:
            return MPI_SUCCESS;
        case kArrivalReceived:
        case kFoldedReceived:
            on_ready(e.peer, e.kind == kArrivalReceived);
            return MPI_SUCCESS;
        case kOrderReceived:
            return on_orders(status);
        case kDataReceived:
            for (Fold& f : folds_) f.here = f.here || f.slot == e.slot;
            return MPI_SUCCESS;
    }
    return MPI_ERR_INTERN;
}

// A non-root rank's orders from the root: all the root gave it at once, three ints each, in the order given.
// Receives to fold, then at most one send, made once every receive before it is folded.
int TreeDyn::on_orders(const MPI_Status& status) {
    int ints = 0;
    REDUX_MPI(MPI_Get_count(&status, MPI_INT, &ints));
    for (int i = 0; i + 2 < ints; i += 3) {
        const int kind = order_in_[static_cast<size_t>(i)], peer = order_in_[static_cast<size_t>(i) + 1];
        if (kind == kSendTo) {
            send_to_ = peer;
            return send_when_folded();
        }
        if (kind != kReceiveFrom) return MPI_ERR_INTERN;
        REDUX_MPI(post_data_receive(peer, order_in_[static_cast<size_t>(i) + 2] != 0));
    }
    return post_order_receive();
}

int TreeDyn::send_when_folded() {
    if (send_to_ < 0 || sent_ || !folds_.empty() || folding_.slot >= 0) return MPI_SUCCESS;
    sent_ = true;
    return post(MPI_Isend(acc_, call_.count, call_.datatype, send_to_, tags::kDynData, call_.comm, next(kSent)));
}

// The first partial result that has come and may be folded now: under a commutative op any, otherwise only the
// first of the orders (the order of the orders is the rank order). Its position in folds_, or folds_.size().
size_t TreeDyn::next_fold() const {
    for (size_t i = 0; i < folds_.size(); ++i) {
        if (folds_[i].here) return i;
        if (!call_.commutative) break;
    }
    return folds_.size();
}

// One partial result that has come is folded into the accumulator, on the side its ranks lie, a chunk of
// chunk_bytes per step (the next steps go on with it: a step does a bounded amount of op work); once it is
// folded, a rank other than the root reports it to the root, and sends once it has folded all it was told to
// receive.
int TreeDyn::fold_one() {
    if (folding_.slot < 0) {
        const size_t i = next_fold();
        if (i == folds_.size()) return rank_ == call_.root ? MPI_SUCCESS : send_when_folded();
        folding_ = folds_[i];
        folds_.erase(folds_.begin() + static_cast<std::ptrdiff_t>(i));
        folded_ = 0;
        if (rank_ != call_.root && acc_ == call_.input) {  // a non-root rank's first fold: its data becomes writable
            const int slot = take_slot();
            REDUX_MPI(copy_elements(call_.input, slots_[static_cast<size_t>(slot)], call_.count, call_.datatype,
                                    call_.layout, ws_.pack_scratch));
            acc_ = slots_[static_cast<size_t>(slot)];
        }
    }
    const void* theirs = slots_[static_cast<size_t>(folding_.slot)];
    const int64_t n = std::min<int64_t>(per_chunk_, call_.count - folded_);
    REDUX_MPI(fold_elements(theirs, acc_, folded_, static_cast<int>(n), folding_.left, call_, ws_.pack_scratch));
    folded_ += n;
    if (folded_ < call_.count) return MPI_SUCCESS;
    free_slots_.push_back(folding_.slot);
    folding_.slot = -1;
    if (rank_ == call_.root) {
        on_ready(rank_, false);
        return MPI_SUCCESS;
    }
    REDUX_MPI(post(MPI_Isend(&kFoldedMessage, 1, MPI_INT, call_.root, tags::kDynReady, call_.comm, next(kSent))));
    return send_when_folded();
}

}  // namespace redux
