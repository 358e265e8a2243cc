// Recursive doubling, recursive halving (reduce-scatter, then allgather for an allreduce) and a tree's second
// phase, with nonblocking point-to-point messages on libredux's private communicator (tags::kFamily,
// tags::kSpread). The shapes, and why the op always folds in rank order, are plan/family.hpp's.
//
// Every message between two ranks is posted by both sides in the same order, so MPI's ordering per (source, tag)
// matches them whatever calls follow each other. On an error every request posted is cancelled and completed
// before the code goes back (Requests).
#include "exec/family.hpp"

#include "mpi/mpi_check.hpp"
#include "mpi/tags.hpp"
#include "mpi/yielding.hpp"
#include "plan/predict/bounds.hpp"
#include "plan/predict/segments.hpp"

#include <algorithm>
#include <array>
#include <limits>

namespace redux {

const std::vector<void*>& FamilyScratch::ensure(const ElementLayout& layout, int count, int buffers) {
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

namespace {

// The requests of one phase: completed in order by wait(); cancelled and completed if the phase fails.
class Requests {
public:
    explicit Requests(std::vector<MPI_Request>& storage) : r_(storage) { r_.clear(); }
    ~Requests() {
        for (MPI_Request& request : r_) {
            if (request == MPI_REQUEST_NULL) continue;
            MPI_Cancel(&request);
            MPI_Wait(&request, MPI_STATUS_IGNORE);
        }
        r_.clear();
    }
    Requests(const Requests&) = delete;
    Requests& operator=(const Requests&) = delete;

    MPI_Request* next() {
        r_.push_back(MPI_REQUEST_NULL);
        return &r_.back();
    }
    void reserve(size_t n) { r_.reserve(n); }
    int wait(size_t i) { return wait_yielding(r_[i]); }
    // Lets MPI move the messages in flight (completed ones become null, which wait() takes as done).
    int progress() {
        if (r_.empty()) return MPI_SUCCESS;
        int done = 0;
        indices_.resize(r_.size());
        return MPI_Testsome(static_cast<int>(r_.size()), r_.data(), &done, indices_.data(), MPI_STATUSES_IGNORE);
    }
    int wait_all() {
        for (size_t i = 0; i < r_.size(); ++i) REDUX_MPI(wait(i));
        return MPI_SUCCESS;
    }

private:
    std::vector<MPI_Request>& r_;
    std::vector<int> indices_;
};

struct Vector {
    void* base;
    MPI_Aint extent;
    void* at(int64_t k) const { return static_cast<char*>(base) + k * extent; }
};

// Folds elements [begin, end) of `theirs` into `mine`, `theirs` coming from lower ranks when `theirs_left`:
// mine = theirs o mine, else mine = mine o theirs (through `theirs`, then copied back, unless the op commutes).
// chunk_bytes at a time, `in_flight` progressed between two chunks.
int fold(const Vector& theirs, const Vector& mine, int64_t begin, int64_t end, bool theirs_left, const FamilyArgs& a,
         const ElementLayout& layout, FamilyScratch& scratch, Requests* in_flight = nullptr) {
    const int64_t per_chunk =
        std::max<int64_t>(static_cast<int64_t>(a.chunk_bytes) / std::max<MPI_Aint>(layout.extent, 1), 1);
    for (int64_t first = begin; first < end; first += per_chunk) {
        const int n = static_cast<int>(std::min(per_chunk, end - first));
        if (theirs_left || a.commutative) {
            REDUX_MPI(MPI_Reduce_local(theirs.at(first), mine.at(first), n, a.datatype, a.op));
        } else {
            REDUX_MPI(MPI_Reduce_local(mine.at(first), theirs.at(first), n, a.datatype, a.op));
            REDUX_MPI(copy_elements(theirs.at(first), mine.at(first), n, a.datatype, layout, scratch.pack_scratch));
        }
        if (in_flight != nullptr && first + n < end) REDUX_MPI(in_flight->progress());
    }
    return MPI_SUCCESS;
}

int send(const Vector& v, int64_t begin, int64_t end, int to, int tag, const FamilyArgs& a, MPI_Comm comm,
         Requests& requests) {
    return MPI_Isend(v.at(begin), static_cast<int>(end - begin), a.datatype, to, tag, comm, requests.next());
}
int receive(const Vector& v, int64_t begin, int64_t end, int from, int tag, const FamilyArgs& a, MPI_Comm comm,
            Requests& requests) {
    return MPI_Irecv(v.at(begin), static_cast<int>(end - begin), a.datatype, from, tag, comm, requests.next());
}

// The accumulator: recvbuf for an allreduce (the input copied in unless in place), a scratch vector for a
// reduce-scatter-block (recvbuf holds one block) or a reduce (recvbuf is the root's only).
int start(const FamilyArgs& a, const ElementLayout& layout, int total, const std::vector<void*>& buffers, Vector& acc,
          FamilyScratch& scratch) {
    acc = {a.collective == Collective::allreduce ? a.recvbuf : buffers[1], layout.extent};
    if (acc.base == a.input) return MPI_SUCCESS;
    return copy_elements(a.input, acc.base, total, a.datatype, layout, scratch.pack_scratch);
}

// The pairs' first step (plan/family.hpp): the even rank's vector to the odd one, which folds it. Returns
// whether this rank goes on (false: an even rank of a pair, which waits for its result).
int fold_in(const FamilyShape& shape, int rank, const Vector& acc, const Vector& tmp, int total, const FamilyArgs& a,
            const ElementLayout& layout, MPI_Comm comm, FamilyScratch& scratch, bool& goes_on) {
    goes_on = shape.active_index(rank) >= 0;
    if (rank >= 2 * shape.extra) return MPI_SUCCESS;
    Requests requests(scratch.requests);
    if (!goes_on) {
        REDUX_MPI(send(acc, 0, total, rank + 1, tags::kFamily, a, comm, requests));
        return requests.wait_all();
    }
    REDUX_MPI(receive(tmp, 0, total, rank - 1, tags::kFamily, a, comm, requests));
    REDUX_MPI(requests.wait_all());
    return fold(tmp, acc, 0, total, /*theirs_left=*/true, a, layout, scratch);
}

// The allreduce's last step: the odd rank of a pair sends the result to the even one.
int fold_out(const FamilyShape& shape, int rank, const Vector& acc, int total, const FamilyArgs& a, MPI_Comm comm,
             FamilyScratch& scratch) {
    if (rank >= 2 * shape.extra) return MPI_SUCCESS;
    Requests requests(scratch.requests);
    if (rank % 2 == 1) {
        REDUX_MPI(send(acc, 0, total, rank - 1, tags::kFamily, a, comm, requests));
    } else {
        REDUX_MPI(receive(acc, 0, total, rank + 1, tags::kFamily, a, comm, requests));
    }
    return requests.wait_all();
}

// What recursive doubling and halving begin with: the accumulator and a scratch vector of the whole vector, the
// input in the accumulator, and the pairs' first step (goes_on false: an even rank of a pair).
int begin_family(const FamilyArgs& a, const ElementLayout& layout, MPI_Comm comm, int rank, const FamilyShape& shape,
                 int total, FamilyScratch& scratch, Vector& acc, Vector& tmp, bool& goes_on) {
    const std::vector<void*>& buffers = scratch.ensure(layout, total, 2);
    tmp = {buffers[0], layout.extent};
    REDUX_MPI(start(a, layout, total, buffers, acc, scratch));
    return fold_in(shape, rank, acc, tmp, total, a, layout, comm, scratch, goes_on);
}

}  // namespace

int run_recursive_doubling(const FamilyArgs& a, const ElementLayout& layout, MPI_Comm comm, int rank, int size,
                           FamilyScratch& scratch) {
    const FamilyShape shape(size);
    const int total = a.total(size);
    Vector acc{}, tmp{};
    bool goes_on = true;
    REDUX_MPI(begin_family(a, layout, comm, rank, shape, total, scratch, acc, tmp, goes_on));
    if (goes_on) {
        const int q = shape.active_index(rank);
        for (int s = 0; s < shape.steps; ++s) {
            const int partner_q = q ^ (1 << s);
            const int partner = shape.active_rank(partner_q);
            Requests requests(scratch.requests);
            REDUX_MPI(receive(tmp, 0, total, partner, tags::kFamily, a, comm, requests));
            REDUX_MPI(send(acc, 0, total, partner, tags::kFamily, a, comm, requests));
            REDUX_MPI(requests.wait_all());
            // Both ranks fold the lower one's data on the left, with the same operands: the same bits.
            REDUX_MPI(fold(tmp, acc, 0, total, partner_q < q, a, layout, scratch));
        }
    }
    return fold_out(shape, rank, acc, total, a, comm, scratch);
}

namespace {

// Where block b of the P blocks begins (b = P: the end). Allreduce: near-equal blocks; reduce-scatter-block: the
// blocks of the original ranks active index b stands for.
int64_t block_begin(const FamilyShape& shape, const FamilyArgs& a, int total, int b) {
    if (a.collective != Collective::reduce_scatter_block) return even_block_begin(total, shape.active, b);
    return static_cast<int64_t>(b == shape.active ? shape.ranks : shape.first_rank(b)) * a.count;
}

// Elements [begin, end) cut as both sides of an exchange cut them: family_pieces of its bytes.
int64_t piece_begin(int64_t begin, int64_t end, int pieces, int i) { return begin + (end - begin) * i / pieces; }

}  // namespace

int run_reduce_scatter(const FamilyArgs& a, const ElementLayout& layout, MPI_Comm comm, int rank, int size,
                       FamilyScratch& scratch) {
    const FamilyShape shape(size);
    const int total = a.total(size);
    Vector acc{}, tmp{};
    bool goes_on = true;
    REDUX_MPI(begin_family(a, layout, comm, rank, shape, total, scratch, acc, tmp, goes_on));
    const int q = shape.active_index(rank);
    int lo = 0, hi = shape.active;  // the blocks this rank holds
    if (goes_on) {
        for (int s = 0; s < shape.steps; ++s) {
            const int partner_q = q ^ (1 << s);
            const int partner = shape.active_rank(partner_q);
            const int mid = (lo + hi) / 2;
            const bool keep_low = ((q >> s) & 1) == 0;
            const int64_t keep_begin = block_begin(shape, a, total, keep_low ? lo : mid);
            const int64_t keep_end = block_begin(shape, a, total, keep_low ? mid : hi);
            const int64_t give_begin = block_begin(shape, a, total, keep_low ? mid : lo);
            const int64_t give_end = block_begin(shape, a, total, keep_low ? hi : mid);
            const int keep_pieces = family_pieces((keep_end - keep_begin) * layout.type_size, a.least_piece_bytes);
            const int give_pieces = family_pieces((give_end - give_begin) * layout.type_size, a.least_piece_bytes);
            Requests requests(scratch.requests);
            requests.reserve(static_cast<size_t>(keep_pieces + give_pieces));
            for (int i = 0; i < keep_pieces; ++i) {
                REDUX_MPI(receive(tmp, piece_begin(keep_begin, keep_end, keep_pieces, i),
                                  piece_begin(keep_begin, keep_end, keep_pieces, i + 1), partner, tags::kFamily, a,
                                  comm, requests));
            }
            // One piece in flight each way: the next is sent once the last has gone, before this rank folds.
            // Pieces sent together share the link and arrive together (so the folds cannot overlap them); one
            // after the other they arrive in turn, as the prediction has them, and a piece of kFamilyPieceBytes
            // travels eagerly under both MPI libraries, so waiting for its send costs no handshake.
            int sent = 0;
            auto send_next = [&]() -> int {
                if (sent > 0) REDUX_MPI(requests.wait(static_cast<size_t>(keep_pieces + sent - 1)));
                REDUX_MPI(send(acc, piece_begin(give_begin, give_end, give_pieces, sent),
                               piece_begin(give_begin, give_end, give_pieces, sent + 1), partner, tags::kFamily, a,
                               comm, requests));
                ++sent;
                return MPI_SUCCESS;
            };
            REDUX_MPI(send_next());
            for (int i = 0; i < keep_pieces; ++i) {  // each fold overlaps the next piece's transfer
                REDUX_MPI(requests.wait(static_cast<size_t>(i)));
                if (sent < give_pieces) REDUX_MPI(send_next());
                REDUX_MPI(fold(tmp, acc, piece_begin(keep_begin, keep_end, keep_pieces, i),
                               piece_begin(keep_begin, keep_end, keep_pieces, i + 1), partner_q < q, a, layout, scratch,
                               &requests));
            }
            while (sent < give_pieces) REDUX_MPI(send_next());
            REDUX_MPI(requests.wait_all());
            if (keep_low) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
    }
    if (a.collective == Collective::allreduce) {
        if (goes_on) {  // allgather: the steps in reverse, each rank's blocks straight into the partner's recvbuf
            for (int s = shape.steps - 1; s >= 0; --s) {
                const int partner = shape.active_rank(q ^ (1 << s));
                const int width = hi - lo;
                const bool low = ((q >> s) & 1) == 0;
                const int other_lo = low ? hi : lo - width;
                Requests step(scratch.requests);
                REDUX_MPI(receive(acc, block_begin(shape, a, total, other_lo),
                                  block_begin(shape, a, total, other_lo + width), partner, tags::kFamily, a, comm,
                                  step));
                REDUX_MPI(send(acc, block_begin(shape, a, total, lo), block_begin(shape, a, total, hi), partner,
                               tags::kFamily, a, comm, step));
                REDUX_MPI(step.wait_all());
                lo = std::min(lo, other_lo);
                hi = lo + 2 * width;
            }
        }
        return fold_out(shape, rank, acc, total, a, comm, scratch);
    }
    if (a.collective == Collective::reduce) {  // every active rank's block to the root, all in flight at once
        Requests requests(scratch.requests);
        if (rank == a.root) {
            for (int other = 0; other < shape.active; ++other) {
                if (shape.active_rank(other) == rank) continue;
                const int b = shape.bit_reverse(other);
                REDUX_MPI(receive(Vector{a.recvbuf, layout.extent}, block_begin(shape, a, total, b),
                                  block_begin(shape, a, total, b + 1), shape.active_rank(other), tags::kFamily, a, comm,
                                  requests));
            }
        }
        if (goes_on) {
            const int64_t begin = block_begin(shape, a, total, lo), end = block_begin(shape, a, total, lo + 1);
            if (rank == a.root) {
                REDUX_MPI(copy_elements(acc.at(begin), static_cast<char*>(a.recvbuf) + begin * layout.extent,
                                        static_cast<int>(end - begin), a.datatype, layout, scratch.pack_scratch));
            } else {
                REDUX_MPI(send(acc, begin, end, a.root, tags::kFamily, a, comm, requests));
            }
        }
        return requests.wait_all();
    }
    // Reduce-scatter-block: active rank q holds block lo = bit_reverse(q), the blocks of the original ranks it
    // stands for; each gets its own, and this rank receives its block from the one that holds it.
    const int mine = rank < 2 * shape.extra ? rank / 2 : rank - shape.extra;
    const int holder = shape.active_rank(shape.bit_reverse(mine));
    Requests requests(scratch.requests);
    if (holder != rank) {
        REDUX_MPI(MPI_Irecv(a.recvbuf, a.count, a.datatype, holder, tags::kFamily, comm, requests.next()));
    }
    if (goes_on) {
        for (int o = shape.first_rank(lo); o <= shape.active_rank(lo); ++o) {
            const int64_t begin = static_cast<int64_t>(o) * a.count;
            if (o == rank) {
                REDUX_MPI(copy_elements(acc.at(begin), a.recvbuf, a.count, a.datatype, layout, scratch.pack_scratch));
            } else {
                REDUX_MPI(send(acc, begin, begin + a.count, o, tags::kFamily, a, comm, requests));
            }
        }
    }
    return requests.wait_all();
}

int run_spread(const FamilyArgs& a, const void* result, const SpreadRole& role, const ElementLayout& layout,
               MPI_Comm comm, int rank, FamilyScratch& scratch) {
    if (a.collective == Collective::reduce_scatter_block) {  // rank 0 sends each rank its block, all at once
        Requests requests(scratch.requests);
        if (rank != 0) {
            REDUX_MPI(MPI_Irecv(a.recvbuf, a.count, a.datatype, 0, tags::kSpread, comm, requests.next()));
            return requests.wait_all();
        }
        int size = 0;
        REDUX_MPI(MPI_Comm_size(comm, &size));
        const Vector whole{const_cast<void*>(result), layout.extent};
        for (int r = 1; r < size; ++r) {
            const int64_t begin = static_cast<int64_t>(r) * a.count;
            REDUX_MPI(send(whole, begin, begin + a.count, r, tags::kSpread, a, comm, requests));
        }
        REDUX_MPI(copy_elements(result, a.recvbuf, a.count, a.datatype, layout, scratch.pack_scratch));
        return requests.wait_all();
    }
    const Vector v{a.recvbuf, layout.extent};
    const int64_t n = a.count;
    const int segments = static_cast<int>(std::clamp<int64_t>(role.segments, 1, std::max<int64_t>(n, 1)));
    const size_t children = role.children.size();
    Requests requests(scratch.requests);
    requests.reserve(static_cast<size_t>(segments) * (children + 1));
    if (role.parent >= 0) {
        for (int j = 0; j < segments; ++j) {
            REDUX_MPI(receive(v, segment_begin(n, segments, j), segment_begin(n, segments, j + 1), role.parent,
                              tags::kSpread, a, comm, requests));
        }
    }
    // Segment j goes to each child once segment j - 1 has gone to it: one segment in flight per child, so that
    // the segments arrive in turn and each is forwarded while the next travels.
    const size_t first_send = role.parent >= 0 ? static_cast<size_t>(segments) : 0;
    for (int j = 0; j < segments; ++j) {
        if (role.parent >= 0) REDUX_MPI(requests.wait(static_cast<size_t>(j)));
        for (size_t k = 0; k < children; ++k) {
            if (j > 0) REDUX_MPI(requests.wait(first_send + static_cast<size_t>(j - 1) * children + k));
            REDUX_MPI(send(v, segment_begin(n, segments, j), segment_begin(n, segments, j + 1), role.children[k],
                           tags::kSpread, a, comm, requests));
        }
    }
    return requests.wait_all();
}

// Tree-dyn and Non-Commut-Tree-dyn (Benoit, Canon & Marchal): MPI_Reduce with the pairs chosen while it runs. See
// run_tree_dyn in family.hpp for the protocol.

// What a call of tree-dyn keeps track of, kept with the plan (FamilyScratch::tree_dyn) and cleared by each call, so
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

namespace {

enum DynMessage : int { kArrived = 0, kFolded = 1, kSendTo = 2, kReceiveFrom = 3 };
const int kArrivedMessage = kArrived;
const int kFoldedMessage = kFolded;

class TreeDyn {
    // Slots are made for every rank at the first call where they take at most this much together: a rank can be
    // told to receive from all the others, and a call that meets more than any before would allocate.
    static constexpr size_t kPreparedSlotBytes = size_t{1} << 20;

    // The state kept with the plan, its vectors at the most a call can need; every batch's tree this communicator
    // may need, the slots and the buffer of a derived datatype's copies, made now where they are small. (A role
    // changes from call to call: a rank a leaf in every call so far can be told to fold in the next.)
    static std::shared_ptr<TreeDynState>& first_call(FamilyScratch& scratch, const DynBatches& batches,
                                                     const FamilyArgs& a, const ElementLayout& layout, int size) {
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
        if (layout.span_bytes(a.count) * n <= kPreparedSlotBytes) scratch.ensure(layout, a.count, size);
        int packed_bytes = 0;
        if (!layout.contiguous && MPI_Pack_size(a.count, a.datatype, MPI_COMM_SELF, &packed_bytes) == MPI_SUCCESS &&
            scratch.pack_scratch.size() < static_cast<size_t>(packed_bytes)) {
            scratch.pack_scratch.resize(static_cast<size_t>(packed_bytes));
        }
        return scratch.tree_dyn = std::move(state);
    }

public:
    TreeDyn(const FamilyArgs& a, const ElementLayout& layout, MPI_Comm comm, int rank, int size, FamilyScratch& scratch,
            const DynBatches& batches)
        : a_(a),
          layout_(layout),
          comm_(comm),
          rank_(rank),
          size_(size),
          scratch_(scratch),
          batches_(batches),
          state_(*(scratch.tree_dyn ? scratch.tree_dyn : first_call(scratch, batches, a, layout, size))),
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

    ~TreeDyn() {  // after an error: every request posted is cancelled and completed
        for (MPI_Request& request : requests_) {
            if (request == MPI_REQUEST_NULL) continue;
            MPI_Cancel(&request);
            MPI_Wait(&request, MPI_STATUS_IGNORE);
        }
    }
    TreeDyn(const TreeDyn&) = delete;
    TreeDyn& operator=(const TreeDyn&) = delete;

    int run() {
        const auto n = static_cast<size_t>(size_);
        // At most per call: the root's n - 1 arrivals, n - 1 "folded", n - 1 data receives and two orders per
        // pairing; a rank's order receives, data receives, reports and one send. Reserved: no buffer moves.
        // Orders: two of three ints per pairing, n - 1 pairings.
        requests_.reserve(6 * n + 8);
        events_.reserve(6 * n + 8);
        order_in_.assign(3 * n, 0);
        folds_.reserve(n);
        if (rank_ == a_.root) {
            acc_ = {a_.recvbuf, layout_.extent};
            if (!a_.in_place) {
                REDUX_MPI(copy_elements(a_.input, a_.recvbuf, a_.count, a_.datatype, layout_, scratch_.pack_scratch));
            }
            arrived_.assign(n, 0);
            gone_.assign(n, 0);
            outstanding_.assign(n, 0);
            members_.assign(n, 1);
            lo_.resize(n);
            hi_.resize(n);
            for (int r = 0; r < size_; ++r) lo_[static_cast<size_t>(r)] = hi_[static_cast<size_t>(r)] = r;
            arrived_[static_cast<size_t>(rank_)] = 1;
            absent_ = size_ - 1;
            depth_ = std::max(1, ceil_log2(size_));
            outbox_.resize(n);
            for (std::vector<int>& box : outbox_) box.clear();
            sent_orders_.reserve(6 * n);
            become_idle(rank_);
            ready_in_.reserve(3 * n);
            for (int r = 0; r < size_; ++r) {
                if (r != rank_) REDUX_MPI(expect_ready(r, kArrivalReceived));
            }
            REDUX_MPI(match());
        } else {
            acc_ = {const_cast<void*>(a_.input), layout_.extent};
            REDUX_MPI(post(MPI_Isend(&kArrivedMessage, 1, MPI_INT, a_.root, tags::kDynReady, comm_, next(kSent))));
            REDUX_MPI(post_order_receive());
        }
        // One fold at a time, with whatever has completed taken in between: the root pairs what it has learnt
        // before each fold, so that its folds do not hold up the matchmaking.
        while (!finished()) {
            int index = MPI_UNDEFINED;
            MPI_Status status;
            if (!foldable()) {
                // The root gathering holders pairs when the wait ends (match); else nothing in flight is an error.
                const bool holding = holding_since_s_ >= 0;
                REDUX_MPI(wait_any_yielding(
                    static_cast<int>(requests_.size()), requests_.data(), index, status,
                    holding ? holding_since_s_ + batches_.gather_s() : std::numeric_limits<double>::infinity()));
                if (index == MPI_UNDEFINED) {
                    if (!holding) return MPI_ERR_INTERN;
                    REDUX_MPI(match());
                    continue;
                }
                REDUX_MPI(on_done(events_[static_cast<size_t>(index)], status));
            }
            // Whatever else has completed is taken too before the root pairs: ranks that arrive together are
            // paired in one batch.
            for (int done = 1; done;) {
                REDUX_MPI(MPI_Testany(static_cast<int>(requests_.size()), requests_.data(), &index, &done, &status));
                if (!done || index == MPI_UNDEFINED) break;
                REDUX_MPI(on_done(events_[static_cast<size_t>(index)], status));
            }
            if (rank_ == a_.root) REDUX_MPI(match());
            const bool root_folds = rank_ == a_.root && foldable();
            REDUX_MPI(fold_one());
            if (root_folds) REDUX_MPI(match());  // the root may be idle now
        }
        return MPI_SUCCESS;
    }

private:
    using Kind = TreeDynState::Kind;
    using Event = TreeDynState::Event;
    using Fold = TreeDynState::Fold;
    static constexpr Kind kSent = TreeDynState::kSent;
    static constexpr Kind kArrivalReceived = TreeDynState::kArrivalReceived;
    static constexpr Kind kFoldedReceived = TreeDynState::kFoldedReceived;
    static constexpr Kind kOrderReceived = TreeDynState::kOrderReceived;
    static constexpr Kind kDataReceived = TreeDynState::kDataReceived;

    MPI_Request* next(Kind kind, int peer = -1, int slot = -1) {
        requests_.push_back(MPI_REQUEST_NULL);
        events_.push_back({kind, peer, slot});
        return &requests_.back();
    }
    // A start that failed leaves its request null: its place is taken back.
    int post(int rc) {
        if (rc != MPI_SUCCESS) {
            requests_.pop_back();
            events_.pop_back();
        }
        return rc;
    }
    int live() const {
        return static_cast<int>(
            std::count_if(requests_.begin(), requests_.end(), [](MPI_Request r) { return r != MPI_REQUEST_NULL; }));
    }

    bool finished() const {
        if (rank_ != a_.root) return sent_ && live() == 0;
        return members_[static_cast<size_t>(rank_)] == size_ && outstanding_[static_cast<size_t>(rank_)] == 0 &&
               live() == 0;
    }

    // A scratch buffer for one partial result: slot 0 is a non-root rank's accumulator.
    int take_slot() {
        if (!free_slots_.empty()) {
            const int slot = free_slots_.back();
            free_slots_.pop_back();
            return slot;
        }
        slots_ = scratch_.ensure(layout_, a_.count, ++slot_count_);
        return slot_count_ - 1;
    }
    Vector slot_vector(int slot) const { return {slots_[static_cast<size_t>(slot)], layout_.extent}; }

    int post_order_receive() {
        return post(MPI_Irecv(order_in_.data(), static_cast<int>(order_in_.size()), MPI_INT, a_.root, tags::kDynOrder,
                              comm_, next(kOrderReceived)));
    }
    int post_data_receive(int from, bool left) {
        const int slot = take_slot();
        REDUX_MPI(post(MPI_Irecv(slots_[static_cast<size_t>(slot)], a_.count, a_.datatype, from, tags::kDynData, comm_,
                                 next(kDataReceived, from, slot))));
        folds_.push_back({slot, left, false});
        return MPI_SUCCESS;
    }

    int on_done(const Event e, const MPI_Status& status) {
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
    int on_orders(const MPI_Status& status) {
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
    int send_when_folded() {
        if (send_to_ < 0 || sent_ || !folds_.empty()) return MPI_SUCCESS;
        sent_ = true;
        return post(MPI_Isend(acc_.base, a_.count, a_.datatype, send_to_, tags::kDynData, comm_, next(kSent)));
    }

    // The first partial result that has come and may be folded now: under a commutative op any, otherwise only the
    // first of the orders (the order of the orders is the rank order). Its position in folds_, or folds_.size().
    size_t next_fold() const {
        for (size_t i = 0; i < folds_.size(); ++i) {
            if (folds_[i].here) return i;
            if (!a_.commutative) break;
        }
        return folds_.size();
    }
    bool foldable() const { return next_fold() < folds_.size(); }

    // One partial result that has come is folded into the accumulator, on the side its ranks lie; a rank other than
    // the root reports it to the root, and sends once it has folded all it was told to receive.
    int fold_one() {
        const size_t i = next_fold();
        if (i == folds_.size()) return rank_ == a_.root ? MPI_SUCCESS : send_when_folded();
        const Fold f = folds_[i];
        folds_.erase(folds_.begin() + static_cast<std::ptrdiff_t>(i));
        if (rank_ != a_.root && acc_.base == a_.input) {  // a non-root rank's first fold: its data becomes writable
            const int slot = take_slot();
            REDUX_MPI(copy_elements(a_.input, slots_[static_cast<size_t>(slot)], a_.count, a_.datatype, layout_,
                                    scratch_.pack_scratch));
            acc_ = slot_vector(slot);
        }
        REDUX_MPI(fold(slot_vector(f.slot), acc_, 0, a_.count, f.left, a_, layout_, scratch_));
        free_slots_.push_back(f.slot);
        if (rank_ == a_.root) {
            on_ready(rank_, false);
            return MPI_SUCCESS;
        }
        REDUX_MPI(post(MPI_Isend(&kFoldedMessage, 1, MPI_INT, a_.root, tags::kDynReady, comm_, next(kSent))));
        return send_when_folded();
    }

    // The root, matchmaker: rank r says it has arrived, or has folded one of the partial results it was told to
    // receive.
    void on_ready(int r, bool arrival) {
        const auto at = static_cast<size_t>(r);
        if (arrival) {
            arrived_[at] = 1;
            if (!gone_[at]) {
                --absent_;
                become_idle(r);
            }
        } else if (--outstanding_[at] == 0 && !gone_[at]) {
            become_idle(r);
        }
    }

    // The root receives from each rank exactly what it owes in this call: its arrival, and one "folded" per order
    // to receive. Never from any source: a rank whose part is over may already be in the next call, and its next
    // "arrived" must wait for that call (MPI keeps each rank's messages in order).
    int expect_ready(int r, Kind kind) {
        ready_in_.push_back(0);  // reserved: the buffers stay put while received into
        return post(MPI_Irecv(&ready_in_.back(), 1, MPI_INT, r, tags::kDynReady, comm_, next(kind, r)));
    }

    void become_idle(int r) { idle_order_.push_back(r); }
    bool busy() const {
        return std::any_of(outstanding_.begin(), outstanding_.end(), [](int32_t o) { return o > 0; });
    }

    // `from` sends all it holds to `to`, which folds it: orders to both (the root's own receive posted here).
    // `from` may not have arrived yet, and either may still be folding: the orders wait for them.
    int pair(int from, int to) {
        const auto f = static_cast<size_t>(from), t = static_cast<size_t>(to);
        const bool left = hi_[f] < lo_[t];
        idle_order_.erase(
            std::remove_if(idle_order_.begin(), idle_order_.end(), [&](int r) { return r == from || r == to; }),
            idle_order_.end());
        if (!arrived_[f]) --absent_;
        gone_[f] = 1;
        paired_once_ = true;
        ++outstanding_[t];
        members_[t] += members_[f];
        lo_[t] = std::min(lo_[t], lo_[f]);
        hi_[t] = std::max(hi_[t], hi_[f]);
        give(from, {kSendTo, to, 0});
        if (to == rank_) return post_data_receive(from, left);
        give(to, {kReceiveFrom, from, left ? 1 : 0});
        return expect_ready(to, kFoldedReceived);
    }
    // Orders wait in an outbox until the end of the matching (send_orders): a rank gets all its orders of one
    // matching in one message, which costs one latency wherever a message moves only once its receive is posted.
    void give(int r, std::array<int, 3> order) {
        auto& box = outbox_[static_cast<size_t>(r)];
        box.insert(box.end(), order.begin(), order.end());
    }
    int send_orders() {
        for (size_t r = 0; r < outbox_.size(); ++r) {
            std::vector<int>& box = outbox_[r];
            if (box.empty()) continue;
            const size_t at = sent_orders_.size();
            if (at + box.size() > sent_orders_.capacity()) return MPI_ERR_INTERN;  // would move orders in flight
            sent_orders_.insert(sent_orders_.end(), box.begin(), box.end());
            box.clear();
            REDUX_MPI(post(MPI_Isend(sent_orders_.data() + at, static_cast<int>(sent_orders_.size() - at), MPI_INT,
                                     static_cast<int>(r), tags::kDynOrder, comm_, next(kSent))));
        }
        return MPI_SUCCESS;
    }

    // While ranks are absent, idle holders wait up to batches_.gather_s() from the first moment two could pair,
    // for others to pair with at once.
    int match() {
        // Not on simulated ranks: there a wait cannot end at a time, and arrivals are exact.
        if (!kBlockingWaits && pairable() >= 2 && absent_ > 0 && batches_.gather_s() > 0) {
            const double now_s = MPI_Wtime();
            if (holding_since_s_ < 0) holding_since_s_ = now_s;
            if (now_s < holding_since_s_ + batches_.gather_s()) return send_orders();
        }
        holding_since_s_ = -1;
        REDUX_MPI(pair_idle());
        REDUX_MPI(push_to_absent());
        return send_orders();
    }

    // Every idle holder of a partial result is paired at once. Under a commutative op along the planner's tree for
    // that many ranks (DynBatches), the root (or else the holder idle longest) at its top, the others in the order
    // they became idle; when the root is busy, the tree's top then sends to it. Under a
    // non-commutative op only runs of neighbouring intervals of ranks pair, in interval
    // order, in rounds as in a binomial tree (the receivers go on to the next round while they still fold).
    int pair_idle() {
        if (pairable() < 2) return MPI_SUCCESS;
        std::vector<int>& holders = state_.holders;
        holders = idle_order_;
        if (a_.commutative) {
            const auto root = std::find(holders.begin(), holders.end(), rank_);
            if (root != holders.end()) std::rotate(holders.begin(), root, root + 1);
            REDUX_MPI(pair_along_tree(holders));
            // A batch formed while the root is busy sends its result on to the root, one fold more there whatever
            // its room (docs/design.md says why): its top sends once it has folded.
            if (holders[0] != rank_) return pair(holders[0], rank_);
            return MPI_SUCCESS;
        }
        std::sort(holders.begin(), holders.end(),
                  [&](int x, int y) { return lo_[static_cast<size_t>(x)] < lo_[static_cast<size_t>(y)]; });
        // Each run [begin, end) of neighbouring intervals is found before it is paired; its receivers of a round
        // take its first places for the next.
        for (size_t begin = 0, end = 0; begin < holders.size(); begin = end) {
            for (end = begin + 1; end < holders.size() && neighbours(holders[end - 1], holders[end]);) ++end;
            for (size_t last = end; last - begin > 1;) {
                size_t receivers = begin;
                for (size_t i = begin; i + 1 < last; i += 2) {
                    const int to = holders[i + 1] == rank_ ? holders[i + 1] : holders[i];
                    REDUX_MPI(pair(to == holders[i] ? holders[i + 1] : holders[i], to));
                    holders[receivers++] = to;
                }
                if ((last - begin) % 2 == 1) holders[receivers++] = holders[last - 1];
                last = receivers;
            }
        }
        return MPI_SUCCESS;
    }

    // `holders` (two or more, or none to pair) paired along the planner's tree for that many ranks, holders[0]
    // at its top; deepest first, so that a holder is told to send only after it is told what to receive.
    int pair_along_tree(const std::vector<int>& holders) {
        if (holders.size() < 2) return MPI_SUCCESS;
        const std::vector<int32_t>& parent = batches_.parents(static_cast<int32_t>(holders.size()));
        std::vector<int>& depth = state_.depth;
        std::vector<int>& order = state_.order;
        depth.assign(holders.size(), 0);
        order.clear();
        for (size_t i = 1; i < holders.size(); ++i) {
            for (int32_t p = parent[i]; p > 0; p = parent[static_cast<size_t>(p)]) ++depth[i];
            order.push_back(static_cast<int>(i));
        }
        // Deepest first, in position order among equals (std::stable_sort would allocate).
        std::sort(order.begin(), order.end(), [&](int x, int y) {
            const int dx = depth[static_cast<size_t>(x)], dy = depth[static_cast<size_t>(y)];
            return dx != dy ? dx > dy : x < y;
        });
        for (int i : order) {
            REDUX_MPI(
                pair(holders[static_cast<size_t>(i)], holders[static_cast<size_t>(parent[static_cast<size_t>(i)])]));
        }
        return MPI_SUCCESS;
    }

    // Absent ranks are told where to send before they come, so that each sends the moment it arrives, without a
    // round trip to the root. Under a commutative op to the root, while it has room, once the first pair is made
    // (ranks absent then are late). Otherwise to an idle neighbouring holder, when nobody folds and at most the
    // depth of a binomial tree are absent (nothing else can happen before they come).
    int push_to_absent() {
        if (a_.commutative) {
            for (int late = 0; late < size_ && paired_once_ && root_has_room(); ++late) {
                const auto at = static_cast<size_t>(late);
                if (!arrived_[at] && !gone_[at]) REDUX_MPI(pair(late, rank_));
            }
            return MPI_SUCCESS;
        }
        if (absent_ == 0 || absent_ > depth_ || busy()) return MPI_SUCCESS;
        for (int late = 0; late < size_; ++late) {
            const auto at = static_cast<size_t>(late);
            if (arrived_[at] || gone_[at]) continue;
            for (int x : idle_order_) {
                if (neighbours(x, late)) {
                    REDUX_MPI(pair(late, x));
                    break;
                }
            }
        }
        return MPI_SUCCESS;
    }
    // Under a commutative op the root takes partial results to fold while it has fewer than ceil(log2 size) to
    // do, as many as the root of a binomial tree folds, idle or not: a holder idle alone, or an absent rank, sends
    // to it at once rather than wait for a partner.
    bool root_has_room() const { return outstanding_[static_cast<size_t>(rank_)] < depth_; }
    size_t pairable() const {
        const bool root_idle = std::find(idle_order_.begin(), idle_order_.end(), rank_) != idle_order_.end();
        return idle_order_.size() + (a_.commutative && !root_idle && root_has_room() ? 1 : 0);
    }
    bool neighbours(int x, int y) const {
        const auto a = static_cast<size_t>(x), b = static_cast<size_t>(y);
        return hi_[a] + 1 == lo_[b] || hi_[b] + 1 == lo_[a];
    }

    const FamilyArgs& a_;
    const ElementLayout& layout_;
    MPI_Comm comm_;
    int rank_, size_;
    FamilyScratch& scratch_;
    const DynBatches& batches_;
    TreeDynState& state_;
    Vector acc_{};
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
};

}  // namespace

int run_tree_dyn(const FamilyArgs& a, const ElementLayout& layout, MPI_Comm comm, int rank, int size,
                 FamilyScratch& scratch, const DynBatches& batches) {
    return TreeDyn(a, layout, comm, rank, size, scratch, batches).run();
}

}  // namespace redux
