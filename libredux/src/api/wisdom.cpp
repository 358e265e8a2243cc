// Wisdom (wisdom.hpp): what makes a decision valid again, and when the ranks read, agree on and keep it.
//
// An entry holds for a job and a call, texts compared whole:
//   job   "ranks=8 nodes=2 shape=<hash> mpi=Open MPI 4.1.4 libredux=0.9.0 chunk=65536 window=4": the communicator's
//         size, its nodes, the ranks' places on them (each rank's node, numbered by first appearance, and package:
//         the same layout on other hosts is the same shape), the MPI library and libredux, and the executor's knobs;
//   call  "reduce count=1000 datatype=MPI_DOUBLE op=MPI_SUM commutative=1 root=0": the collective and what
//         decides its key. A user op is named by its function (api/user_ops.hpp); an op without a name, a derived
//         datatype, costs given by the call or the environment (REDUX_D, REDUX_C, segment sizes) are not kept.
// The file is read once per process, by the first communicator whose rank 0 it is, at the first key that may use
// it; each communicator's rank 0 broadcasts its job's entries. Rank 0 alone writes. A key's first call agrees, by an
// allreduce of a hash of each rank's entry text, that every rank found the same entry: ranks whose programs differ (the
// same op named differently) never start differently. Decisions are queued on rank 0 and written at MPI_Finalize (or
// once kFlushEvery are queued): a write is a file published whole and flushed to disk, which a call should not wait
// for.
#include "api/wisdom.hpp"

#include "api/mpi_identity.h"
#include "api/user_ops.hpp"
#include "mpi/mpi_check.hpp"
#include "mpi/yielding.hpp"
#include "plan/family.hpp"
#include "util/fnv1a.hpp"

#include <redux/version.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <optional>
#include <vector>

namespace redux {
namespace {

constexpr size_t kFlushEvery = 64;

std::string job_text(const CommState& state) {
    std::vector<int32_t> node_number;  // by node id, in order of first appearance
    std::string places;
    for (const RankPlace& place : state.topology.place) {
        auto at = std::find(node_number.begin(), node_number.end(), place.node);
        if (at == node_number.end()) at = node_number.insert(node_number.end(), place.node);
        places += std::to_string(at - node_number.begin()) + "." + std::to_string(place.package) + " ";
    }
    char shape[17];
    std::snprintf(shape, sizeof shape, "%016llx", static_cast<unsigned long long>(fnv1a(places)));
    const Config& cfg = state.config;
    return "ranks=" + std::to_string(state.size) + " nodes=" + std::to_string(node_number.size()) + " shape=" + shape +
           " mpi=" + loaded_mpi_library().describe() + " libredux=" REDUX_VERSION_STRING +
           " chunk=" + std::to_string(cfg.knobs.chunk_bytes_asked ? cfg.knobs.chunk_bytes : 0) +
           " window=" + std::to_string(cfg.knobs.recv_window);
}

// The key's text, or "" where its decisions are not kept (wisdom.cpp's comment says which).
std::string call_text(const CommState& state, const PlanKey& key, MPI_Op op) {
    const Config& cfg = state.config;
    if (key.algorithm != REDUX_ALGORITHM_AUTO || key.transfer_s >= 0 || key.compute_s >= 0 || key.segment_bytes >= 0 ||
        cfg.transfer_s || cfg.compute_s || cfg.segment_bytes >= 0 || key.datatype == MPI_DATATYPE_NULL) {
        return "";
    }
    const std::string op_name = op_identity(op);
    if (op_name.empty()) return "";
    char type_name[MPI_MAX_OBJECT_NAME] = "";
    int length = 0;
    if (MPI_Type_get_name(key.datatype, type_name, &length) != MPI_SUCCESS || length == 0) return "";
    return std::string(collective_name(key.collective)) + " count=" + std::to_string(key.count) +
           " datatype=" + type_name + " op=" + op_name + " commutative=" + (key.commutative ? "1" : "0") +
           " root=" + std::to_string(key.root);
}

// The file's entries, every job's, as this process first read them (a program may make thousands of communicators;
// the file is read once), with one warning where it is not used.
const WisdomLoad& file_entries(const std::string& path) {
    static std::mutex mutex;
    static std::optional<WisdomLoad> read;
    const std::lock_guard<std::mutex> lock(mutex);
    if (!read) {
        read = load_wisdom(path, "");
        if (read->status == WisdomStatus::refused || read->status == WisdomStatus::stale) {
            std::fprintf(stderr, "libredux: wisdom file %s %s; auto decides without it\n", path.c_str(),
                         read->reason.c_str());
        }
    }
    return *read;
}

// Rank 0 reads the file's entries for the communicator's job and broadcasts them (as the file's JSON).
int load(CommState& state) {
    REDUX_MPI(gather_topology_once(state));
    state.wisdom_job = job_text(state);
    std::string text;
    if (state.rank == 0) {
        std::vector<WisdomEntry> job_entries;
        for (const WisdomEntry& e : file_entries(state.config.wisdom_path).entries) {
            if (e.job == state.wisdom_job) job_entries.push_back(e);
        }
        text = wisdom_entries_text(job_entries);
    }
    long long bytes = static_cast<long long>(text.size());
    REDUX_MPI(bcast_yielding(&bytes, 1, MPI_LONG_LONG, 0, state.comm));
    text.resize(static_cast<size_t>(bytes));
    REDUX_MPI(bcast_yielding(text.data(), static_cast<int>(bytes), MPI_CHAR, 0, state.comm));
    state.wisdom.clear();
    if (!wisdom_entries_from_text(text, state.wisdom)) return MPI_ERR_INTERN;  // rank 0 wrote it from valid entries
    state.wisdom_loaded = true;
    return MPI_SUCCESS;
}

// Rank 0's queue for the file: entries to add, entries to drop.
struct Pending {
    std::vector<WisdomEntry> add;
    std::vector<WisdomKey> drop;
};
std::mutex g_mutex;
Pending g_pending;
std::string g_path;

void flush_locked() {
    if (g_path.empty() || (g_pending.add.empty() && g_pending.drop.empty())) return;
    std::string error;
    if (!store_wisdom(g_path, g_pending.add, g_pending.drop, error))
        std::fprintf(stderr, "libredux: %s\n", error.c_str());
    g_pending = {};
}

void queue(const CommState& state, Pending change) {
    const std::lock_guard<std::mutex> lock(g_mutex);
    g_path = state.config.wisdom_path;
    for (WisdomEntry& e : change.add) {
        auto& add = g_pending.add;
        add.erase(std::remove_if(add.begin(), add.end(),
                                 [&](const WisdomEntry& old) { return old.job == e.job && old.call == e.call; }),
                  add.end());
        add.push_back(std::move(e));
    }
    for (auto& d : change.drop) g_pending.drop.push_back(std::move(d));
    if (g_pending.add.size() + g_pending.drop.size() >= kFlushEvery) flush_locked();
}

}  // namespace

int key_wisdom(CommState& state, const PlanKey& key, MPI_Op op, KeyWisdom& out) {
    out = {};
    if (!state.config.wisdom) return MPI_SUCCESS;
    out.call = call_text(state, key, op);
    if (key.algorithm != REDUX_ALGORITHM_AUTO || state.calls_before_plan.count(key) != 0) return MPI_SUCCESS;
    // The key's first call: every rank takes part, whatever its text.
    if (!state.wisdom_loaded) REDUX_MPI(load(state));
    const WisdomEntry* found = nullptr;
    if (!out.call.empty()) {
        for (const WisdomEntry& e : state.wisdom) {
            if (e.call == out.call) found = &e;
        }
    }
    // Every rank found an entry of the same text: the largest hash and the largest complement are one hash.
    const unsigned long long hash = found != nullptr ? fnv1a(out.call) | 1ull : 0ull;
    const unsigned long long mine[2] = {hash, ~hash};
    unsigned long long agreed[2] = {0, 0};
    REDUX_MPI(allreduce_yielding(mine, agreed, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, state.comm));
    if (found != nullptr && agreed[0] == hash && ~agreed[1] == hash) out.entry = found;
    return MPI_SUCCESS;
}

void keep_decision(const CommState& state, const CachedPlan& cached) {
    if (state.rank != 0 || cached.wisdom_call.empty() || !state.wisdom_loaded) return;
    const AutoSelect& select = cached.auto_select;
    WisdomEntry e;
    // An arrival contender with the arrivals it was made for: the next job makes it again for them
    if (select.choice() == AutoSelect::Run::planned && select.arrivals() && select.tree() == select.arrival_tree()) {
        e.lateness_s = cached.trees[static_cast<size_t>(select.tree())].lateness_s;
        if (e.lateness_s.empty()) return;
    }
    e.job = state.wisdom_job;
    e.call = cached.wisdom_call;
    e.strategy = select.choice() == AutoSelect::Run::native ? std::string("native")
                                                            : cached.trees[static_cast<size_t>(select.tree())].name();
    e.chosen_s = select.choice_in_place_s();
    e.native_s = select.native_s();
    e.compute_s = cached.costs.compute_s;
    e.compute_call_s = cached.costs.compute_call_s;
    e.created_unix = static_cast<int64_t>(std::time(nullptr));
    e.second_look = select.second_look_pending();
    const NonblockingTrials* nonblocking = cached.nonblocking.get();
    e.nonblocking = cached.wisdom_nonblocking;  // until this job's weighing decides
    if (nonblocking != nullptr && nonblocking->phase() == NonblockingTrials::Phase::native) e.nonblocking = "native";
    if (nonblocking != nullptr && nonblocking->phase() == NonblockingTrials::Phase::tree) {
        e.nonblocking = cached.trees[static_cast<size_t>(nonblocking->tree())].name();
    }
    queue(state, {{std::move(e)}, {}});
}

void drop_decision(const CommState& state, const CachedPlan& cached) {
    if (state.rank != 0 || cached.wisdom_call.empty() || !state.wisdom_loaded) return;
    queue(state, {{}, {{state.wisdom_job, cached.wisdom_call}}});
}

void flush_wisdom() {
    const std::lock_guard<std::mutex> lock(g_mutex);
    flush_locked();
}

}  // namespace redux
