/* Interposition: the application's MPI_Reduce, MPI_Allreduce and MPI_Reduce_scatter_block become redux_reduce,
 * redux_allreduce and redux_reduce_scatter_block (MPI_Reduce_scatter too, where every count is the same); MPI_Op_create
 * and MPI_Op_free are the library's, and libredux notes which function each user op runs (the wisdom file names a user
 * op by it). Nothing else lives here. Linked before the MPI library (-lredux) or preloaded (LD_PRELOAD=libredux.so),
 * this definition wins over the library's; redux_reduce calls the library's own as PMPI_Reduce where it should not act.
 * The Fortran bindings are in mpi_reduce_f.c.
 *
 * No <mpi.h> here: the handles are taken as pointer-wide integers (api/raw_call.h), so that under another MPI than
 * libredux's (preloaded into a program of the other MPI: api/mpi_identity.h) the call reaches that library's
 * own PMPI_Reduce exactly as the program made it, whatever the width of its handles. */
#include "api/raw_call.h"

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, redux_raw_handle datatype, redux_raw_handle op, int root,
               redux_raw_handle comm);
int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, redux_raw_handle datatype, redux_raw_handle op, int root,
                redux_raw_handle comm);

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, redux_raw_handle datatype, redux_raw_handle op, int root,
               redux_raw_handle comm) {
    if (redux_foreign_mpi()) return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    return redux_reduce_raw(sendbuf, recvbuf, count, datatype, op, root, comm);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, redux_raw_handle datatype, redux_raw_handle op,
                  redux_raw_handle comm);
int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, redux_raw_handle datatype, redux_raw_handle op,
                   redux_raw_handle comm);

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, redux_raw_handle datatype, redux_raw_handle op,
                  redux_raw_handle comm) {
    if (redux_foreign_mpi()) return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    return redux_allreduce_raw(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, redux_raw_handle datatype,
                             redux_raw_handle op, redux_raw_handle comm);
int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, redux_raw_handle datatype,
                              redux_raw_handle op, redux_raw_handle comm);

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, redux_raw_handle datatype,
                             redux_raw_handle op, redux_raw_handle comm) {
    if (redux_foreign_mpi()) return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
    return redux_reduce_scatter_block_raw(sendbuf, recvbuf, recvcount, datatype, op, comm);
}

/* MPI_Reduce_scatter: MPI_Reduce_scatter_block's where every count is the same (redux_block_count_raw), else the
 * library's own. */
int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int *recvcounts, redux_raw_handle datatype,
                        redux_raw_handle op, redux_raw_handle comm);
int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int *recvcounts, redux_raw_handle datatype,
                       redux_raw_handle op, redux_raw_handle comm);

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int *recvcounts, redux_raw_handle datatype,
                       redux_raw_handle op, redux_raw_handle comm) {
    const int count = redux_foreign_mpi() ? -1 : redux_block_count_raw(recvcounts, comm);
    if (count < 0) return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
    return redux_reduce_scatter_block_raw(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Op_create(void *function, int commute, void *op);
int PMPI_Op_create(void *function, int commute, void *op);

int MPI_Op_create(void *function, int commute, void *op) {
    const int rc = PMPI_Op_create(function, commute, op);
    if (rc == 0 && !redux_foreign_mpi()) redux_user_op_created_raw(function, op); /* 0: MPI_SUCCESS in every MPI */
    return rc;
}

int MPI_Op_free(void *op);
int PMPI_Op_free(void *op);

int MPI_Op_free(void *op) {
    if (op != 0 && !redux_foreign_mpi()) redux_user_op_freed_raw(op);
    return PMPI_Op_free(op);
}
