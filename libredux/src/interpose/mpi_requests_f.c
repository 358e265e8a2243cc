/* Interposition for Fortran (mpif.h, `use mpi`) of the nonblocking and persistent reductions and of the calls that
 * complete or start requests; mpi_requests.c is the C side. MPI_IREDUCE, MPI_IALLREDUCE, MPI_IREDUCE_SCATTER_BLOCK,
 * MPI_IREDUCE_SCATTER;
 * the persistent inits under MPI 4.0's names (MPICH 4's Fortran: mpi_allreduce_init_) and Open MPI 4.1's extension
 * names (mpix_allreduce_init_, declared by `use mpi_ext`), both names defined as in C; MPI_WAIT, MPI_TEST and their
 * families, MPI_REQUEST_GET_STATUS, MPI_START, MPI_STARTALL and MPI_REQUEST_FREE; MPI_BARRIER. Each is defined in the
 * four manglings (fortran_binding.h).
 *
 * libredux's requests complete only in libredux's completion calls (api/completion.cpp), and Open MPI's Fortran
 * bindings call PMPI_Wait and the like, which never reach them: without these definitions a Fortran MPI_WAIT on a
 * libredux request would hang. MPICH's bindings call the C names, which mpi_requests.c defines; its Fortran programs
 * take this path too, so that both MPIs run the same conversions.
 *
 * Each converts what Fortran passes: handles through MPI_*_f2c; Fortran's MPI_IN_PLACE and MPI_BOTTOM,
 * MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE to C's (fortran_binding.c). It calls libredux's entry (api/raw_call.h: the
 * same functions C's MPI_Iallreduce and MPI_Wait call) and writes back every request with MPI_Request_c2f (a request
 * completed and freed comes back as Fortran's MPI_REQUEST_NULL, also where the reduction it completed failed), every
 * status the call wrote with MPI_Status_c2f (an array call's where it succeeded or failed in a status,
 * MPI_ERR_IN_STATUS), indices 1-based (MPI_UNDEFINED stays) and flags as LOGICAL. Arrays of requests and statuses
 * are converted in scratch arrays on the stack, for up to kOnStack requests, else on the heap. Under another MPI
 * than libredux's every call goes, untouched, to the library's own Fortran symbol of the same spelling. */
#include "api/raw_call.h"
#include "interpose/fortran_binding.h"

#include <stdlib.h>

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran's INTEGER indices are passed to C as int");

enum { kOnStack = 16 };

/* The shapes of the Fortran calls passed on untouched: buffers first, then n integer arguments. */
typedef void (*buffers_7)(void *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                          MPI_Fint *);
typedef void (*buffers_6)(void *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);
typedef void (*buffers_8)(void *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                          MPI_Fint *, MPI_Fint *);
typedef void (*integers_2)(MPI_Fint *, MPI_Fint *);
typedef void (*integers_3)(MPI_Fint *, MPI_Fint *, MPI_Fint *);
typedef void (*integers_4)(MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);
typedef void (*integers_5)(MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);
typedef void (*integers_6)(MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);

/* ---- Nonblocking and persistent starts --------------------------------------------------------------------- */

/* Starts `collective` for Fortran: `root` and `info` are NULL for the calls that have none. */
static void start_f(int collective, int persistent, void *sendbuf, void *recvbuf, const MPI_Fint *count,
                    const MPI_Fint *datatype, const MPI_Fint *op, const MPI_Fint *root, const MPI_Fint *comm,
                    const MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr) {
    MPI_Request c_request = MPI_REQUEST_NULL;
    const MPI_Info c_info = info != NULL ? MPI_Info_f2c(*info) : MPI_INFO_NULL;
    *ierr = (MPI_Fint)redux_istart_raw(
        collective, persistent, redux_fortran_buffer(sendbuf, 1), redux_fortran_buffer(recvbuf, 0), (int)*count,
        (redux_raw_handle)MPI_Type_f2c(*datatype), (redux_raw_handle)MPI_Op_f2c(*op), root != NULL ? (int)*root : 0,
        (redux_raw_handle)MPI_Comm_f2c(*comm), (redux_raw_handle)c_info, &c_request);
    if (*ierr == MPI_SUCCESS) *request = MPI_Request_c2f(c_request);
}

static void ireduce_f(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *root,
                      MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr, const char *name,
                      redux_fortran_function *cached) {
    REDUX_FORTRAN_ENTER(buffers_7, sendbuf, recvbuf, count, datatype, op, root, comm, request, ierr);
    start_f(REDUX_RAW_REDUCE, 0, sendbuf, recvbuf, count, datatype, op, root, comm, NULL, request, ierr);
}

static void reduce_init_f(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,
                          MPI_Fint *root, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr,
                          const char *name, redux_fortran_function *cached) {
    REDUX_FORTRAN_ENTER(buffers_8, sendbuf, recvbuf, count, datatype, op, root, comm, info, request, ierr);
    start_f(REDUX_RAW_REDUCE, 1, sendbuf, recvbuf, count, datatype, op, root, comm, info, request, ierr);
}

/* MPI_IALLREDUCE and MPI_IREDUCE_SCATTER_BLOCK. */
static void iallreduce_f(int collective, void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype,
                         MPI_Fint *op, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr, const char *name,
                         redux_fortran_function *cached) {
    REDUX_FORTRAN_ENTER(buffers_6, sendbuf, recvbuf, count, datatype, op, comm, request, ierr);
    start_f(collective, 0, sendbuf, recvbuf, count, datatype, op, NULL, comm, NULL, request, ierr);
}

/* MPI_ALLREDUCE_INIT and MPI_REDUCE_SCATTER_BLOCK_INIT. */
static void allreduce_init_f(int collective, void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype,
                             MPI_Fint *op, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr,
                             const char *name, redux_fortran_function *cached) {
    REDUX_FORTRAN_ENTER(buffers_7, sendbuf, recvbuf, count, datatype, op, comm, info, request, ierr);
    start_f(collective, 1, sendbuf, recvbuf, count, datatype, op, NULL, comm, info, request, ierr);
}

/* MPI_IREDUCE_SCATTER and MPI_REDUCE_SCATTER_INIT (`info` NULL for the first): MPI_IREDUCE_SCATTER_BLOCK's and its
 * init's where every count is the same (redux_block_count_raw), else the library's own. */
static void reduce_scatter_start_f(int persistent, void *sendbuf, void *recvbuf, MPI_Fint *recvcounts,
                                   MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request,
                                   MPI_Fint *ierr, const char *name, redux_fortran_function *cached) {
    const MPI_Fint count = redux_foreign_mpi()
                               ? -1
                               : redux_block_count_raw((const int *)recvcounts, (redux_raw_handle)MPI_Comm_f2c(*comm));
    if (count < 0 && persistent) {
        ((buffers_7)redux_fortran_library(name, cached))(sendbuf, recvbuf, recvcounts, datatype, op, comm, info,
                                                         request, ierr);
    } else if (count < 0) {
        ((buffers_6)redux_fortran_library(name, cached))(sendbuf, recvbuf, recvcounts, datatype, op, comm, request,
                                                         ierr);
    } else {
        redux_fortran_ready();
        start_f(REDUX_RAW_REDUCE_SCATTER_BLOCK, persistent, sendbuf, recvbuf, &count, datatype, op, NULL, comm, info,
                request, ierr);
    }
}

#define REDUX_BUFFERS_F void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op
#define REDUX_REDUCE_INIT_F(lower, upper)                                                                          \
    REDUX_FORTRAN_CALL(                                                                                            \
        lower, upper, reduce_init_f,                                                                               \
        (REDUX_BUFFERS_F, MPI_Fint * root, MPI_Fint * comm, MPI_Fint * info, MPI_Fint * request, MPI_Fint * ierr), \
        (sendbuf, recvbuf, count, datatype, op, root, comm, info, request, ierr))
#define REDUX_IALLREDUCE_F(lower, upper, collective)                                            \
    REDUX_FORTRAN_CALL(lower, upper, iallreduce_f,                                              \
                       (REDUX_BUFFERS_F, MPI_Fint * comm, MPI_Fint * request, MPI_Fint * ierr), \
                       (collective, sendbuf, recvbuf, count, datatype, op, comm, request, ierr))
#define REDUX_ALLREDUCE_INIT_F(lower, upper, collective)                                                         \
    REDUX_FORTRAN_CALL(lower, upper, allreduce_init_f,                                                           \
                       (REDUX_BUFFERS_F, MPI_Fint * comm, MPI_Fint * info, MPI_Fint * request, MPI_Fint * ierr), \
                       (collective, sendbuf, recvbuf, count, datatype, op, comm, info, request, ierr))

REDUX_FORTRAN_CALL(mpi_ireduce, MPI_IREDUCE, ireduce_f,
                   (REDUX_BUFFERS_F, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr),
                   (sendbuf, recvbuf, count, datatype, op, root, comm, request, ierr))
REDUX_IALLREDUCE_F(mpi_iallreduce, MPI_IALLREDUCE, REDUX_RAW_ALLREDUCE)
REDUX_IALLREDUCE_F(mpi_ireduce_scatter_block, MPI_IREDUCE_SCATTER_BLOCK, REDUX_RAW_REDUCE_SCATTER_BLOCK)
REDUX_REDUCE_INIT_F(mpi_reduce_init, MPI_REDUCE_INIT)
REDUX_REDUCE_INIT_F(mpix_reduce_init, MPIX_REDUCE_INIT)
REDUX_ALLREDUCE_INIT_F(mpi_allreduce_init, MPI_ALLREDUCE_INIT, REDUX_RAW_ALLREDUCE)
REDUX_ALLREDUCE_INIT_F(mpix_allreduce_init, MPIX_ALLREDUCE_INIT, REDUX_RAW_ALLREDUCE)
REDUX_ALLREDUCE_INIT_F(mpi_reduce_scatter_block_init, MPI_REDUCE_SCATTER_BLOCK_INIT, REDUX_RAW_REDUCE_SCATTER_BLOCK)
REDUX_ALLREDUCE_INIT_F(mpix_reduce_scatter_block_init, MPIX_REDUCE_SCATTER_BLOCK_INIT, REDUX_RAW_REDUCE_SCATTER_BLOCK)
REDUX_FORTRAN_CALL(mpi_ireduce_scatter, MPI_IREDUCE_SCATTER, reduce_scatter_start_f,
                   (REDUX_BUFFERS_F, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr),
                   (0, sendbuf, recvbuf, count, datatype, op, comm, NULL, request, ierr))
#define REDUX_REDUCE_SCATTER_INIT_F(lower, upper)                                                                \
    REDUX_FORTRAN_CALL(lower, upper, reduce_scatter_start_f,                                                     \
                       (REDUX_BUFFERS_F, MPI_Fint * comm, MPI_Fint * info, MPI_Fint * request, MPI_Fint * ierr), \
                       (1, sendbuf, recvbuf, count, datatype, op, comm, info, request, ierr))
REDUX_REDUCE_SCATTER_INIT_F(mpi_reduce_scatter_init, MPI_REDUCE_SCATTER_INIT)
REDUX_REDUCE_SCATTER_INIT_F(mpix_reduce_scatter_init, MPIX_REDUCE_SCATTER_INIT)

/* ---- Statuses and arrays ----------------------------------------------------------------------------------- */

static int succeeded(int rc) { return rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS; }

/* The C status for a Fortran one: C's MPI_STATUS_IGNORE for Fortran's, else `scratch`. */
static MPI_Status *c_status(const MPI_Fint *status, MPI_Status *scratch) {
    return status == MPI_F_STATUS_IGNORE ? MPI_STATUS_IGNORE : scratch;
}

/* Writes a status the call wrote (`written`) back to Fortran's, unless Fortran's is MPI_STATUS_IGNORE. */
static void f_status(const MPI_Status *c, MPI_Fint *status, int written) {
    if (written && status != MPI_F_STATUS_IGNORE) MPI_Status_c2f(c, status);
}

/* A call's Fortran requests (and statuses) in C. */
typedef struct {
    MPI_Request *requests;
    MPI_Status *statuses; /* C's MPI_STATUSES_IGNORE where `with_statuses` is 0 */
    int with_statuses;
    MPI_Request requests_here[kOnStack];
    MPI_Status statuses_here[kOnStack];
} CArrays;

/* Frees what `a` took from the heap. */
static void free_arrays(CArrays *a) {
    if (a->requests != a->requests_here) free(a->requests);
    if (a->with_statuses && a->statuses != a->statuses_here) free(a->statuses);
}

/* Fills `a` from `count` Fortran requests; `statuses` is the Fortran array, or NULL for a call without one. Returns
 * MPI_ERR_NO_MEM, through MPI_COMM_WORLD's error handler as the MPIs' own bindings do, where the heap has no room. */
static int open_arrays(CArrays *a, int count, const MPI_Fint *requests, const MPI_Fint *statuses) {
    a->with_statuses = statuses != NULL && statuses != MPI_F_STATUSES_IGNORE;
    a->requests = a->requests_here;
    a->statuses = a->with_statuses ? a->statuses_here : MPI_STATUSES_IGNORE;
    if (count > kOnStack) {
        a->requests = malloc((size_t)count * sizeof *a->requests);
        if (a->with_statuses) a->statuses = malloc((size_t)count * sizeof *a->statuses);
        if (a->requests == NULL || (a->with_statuses && a->statuses == NULL)) {
            free(a->requests);
            if (a->with_statuses) free(a->statuses);
            MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
            return MPI_ERR_NO_MEM;
        }
    }
    for (int i = 0; i < count; ++i) a->requests[i] = MPI_Request_f2c(requests[i]);
    return MPI_SUCCESS;
}

/* Ends a call on `a`: every request back to Fortran (the C call leaves each valid, completed or not), and where it
 * succeeded or failed in a status, the first `written` statuses. */
static void close_arrays(CArrays *a, int rc, int count, MPI_Fint *requests, MPI_Fint *statuses, int written) {
    for (int i = 0; i < count; ++i) requests[i] = MPI_Request_c2f(a->requests[i]);
    for (int k = 0; succeeded(rc) && a->with_statuses && k < written; ++k) {
        MPI_Status_c2f(&a->statuses[k], &statuses[k * REDUX_FORTRAN_STATUS_SIZE]);
    }
    free_arrays(a);
}

/* A C index (0-based, or MPI_UNDEFINED) as Fortran's. */
static MPI_Fint f_index(int index) { return index == MPI_UNDEFINED ? MPI_UNDEFINED : (MPI_Fint)(index + 1); }

/* ---- Completion calls on one request ------------------------------------------------------------------------ */

static void wait_f(MPI_Fint *request, MPI_Fint *status, MPI_Fint *ierr, const char *name,
                   redux_fortran_function *cached) {
    REDUX_FORTRAN_ENTER(integers_3, request, status, ierr);
    MPI_Request c = MPI_Request_f2c(*request);
    MPI_Status s;
    *ierr = (MPI_Fint)redux_wait_raw(&c, c_status(status, &s));
    *request = MPI_Request_c2f(c);
    f_status(&s, status, 1);
}

/* MPI_TEST, and MPI_REQUEST_GET_STATUS (`get_status`), which leaves the request as it is. */
static void test_f(int get_status, MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr,
                   const char *name, redux_fortran_function *cached) {
    REDUX_FORTRAN_ENTER(integers_4, request, flag, status, ierr);
    MPI_Request c = MPI_Request_f2c(*request);
    MPI_Status s;
    MPI_Status *const c_s = c_status(status, &s);
    int c_flag = 0;
    *ierr = (MPI_Fint)(get_status ? redux_request_get_status_raw((redux_raw_handle)c, &c_flag, c_s)
                                  : redux_test_raw(&c, &c_flag, c_s));
    *flag = REDUX_FORTRAN_LOGICAL(c_flag);
    if (!get_status) *request = MPI_Request_c2f(c);
    f_status(&s, status, c_flag);
}

static void barrier_f(MPI_Fint *comm, MPI_Fint *ierr, const char *name, redux_fortran_function *cached) {
    REDUX_FORTRAN_ENTER(integers_2, comm, ierr);
    *ierr = (MPI_Fint)redux_barrier_raw((redux_raw_handle)MPI_Comm_f2c(*comm));
}

/* MPI_START and MPI_REQUEST_FREE: `entry` is libredux's. */
static void one_request_f(int (*entry)(void *), MPI_Fint *request, MPI_Fint *ierr, const char *name,
                          redux_fortran_function *cached) {
    REDUX_FORTRAN_ENTER(integers_2, request, ierr);
    MPI_Request c = MPI_Request_f2c(*request);
    *ierr = (MPI_Fint)entry(&c);
    *request = MPI_Request_c2f(c);
}

REDUX_FORTRAN_CALL(mpi_wait, MPI_WAIT, wait_f, (MPI_Fint * request, MPI_Fint *status, MPI_Fint *ierr),
                   (request, status, ierr))
REDUX_FORTRAN_CALL(mpi_test, MPI_TEST, test_f, (MPI_Fint * request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr),
                   (0, request, flag, status, ierr))
REDUX_FORTRAN_CALL(mpi_request_get_status, MPI_REQUEST_GET_STATUS, test_f,
                   (MPI_Fint * request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr),
                   (1, request, flag, status, ierr))
REDUX_FORTRAN_CALL(mpi_barrier, MPI_BARRIER, barrier_f, (MPI_Fint * comm, MPI_Fint *ierr), (comm, ierr))
REDUX_FORTRAN_CALL(mpi_start, MPI_START, one_request_f, (MPI_Fint * request, MPI_Fint *ierr),
                   (redux_start_raw, request, ierr))
REDUX_FORTRAN_CALL(mpi_request_free, MPI_REQUEST_FREE, one_request_f, (MPI_Fint * request, MPI_Fint *ierr),
                   (redux_request_free_raw, request, ierr))

/* ---- Completion calls on arrays of requests ---------------------------------------------------------------- */

static void waitall_f(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *statuses, MPI_Fint *ierr, const char *name,
                      redux_fortran_function *cached) {
    REDUX_FORTRAN_ENTER(integers_4, count, requests, statuses, ierr);
    CArrays a;
    if ((*ierr = (MPI_Fint)open_arrays(&a, (int)*count, requests, statuses)) != MPI_SUCCESS) return;
    *ierr = (MPI_Fint)redux_waitall_raw((int)*count, a.requests, a.statuses);
    close_arrays(&a, *ierr, (int)*count, requests, statuses, (int)*count);
}

static void testall_f(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag, MPI_Fint *statuses, MPI_Fint *ierr,
                      const char *name, redux_fortran_function *cached) {
    REDUX_FORTRAN_ENTER(integers_5, count, requests, flag, statuses, ierr);
    CArrays a;
    if ((*ierr = (MPI_Fint)open_arrays(&a, (int)*count, requests, statuses)) != MPI_SUCCESS) return;
    int c_flag = 0;
    *ierr = (MPI_Fint)redux_testall_raw((int)*count, a.requests, &c_flag, a.statuses);
    if (succeeded(*ierr)) *flag = REDUX_FORTRAN_LOGICAL(c_flag);
    close_arrays(&a, *ierr, (int)*count, requests, statuses, c_flag ? (int)*count : 0);
}

/* MPI_WAITANY (`flag` NULL) and MPI_TESTANY. */
static void any_f(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag, MPI_Fint *status,
                  MPI_Fint *ierr) {
    CArrays a;
    if ((*ierr = (MPI_Fint)open_arrays(&a, (int)*count, requests, NULL)) != MPI_SUCCESS) return;
    MPI_Status s;
    MPI_Status *const c_s = c_status(status, &s);
    int c_index = MPI_UNDEFINED, c_flag = 1;
    *ierr = (MPI_Fint)(flag == NULL ? redux_waitany_raw((int)*count, a.requests, &c_index, c_s)
                                    : redux_testany_raw((int)*count, a.requests, &c_index, &c_flag, c_s));
    *index = f_index(c_index);
    if (flag != NULL) *flag = REDUX_FORTRAN_LOGICAL(c_flag);
    f_status(&s, status, c_flag && (*ierr == MPI_SUCCESS || c_index != MPI_UNDEFINED));
    close_arrays(&a, *ierr, (int)*count, requests, NULL, 0);
}

static void waitany_f(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *status, MPI_Fint *ierr,
                      const char *name, redux_fortran_function *cached) {
    REDUX_FORTRAN_ENTER(integers_5, count, requests, index, status, ierr);
    any_f(count, requests, index, NULL, status, ierr);
}

static void testany_f(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag, MPI_Fint *status,
                      MPI_Fint *ierr, const char *name, redux_fortran_function *cached) {
    REDUX_FORTRAN_ENTER(integers_6, count, requests, index, flag, status, ierr);
    any_f(count, requests, index, flag, status, ierr);
}

/* MPI_WAITSOME and MPI_TESTSOME: `entry` is libredux's. */
static void some_f(int (*entry)(int, void *, int *, int *, void *), MPI_Fint *incount, MPI_Fint *requests,
                   MPI_Fint *outcount, MPI_Fint *indices, MPI_Fint *statuses, MPI_Fint *ierr, const char *name,
                   redux_fortran_function *cached) {
    REDUX_FORTRAN_ENTER(integers_6, incount, requests, outcount, indices, statuses, ierr);
    CArrays a;
    if ((*ierr = (MPI_Fint)open_arrays(&a, (int)*incount, requests, statuses)) != MPI_SUCCESS) return;
    int c_outcount = MPI_UNDEFINED;
    *ierr = (MPI_Fint)entry((int)*incount, a.requests, &c_outcount, (int *)indices, a.statuses);
    const int completed = succeeded(*ierr) && c_outcount != MPI_UNDEFINED ? c_outcount : 0;
    if (succeeded(*ierr)) *outcount = c_outcount;
    for (int k = 0; k < completed; ++k) indices[k] = f_index(indices[k]);
    close_arrays(&a, *ierr, (int)*incount, requests, statuses, completed);
}

static void startall_f(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *ierr, const char *name,
                       redux_fortran_function *cached) {
    REDUX_FORTRAN_ENTER(integers_3, count, requests, ierr);
    CArrays a;
    if ((*ierr = (MPI_Fint)open_arrays(&a, (int)*count, requests, NULL)) != MPI_SUCCESS) return;
    *ierr = (MPI_Fint)redux_startall_raw((int)*count, a.requests);
    close_arrays(&a, *ierr, (int)*count, requests, NULL, 0);
}

REDUX_FORTRAN_CALL(mpi_waitall, MPI_WAITALL, waitall_f,
                   (MPI_Fint * count, MPI_Fint *requests, MPI_Fint *statuses, MPI_Fint *ierr),
                   (count, requests, statuses, ierr))
REDUX_FORTRAN_CALL(mpi_testall, MPI_TESTALL, testall_f,
                   (MPI_Fint * count, MPI_Fint *requests, MPI_Fint *flag, MPI_Fint *statuses, MPI_Fint *ierr),
                   (count, requests, flag, statuses, ierr))
REDUX_FORTRAN_CALL(mpi_waitany, MPI_WAITANY, waitany_f,
                   (MPI_Fint * count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *status, MPI_Fint *ierr),
                   (count, requests, index, status, ierr))
REDUX_FORTRAN_CALL(mpi_testany, MPI_TESTANY, testany_f,
                   (MPI_Fint * count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag, MPI_Fint *status,
                    MPI_Fint *ierr),
                   (count, requests, index, flag, status, ierr))
#define REDUX_SOME_F(lower, upper, entry)                                                                 \
    REDUX_FORTRAN_CALL(lower, upper, some_f,                                                              \
                       (MPI_Fint * incount, MPI_Fint * requests, MPI_Fint * outcount, MPI_Fint * indices, \
                        MPI_Fint * statuses, MPI_Fint * ierr),                                            \
                       (entry, incount, requests, outcount, indices, statuses, ierr))
REDUX_SOME_F(mpi_waitsome, MPI_WAITSOME, redux_waitsome_raw)
REDUX_SOME_F(mpi_testsome, MPI_TESTSOME, redux_testsome_raw)
REDUX_FORTRAN_CALL(mpi_startall, MPI_STARTALL, startall_f, (MPI_Fint * count, MPI_Fint *requests, MPI_Fint *ierr),
                   (count, requests, ierr))
