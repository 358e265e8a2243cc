/* Interposition for Fortran: MPI_REDUCE, MPI_ALLREDUCE, MPI_REDUCE_SCATTER_BLOCK and MPI_REDUCE_SCATTER called from
 * mpif.h or `use mpi` become redux_reduce, redux_allreduce, redux_reduce_scatter_block and redux_reduce_scatter.
 *
 * Open MPI's Fortran bindings call PMPI_Reduce, not MPI_Reduce, so the C definition in mpi_reduce.c never sees
 * a Fortran program's reduce. These definitions take the place of the MPI library's Fortran symbols, one per name
 * mangling (gfortran's is mpi_reduce_), whenever libredux is linked before the MPI libraries or preloaded. `use
 * mpi_f08` is another path: MPICH's calls the C MPI_Reduce (so mpi_reduce.c catches it), Open MPI 4.1's calls its
 * internal ompi_reduce_f, which libredux does not define.
 *
 * Handles arrive as Fortran integers and go through MPI_*_f2c; Fortran's MPI_IN_PLACE and MPI_BOTTOM become C's
 * (fortran_binding.c says how each MPI exposes them). Under another MPI than libredux's the call goes, untouched, to
 * the library's own Fortran symbol of the same spelling; MPICH's calls the C MPI_Reduce, which passes it on too. */
#include "redux/redux.h"

#include "interpose/fortran_binding.h"

typedef void (*fortran_reduce)(void *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);

static void reduce_f(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *root,
                     MPI_Fint *comm, MPI_Fint *ierr, const char *name, redux_fortran_function *cached) {
    REDUX_FORTRAN_ENTER(fortran_reduce, sendbuf, recvbuf, count, datatype, op, root, comm, ierr);
    *ierr = (MPI_Fint)redux_reduce(redux_fortran_buffer(sendbuf, 1), redux_fortran_buffer(recvbuf, 0), (int)*count,
                                   MPI_Type_f2c(*datatype), MPI_Op_f2c(*op), (int)*root, MPI_Comm_f2c(*comm));
}

REDUX_FORTRAN_CALL(mpi_reduce, MPI_REDUCE, reduce_f,
                   (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *root,
                    MPI_Fint *comm, MPI_Fint *ierr),
                   (sendbuf, recvbuf, count, datatype, op, root, comm, ierr))

/* MPI_ALLREDUCE and MPI_REDUCE_SCATTER_BLOCK: (sendbuf, recvbuf, count, datatype, op, comm, ierr). */
typedef void (*fortran_family)(void *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);
typedef int (*c_family)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);

static void family_f(c_family entry, void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,
                     MPI_Fint *comm, MPI_Fint *ierr, const char *name, redux_fortran_function *cached) {
    REDUX_FORTRAN_ENTER(fortran_family, sendbuf, recvbuf, count, datatype, op, comm, ierr);
    *ierr = (MPI_Fint)entry(redux_fortran_buffer(sendbuf, 1), redux_fortran_buffer(recvbuf, 0), (int)*count,
                            MPI_Type_f2c(*datatype), MPI_Op_f2c(*op), MPI_Comm_f2c(*comm));
}

#define REDUX_FAMILY_F(lower, upper, entry)                                                              \
    REDUX_FORTRAN_CALL(lower, upper, family_f,                                                           \
                       (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, \
                        MPI_Fint *comm, MPI_Fint *ierr),                                                 \
                       (entry, sendbuf, recvbuf, count, datatype, op, comm, ierr))

REDUX_FAMILY_F(mpi_allreduce, MPI_ALLREDUCE, redux_allreduce)
REDUX_FAMILY_F(mpi_reduce_scatter_block, MPI_REDUCE_SCATTER_BLOCK, redux_reduce_scatter_block)

/* MPI_REDUCE_SCATTER: (sendbuf, recvbuf, recvcounts, datatype, op, comm, ierr); redux_reduce_scatter decides between
 * MPI_Reduce_scatter_block's way and the library's own. */
static void reduce_scatter_f(void *sendbuf, void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *datatype, MPI_Fint *op,
                             MPI_Fint *comm, MPI_Fint *ierr, const char *name, redux_fortran_function *cached) {
    REDUX_FORTRAN_ENTER(fortran_family, sendbuf, recvbuf, recvcounts, datatype, op, comm, ierr);
    *ierr = (MPI_Fint)redux_reduce_scatter(redux_fortran_buffer(sendbuf, 1), redux_fortran_buffer(recvbuf, 0),
                                           (const int *)recvcounts, MPI_Type_f2c(*datatype), MPI_Op_f2c(*op),
                                           MPI_Comm_f2c(*comm));
}

REDUX_FORTRAN_CALL(mpi_reduce_scatter, MPI_REDUCE_SCATTER, reduce_scatter_f,
                   (void *sendbuf, void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *datatype, MPI_Fint *op,
                    MPI_Fint *comm, MPI_Fint *ierr),
                   (sendbuf, recvbuf, recvcounts, datatype, op, comm, ierr))
