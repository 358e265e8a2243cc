// Keys that only nonblocking calls have used, planned at the communicator's next blocking reduction
// (pending_calls.hpp), and the blocking calls on copies that plan a key and let auto decide it, for a persistent
// init and for those keys alike.
#include "api/pending_calls.hpp"

#include "api/route.hpp"
#include "api/user_ops.hpp"
#include "mpi/mpi_check.hpp"
#include "mpi/op_types.hpp"
#include "mpi/yielding.hpp"

#include <cstdint>
#include <new>
#include <utility>
#include <vector>

namespace redux {

namespace {

// What every rank's key of one call holds alike (no handle: their values differ between processes), folded into an
// int that is not INT_MIN (its negation must be an int).
int key_digest(const PlanKey& k) {
    uint64_t h = 1469598103934665603ULL;
    for (const int64_t v :
         {static_cast<int64_t>(k.collective), static_cast<int64_t>(k.root), static_cast<int64_t>(k.count),
          static_cast<int64_t>(k.type_size), static_cast<int64_t>(k.commutative), static_cast<int64_t>(k.algorithm),
          static_cast<int64_t>(k.limit), static_cast<int64_t>(k.segment_bytes)}) {
        h = (h ^ static_cast<uint64_t>(v)) * 1099511628211ULL;
    }
    return static_cast<int>(h % 2147483647U);
}

}  // namespace

PendingCall::PendingCall(PendingCall&& o) noexcept { *this = std::move(o); }

PendingCall& PendingCall::operator=(PendingCall&& o) noexcept {
    if (this == &o) return *this;
    std::swap(key, o.key);
    std::swap(collective, o.collective);
    std::swap(count, o.count);
    std::swap(root, o.root);
    std::swap(datatype, o.datatype);
    std::swap(owns_datatype, o.owns_datatype);
    std::swap(op, o.op);
    std::swap(op_function, o.op_function);
    std::swap(options, o.options);
    std::swap(data, o.data);
    std::swap(copied, o.copied);
    return *this;
}

PendingCall::~PendingCall() {
    int finalized = 1;
    if (owns_datatype && MPI_Finalized(&finalized) == MPI_SUCCESS && !finalized) MPI_Type_free(&datatype);
}

void note_pending(CommState& state, const ReduceCall& call, const PlanKey& key, const ElementLayout& layout) {
    // What decides whether a call is kept is the same on every rank (a correct program's calls, in order); what
    // can fail on one rank (an allocation, a copy) leaves an entry that is not usable, which the agreement drops.
    if (state.pending_calls.size() >= kMaxCachedPlans) return;
    for (const PendingCall& kept : state.pending_calls) {
        if (kept.key == key) return;
    }
    void* function = nullptr;
    if (!is_predefined(call.op) && (function = op_function(call.op)) == nullptr) return;
    const int whole = call.collective == Collective::reduce_scatter_block ? call.count * state.size : call.count;
    if (static_cast<size_t>(layout.type_size) * static_cast<size_t>(whole) > kMostPendingBytes) return;
    // Every rank's next blocking reduction on the communicator asks route(): no thread record or recent call made
    // before this one answers it.
    forget_lookups();
    try {
        state.pending_calls.emplace_back();
    } catch (...) {
        state.pending_lost = true;
        return;
    }
    PendingCall& p = state.pending_calls.back();
    p.key = key;
    p.collective = call.collective;
    p.count = call.count;
    p.root = call.root;
    p.op = call.op;
    p.op_function = function;
    p.options = call.options;
    p.datatype = call.datatype;
    // The whole vector this rank puts in: the send buffer, or in place the receive buffer (route_known has judged
    // where MPI_IN_PLACE may be).
    const void* own = call.sendbuf == MPI_IN_PLACE ? call.recvbuf : call.sendbuf;
    try {
        p.data = ElementBuffer(layout, whole);
        std::vector<char> pack_scratch;
        if (copy_elements(own, p.data.data(), whole, call.datatype, layout, pack_scratch) != MPI_SUCCESS) return;
    } catch (...) {
        return;
    }
    if (!layout.named) {
        if (MPI_Type_dup(call.datatype, &p.datatype) != MPI_SUCCESS) return;
        p.owns_datatype = true;
    }
    p.copied = true;
}

namespace {

// plan_pending's work, after it took the kept calls off the state: the agreement, then the planning.
int plan_kept(CommState& state, MPI_Comm user_comm, std::vector<PendingCall>& calls, bool lost) {
    // Every rank keeps the same calls but where one was lost on some rank (not even an entry made): then none is
    // planned. The agreement (a maximum): the number of calls and its negation (-1 where one was lost), then for
    // each call whether it is usable (negated: the least) and a digest of its key and the digest's negation.
    const int n = lost ? -1 : static_cast<int>(calls.size());
    int most[2] = {n, -n};
    REDUX_MPI(allreduce_yielding(MPI_IN_PLACE, most, 2, MPI_INT, MPI_MAX, state.comm));
    if (most[0] != -most[1] || n <= 0) return MPI_SUCCESS;
    std::vector<int> agreed(3 * calls.size());
    for (size_t i = 0; i < calls.size(); ++i) {
        const PendingCall& p = calls[i];
        const bool usable = p.copied && (is_predefined(p.op) || op_function(p.op) == p.op_function);
        const int digest = key_digest(p.key);
        agreed[3 * i] = usable ? -1 : 0;
        agreed[3 * i + 1] = digest;
        agreed[3 * i + 2] = -digest;
    }
    REDUX_MPI(allreduce_yielding(MPI_IN_PLACE, agreed.data(), 3 * n, MPI_INT, MPI_MAX, state.comm));
    for (size_t i = 0; i < calls.size(); ++i) {
        if (agreed[3 * i + 1] != -agreed[3 * i + 2]) return MPI_SUCCESS;
    }
    double budget_s = kInitTrialSeconds;
    for (size_t i = 0; i < calls.size(); ++i) {
        if (agreed[3 * i] == 0) continue;
        PendingCall& p = calls[i];
        if (budget_s <= 0) {
            state.pending_calls.push_back(std::move(p));  // for the next blocking reduction
            continue;
        }
        const ReduceCall call{p.data.data(),       nullptr,     p.count,
                              p.datatype,          p.op,        p.root,
                              user_comm,           p.options,   defaults_but_algorithm(p.options),
                              lookup_generation(), p.collective};
        double spent_s = 0;
        REDUX_MPI(decide_on_copies(call, budget_s, spent_s, /*input_is_copy=*/true));
        budget_s -= spent_s;
    }
    return MPI_SUCCESS;
}

}  // namespace

int plan_pending(CommState& state, MPI_Comm user_comm) {
    std::vector<PendingCall> calls;
    calls.swap(state.pending_calls);
    const bool lost = state.pending_lost;
    state.pending_lost = false;
    const int rc = plan_kept(state, user_comm, calls, lost);
    // The calls left for the next blocking reduction: no thread record or recent call made before now answers it.
    forget_lookups();
    return rc;
}

int decide_on_copies(const ReduceCall& c, double budget_s, double& spent_s, bool input_is_copy) {
    spent_s = 0;
    ElementLayout layout;
    if (describe_layout(c.datatype, layout) != MPI_SUCCESS || c.count <= 0) return MPI_SUCCESS;
    int size = 1, rank = 0;
    REDUX_MPI(MPI_Comm_size(c.comm, &size));
    REDUX_MPI(MPI_Comm_rank(c.comm, &rank));
    const int whole = c.collective == Collective::reduce_scatter_block ? c.count * size : c.count;
    const bool in_place = c.sendbuf == MPI_IN_PLACE;
    const bool receives = c.collective != Collective::reduce || rank == c.root;
    // Copies of the call's data: the send buffer's, or in place the receive buffer's.
    const int send_count = in_place || input_is_copy ? 0 : whole;
    const int recv_count = receives ? (in_place ? whole : c.count) : 0;
    const ElementBuffer send(layout, send_count), recv(layout, recv_count);
    std::vector<char> pack_scratch;
    if (in_place) {
        REDUX_MPI(copy_elements(c.recvbuf, recv.data(), whole, c.datatype, layout, pack_scratch));
    } else if (!input_is_copy) {
        REDUX_MPI(copy_elements(c.sendbuf, send.data(), whole, c.datatype, layout, pack_scratch));
    }
    const void* input = input_is_copy ? c.sendbuf : send.data();
    double start_s = -1;  // from the call after the one that made the key's plan (calibration is not counted)
    for (int call = 0; call < AutoSelect::kMaxCallsToDecide; ++call) {
        const void* sendbuf = in_place ? MPI_IN_PLACE : input;
        void* recvbuf = receives ? recv.data() : nullptr;
        switch (c.collective) {
            case Collective::reduce:
                REDUX_MPI(
                    redux_reduce_ex(sendbuf, recvbuf, c.count, c.datatype, c.op, c.root, c.comm, &c.options, nullptr));
                break;
            case Collective::allreduce:
                REDUX_MPI(redux_allreduce_ex(sendbuf, recvbuf, c.count, c.datatype, c.op, c.comm, &c.options, nullptr));
                break;
            case Collective::reduce_scatter_block:
                REDUX_MPI(redux_reduce_scatter_block_ex(sendbuf, recvbuf, c.count, c.datatype, c.op, c.comm, &c.options,
                                                        nullptr));
                break;
        }
        Route known;
        REDUX_MPI(route_known(c, known));
        if (known.state == nullptr) continue;
        if (known.plan->algorithm != REDUX_ALGORITHM_AUTO || known.plan->plan->auto_select.decided()) break;
        if (start_s < 0) start_s = MPI_Wtime();
        spent_s = MPI_Wtime() - start_s;
        REDUX_MPI(allreduce_yielding(MPI_IN_PLACE, &spent_s, 1, MPI_DOUBLE, MPI_MAX, c.comm));
        if (spent_s > budget_s) break;
    }
    return MPI_SUCCESS;
}

}  // namespace redux
