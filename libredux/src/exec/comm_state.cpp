// Per-communicator state behind an attribute keyval (the way Open MPI's coll components and KaMPIng keep
// their own communicators): the first reduce on a communicator duplicates it -- collectively, as every rank
// enters the reduce -- and caches the duplicate, so libredux's messages can never match the user's. The
// attribute's delete callback frees the duplicate and the plans when the user frees the communicator. For
// MPI_COMM_WORLD, which is never freed, an attribute on MPI_COMM_SELF (deleted first thing in
// MPI_Finalize) deletes the state, so nothing is left behind at exit.
#include "exec/comm_state.hpp"

#include "exec/mpi_check.hpp"

#include <mutex>

namespace redux {
namespace {

int g_state_keyval = MPI_KEYVAL_INVALID;
int g_finalize_keyval = MPI_KEYVAL_INVALID;

int delete_state(MPI_Comm, int, void* attribute, void*) {
    auto* state = static_cast<CommState*>(attribute);
    if (state->comm != MPI_COMM_NULL) MPI_Comm_free(&state->comm);
    delete state;
    return MPI_SUCCESS;
}

int at_finalize(MPI_Comm, int, void*, void*) {
    void* world_state = nullptr;
    int found = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, g_state_keyval, &world_state, &found);
    if (found) MPI_Comm_delete_attr(MPI_COMM_WORLD, g_state_keyval);
    MPI_Comm_free_keyval(&g_state_keyval);
    MPI_Comm_free_keyval(&g_finalize_keyval);
    return MPI_SUCCESS;
}

int create_keyvals() {
    REDUX_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &g_state_keyval, nullptr));
    REDUX_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &g_finalize_keyval, nullptr));
    return MPI_Comm_set_attr(MPI_COMM_SELF, g_finalize_keyval, nullptr);
}

int ensure_keyvals() {
    static std::once_flag once;
    static int keyval_rc = MPI_SUCCESS;
    std::call_once(once, [] { keyval_rc = create_keyvals(); });
    return keyval_rc;
}

}  // namespace

CommState* find_comm_state(MPI_Comm user_comm) {
    if (ensure_keyvals() != MPI_SUCCESS) return nullptr;
    CommState* state = nullptr;
    int found = 0;
    if (MPI_Comm_get_attr(user_comm, g_state_keyval, &state, &found) != MPI_SUCCESS || !found) return nullptr;
    return state;
}

int create_comm_state(MPI_Comm user_comm, CommState*& state) {
    REDUX_MPI(ensure_keyvals());
    auto fresh = std::make_unique<CommState>();
    REDUX_MPI(MPI_Comm_dup(user_comm, &fresh->comm));
    REDUX_MPI(MPI_Comm_set_errhandler(fresh->comm, MPI_ERRORS_RETURN));
    REDUX_MPI(MPI_Comm_rank(fresh->comm, &fresh->rank));
    REDUX_MPI(MPI_Comm_size(fresh->comm, &fresh->size));
    REDUX_MPI(MPI_Comm_set_attr(user_comm, g_state_keyval, fresh.get()));
    state = fresh.release();
    return MPI_SUCCESS;
}

}  // namespace redux
