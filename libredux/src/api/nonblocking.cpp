// MPI_Ireduce, MPI_Iallreduce, MPI_Ireduce_scatter_block and their persistent forms (MPI_Reduce_init, ...): where
// libredux runs them, an Operation (operations.hpp); everywhere else the library's own call.
//
// Which plan runs:
//   - a nonblocking call may not wait for other ranks, so it makes nothing: it runs the plan the communicator
//     already holds for its key (route_known, route.hpp), made by earlier blocking calls or a persistent init;
//     where it holds none, the call is kept for the communicator's next blocking reduction to plan
//     (pending_calls.hpp), and runs the library's own;
//   - a persistent init is collective and waits like a blocking call's first use of a key: it makes the
//     communicator's state and the key's plan (route(), timing the op on the send buffer as it is at init), so
//     that MPI_Start pays none of it.
// A strategy (REDUX_ALGORITHM) runs its tree. Under auto: a persistent request the tree auto has decided for on the
// key by blocking calls, or the library's own call where auto has not decided or decided for it; a persistent init
// under auto makes the key's blocking calls on copies of its buffers until auto has decided (decide_on_copies), for
// at most kInitTrialSeconds. A nonblocking call runs what auto decides by the key's nonblocking calls' own times
// (nonblocking_auto.hpp): while it weighs them, the library's own call is an operation of libredux's too.
#include "api/nonblocking_auto.hpp"
#include "api/operations.hpp"
#include "api/pending_calls.hpp"
#include "api/raw_call.h"
#include "api/route.hpp"
#include "api/run_plan.hpp"
#include "mpi/mpi_check.hpp"

#include <cstdio>
#include <exception>
#include <memory>
#include <new>
#include <vector>

// The library's own persistent inits: MPI 4.0's names (MPICH 4) or Open MPI 4.1's extension (mpi-ext.h). Weak: the
// library that has neither leaves both null, and libredux passes its persistent calls through unchanged.
extern "C" {
int PMPI_Reduce_init(const void*, void*, int, MPI_Datatype, MPI_Op, int, MPI_Comm, MPI_Info, MPI_Request*)
    __attribute__((weak));
int PMPI_Allreduce_init(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Info, MPI_Request*)
    __attribute__((weak));
int PMPI_Reduce_scatter_block_init(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Info, MPI_Request*)
    __attribute__((weak));
int PMPIX_Reduce_init(const void*, void*, int, MPI_Datatype, MPI_Op, int, MPI_Comm, MPI_Info, MPI_Request*)
    __attribute__((weak));
int PMPIX_Allreduce_init(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Info, MPI_Request*)
    __attribute__((weak));
int PMPIX_Reduce_scatter_block_init(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Info, MPI_Request*)
    __attribute__((weak));
}

namespace redux {
namespace {

const redux_options kDefaults = REDUX_OPTIONS_INIT;

// A nonblocking or persistent call's arguments.
struct StartCall {
    ReduceCall call;
    MPI_Info info;
    MPI_Request* request;
    bool persistent;
};

ReduceCall reduce_call(Collective collective, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, int root, MPI_Comm comm, const redux_options* options = nullptr) {
    const redux_options& o = options != nullptr ? *options : kDefaults;
    return {sendbuf,   recvbuf, count, datatype, op, root, comm, o, defaults_but_algorithm(o), lookup_generation(),
            collective};
}

// The library's own call for `s`.
int library_call(const StartCall& s) {
    const ReduceCall& c = s.call;
    if (!s.persistent) return library_start(c.sendbuf, c, c.comm, s.request);
    auto pick = [](auto standard, auto extension) { return standard != nullptr ? standard : extension; };
    switch (c.collective) {
        case Collective::reduce:
            if (auto f = pick(PMPI_Reduce_init, PMPIX_Reduce_init)) {
                return f(c.sendbuf, c.recvbuf, c.count, c.datatype, c.op, c.root, c.comm, s.info, s.request);
            }
            break;
        case Collective::allreduce:
            if (auto f = pick(PMPI_Allreduce_init, PMPIX_Allreduce_init)) {
                return f(c.sendbuf, c.recvbuf, c.count, c.datatype, c.op, c.comm, s.info, s.request);
            }
            break;
        case Collective::reduce_scatter_block:
            if (auto f = pick(PMPI_Reduce_scatter_block_init, PMPIX_Reduce_scatter_block_init)) {
                return f(c.sendbuf, c.recvbuf, c.count, c.datatype, c.op, c.comm, s.info, s.request);
            }
            break;
    }
    return MPI_ERR_INTERN;  // unreachable: libredux defines the persistent inits only where the library has them
}

// Which of the key's trees the call runs, or -1 for the library's own call (the header says why); `trials` and
// `trial`: where auto weighs a nonblocking call (nonblocking_auto.hpp).
int chosen_tree(const StartCall& s, const Route& route, std::shared_ptr<NonblockingTrials>& trials, int& trial) {
    trial = -1;
    if (route.state == nullptr) return -1;
    if (route.plan->algorithm != REDUX_ALGORITHM_AUTO) return 0;
    if (!s.persistent) return nonblocking_tree(route, trials, trial);
    const AutoSelect& select = route.plan->plan->auto_select;
    return select.decided() && select.choice() == AutoSelect::Run::planned ? select.tree() : -1;
}

// The status of a finished nonblocking operation: empty (MPI 4.0, 3.7.3). Its execution's error is reported by the
// completion call (completion.cpp), through the user's communicator's error handler.
int query_status(void*, MPI_Status* status) {
    MPI_Status_set_elements(status, MPI_BYTE, 0);
    MPI_Status_set_cancelled(status, 0);
    clear_source_and_tag(status);
    return MPI_SUCCESS;
}
int free_operation(void* extra) {
    remove_operation(static_cast<const Operation*>(extra));
    return MPI_SUCCESS;
}
int cancel_nothing(void*, int) { return MPI_SUCCESS; }  // a collective cannot be cancelled (MPI 4.0, 6.12)

// An operation that runs the library's own nonblocking call for `s` on `route`'s private communicator, weighed by
// auto as call `trial` of `trials`.
int make_library_operation(const StartCall& s, const Route& route, std::shared_ptr<NonblockingTrials> trials,
                           int trial) {
    auto op = std::make_unique<Operation>();
    op->user_comm = s.call.comm;
    op->trials = std::move(trials);
    op->trial = trial;
    op->runs_library = true;
    op->started_s = MPI_Wtime();
    REDUX_MPI(library_start(s.call.sendbuf, s.call, route.state->comm, &op->library));
    Operation* raw = op.get();
    const int rc = PMPI_Grequest_start(query_status, free_operation, cancel_nothing, raw, &op->handle);
    if (rc != MPI_SUCCESS) {
        PMPI_Wait(&op->library, MPI_STATUS_IGNORE);  // a collective cannot be cancelled
        return rc;
    }
    *s.request = op->handle;
    add_operation(std::move(op));
    return start_operation(*raw);
}

// An operation running tree `tree` of `route`'s plan for `s` (weighed by auto as call `trial` of `trials`, if any).
int make_operation(const StartCall& s, const Route& route, int tree, std::shared_ptr<NonblockingTrials> trials,
                   int trial) {
    CommState& state = *route.state;
    auto op = std::make_unique<Operation>();
    op->trials = std::move(trials);
    op->trial = trial;
    op->started_s = MPI_Wtime();
    const CachedPlan& cached = *route.plan->plan;
    op->persistent = s.persistent;
    op->user_comm = s.call.comm;
    op->lines = state.lines;
    op->plan = {cached.trees[static_cast<size_t>(tree)],
                cached.knobs,
                cached.op_piece_bytes,
                route.plan->commutative,
                route.plan->layout,
                cached.costs};
    const PlannedTree& t = op->plan.tree;
    op->exec_plan = exec_plan(t, op->plan.knobs, op->plan.op_piece_bytes);
    op->call = exec_call(s.call, state, *route.plan);
    Operation* raw = op.get();
    if (s.persistent) {
        const MPI_Comm self = self_comm();
        if (self == MPI_COMM_NULL) return MPI_ERR_INTERN;
        REDUX_MPI(PMPI_Recv_init(nullptr, 0, MPI_BYTE, 0, 0, self, &op->handle));
        REDUX_MPI(PMPI_Send_init(nullptr, 0, MPI_BYTE, 0, 0, self, &op->signal));
    } else {
        REDUX_MPI(PMPI_Grequest_start(query_status, free_operation, cancel_nothing, raw, &op->handle));
    }
    *s.request = op->handle;
    add_operation(std::move(op));
    return s.persistent ? MPI_SUCCESS : start_operation(*raw);
}

int start_call(const StartCall& s) {
    int rc = MPI_ERR_INTERN;
    bool library = true;
    try {
        Route answer;
        rc = s.persistent ? route(s.call, answer) : route_known(s.call, answer, /*note_unplanned=*/true);
        if (rc == MPI_SUCCESS && s.persistent && decided_by_auto(s.call)) {
            double spent_s = 0;
            rc = decide_on_copies(s.call, kInitTrialSeconds, spent_s);
            answer.state = nullptr;
            if (rc == MPI_SUCCESS) rc = route_known(s.call, answer);
        }
        std::shared_ptr<NonblockingTrials> trials;
        int trial = -1;
        const int tree = rc == MPI_SUCCESS ? chosen_tree(s, answer, trials, trial) : -1;
        if (tree >= 0) {
            library = false;
            rc = make_operation(s, answer, tree, std::move(trials), trial);
        } else if (trial >= 0) {
            library = false;
            rc = make_library_operation(s, answer, std::move(trials), trial);
        }
    } catch (const std::bad_alloc&) {
        rc = MPI_ERR_NO_MEM;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "libredux: internal error: %s\n", e.what());
    } catch (...) {
        std::fprintf(stderr, "libredux: internal error\n");
    }
    if (rc == MPI_SUCCESS && library) return library_call(s);
    if (rc != MPI_SUCCESS) MPI_Comm_call_errhandler(s.call.comm, rc);
    return rc;
}

}  // namespace
}  // namespace redux

using redux::Collective;

static_assert(static_cast<int>(Collective::reduce) == REDUX_RAW_REDUCE &&
              static_cast<int>(Collective::allreduce) == REDUX_RAW_ALLREDUCE &&
              static_cast<int>(Collective::reduce_scatter_block) == REDUX_RAW_REDUCE_SCATTER_BLOCK);

extern "C" int redux_istart_raw(int collective, int persistent, const void* sendbuf, void* recvbuf, int count,
                                redux_raw_handle datatype, redux_raw_handle op, int root, redux_raw_handle comm,
                                redux_raw_handle info, void* request) {
    const auto c = static_cast<Collective>(collective);
    return redux::start_call(
        {redux::reduce_call(c, sendbuf, recvbuf, count, (MPI_Datatype)datatype, (MPI_Op)op, root, (MPI_Comm)comm),
         (MPI_Info)info, static_cast<MPI_Request*>(request), persistent != 0});
}

extern "C" int redux_request_info(MPI_Request request, redux_call_info* info) {
    const redux::Operation* op = redux::find_operation(request);
    if (info != nullptr) *info = {0, REDUX_ALGORITHM_NATIVE, 0, 0, 0, 0, 0};
    if (op == nullptr) return 0;
    const redux::OperationPlan& p = op->plan;
    const int deciding = op->trials != nullptr ? 1 : 0;
    if (info == nullptr) return 1;
    if (op->runs_library) {
        info->deciding = deciding;
    } else {
        *info = {
            1,       p.tree.algorithm(), p.costs.transfer_s, p.costs.compute_s, p.tree.predicted_s, p.tree.segments,
            deciding};
    }
    return 1;
}

extern "C" int redux_ireduce_ex(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                int root, MPI_Comm comm, const redux_options* options, MPI_Request* request) {
    return redux::start_call(
        {redux::reduce_call(Collective::reduce, sendbuf, recvbuf, count, datatype, op, root, comm, options),
         MPI_INFO_NULL, request, false});
}

extern "C" int redux_iallreduce_ex(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                   MPI_Comm comm, const redux_options* options, MPI_Request* request) {
    return redux::start_call(
        {redux::reduce_call(Collective::allreduce, sendbuf, recvbuf, count, datatype, op, 0, comm, options),
         MPI_INFO_NULL, request, false});
}

extern "C" int redux_ireduce_scatter_block_ex(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                                              MPI_Op op, MPI_Comm comm, const redux_options* options,
                                              MPI_Request* request) {
    return redux::start_call({redux::reduce_call(Collective::reduce_scatter_block, sendbuf, recvbuf, recvcount,
                                                 datatype, op, 0, comm, options),
                              MPI_INFO_NULL, request, false});
}

extern "C" int redux_reduce_init_ex(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                    int root, MPI_Comm comm, MPI_Info info, const redux_options* options,
                                    MPI_Request* request) {
    return redux::start_call(
        {redux::reduce_call(Collective::reduce, sendbuf, recvbuf, count, datatype, op, root, comm, options), info,
         request, true});
}

extern "C" int redux_allreduce_init_ex(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                       MPI_Comm comm, MPI_Info info, const redux_options* options,
                                       MPI_Request* request) {
    return redux::start_call(
        {redux::reduce_call(Collective::allreduce, sendbuf, recvbuf, count, datatype, op, 0, comm, options), info,
         request, true});
}

extern "C" int redux_reduce_scatter_block_init_ex(const void* sendbuf, void* recvbuf, int recvcount,
                                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                                  const redux_options* options, MPI_Request* request) {
    return redux::start_call({redux::reduce_call(Collective::reduce_scatter_block, sendbuf, recvbuf, recvcount,
                                                 datatype, op, 0, comm, options),
                              info, request, true});
}
