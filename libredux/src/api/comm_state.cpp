// Per-communicator state behind an attribute keyval (the way Open MPI's coll components and KaMPIng keep
// their own communicators): the first reduce on a communicator duplicates it -- collectively, as every rank
// enters the reduce -- and caches the duplicate, so libredux's messages can never match the user's. The
// attribute's delete callback frees the duplicate and the plans when the user frees the communicator. For
// MPI_COMM_WORLD, which is never freed, an attribute on MPI_COMM_SELF (deleted first thing in
// MPI_Finalize) deletes the state, so nothing is left behind at exit.
#include "api/comm_state.hpp"

#include "api/operations.hpp"
#include "api/process_config.hpp"
#include "api/wisdom.hpp"
#include "mpi/mpi_check.hpp"
#include "mpi/yielding.hpp"

#include <atomic>
#include <cstdint>
#include <cstdio>

#include <mutex>

namespace redux {

// Each thread's one-entry lookup cache (find_comm_state) is valid only while it holds the generation it was
// filled in, so a freed communicator's handle, reused by a new one, never finds the old state.
std::atomic<uint64_t> g_lookup_generation{0};

namespace {

int g_state_keyval = MPI_KEYVAL_INVALID;
std::atomic<size_t> g_live_states{0};
int g_finalize_keyval = MPI_KEYVAL_INVALID;
int g_stateless_keyval = MPI_KEYVAL_INVALID;  // note_stateless_nonblocking's mark
// Where MPI stands, as far as libredux has seen: 0 not known (the keyvals are not made: ask MPI), 1 running
// (the keyvals are made, so MPI_Init has been called, and MPI_Finalize has not begun), 2 MPI_Finalize began.
std::atomic<int> g_phase{0};
struct StateCache {
    MPI_Comm comm = MPI_COMM_NULL;
    CommState* state = nullptr;
    uint64_t generation = 0;
};
thread_local StateCache t_cache;

int delete_state(MPI_Comm, int, void* attribute, void*) {
    forget_lookups();
    auto* state = static_cast<CommState*>(attribute);
    if (state->comm != MPI_COMM_NULL) MPI_Comm_free(&state->comm);
    delete state;
    g_live_states.fetch_sub(1, std::memory_order_relaxed);
    return MPI_SUCCESS;
}

int at_finalize(MPI_Comm, int, void*, void*) {
    g_phase.store(2, std::memory_order_release);
    forget_lookups();
    flush_wisdom();  // the decisions of this job, for the next ones
#ifndef SMPI_H       // SimGrid's SMPI calls this once it counts MPI as finalized, and then fails every attribute call
    void* world_state = nullptr;
    int found = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, g_state_keyval, &world_state, &found);
    if (found) MPI_Comm_delete_attr(MPI_COMM_WORLD, g_state_keyval);
    MPI_Comm_free_keyval(&g_state_keyval);
    MPI_Comm_free_keyval(&g_finalize_keyval);
    MPI_Comm_free_keyval(&g_stateless_keyval);
#endif
    return MPI_SUCCESS;
}

int create_keyvals() {
    REDUX_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &g_state_keyval, nullptr));
    REDUX_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &g_finalize_keyval, nullptr));
    REDUX_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &g_stateless_keyval, nullptr));
    REDUX_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, g_finalize_keyval, nullptr));
    g_phase.store(1, std::memory_order_release);
    return MPI_SUCCESS;
}

int ensure_keyvals() {
    static std::once_flag once;
    static int keyval_rc = MPI_SUCCESS;
    std::call_once(once, [] { keyval_rc = create_keyvals(); });
    return keyval_rc;
}

// Settings seen differently by the ranks (an environment variable exported on some nodes only, a wrapper
// script setting it on one rank) would have them run different trees and wait for each other forever: every
// rank takes rank 0's, and rank 0 says once per process which variables differed.
int agree_on_settings(CommState& state) {
    state.config = config();
    SharedSettings agreed = shared_settings(state.config);
    REDUX_MPI(bcast_yielding(agreed.value, SharedSettings::kSize, MPI_DOUBLE, 0, state.comm));
    const unsigned differing = adopt_shared_settings(state.config, agreed);
    unsigned any_differing = 0;
    REDUX_MPI(allreduce_yielding(&differing, &any_differing, 1, MPI_UNSIGNED, MPI_BOR, state.comm));
    static std::once_flag warned;
    if (any_differing != 0 && state.rank == 0) {
        std::call_once(warned, [&] {
            std::fprintf(stderr,
                         "libredux: warning: settings differ between the ranks of a communicator (set on some "
                         "ranks only?): %s; every rank uses rank 0's values\n",
                         shared_setting_names(any_differing).c_str());
        });
    }
    return MPI_SUCCESS;
}

}  // namespace

std::string PlannedTree::name() const {
    return family == FamilyAlgorithm::tree ? std::string(strategy_name(strategy)) : std::string(family_name(family));
}

redux_algorithm PlannedTree::algorithm() const {
    return family == FamilyAlgorithm::tree ? public_algorithm(strategy) : public_family(family);
}

size_t live_comm_states() { return g_live_states.load(std::memory_order_relaxed); }

bool mpi_running() {
    const int phase = g_phase.load(std::memory_order_acquire);
    if (phase != 0) return phase == 1;
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    return initialized != 0 && finalized == 0;
}

CommState* find_comm_state(MPI_Comm user_comm) {
    const uint64_t generation = lookup_generation();
    if (t_cache.state != nullptr && t_cache.comm == user_comm && t_cache.generation == generation) {
        return t_cache.state;
    }
    if (ensure_keyvals() != MPI_SUCCESS) return nullptr;
    CommState* state = nullptr;
    int found = 0;
    if (MPI_Comm_get_attr(user_comm, g_state_keyval, &state, &found) != MPI_SUCCESS || !found) return nullptr;
    t_cache = {user_comm, state, generation};
    return state;
}

void note_stateless_nonblocking(MPI_Comm user_comm) {
    int inter = 0, size = 0;
    if (ensure_keyvals() != MPI_SUCCESS || MPI_Comm_test_inter(user_comm, &inter) != MPI_SUCCESS || inter ||
        MPI_Comm_size(user_comm, &size) != MPI_SUCCESS || size < 2) {
        return;
    }
    MPI_Comm_set_attr(user_comm, g_stateless_keyval, nullptr);
}

bool noted_stateless_nonblocking(MPI_Comm user_comm) {
    if (ensure_keyvals() != MPI_SUCCESS) return false;
    void* mark = nullptr;
    int found = 0;
    return MPI_Comm_get_attr(user_comm, g_stateless_keyval, &mark, &found) == MPI_SUCCESS && found != 0;
}

static int set_up(MPI_Comm user_comm, CommState& fresh) {
    REDUX_MPI(MPI_Comm_set_errhandler(fresh.comm, MPI_ERRORS_RETURN));
    REDUX_MPI(MPI_Comm_rank(fresh.comm, &fresh.rank));
    REDUX_MPI(MPI_Comm_size(fresh.comm, &fresh.size));
    REDUX_MPI(agree_on_settings(fresh));
    return MPI_Comm_set_attr(user_comm, g_state_keyval, &fresh);
}

int create_comm_state(MPI_Comm user_comm, CommState*& state) {
    REDUX_MPI(ensure_keyvals());
    auto fresh = std::make_unique<CommState>();
    fresh->lines = std::make_shared<Lines>();
    // The private communicator and the lines, duplicated together: about the time of one duplicate.
    MPI_Comm comms[1 + Lines::kLines];
    int rc = comm_dups_yielding(user_comm, comms, 1 + Lines::kLines);
    fresh->comm = comms[0];
    fresh->lines->adopt(comms + 1);  // frees them when it goes
    auto free_private = [&] {
        if (fresh->comm != MPI_COMM_NULL) MPI_Comm_free(&fresh->comm);
    };
    if (rc == MPI_SUCCESS) {
        try {
            rc = set_up(user_comm, *fresh);
        } catch (...) {  // bad_alloc copying the settings: the duplicates go too, then the caller reports it
            free_private();
            throw;
        }
    }
    if (rc != MPI_SUCCESS) {
        free_private();  // nothing left behind
        return rc;
    }
    g_live_states.fetch_add(1, std::memory_order_relaxed);
    state = fresh.release();
    return MPI_SUCCESS;
}

int gather_topology_once(CommState& state) {
    if (state.topology_known) return MPI_SUCCESS;
    REDUX_MPI(gather_topology(state.comm, state.topology));
    state.topology_known = true;
    return MPI_SUCCESS;
}

}  // namespace redux
