// Where a reduce goes: the MPI library's own reduce, or a plan. route() decides, for every call; the caches in
// front of it (settled_native.hpp, RecentCalls in comm_state.hpp) hold answers it gave. See route.cpp for the
// order of its questions and reduce.cpp for the call's whole way.
#pragma once

#include "api/comm_state.hpp"
#include "plan/family.hpp"
#include "redux/redux.h"

#include <mpi.h>

#include <cstdint>
#include <optional>

namespace redux {

// A call as an entry point received it, with what every cache of route()'s answers compares. MPI_Allreduce and
// MPI_Reduce_scatter_block take the same way with root 0 (count: the call's, recvcount for the latter).
struct ReduceCall {
    const void* sendbuf;
    void* recvbuf;
    int count;
    MPI_Datatype datatype;
    MPI_Op op;
    int root;
    MPI_Comm comm;  // the user's
    const redux_options& options;
    // The options are the defaults but for the algorithm (every MPI_Reduce): the only calls the thread's records
    // answer, so that they compare one field of the options.
    bool defaults_but_algorithm;
    uint64_t generation;  // lookup_generation() when the call began: what it caches is valid in this one only
    Collective collective;
};

inline bool defaults_but_algorithm(const redux_options& opts) {
    return opts.transfer_s < 0 && opts.compute_s < 0 && opts.limit == 0 && opts.segment_bytes < 0;
}

// Erroneous calls that only one side can see (MPI_IN_PLACE in the wrong place, aliased buffers) get the
// library's error on that rank, as with MPI_Reduce itself. A null recvbuf is MPI_BOTTOM, which is legal: it must
// not send the root elsewhere than the other ranks. Judged on every call, cached answers included.
// MPI_Allreduce and MPI_Reduce_scatter_block: MPI_IN_PLACE as sendbuf on every rank, never as recvbuf.
inline bool misplaced_buffers(const void* sendbuf, const void* recvbuf, int rank, int root,
                              Collective collective = Collective::reduce) {
    if (collective != Collective::reduce) return recvbuf == MPI_IN_PLACE || sendbuf == recvbuf;
    if (rank == root) return recvbuf == MPI_IN_PLACE || sendbuf == recvbuf;
    return sendbuf == MPI_IN_PLACE;
}

// route()'s answer. state null: the MPI library's own reduce on the user's communicator, with the call's
// arguments as they are. Else `plan`, run on state's private communicator (run_plan.hpp): a recent call's
// (RecentCalls) or `made`.
struct Route {
    Route() = default;
    Route(const Route&) = delete;  // `plan` may point into it
    Route& operator=(const Route&) = delete;

    CommState* state = nullptr;
    const PlanRoute* plan = nullptr;
    // The library's own reduce because the communicator's agreed configuration says native and the call asks for
    // the configured algorithm: the same answer for every such call on the communicator with valid options.
    bool configured_native = false;
    // The library's own reduce because the key is auto's and this is one of its first calls (native_before_planning,
    // first_calls.hpp): auto is still deciding.
    bool first_call = false;
    // One of them, the last: route() asked again now makes the key's plan (collective), which the caller does while
    // the library's own collective runs (reduce.cpp), so that the key's first planned call makes nothing.
    bool plan_beside = false;
    std::optional<PlanRoute> made;  // the plan route made for this call where no recent call had one
};

// Decides where `call` goes. MPI_SUCCESS and the answer in `route` (default-constructed by the caller), or the error
// the call fails with (options that are not valid, a communicator state that could not be made); it may throw
// (bad_alloc, ...): the caller guards it. Collective where the call's first use of a communicator or of a key makes
// state or a plan.
int route(const ReduceCall& call, Route& route);

// route() for a call that may not wait for other ranks (a nonblocking one): the plan the communicator already holds
// for the call's key, if any, made by earlier calls; it never makes state or a plan and sends no message. Every
// rank holds the same plans at the same call (plans are made collectively, in call order), so every rank answers
// alike. With `note_unplanned`, a call libredux may plan on a communicator that holds no plan for its key is kept
// for the next blocking reduction there to plan (note_pending, pending_calls.hpp).
int route_known(const ReduceCall& call, Route& route, bool note_unplanned = false);

// MPI_Barrier on `comm`, before the library's own barrier: a point every rank reaches after the same nonblocking
// calls, as at a blocking reduction. On a communicator with a state, the agreements route() makes first there (the
// times of the nonblocking calls auto weighed, the kept calls planned); on one without, where nonblocking reductions
// were called (note_stateless_nonblocking, comm_state.hpp), the state, so that the nonblocking calls after it are kept
// and planned at the next barrier or blocking reduction. Collective where it does something; every rank does the
// same. May throw (bad_alloc): the caller guards it.
int agree_at_barrier(MPI_Comm comm);

// Whether auto decides where `call` goes (the communicator's state exists and says auto, and the call is one libredux
// may plan). No message.
bool decided_by_auto(const ReduceCall& call);

// The MPI library's own collective for `call`, with `sendbuf` (the call's, or a copy of the root's data) on `comm`:
// the one place libredux calls PMPI_Reduce, PMPI_Allreduce or PMPI_Reduce_scatter_block for a call (library_start
// below their nonblocking forms). On the user's
// communicator MPI reports an error through its handler itself; on libredux's private one (errors returned) the
// caller's guard does.
inline int library_reduce(const void* sendbuf, const ReduceCall& call, MPI_Comm comm) {
    switch (call.collective) {
        case Collective::reduce:
            break;
        case Collective::allreduce:
            return PMPI_Allreduce(sendbuf, call.recvbuf, call.count, call.datatype, call.op, comm);
        case Collective::reduce_scatter_block:
            return PMPI_Reduce_scatter_block(sendbuf, call.recvbuf, call.count, call.datatype, call.op, comm);
    }
    return PMPI_Reduce(sendbuf, call.recvbuf, call.count, call.datatype, call.op, call.root, comm);
}

// library_reduce() started as the library's own nonblocking collective (PMPI_Ireduce, ...), for a call during which
// libredux works on its private communicator; complete `request` with PMPI_Wait.
inline int library_start(const void* sendbuf, const ReduceCall& call, MPI_Comm comm, MPI_Request* request) {
    switch (call.collective) {
        case Collective::reduce:
            break;
        case Collective::allreduce:
            return PMPI_Iallreduce(sendbuf, call.recvbuf, call.count, call.datatype, call.op, comm, request);
        case Collective::reduce_scatter_block:
            return PMPI_Ireduce_scatter_block(sendbuf, call.recvbuf, call.count, call.datatype, call.op, comm, request);
    }
    return PMPI_Ireduce(sendbuf, call.recvbuf, call.count, call.datatype, call.op, call.root, comm, request);
}

// The library's own collective where the call's route is a plan (auto's native turns, and the calls of a key settled
// on native that the thread's record takes): on the communicator's private duplicate, errors returned, whichever way
// the call came (settled_native.hpp says why it must be one communicator).
inline int plan_library_reduce(const void* sendbuf, const ReduceCall& call, const CommState& state) {
    return library_reduce(sendbuf, call, state.comm);
}

}  // namespace redux
