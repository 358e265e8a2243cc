/* libredux: MPI_Reduce, MPI_Allreduce and MPI_Reduce_scatter_block planned from measured costs.
 *
 * redux_reduce() has MPI_Reduce's signature and contract (MPI standard, section "Reduce"): the same
 * arguments give the same result, MPI_IN_PLACE at the root, any root, count 0, predefined and user
 * operators, commutative or not (then the result is exactly v0 o v1 o ... o v(n-1)), derived datatypes.
 * Errors go through the communicator's error handler with the MPI library's own error classes. Whatever
 * libredux does not handle itself (intercommunicators, REDUX_ALGORITHM=native) is passed to PMPI_Reduce.
 *
 * Linking libredux (or LD_PRELOAD=libredux.so) also makes MPI_Reduce itself, from C and Fortran, go here.
 *
 * Configuration: REDUX_* environment variables, read once per process and agreed per communicator on rank 0's
 * values (README.md, "Configuration"; `redux-info` prints those in effect). REDUX_ALGORITHM = auto | native |
 * a strategy of redux/algorithms.h that needs no limit (default auto).
 *
 * redux_reduce_ex() is redux_reduce() with per-call choices (the benchmark uses it to compare algorithms in
 * one run) and a report of what the call did.
 */
#ifndef REDUX_REDUX_H
#define REDUX_REDUX_H

#include <mpi.h>

#include "redux/algorithms.h" /* redux_algorithm: auto, native and every planned tree */

#ifdef __cplusplus
extern "C" {
#endif

int redux_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                 MPI_Comm comm);

/* Per-call choices. Like every argument of a collective call, they must be the same on all ranks. */
typedef struct redux_options {
    redux_algorithm algorithm;
    double transfer_s;       /* d to plan with, seconds; < 0: the library's own (REDUX_D, else its default) */
    double compute_s;        /* c to plan with, seconds; < 0: the library's own (REDUX_C, else its default) */
    int limit;               /* K of the strategies that need one (transfers-limited, reducers-limited); else 0 */
    long long segment_bytes; /* < 0: the library's choice (REDUX_SEGMENT_BYTES, else the count the model predicts
                                fastest); 0: unsegmented; > 0: segments of about this many bytes */
} redux_options;

#define REDUX_OPTIONS_INIT \
    { REDUX_ALGORITHM_CONFIGURED, -1.0, -1.0, 0, -1 }

/* What one call did, the same on every rank. */
typedef struct redux_call_info {
    int planned;               /* 1: ran a planned tree; 0: the call went to PMPI_Reduce */
    redux_algorithm algorithm; /* what ran: a planned algorithm, or REDUX_ALGORITHM_NATIVE */
    double transfer_s;         /* the d and c the plan was made with (0 when not planned) */
    double compute_s;
    double predicted_s; /* the plan's predicted makespan, seconds (0 when not planned) */
    int segments;       /* the vector was reduced in this many pipelined segments (0 when not planned) */
    /* 1 while auto is still finding what to run for the call's arguments (its first calls, its trials, a look at
     * the runners-up it has yet to take, the re-check of a decision read from the wisdom file), so that the next
     * calls may run something else; 0 once auto has decided (until it looks again: a drift, or 65536 calls later),
     * and for every call auto does not choose for. The same on every rank at the same call. */
    int deciding;
} redux_call_info;

/* redux_reduce() with `options` (NULL: REDUX_OPTIONS_INIT) and, when `info` is not NULL, a report of the
 * call. An unknown algorithm, a cost that is not a finite number, or a limit that is missing (< 1 for a
 * strategy that needs one) is MPI_ERR_ARG, through comm's error handler. A strategy that does not apply to
 * the call (see redux/algorithms.h) plans the optimal tree instead; info->algorithm says which ran. */
int redux_reduce_ex(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                    MPI_Comm comm, const redux_options *options, redux_call_info *info);

/* MPI_Allreduce's contract (MPI standard, "All-Reduce"), planned like redux_reduce: MPI_IN_PLACE on every rank,
 * count 0, predefined and user operators, commutative or not (then every rank gets v0 o v1 o ... o v(n-1)).
 * Every rank receives the same bytes. The algorithms (redux/algorithms.h): recursive-doubling, reduce-scatter
 * (reduce-scatter then allgather, Rabenseifner), or a tree strategy's reduction to rank 0 followed by a
 * broadcast down the same tree; auto weighs them against the library's own MPI_Allreduce. Linking libredux
 * also makes MPI_Allreduce, from C and Fortran, go here. */
int redux_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int redux_allreduce_ex(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                       const redux_options *options, redux_call_info *info);

/* MPI_Reduce_scatter_block's contract (MPI standard, "Reduce-Scatter"): rank i receives block i (recvcount
 * elements) of the reduction of every rank's size x recvcount elements; MPI_IN_PLACE takes the input from recvbuf.
 * The algorithms: reduce-scatter (recursive halving), or a tree strategy's reduction to rank 0 followed by a
 * scatter; auto weighs them against the library's own. */
int redux_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm);
int redux_reduce_scatter_block_ex(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                                  MPI_Comm comm, const redux_options *options, redux_call_info *info);

/* MPI_Reduce_scatter's contract (MPI standard, "Reduce-Scatter"): rank i receives recvcounts[i] elements, its part
 * of the reduction of every rank's vector of recvcounts[0] + ... + recvcounts[size-1] elements. Where every count is
 * the same (the standard asks every rank for the same recvcounts, so every rank finds this alike) it is
 * redux_reduce_scatter_block of that count, planned the same way; where the counts differ, or on an
 * inter-communicator, it is the library's own MPI_Reduce_scatter. Linking libredux also makes MPI_Reduce_scatter,
 * MPI_Ireduce_scatter and MPI_Reduce_scatter_init (Open MPI 4.1: MPIX_Reduce_scatter_init) go the same way. */
int redux_reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm);

/* MPI_Ireduce, MPI_Iallreduce, MPI_Ireduce_scatter_block and the persistent MPI_Reduce_init, MPI_Allreduce_init and
 * MPI_Reduce_scatter_block_init (Open MPI 4.1: MPIX_*_init) are libredux's too, linked or preloaded: where it has a
 * plan for the call (docs/usage.md says when) it returns a request of its own, which every completion call takes.
 * redux_request_info says whether `request` is one: 1, with what it runs in `info` (when not NULL); 0 for any
 * other request, `info` then says native. While auto weighs a nonblocking call's own times, the library's own call
 * is one too: 1, `info` saying native (planned 0) and deciding 1. */
int redux_request_info(MPI_Request request, redux_call_info *info);

/* Those calls with per-call choices (`options`: NULL is REDUX_OPTIONS_INIT), as redux_reduce_ex. A nonblocking one
 * runs the plan made for the same call with the same options by an earlier blocking or persistent call, else the
 * library's own (under auto, what auto decides by weighing the key's nonblocking calls); a persistent init makes it. */
int redux_ireduce_ex(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                     MPI_Comm comm, const redux_options *options, MPI_Request *request);
int redux_iallreduce_ex(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                        const redux_options *options, MPI_Request *request);
int redux_ireduce_scatter_block_ex(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                                   MPI_Comm comm, const redux_options *options, MPI_Request *request);
int redux_reduce_init_ex(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                         MPI_Comm comm, MPI_Info info, const redux_options *options, MPI_Request *request);
int redux_allreduce_init_ex(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                            MPI_Comm comm, MPI_Info info, const redux_options *options, MPI_Request *request);
int redux_reduce_scatter_block_init_ex(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                                       MPI_Op op, MPI_Comm comm, MPI_Info info, const redux_options *options,
                                       MPI_Request *request);

/* MPI_Wait, MPI_Test, MPI_Start and MPI_Request_free as libredux defines them: they advance libredux's requests and
 * take any other. A program reaches them through the MPI_ names; these names are for a program whose MPI_ calls do
 * not reach libredux's (built for SimGrid's simulated ranks, where MPI_Wait is SimGrid's). */
int redux_request_wait(MPI_Request *request, MPI_Status *status);
int redux_request_test(MPI_Request *request, int *flag, MPI_Status *status);
int redux_request_start(MPI_Request *request);
int redux_request_free(MPI_Request *request);

#ifdef __cplusplus
}
#endif

#endif /* REDUX_REDUX_H */
