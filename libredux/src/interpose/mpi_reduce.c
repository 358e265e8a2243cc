/* Interposition: the application's MPI_Reduce becomes redux_reduce. Nothing else lives here.
 * Linked before the MPI library (-lredux) or preloaded (LD_PRELOAD=libredux.so), this definition wins over
 * the library's; redux_reduce calls the library's own as PMPI_Reduce where it should not act.
 * The Fortran bindings are in mpi_reduce_f.c. */
#include "redux/redux.h"

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm) {
    return redux_reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
}
