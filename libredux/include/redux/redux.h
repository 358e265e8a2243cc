/* libredux: MPI_Reduce on reduction trees planned from measured costs.
 *
 * redux_reduce() has MPI_Reduce's signature and contract (MPI standard, section "Reduce"): the same
 * arguments give the same result, MPI_IN_PLACE at the root, any root, count 0, predefined and user
 * operators, commutative or not (then the result is exactly v0 o v1 o ... o v(n-1)), derived datatypes.
 * Errors go through the communicator's error handler with the MPI library's own error classes. Whatever
 * libredux does not handle itself (intercommunicators, REDUX_ALGORITHM=native) is passed to PMPI_Reduce.
 *
 * Linking libredux (or LD_PRELOAD=libredux.so) also makes MPI_Reduce itself, from C and Fortran, go here.
 *
 * Configuration, read once from the environment (see README.md):
 *   REDUX_ALGORITHM = auto | optimal | fibonacci | binomial | native   (default auto)
 *   REDUX_D, REDUX_C = transfer and compute cost in seconds, overriding the defaults
 *   REDUX_VERBOSE = 1: rank 0 prints every new plan once on stderr
 *
 * redux_reduce_ex() is redux_reduce() with per-call choices (the benchmark uses it to compare algorithms in
 * one run) and a report of what the call did.
 */
#ifndef REDUX_REDUX_H
#define REDUX_REDUX_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

int redux_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                 MPI_Comm comm);

typedef enum redux_algorithm {
    REDUX_ALGORITHM_CONFIGURED = 0, /* whatever REDUX_ALGORITHM says (default auto) */
    REDUX_ALGORITHM_AUTO = 1,
    REDUX_ALGORITHM_OPTIMAL = 2,   /* Algorithm 1 of Canon & Antoniu with the call's d and c */
    REDUX_ALGORITHM_FIBONACCI = 3,
    REDUX_ALGORITHM_BINOMIAL = 4,
    REDUX_ALGORITHM_NATIVE = 5,    /* the MPI library's own MPI_Reduce (PMPI_Reduce) */
    /* Trees built from the calibrated per-link costs, for communicators whose links fall in several classes
     * (nodes, packages) and commutative ops; elsewhere they plan the optimal tree (redux_call_info says which
     * ran). Per call only, not REDUX_ALGORITHM values. */
    REDUX_ALGORITHM_SNF = 6,           /* Slowest-Node-First (Liu & Wang) */
    REDUX_ALGORITHM_HETERO_GREEDY = 7, /* Algorithm 1 generalised to per-link costs */
    REDUX_ALGORITHM_TWO_LEVEL = 8      /* Algorithm 1 inside each node, then across the node leaders */
} redux_algorithm;

/* Per-call choices. Like every argument of a collective call, they must be the same on all ranks. */
typedef struct redux_options {
    redux_algorithm algorithm;
    double transfer_s; /* d to plan with, seconds; < 0: the library's own (REDUX_D, else its default) */
    double compute_s;  /* c to plan with, seconds; < 0: the library's own (REDUX_C, else its default) */
} redux_options;

#define REDUX_OPTIONS_INIT {REDUX_ALGORITHM_CONFIGURED, -1.0, -1.0}

/* What one call did, the same on every rank. */
typedef struct redux_call_info {
    int planned;               /* 1: ran a planned tree; 0: the call went to PMPI_Reduce */
    redux_algorithm algorithm; /* what ran: a planned algorithm, or REDUX_ALGORITHM_NATIVE */
    double transfer_s;         /* the d and c the plan was made with (0 when not planned) */
    double compute_s;
    double predicted_s;        /* the plan's predicted makespan, seconds (0 when not planned) */
} redux_call_info;

/* redux_reduce() with `options` (NULL: REDUX_OPTIONS_INIT) and, when `info` is not NULL, a report of the
 * call. An unknown algorithm or a cost that is not a finite number is MPI_ERR_ARG, through comm's error
 * handler. */
int redux_reduce_ex(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                    MPI_Comm comm, const redux_options *options, redux_call_info *info);

#ifdef __cplusplus
}
#endif

#endif /* REDUX_REDUX_H */
