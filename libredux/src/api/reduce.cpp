// redux_reduce: MPI_Reduce's contract, on the MPI library's own reduce or on a planned tree; redux_allreduce and
// redux_reduce_scatter_block the same way (a ReduceCall with its collective, root 0).
//
// A call's way, in plain words:
//   entry    the entry points (below; MPI_Reduce through interpose/) make a ReduceCall (route.hpp);
//   records  a call that repeats the calling thread's record of a communicator configured native, or of a key
//            auto has settled on native, goes to the library's reduce at once (settled_native.hpp);
//   route    every other call asks route() (route.cpp): the library's own reduce, a plan, or an error;
//   run      the library's own reduce on the user's communicator (on a key's last first call started nonblocking,
//            the key planned while it runs: plan_beside_library), or run_plan() (run_plan.cpp): the plan's tree,
//            or under auto what its AutoSelect says for this call, which may again be the library's reduce;
//   record   where route()'s answer may be cached for the next call (Route::configured_native; an auto key that
//            now passes every call through), the thread's record takes it.
// The records and RecentCalls (comm_state.hpp) are caches of route()'s answers, valid in the lookup generation
// they were made in; the library's reduce is called only through library_reduce() (route.hpp).
//
// Errors: guarded() is the one place where an MPI error code or an exception becomes a call of the user's
// communicator's error handler; nothing crosses the C API. The library's reduce on the user's communicator
// reports its own errors through the same handler, so its code is returned as it is.
#include "redux/redux.h"

#include "api/comm_state.hpp"
#include "api/raw_call.h"
#include "api/route.hpp"
#include "api/run_plan.hpp"
#include "api/settled_native.hpp"
#include "mpi/mpi_check.hpp"

#include <cstdio>
#include <exception>
#include <new>
#include <utility>

namespace redux {
namespace {

// The calling thread's records (settled_native.hpp). Initial-exec: read at a fixed offset from the thread
// pointer, not through __tls_get_addr. libredux is linked or preloaded, so it is in the static TLS block; a
// program that loads it with dlopen takes its bytes from glibc's reserve for that (512 bytes by default). Not
// under SimGrid's SMPI, which loads one copy of the program per simulated rank with dlopen: 64 copies exhaust the
// reserve ("cannot allocate memory in static TLS block").
#ifdef SMPI_H
thread_local SettledNative t_settled_native;
thread_local ConfiguredNative t_configured_native;
#else
thread_local SettledNative t_settled_native __attribute__((tls_model("initial-exec")));
thread_local ConfiguredNative t_configured_native __attribute__((tls_model("initial-exec")));
#endif

// Runs `body` and returns the MPI error code it returns, or the one for the exception it throws.
template <typename Body>
int caught(Body&& body) noexcept {
    try {
        return body();
    } catch (const std::bad_alloc&) {
        return MPI_ERR_NO_MEM;
    } catch (const std::exception& e) {  // the planner's and simulator's invalid_argument, logic_error, ...
        std::fprintf(stderr, "libredux: internal error: %s\n", e.what());
    } catch (...) {
        std::fprintf(stderr, "libredux: internal error\n");
    }
    return MPI_ERR_INTERN;
}

// An error code of libredux's own (not the library's on the user's communicator, which calls the handler itself)
// becomes one call of `comm`'s error handler; returns the code. The one place libredux calls an error handler.
int reported(MPI_Comm comm, int rc) {
    if (rc != MPI_SUCCESS) MPI_Comm_call_errhandler(comm, rc);
    return rc;
}

// caught(), then reported().
template <typename Body>
int guarded(MPI_Comm comm, Body&& body) noexcept {
    return reported(comm, caught(std::forward<Body>(body)));
}

// A key's last first call (Route::plan_beside): the library's own collective, started nonblocking on the user's
// communicator, and the key planned on libredux's private one while it runs (route() asked again: collective, the
// same call on every rank), so that the planning's messages, op timing and computing overlap the library's messages.
// The library's collective completes before an error of the planning reaches the handler.
int plan_beside_library(const void* sendbuf, const ReduceCall& call) {
    MPI_Request request = MPI_REQUEST_NULL;
    const int rc = library_start(sendbuf, call, call.comm, &request);
    if (rc != MPI_SUCCESS) return rc;
    Route planned;
    const int planning = caught([&] { return route(call, planned); });
    const int done = PMPI_Wait(&request, MPI_STATUS_IGNORE);
    if (done != MPI_SUCCESS) return done;
    return reported(call.comm, planning);
}

// Keeps route()'s answer for `call` in the thread's records where one may answer the next call.
void record(const ReduceCall& call, const Route& route) {
    if (!call.defaults_but_algorithm) return;
    if (route.configured_native) {
        t_configured_native = {call.comm, call.generation};
        return;
    }
    if (route.state == nullptr) return;
    const PlanRoute& plan = *route.plan;
    if (plan.algorithm != REDUX_ALGORITHM_AUTO || !plan.predefined_handles) return;
    AutoSelect& select = plan.plan->auto_select;
    if (select.passes_through()) {
        t_settled_native = {&select,    route.state, call.generation,        call.comm,      call.datatype, call.op,
                            call.count, call.root,   call.options.algorithm, call.collective};
    }
}

// A call of a key settled on native that the thread's record takes: counted on the key, then the library's
// collective where run_plan() runs auto's native calls (plan_library_reduce), its error through the user's handler.
int settled_pass_through(AutoSelect& select, const ReduceCall& call, redux_call_info* info) {
    select.count_passed_through();
    if (info != nullptr) info->deciding = select.decision_final() ? 0 : 1;
    return guarded(call.comm, [&] { return plan_library_reduce(call.sendbuf, call, *t_settled_native.state); });
}

const redux_options kDefaults = REDUX_OPTIONS_INIT;

ReduceCall make_call(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                     MPI_Comm comm, const redux_options* options, uint64_t generation,
                     Collective collective = Collective::reduce) {
    return {sendbuf,
            recvbuf,
            count,
            datatype,
            op,
            root,
            comm,
            options != nullptr ? *options : kDefaults,
            options == nullptr || defaults_but_algorithm(*options),
            generation,
            collective};
}

// Every call the thread's records do not take. Its own ReduceCall: the entry's stays in registers.
[[gnu::noinline]] int reduce_routed(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                    int root, MPI_Comm comm, const redux_options* options, redux_call_info* info,
                                    uint64_t generation, Collective collective = Collective::reduce) {
    const ReduceCall call =
        make_call(sendbuf, recvbuf, count, datatype, op, root, comm, options, generation, collective);
    Route answer;
    const int rc = guarded(comm, [&] {
        REDUX_MPI(route(call, answer));
        return answer.state != nullptr ? run_plan(call, answer, info) : MPI_SUCCESS;
    });
    if (rc != MPI_SUCCESS) return rc;
    record(call, answer);
    if (answer.state != nullptr) return MPI_SUCCESS;
    if (info != nullptr) info->deciding = answer.first_call ? 1 : 0;
    if (answer.plan_beside) return plan_beside_library(sendbuf, call);
    return library_reduce(sendbuf, call, comm);
}

// redux_reduce_ex, called directly by the three entry points below (an exported symbol called by name would be a
// hop through the PLT). The records are read here, in a small function of their own, so that their path does
// not pay for the set-up of route()'s.
int reduce_entry(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                 MPI_Comm comm, const redux_options* options, redux_call_info* info) {
    const uint64_t generation = lookup_generation();
    const ReduceCall call = make_call(sendbuf, recvbuf, count, datatype, op, root, comm, options, generation);
    if (info != nullptr) *info = {0, REDUX_ALGORITHM_NATIVE, 0, 0, 0, 0, 0};
    if (AutoSelect* settled = t_settled_native.repeats(call)) return settled_pass_through(*settled, call, info);
    if (t_configured_native.takes(call)) return library_reduce(sendbuf, call, comm);
    return reduce_routed(sendbuf, recvbuf, count, datatype, op, root, comm, options, info, generation);
}

// redux_allreduce_ex and redux_reduce_scatter_block_ex: the same way as a reduce, with root 0.
int family_entry(Collective collective, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, const redux_options* options, redux_call_info* info) {
    const uint64_t generation = lookup_generation();
    const ReduceCall call = make_call(sendbuf, recvbuf, count, datatype, op, 0, comm, options, generation, collective);
    if (info != nullptr) *info = {0, REDUX_ALGORITHM_NATIVE, 0, 0, 0, 0, 0};
    if (AutoSelect* settled = t_settled_native.repeats(call)) return settled_pass_through(*settled, call, info);
    if (t_configured_native.takes(call)) return library_reduce(sendbuf, call, comm);
    return reduce_routed(sendbuf, recvbuf, count, datatype, op, 0, comm, options, info, generation, collective);
}

}  // namespace
}  // namespace redux

extern "C" int redux_reduce_ex(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                               int root, MPI_Comm comm, const redux_options* options, redux_call_info* info) {
    return redux::reduce_entry(sendbuf, recvbuf, count, datatype, op, root, comm, options, info);
}

extern "C" int redux_reduce_raw(const void* sendbuf, void* recvbuf, int count, redux_raw_handle datatype,
                                redux_raw_handle op, int root, redux_raw_handle comm) {
    return redux::reduce_entry(sendbuf, recvbuf, count, (MPI_Datatype)datatype, (MPI_Op)op, root, (MPI_Comm)comm,
                               nullptr, nullptr);
}

extern "C" int redux_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                            MPI_Comm comm) {
    return redux::reduce_entry(sendbuf, recvbuf, count, datatype, op, root, comm, nullptr, nullptr);
}

extern "C" int redux_allreduce_ex(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                  MPI_Comm comm, const redux_options* options, redux_call_info* info) {
    return redux::family_entry(redux::Collective::allreduce, sendbuf, recvbuf, count, datatype, op, comm, options,
                               info);
}

extern "C" int redux_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm) {
    return redux::family_entry(redux::Collective::allreduce, sendbuf, recvbuf, count, datatype, op, comm, nullptr,
                               nullptr);
}

extern "C" int redux_allreduce_raw(const void* sendbuf, void* recvbuf, int count, redux_raw_handle datatype,
                                   redux_raw_handle op, redux_raw_handle comm) {
    return redux::family_entry(redux::Collective::allreduce, sendbuf, recvbuf, count, (MPI_Datatype)datatype,
                               (MPI_Op)op, (MPI_Comm)comm, nullptr, nullptr);
}

extern "C" int redux_reduce_scatter_block_ex(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                                             MPI_Op op, MPI_Comm comm, const redux_options* options,
                                             redux_call_info* info) {
    return redux::family_entry(redux::Collective::reduce_scatter_block, sendbuf, recvbuf, recvcount, datatype, op, comm,
                               options, info);
}

extern "C" int redux_reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                                          MPI_Op op, MPI_Comm comm) {
    return redux::family_entry(redux::Collective::reduce_scatter_block, sendbuf, recvbuf, recvcount, datatype, op, comm,
                               nullptr, nullptr);
}

extern "C" int redux_reduce_scatter_block_raw(const void* sendbuf, void* recvbuf, int recvcount,
                                              redux_raw_handle datatype, redux_raw_handle op, redux_raw_handle comm) {
    return redux::family_entry(redux::Collective::reduce_scatter_block, sendbuf, recvbuf, recvcount,
                               (MPI_Datatype)datatype, (MPI_Op)op, (MPI_Comm)comm, nullptr, nullptr);
}

// MPI_Reduce_scatter with every count the same is MPI_Reduce_scatter_block of that count (redux.h).
extern "C" int redux_block_count_raw(const int* recvcounts, redux_raw_handle comm) {
    const auto c = (MPI_Comm)comm;
    int inter = 0, size = 0;
    if (recvcounts == nullptr || c == MPI_COMM_NULL || !redux::mpi_running() ||
        MPI_Comm_test_inter(c, &inter) != MPI_SUCCESS || inter != 0 || MPI_Comm_size(c, &size) != MPI_SUCCESS ||
        recvcounts[0] < 0) {
        return -1;
    }
    for (int i = 1; i < size; ++i) {
        if (recvcounts[i] != recvcounts[0]) return -1;
    }
    return recvcounts[0];
}

extern "C" int redux_reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
                                    MPI_Op op, MPI_Comm comm) {
    const int count = redux_block_count_raw(recvcounts, (redux_raw_handle)comm);
    if (count < 0) return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
    return redux::family_entry(redux::Collective::reduce_scatter_block, sendbuf, recvbuf, count, datatype, op, comm,
                               nullptr, nullptr);
}

// MPI_Barrier (interpose/mpi_requests.c): the agreements on the communicator's nonblocking reductions a blocking
// reduction would make (agree_at_barrier, route.hpp), then the library's own barrier.
extern "C" int redux_barrier_raw(redux_raw_handle comm) {
    const auto c = (MPI_Comm)comm;
    const int rc = redux::guarded(c, [&] { return redux::agree_at_barrier(c); });
    return rc != MPI_SUCCESS ? rc : PMPI_Barrier(c);
}
