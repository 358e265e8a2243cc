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
 */
#ifndef REDUX_REDUX_H
#define REDUX_REDUX_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

int redux_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                 MPI_Comm comm);

#ifdef __cplusplus
}
#endif

#endif /* REDUX_REDUX_H */
