// The cheapest path libredux has: a call that repeats the calling thread's last call on a key where auto has
// settled on the MPI library's own reduce goes to PMPI_Reduce at once, on the user's communicator, after reading
// one thread-local record, one generation counter and the key's AutoSelect. Nothing else is touched: no
// communicator state, no recent-calls scan, no options check, no second hop through an exported symbol.
//
// Why it is worth a file: on ranks that share cores (4 and 8 ranks on 2 cores), every few nanoseconds a rank
// spends before PMPI_Reduce cost several times that in the reduce, because the ranks wait for each other and the
// scheduler. Measured with a probe that times PMPI_Reduce against wrappers around it (8 B, 4 ranks, 20,000 calls,
// medians of one run each): a wrapper in another shared library +0.00-0.05 us; a 30 ns spin +0.11-0.18 us; a
// 100 ns spin +0.23-0.55 us; libredux's settled pass-through before this record +0.25-0.46 us.
//
// The record is only a shortcut: whatever it does not recognise takes the full path (api/reduce.cpp), which
// makes the same decision. It stays valid while the generation it was made in does: the generation changes
// whenever a communicator's state or a plan goes away (comm_state.hpp), so the AutoSelect it points to is alive.
// A call with misplaced buffers (an erroneous one) is left to the full path, which sends it to PMPI_Reduce
// without counting it, as before.
#pragma once

#include "policy/auto_select.hpp"
#include "redux/redux.h"

#include <mpi.h>

#include <cstdint>

namespace redux {

// Erroneous calls that only one side can see (MPI_IN_PLACE in the wrong place, aliased buffers) get the
// library's error on that rank, as with MPI_Reduce itself. A null recvbuf is MPI_BOTTOM, which is legal: it must
// not send the root elsewhere than the other ranks. Here because the record judges buffers too; reduce.cpp uses it.
inline bool misplaced_buffers(const void* sendbuf, const void* recvbuf, int rank, int root) {
    if (rank == root) return recvbuf == MPI_IN_PLACE || sendbuf == recvbuf;
    return sendbuf == MPI_IN_PLACE;
}

// Every member is zero-initialised (not MPI_COMM_NULL and the like, which are not constant expressions in Open
// MPI): a thread_local with a constructor to run would be reached through __tls_get_addr and a guard. One cache
// line: only calls whose options are the defaults but for the algorithm are recorded (MPI_Reduce's, and
// mpi_bench's), so the options are one field.
struct alignas(64) SettledNative {
    AutoSelect* select{};  // null: nothing recorded
    uint64_t generation{};
    MPI_Comm comm{};  // the user's
    MPI_Datatype datatype{};
    MPI_Op op{};
    int count{};
    int root{};
    int rank{};  // this process's in comm
    redux_algorithm algorithm{};

    static bool defaults_but_algorithm(const redux_options& opts) {
        return opts.transfer_s < 0 && opts.compute_s < 0 && opts.limit == 0 && opts.segment_bytes < 0;
    }

    // The AutoSelect to count the call on, when the call repeats the record and its key is still settled on
    // native; else null.
    AutoSelect* repeats(const void* sendbuf, const void* recvbuf, int c, MPI_Datatype t, MPI_Op o, int r,
                        MPI_Comm communicator, const redux_options& opts, uint64_t now) const {
        if (select == nullptr || communicator != comm || c != count || t != datatype || o != op || r != root ||
            now != generation || opts.algorithm != algorithm || !defaults_but_algorithm(opts) ||
            !select->settled_native()) {
            return nullptr;
        }
        return misplaced_buffers(sendbuf, recvbuf, rank, root) ? nullptr : select;
    }
};
static_assert(sizeof(SettledNative) == 64, "one cache line");

// The same shortcut where the communicator's configuration says native (REDUX_ALGORITHM=native, or a per-call
// configuration that resolves to it): the calling thread's last such communicator, valid in the generation it was
// recorded in. Every call on it that asks for the configured algorithm goes to PMPI_Reduce as the full path would,
// erroneous ones included. Measured (8 B, 2 ranks, 10,000 calls, six runs): the full path's pass-through +0.03 to
// +0.11 us over PMPI_Reduce, where the settled record's is +0.01 to +0.05.
struct ConfiguredNative {
    MPI_Comm comm{};  // the user's; zero: nothing recorded
    uint64_t generation{};

    bool takes(MPI_Comm communicator, const redux_options& opts, uint64_t now) const {
        return comm != MPI_Comm{} && communicator == comm && now == generation &&
               opts.algorithm == REDUX_ALGORITHM_CONFIGURED;
    }
};

}  // namespace redux
