// The calling thread's records of route()'s answers (route.hpp), for the two kinds of call where that answer is
// "the MPI library's own reduce" and libredux must cost nothing: a communicator whose agreed configuration says
// native, and a key that auto has settled on native. reduce.cpp reads them before anything else; a call that
// repeats a record goes to the library's reduce after one thread-local record and one generation counter are read
// (and, for a settled key, its AutoSelect): no recent-calls scan, no options check, no second hop through an
// exported symbol. On ranks that share cores every nanosecond a rank spends before the library's reduce costs
// several in it, as the ranks wait for each other and the scheduler.
//
// A record is a cache, never a decision: it holds an answer route() gave for the same arguments, and whatever it
// does not recognise goes to route(). Both are made only in the lookup generation their call began in and used
// only while it lasts (comm_state.hpp): the generation changes whenever a communicator's state or a plan goes
// away, so what a record points to is alive and its communicator is the one it was made for. Only calls whose
// options are the defaults but for the algorithm (every MPI_Reduce) are recorded or answered, so that the options
// are one field and no option a record ignores can make route() answer otherwise.
//
// The generation is this process's own: a rank that freed a communicator the others never had starts a new one
// alone, so in one collective call some ranks may be answered by their record and others by route(). Whatever a
// record answers must therefore make the very MPI calls route() and run_plan() would make, on the same
// communicator: a communicator configured native runs the library's collective on the user's communicator both
// ways (library_reduce), a key settled on native runs it on the private communicator both ways
// (plan_library_reduce, route.hpp), as every native call auto makes.
#pragma once

#include "api/route.hpp"
#include "policy/auto_select.hpp"
#include "redux/redux.h"

#include <mpi.h>

#include <cstdint>

namespace redux {

// route() answered "auto's plan for this key" and the key's AutoSelect passes every call through to the library:
// a call with the same arguments gets the same route, and AutoSelect, asked again each time, the same answer.
// A call with misplaced buffers (an erroneous one) is left to route(), which sends it to the library's reduce
// without counting it on the key. Every member is zero-initialised (not MPI_COMM_NULL and the like, which are not
// constant expressions in Open MPI): a thread_local with a constructor to run would be reached through
// __tls_get_addr and a guard. One cache line.
struct alignas(64) SettledNative {
    AutoSelect* select{};      // null: nothing recorded
    const CommState* state{};  // the communicator's: this process's rank, and the private communicator
    uint64_t generation{};
    MPI_Comm comm{};  // the user's
    MPI_Datatype datatype{};
    MPI_Op op{};
    int count{};
    int root{};
    redux_algorithm algorithm{};  // as the call passed it: CONFIGURED or AUTO
    Collective collective{};

    // The AutoSelect to count the call on, when the call repeats the record and its key still passes through;
    // else null.
    AutoSelect* repeats(const ReduceCall& call) const {
        if (select == nullptr || call.comm != comm || call.count != count || call.datatype != datatype ||
            call.op != op || call.root != root || call.collective != collective || call.generation != generation ||
            call.options.algorithm != algorithm || !call.defaults_but_algorithm || !select->passes_through()) {
            return nullptr;
        }
        return misplaced_buffers(call.sendbuf, call.recvbuf, state->rank, root, collective) ? nullptr : select;
    }
};
static_assert(sizeof(SettledNative) == 64, "one cache line");

// route() answered "the library's own, as the communicator's configuration says" (Route::configured_native): every
// call on that communicator that asks for the configured algorithm gets the same answer, erroneous ones included.
struct ConfiguredNative {
    MPI_Comm comm{};  // the user's; zero: nothing recorded
    uint64_t generation{};

    bool takes(const ReduceCall& call) const {
        return comm != MPI_Comm{} && call.comm == comm && call.generation == generation &&
               call.options.algorithm == REDUX_ALGORITHM_CONFIGURED && call.defaults_but_algorithm;
    }
};

}  // namespace redux
