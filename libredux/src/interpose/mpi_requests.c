/* Interposition of the nonblocking and persistent reductions and of the calls that complete or start requests
 * (api/nonblocking.cpp, api/completion.cpp): MPI_Ireduce, MPI_Iallreduce, MPI_Ireduce_scatter_block (and
 * MPI_Ireduce_scatter, where every count is the same), MPI_Barrier
 * (where the ranks agree on them); the persistent
 * inits under MPI 4.0's names (MPICH 4) and Open MPI 4.1's extension names (MPIX_, mpi-ext.h); MPI_Wait, MPI_Test
 * and their families, MPI_Request_get_status, MPI_Start, MPI_Startall and MPI_Request_free. As in mpi_reduce.c, no
 * <mpi.h>: handles are pointer-wide integers, arrays and statuses untyped pointers, and under another MPI than
 * libredux's every call goes on to that library's own PMPI_ as the program made it. A persistent init the library
 * does not have (a weak reference left null) is not defined by it either: libredux's definition then reports
 * MPI_ERR_INTERN through redux_istart_raw's library call, which a program of that library never makes. */
#include "api/raw_call.h"

#define REDUX_WEAK __attribute__((weak))
typedef redux_raw_handle H;

/* Set while MPICH's `use mpi_f08` binding starts a reduction (mpich_f08.c). */
extern REDUX_INTERNAL __thread int redux_library_only;

/* Whether a reduction started now is the library's own: under another MPI, or from MPICH's f08 binding, whose
 * completion calls never reach libredux's. */
static int library_only(void) { return redux_foreign_mpi() || redux_library_only != 0; }

int PMPI_Ireduce(const void *, void *, int, H, H, int, H, void *);
int PMPI_Iallreduce(const void *, void *, int, H, H, H, void *);
int PMPI_Ireduce_scatter_block(const void *, void *, int, H, H, H, void *);
int PMPI_Ireduce_scatter(const void *, void *, const int *, H, H, H, void *);
int PMPI_Reduce_init(const void *, void *, int, H, H, int, H, H, void *) REDUX_WEAK;
int PMPI_Allreduce_init(const void *, void *, int, H, H, H, H, void *) REDUX_WEAK;
int PMPI_Reduce_scatter_block_init(const void *, void *, int, H, H, H, H, void *) REDUX_WEAK;
int PMPIX_Reduce_init(const void *, void *, int, H, H, int, H, H, void *) REDUX_WEAK;
int PMPIX_Allreduce_init(const void *, void *, int, H, H, H, H, void *) REDUX_WEAK;
int PMPIX_Reduce_scatter_block_init(const void *, void *, int, H, H, H, H, void *) REDUX_WEAK;
int PMPI_Reduce_scatter_init(const void *, void *, const int *, H, H, H, H, void *) REDUX_WEAK;
int PMPIX_Reduce_scatter_init(const void *, void *, const int *, H, H, H, H, void *) REDUX_WEAK;

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, H datatype, H op, int root, H comm, void *request) {
    if (library_only()) return PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request);
    return redux_istart_raw(REDUX_RAW_REDUCE, 0, sendbuf, recvbuf, count, datatype, op, root, comm, 0, request);
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, H datatype, H op, H comm, void *request) {
    if (library_only()) return PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request);
    return redux_istart_raw(REDUX_RAW_ALLREDUCE, 0, sendbuf, recvbuf, count, datatype, op, 0, comm, 0, request);
}

int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, H datatype, H op, H comm,
                              void *request) {
    if (library_only()) return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, request);
    return redux_istart_raw(REDUX_RAW_REDUCE_SCATTER_BLOCK, 0, sendbuf, recvbuf, recvcount, datatype, op, 0, comm, 0,
                            request);
}

/* MPI_Ireduce_scatter: MPI_Ireduce_scatter_block's where every count is the same (redux_block_count_raw), else the
 * library's own. */
int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int *recvcounts, H datatype, H op, H comm,
                        void *request) {
    const int count = library_only() ? -1 : redux_block_count_raw(recvcounts, comm);
    if (count < 0) return PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, request);
    return redux_istart_raw(REDUX_RAW_REDUCE_SCATTER_BLOCK, 0, sendbuf, recvbuf, count, datatype, op, 0, comm, 0,
                            request);
}

/* A barrier is where the ranks agree on the nonblocking reductions they weighed or kept, as at a blocking reduction
 * (route.hpp, agree_at_barrier): a program that reduces only nonblocking gets its reductions planned there. */
int PMPI_Barrier(H);

int MPI_Barrier(H comm) { return redux_foreign_mpi() ? PMPI_Barrier(comm) : redux_barrier_raw(comm); }

/* The persistent inits: one body per collective, reached by both names. */
static int reduce_init(const void *sendbuf, void *recvbuf, int count, H datatype, H op, int root, H comm, H info,
                       void *request) {
    if (library_only()) {
        int (*library)(const void *, void *, int, H, H, int, H, H, void *) =
            PMPI_Reduce_init != 0 ? PMPI_Reduce_init : PMPIX_Reduce_init;
        return library(sendbuf, recvbuf, count, datatype, op, root, comm, info, request);
    }
    return redux_istart_raw(REDUX_RAW_REDUCE, 1, sendbuf, recvbuf, count, datatype, op, root, comm, info, request);
}

static int allreduce_init(int collective, const void *sendbuf, void *recvbuf, int count, H datatype, H op, H comm,
                          H info, void *request) {
    if (library_only()) {
        int (*library)(const void *, void *, int, H, H, H, H, void *) =
            collective == REDUX_RAW_ALLREDUCE ? (PMPI_Allreduce_init != 0 ? PMPI_Allreduce_init : PMPIX_Allreduce_init)
                                              : (PMPI_Reduce_scatter_block_init != 0 ? PMPI_Reduce_scatter_block_init
                                                                                     : PMPIX_Reduce_scatter_block_init);
        return library(sendbuf, recvbuf, count, datatype, op, comm, info, request);
    }
    return redux_istart_raw(collective, 1, sendbuf, recvbuf, count, datatype, op, 0, comm, info, request);
}

int MPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, H datatype, H op, int root, H comm, H info,
                    void *request) {
    return reduce_init(sendbuf, recvbuf, count, datatype, op, root, comm, info, request);
}
int MPIX_Reduce_init(const void *sendbuf, void *recvbuf, int count, H datatype, H op, int root, H comm, H info,
                     void *request) {
    return reduce_init(sendbuf, recvbuf, count, datatype, op, root, comm, info, request);
}
int MPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, H datatype, H op, H comm, H info, void *request) {
    return allreduce_init(REDUX_RAW_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, comm, info, request);
}
int MPIX_Allreduce_init(const void *sendbuf, void *recvbuf, int count, H datatype, H op, H comm, H info,
                        void *request) {
    return allreduce_init(REDUX_RAW_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, comm, info, request);
}
int MPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount, H datatype, H op, H comm, H info,
                                  void *request) {
    return allreduce_init(REDUX_RAW_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf, recvcount, datatype, op, comm, info,
                          request);
}
int MPIX_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount, H datatype, H op, H comm, H info,
                                   void *request) {
    return allreduce_init(REDUX_RAW_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf, recvcount, datatype, op, comm, info,
                          request);
}

/* MPI_Reduce_scatter_init: as MPI_Ireduce_scatter, the counts read at the init. */
static int reduce_scatter_init(const void *sendbuf, void *recvbuf, const int *recvcounts, H datatype, H op, H comm,
                               H info, void *request) {
    const int count = library_only() ? -1 : redux_block_count_raw(recvcounts, comm);
    if (count < 0) {
        int (*library)(const void *, void *, const int *, H, H, H, H, void *) =
            PMPI_Reduce_scatter_init != 0 ? PMPI_Reduce_scatter_init : PMPIX_Reduce_scatter_init;
        return library(sendbuf, recvbuf, recvcounts, datatype, op, comm, info, request);
    }
    return allreduce_init(REDUX_RAW_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf, count, datatype, op, comm, info, request);
}
int MPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int *recvcounts, H datatype, H op, H comm, H info,
                            void *request) {
    return reduce_scatter_init(sendbuf, recvbuf, recvcounts, datatype, op, comm, info, request);
}
int MPIX_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int *recvcounts, H datatype, H op, H comm,
                             H info, void *request) {
    return reduce_scatter_init(sendbuf, recvbuf, recvcounts, datatype, op, comm, info, request);
}

int PMPI_Wait(void *, void *);
int PMPI_Test(void *, int *, void *);
int PMPI_Waitall(int, void *, void *);
int PMPI_Testall(int, void *, int *, void *);
int PMPI_Waitany(int, void *, int *, void *);
int PMPI_Testany(int, void *, int *, int *, void *);
int PMPI_Waitsome(int, void *, int *, int *, void *);
int PMPI_Testsome(int, void *, int *, int *, void *);
int PMPI_Request_get_status(H, int *, void *);
int PMPI_Start(void *);
int PMPI_Startall(int, void *);
int PMPI_Request_free(void *);

int MPI_Wait(void *request, void *status) {
    return redux_foreign_mpi() ? PMPI_Wait(request, status) : redux_wait_raw(request, status);
}
int MPI_Test(void *request, int *flag, void *status) {
    return redux_foreign_mpi() ? PMPI_Test(request, flag, status) : redux_test_raw(request, flag, status);
}
int MPI_Waitall(int count, void *requests, void *statuses) {
    return redux_foreign_mpi() ? PMPI_Waitall(count, requests, statuses) : redux_waitall_raw(count, requests, statuses);
}
int MPI_Testall(int count, void *requests, int *flag, void *statuses) {
    return redux_foreign_mpi() ? PMPI_Testall(count, requests, flag, statuses)
                               : redux_testall_raw(count, requests, flag, statuses);
}
int MPI_Waitany(int count, void *requests, int *index, void *status) {
    return redux_foreign_mpi() ? PMPI_Waitany(count, requests, index, status)
                               : redux_waitany_raw(count, requests, index, status);
}
int MPI_Testany(int count, void *requests, int *index, int *flag, void *status) {
    return redux_foreign_mpi() ? PMPI_Testany(count, requests, index, flag, status)
                               : redux_testany_raw(count, requests, index, flag, status);
}
int MPI_Waitsome(int count, void *requests, int *outcount, int *indices, void *statuses) {
    return redux_foreign_mpi() ? PMPI_Waitsome(count, requests, outcount, indices, statuses)
                               : redux_waitsome_raw(count, requests, outcount, indices, statuses);
}
int MPI_Testsome(int count, void *requests, int *outcount, int *indices, void *statuses) {
    return redux_foreign_mpi() ? PMPI_Testsome(count, requests, outcount, indices, statuses)
                               : redux_testsome_raw(count, requests, outcount, indices, statuses);
}
int MPI_Request_get_status(H request, int *flag, void *status) {
    return redux_foreign_mpi() ? PMPI_Request_get_status(request, flag, status)
                               : redux_request_get_status_raw(request, flag, status);
}
int MPI_Start(void *request) { return redux_foreign_mpi() ? PMPI_Start(request) : redux_start_raw(request); }
int MPI_Startall(int count, void *requests) {
    return redux_foreign_mpi() ? PMPI_Startall(count, requests) : redux_startall_raw(count, requests);
}
int MPI_Request_free(void *request) {
    return redux_foreign_mpi() ? PMPI_Request_free(request) : redux_request_free_raw(request);
}
