// Tree-dyn, the root's matchmaking (the protocol is tree_dyn.hpp's): it learns which ranks hold a partial result
// and are idle, pairs them (a batch along the planner's tree under a commutative op; neighbouring intervals of
// ranks otherwise), tells absent ranks in advance where to send, and sends each rank its orders of a matching in
// one message.
#include "exec/tree_dyn.hpp"

#include "mpi/mpi_check.hpp"
#include "mpi/tags.hpp"
#include "mpi/yielding.hpp"
#include "plan/predict/bounds.hpp"

#include <algorithm>

namespace redux {
// The root's view at the start of a call: every rank its own holder, none arrived but the root.
void TreeDyn::start_matching() {
    const auto n = static_cast<size_t>(size_);
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
}

// The root, matchmaker: rank r says it has arrived, or has folded one of the partial results it was told to
// receive.
void TreeDyn::on_ready(int r, bool arrival) {
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
int TreeDyn::expect_ready(int r, Kind kind) {
    ready_in_.push_back(0);  // reserved: the buffers stay put while received into
    return post(MPI_Irecv(&ready_in_.back(), 1, MPI_INT, r, tags::kDynReady, call_.comm, next(kind, r)));
}

bool TreeDyn::busy() const {
    return std::any_of(outstanding_.begin(), outstanding_.end(), [](int32_t o) { return o > 0; });
}

// `from` sends all it holds to `to`, which folds it: orders to both (the root's own receive posted here).
// `from` may not have arrived yet, and either may still be folding: the orders wait for them.
int TreeDyn::pair(int from, int to) {
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
void TreeDyn::give(int r, std::array<int, 3> order) {
    auto& box = outbox_[static_cast<size_t>(r)];
    box.insert(box.end(), order.begin(), order.end());
}

int TreeDyn::send_orders() {
    for (size_t r = 0; r < outbox_.size(); ++r) {
        std::vector<int>& box = outbox_[r];
        if (box.empty()) continue;
        const size_t at = sent_orders_.size();
        if (at + box.size() > sent_orders_.capacity()) return MPI_ERR_INTERN;  // would move orders in flight
        sent_orders_.insert(sent_orders_.end(), box.begin(), box.end());
        box.clear();
        REDUX_MPI(post(MPI_Isend(sent_orders_.data() + at, static_cast<int>(sent_orders_.size() - at), MPI_INT,
                                 static_cast<int>(r), tags::kDynOrder, call_.comm, next(kSent))));
    }
    return MPI_SUCCESS;
}

// While ranks are absent, idle holders wait up to batches_.gather_s() from the first moment two could pair,
// for others to pair with at once.
int TreeDyn::match() {
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
int TreeDyn::pair_idle() {
    if (pairable() < 2) return MPI_SUCCESS;
    std::vector<int>& holders = state_.holders;
    holders = idle_order_;
    if (call_.commutative) {
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
int TreeDyn::pair_along_tree(const std::vector<int>& holders) {
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
        REDUX_MPI(pair(holders[static_cast<size_t>(i)], holders[static_cast<size_t>(parent[static_cast<size_t>(i)])]));
    }
    return MPI_SUCCESS;
}

// Absent ranks are told where to send before they come, so that each sends the moment it arrives, without a
// round trip to the root. Under a commutative op to the root, while it has room, once the first pair is made
// (ranks absent then are late). Otherwise to an idle neighbouring holder, when nobody folds and at most the
// depth of a binomial tree are absent (nothing else can happen before they come).
int TreeDyn::push_to_absent() {
    if (call_.commutative) {
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

size_t TreeDyn::pairable() const {
    const bool root_idle = std::find(idle_order_.begin(), idle_order_.end(), rank_) != idle_order_.end();
    return idle_order_.size() + (call_.commutative && !root_idle && root_has_room() ? 1 : 0);
}

bool TreeDyn::neighbours(int x, int y) const {
    const auto a = static_cast<size_t>(x), b = static_cast<size_t>(y);
    return hi_[a] + 1 == lo_[b] || hi_[b] + 1 == lo_[a];
}

}  // namespace redux
