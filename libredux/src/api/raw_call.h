/* MPI_Reduce's handles as the program passed them: redux_reduce_raw is defined in reduce.cpp and called by
 * interpose/mpi_reduce.c, which defines MPI_Reduce without <mpi.h>, with every handle a pointer-wide integer: under the
 * MPI libredux was built for, redux_reduce_raw (api/reduce.cpp) turns them into that MPI's handle types; under another
 * MPI (api/mpi_identity.h), they go on to that library's own PMPI_Reduce with every bit the program passed. The handle
 * types differ between MPIs (Open MPI: pointers, MPICH: ints), so a handle that went through libredux's own types could
 * arrive cut to 32 bits. */
#ifndef REDUX_EXEC_RAW_CALL_H
#define REDUX_EXEC_RAW_CALL_H

#include "api/mpi_identity.h" /* REDUX_INTERNAL */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uintptr_t redux_raw_handle;

/* redux_reduce with the handles converted to libredux's MPI's types (an int handle is the low 32 bits). */
REDUX_INTERNAL int redux_reduce_raw(const void *sendbuf, void *recvbuf, int count, redux_raw_handle datatype,
                                    redux_raw_handle op, int root, redux_raw_handle comm);
REDUX_INTERNAL int redux_allreduce_raw(const void *sendbuf, void *recvbuf, int count, redux_raw_handle datatype,
                                       redux_raw_handle op, redux_raw_handle comm);
REDUX_INTERNAL int redux_reduce_scatter_block_raw(const void *sendbuf, void *recvbuf, int recvcount,
                                                  redux_raw_handle datatype, redux_raw_handle op,
                                                  redux_raw_handle comm);

/* MPI_Reduce_scatter's recvcounts where every rank's count is the same: that count, and the call is
 * MPI_Reduce_scatter_block's of it; -1 where the counts differ or the library's own call should answer (no counts,
 * MPI_COMM_NULL, an inter-communicator, MPI not running, a negative count). */
REDUX_INTERNAL int redux_block_count_raw(const int *recvcounts, redux_raw_handle comm);

/* MPI_Barrier: a point where the ranks agree on their nonblocking reductions (route.hpp, agree_at_barrier), then the
 * library's own barrier. */
REDUX_INTERNAL int redux_barrier_raw(redux_raw_handle comm);

/* redux_istart_raw's `collective` (the values of redux::Collective). */
enum { REDUX_RAW_REDUCE = 0, REDUX_RAW_ALLREDUCE = 1, REDUX_RAW_REDUCE_SCATTER_BLOCK = 2 };

/* The nonblocking (persistent 0) and persistent (1) reductions (api/nonblocking.cpp): `collective` is one of the
 * above; `request` points at the program's MPI_Request, `info` is ignored by the nonblocking ones. */
REDUX_INTERNAL int redux_istart_raw(int collective, int persistent, const void *sendbuf, void *recvbuf, int count,
                                    redux_raw_handle datatype, redux_raw_handle op, int root, redux_raw_handle comm,
                                    redux_raw_handle info, void *request);

/* The completion calls and the calls on persistent requests (api/completion.cpp): requests and statuses are the
 * program's arrays of its MPI's MPI_Request and MPI_Status. */
REDUX_INTERNAL int redux_wait_raw(void *request, void *status);
REDUX_INTERNAL int redux_test_raw(void *request, int *flag, void *status);
REDUX_INTERNAL int redux_waitall_raw(int count, void *requests, void *statuses);
REDUX_INTERNAL int redux_testall_raw(int count, void *requests, int *flag, void *statuses);
REDUX_INTERNAL int redux_waitany_raw(int count, void *requests, int *index, void *status);
REDUX_INTERNAL int redux_testany_raw(int count, void *requests, int *index, int *flag, void *status);
REDUX_INTERNAL int redux_waitsome_raw(int count, void *requests, int *outcount, int *indices, void *statuses);
REDUX_INTERNAL int redux_testsome_raw(int count, void *requests, int *outcount, int *indices, void *statuses);
REDUX_INTERNAL int redux_request_get_status_raw(redux_raw_handle request, int *flag, void *status);
REDUX_INTERNAL int redux_start_raw(void *request);
REDUX_INTERNAL int redux_startall_raw(int count, void *requests);
REDUX_INTERNAL int redux_request_free_raw(void *request);

/* MPI_Op_create and MPI_Op_free seen (interpose/mpi_reduce.c): `op` points at the program's handle, `function` is its
 * user function (api/user_ops.cpp keeps which, to name the op in the wisdom file). */
REDUX_INTERNAL void redux_user_op_created_raw(void *function, const void *op);
REDUX_INTERNAL void redux_user_op_freed_raw(const void *op);

#ifdef __cplusplus
}
#endif

#endif
