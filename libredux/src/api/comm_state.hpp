// What libredux keeps per communicator: a private duplicate for its own traffic and the plans it has made,
// attached to the user's communicator with an attribute keyval and freed with it. See comm_state.cpp.
#pragma once

#include "calib/compute_cost.hpp"
#include "calib/link_calibration.hpp"
#include "calib/topology.hpp"
#include "exec/exchanges.hpp"
#include "exec/workspace.hpp"
#include "mpi/element_buffer.hpp"
#include "plan/planner.hpp"
#include "policy/auto_select.hpp"
#include "policy/config.hpp"
#include "policy/nonblocking_trials.hpp"
#include "policy/report.hpp"
#include "policy/wisdom_file.hpp"
#include "redux/redux.h"

#include <mpi.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace redux {

class Lines;  // api/operations.hpp

// What a plan is cached under. Making a plan is collective (the ranks agree on c), so finding a key or not must
// give the same answer on every rank: the key holds only what every rank of a correct program passes alike,
// and no handle MPI may reuse after a free. So: no layout (a derived datatype may place its data differently on
// each rank, as long as the type signature is the same: the executor's buffers follow each rank's own layout),
// the handles of predefined datatypes and ops only (all derived datatypes and all user ops share the null
// handle: a second one on the same key reuses the plan made with the first one's cost c -- speed, never
// correctness, is at stake).
struct PlanKey {
    Collective collective = Collective::reduce;
    int root = 0;
    int count = 0;
    int type_size = 0;
    MPI_Datatype datatype = MPI_DATATYPE_NULL;  // predefined only
    bool commutative = true;
    MPI_Op op = MPI_OP_NULL;                           // predefined only
    redux_algorithm algorithm = REDUX_ALGORITHM_AUTO;  // resolved: auto or a strategy, never CONFIGURED/NATIVE
    double transfer_s = -1, compute_s = -1;            // the call's own costs (redux_options); < 0: the library's
    int limit = 0;                                     // the call's K (redux_options), for the strategies that need one
    long long segment_bytes = -1;                      // the call's (redux_options); < 0: the library's
    bool lower_bound_moved = false;  // the datatype's lower bound is not 0: a known native failure depends on it

    auto tie() const {
        return std::tie(collective, root, count, type_size, datatype, commutative, op, algorithm, transfer_s, compute_s,
                        limit, segment_bytes, lower_bound_moved);
    }
    bool operator<(const PlanKey& o) const { return tie() < o.tie(); }
    bool operator==(const PlanKey& o) const { return tie() == o.tie(); }
};

// One tree a key may run, as this rank's program; for MPI_Allreduce and MPI_Reduce_scatter_block, one of their
// algorithms (plan/family.hpp): a tree (the reduction to rank 0, then `spread`) or another.
struct PlannedTree {
    Strategy strategy = Strategy::optimal;
    double predicted_s = 0;  // its predicted makespan
    int segments = 1;        // pipelined in this many segments
    RankProgram program;
    FamilyAlgorithm family = FamilyAlgorithm::tree;
    SpreadRole spread;               // a family tree's second phase at this rank
    DynBatches batches;              // tree-dyn's
    int64_t flight_bytes = 0;        // recursive halving's: what it sends ahead of its partner's pieces (family_window)
    int late_rank = -1;              // late-rank's: the rank expected last
    std::vector<double> lateness_s;  // an arrival contender's: by rank, the lateness it was made for (wisdom.hpp)

    // Its name for people and its public value: the strategy's, or the family algorithm's.
    std::string name() const;
    redux_algorithm algorithm() const;
};

struct CachedPlan {
    Costs costs;  // what the plan was made with
    // The executor's knobs for the key: the configuration's, the chunk at least op_piece_bytes (plan/exec_limits.hpp)
    ExecKnobs knobs;
    int64_t op_piece_bytes = 0;  // the op's per-application cost's floor on the pieces it is applied to
    // [0]: the strategy asked for, or the model's choice; under auto, its runners-up after it (plan/select.hpp),
    // which auto measures too. Never empty.
    std::vector<PlannedTree> trees;
    Workspace workspace;              // the executor's, shared by the trees: one runs at a time
    AutoSelect auto_select;           // REDUX_ALGORITHM=auto only: which tree runs, or native
    PlanReport report;                // for the decision log
    std::vector<char> in_place_copy;  // the root's data, when auto runs native from a copy (auto_select.hpp)
    std::vector<char> recv_copy;      // the root's result, when auto runs native into a buffer of its own
    std::vector<char> pack_scratch;   // for copying recv_copy into place
    std::string wisdom_call;          // the key in the wisdom file (api/wisdom.hpp); empty: its decisions not kept
    // Under auto, what the key's nonblocking calls run (api/nonblocking_auto.hpp), made at the first of them; shared
    // with the operations that time them.
    std::shared_ptr<NonblockingTrials> nonblocking;
    // What an earlier job's weighing of the key's nonblocking calls settled on (WisdomEntry::nonblocking), where the
    // key started from the wisdom file: the weighing's one contender beside the library's own, and what the file
    // keeps until this job's weighing decides.
    std::string wisdom_nonblocking;
};

// What route() answers for a call that runs a plan (api/route.hpp): the plan and the facts of the call that the
// plan's key does not hold.
struct PlanRoute {
    CachedPlan* plan = nullptr;
    redux_algorithm algorithm = REDUX_ALGORITHM_AUTO;  // resolved: auto or a strategy, never CONFIGURED/NATIVE
    bool commutative = true;
    // The datatype and op are predefined: handles MPI never frees, so equal handles mean equal types and ops,
    // and a cache may answer a later call with the same handles (RecentCalls, api/settled_native.hpp).
    bool predefined_handles = false;
    ElementLayout layout;
};

// A recent call whose datatype and op are predefined, and route()'s answer for it: a call that repeats its
// arguments (the common case: a loop reducing the same buffer, or a few reduces taking turns) gets the same
// answer without checking its handles, describing the datatype or looking the key up again. Only the buffers
// are judged again (api/route.cpp).
struct RecentCall {
    Collective collective = Collective::reduce;
    int count = 0;
    int root = 0;
    MPI_Datatype datatype = MPI_DATATYPE_NULL;
    MPI_Op op = MPI_OP_NULL;
    redux_options options{};
    PlanRoute route;  // route.plan null: an empty slot

    bool repeats(Collective k, int c, MPI_Datatype t, MPI_Op o, int r, const redux_options& opts) const {
        return route.plan != nullptr && k == collective && c == count && t == datatype && o == op && r == root &&
               opts.algorithm == options.algorithm && opts.transfer_s == options.transfer_s &&
               opts.compute_s == options.compute_s && opts.limit == options.limit &&
               opts.segment_bytes == options.segment_bytes;
    }
};

// The last few distinct calls, found by a scan (a program may alternate a few reduces), valid in the lookup
// generation they were remembered in (below): a plan evicted or a state deleted since empties them all.
class RecentCalls {
public:
    static constexpr size_t kSize = 8;

    const RecentCall* find(Collective collective, int count, MPI_Datatype datatype, MPI_Op op, int root,
                           const redux_options& opts, uint64_t generation) const {
        if (generation != generation_) return nullptr;
        for (const RecentCall& call : calls_) {
            if (call.repeats(collective, count, datatype, op, root, opts)) return &call;
        }
        return nullptr;
    }
    // Where the same arguments are remembered already, their slot; else the oldest. `generation`: the one the
    // call's route started in.
    void remember(const RecentCall& call, uint64_t generation) {
        if (generation != generation_) {
            for (RecentCall& slot : calls_) slot.route.plan = nullptr;
            generation_ = generation;
        }
        for (RecentCall& slot : calls_) {
            if (slot.repeats(call.collective, call.count, call.datatype, call.op, call.root, call.options)) {
                slot = call;
                return;
            }
        }
        calls_[next_] = call;
        next_ = (next_ + 1) % kSize;
    }

private:
    std::array<RecentCall, kSize> calls_{};
    size_t next_ = 0;  // the slot a new call takes
    uint64_t generation_ = 0;
};

// A nonblocking call of a key the communicator held no plan for, kept for its next blocking reduction to plan
// (api/pending_calls.hpp): the call's arguments, and a copy of this rank's data to plan and decide on.
struct PendingCall {
    PendingCall() = default;
    PendingCall(const PendingCall&) = delete;
    PendingCall& operator=(const PendingCall&) = delete;
    PendingCall(PendingCall&& o) noexcept;
    PendingCall& operator=(PendingCall&& o) noexcept;
    ~PendingCall();  // frees the datatype's duplicate

    PlanKey key;
    Collective collective = Collective::reduce;
    int count = 0;
    int root = 0;
    MPI_Datatype datatype = MPI_DATATYPE_NULL;  // a derived one: the call's duplicated (owns_datatype)
    bool owns_datatype = false;
    MPI_Op op = MPI_OP_NULL;
    void* op_function = nullptr;  // a user op's, as MPI_Op_create was told: the op is planned only while it runs it
    redux_options options{};
    ElementBuffer data;   // this rank's input, the whole vector (a reduce-scatter-block's: every rank's blocks)
    bool copied = false;  // data and datatype made: usable
};

struct CommState {
    MPI_Comm comm = MPI_COMM_NULL;  // private duplicate, errors returned
    Config config;                  // this process's, with the shared settings agreed on rank 0's
    int rank = 0;
    int size = 1;
    std::map<PlanKey, std::unique_ptr<CachedPlan>> plans;
    std::deque<PlanKey> plan_order;  // oldest first, for eviction
    PlanKey last_key;                // the plan of the previous call: a repeated call skips the map
    CachedPlan* last_plan = nullptr;
    RecentCalls recent_calls;
    std::map<PlanKey, int> calls_before_plan;  // auto's keys not planned yet: their calls so far (first_calls.hpp)
    // c of a predefined op on a predefined datatype, as measured (and agreed) for an earlier key, and the elements
    // it was measured on (planning_costs.cpp): a key that would measure no more elements takes it.
    struct MeasuredOp {
        OpCost cost;
        int sample = 0;
    };
    std::map<std::pair<MPI_Datatype, MPI_Op>, MeasuredOp> measured_ops;
    bool topology_known = false;  // gather_topology_once
    bool links_known = false;     // links calibrated, on the first plan that needs d
    Topology topology;
    LinkCalibration links;
    // The wisdom file's entries for this communicator's job (api/wisdom.hpp), read by rank 0 and shared, on the first
    // key that may use them.
    bool wisdom_loaded = false;
    std::string wisdom_job;
    std::vector<WisdomEntry> wisdom;
    // The communicators its nonblocking and persistent operations run on (api/operations.hpp), made with the state.
    std::shared_ptr<Lines> lines;
    std::vector<PendingCall> pending_calls;  // in call order, one per key (api/pending_calls.hpp)
    bool pending_lost = false;               // a call was to be kept and no entry could be made
    bool has_pending() const { return pending_lost || !pending_calls.empty(); }
    // Keys whose nonblocking calls auto weighed since the last blocking reduction, in the order of their first such
    // call: that reduction agrees on their times first (api/nonblocking_auto.hpp).
    std::vector<std::shared_ptr<NonblockingTrials>> weighing;
};

constexpr size_t kMaxCachedPlans = 64;  // per communicator; the oldest plan goes first

// Bumped whenever a cached answer could point at something gone: a communicator's state (deleted with its
// communicator, or at MPI_Finalize) or a plan (evicted). find_comm_state's last answer, RecentCalls and the
// thread's records of route()'s answers (settled_native.hpp) are used only in the generation they were made in.
extern __attribute__((visibility("hidden"))) std::atomic<uint64_t> g_lookup_generation;
inline uint64_t lookup_generation() { return g_lookup_generation.load(std::memory_order_acquire); }
inline void forget_lookups() { g_lookup_generation.fetch_add(1, std::memory_order_acq_rel); }

// The state of `user_comm` if libredux has made one, else null. Cheap: the calling thread's last answer while no
// state has been deleted since, else one attribute lookup.
CommState* find_comm_state(MPI_Comm user_comm);

// Whether MPI is initialized and not finalizing: MPI_Initialized and MPI_Finalized until libredux's first
// call has set its hooks, then two atomic loads (MPI_Finalize runs the hook on MPI_COMM_SELF first thing).
bool mpi_running();

// How many communicator states exist in this process (made and not yet freed with their communicator): for
// tests that check freed communicators leave nothing behind.
size_t live_comm_states();

// state.topology, gathered on the first call that needs it (collective over state.comm then: every rank asks at the
// same call): the first plan that needs d, or the wisdom file's job.
int gather_topology_once(CommState& state);

// A nonblocking reduction called on `user_comm` (an intracommunicator of 2 or more ranks) while it has no state (the
// caller has found none): a
// mark on the communicator (an attribute, gone with it), set alike by every rank, so that its next MPI_Barrier makes
// the state and the nonblocking calls after it can be kept (route.hpp, agree_at_barrier). Local.
void note_stateless_nonblocking(MPI_Comm user_comm);
bool noted_stateless_nonblocking(MPI_Comm user_comm);

// Makes the state of `user_comm`: collective over user_comm (it duplicates it, and agrees on the settings that
// change what ranks do: rank 0's are used everywhere, with one warning per process naming the variables that
// differ).
int create_comm_state(MPI_Comm user_comm, CommState*& state);

}  // namespace redux
