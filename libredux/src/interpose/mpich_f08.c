/* MPICH's `use mpi_f08` binding and libredux's requests. MPICH 4.0's f08 procedures start the nonblocking and
 * persistent reductions through the C functions (MPI_Iallreduce, which mpi_requests.c defines), but complete and
 * start requests through the library's own (PMPI_Wait, ...), which never complete a request of libredux's: a
 * program of that binding would hang in its wait. So the reductions it starts are the library's: libredux defines
 * MPICH's f08 procedures of the eight calls (mpi_iallreduce_f08ts_, ..., and their MPI 4.0 large-count forms), and
 * each marks the thread (redux_library_only) while it runs the library's own, which mpi_requests.c then passes to
 * PMPI_. The f08 binding's blocking reductions stay libredux's: they need no completion call. Open MPI's f08
 * binding calls internal symbols (ompi_iallreduce_f, ompi_wait_f) and never reaches libredux's calls.
 *
 * Every argument of these procedures is passed by reference (choice buffers as descriptors, handles as
 * TYPE(MPI_...) holding one INTEGER, the OPTIONAL ierror as a null pointer when absent), so each is passed on as
 * the pointer it is. */
#include "api/mpi_identity.h"
#include "interpose/fortran_binding.h"

REDUX_INTERNAL __thread int redux_library_only = 0;

typedef void (*pointers_8)(void *, void *, void *, void *, void *, void *, void *, void *);
typedef void (*pointers_9)(void *, void *, void *, void *, void *, void *, void *, void *, void *);
typedef void (*pointers_10)(void *, void *, void *, void *, void *, void *, void *, void *, void *, void *);

#define REDUX_F08_LIBRARY(symbol, shape, ...)                       \
    static redux_fortran_function library;                          \
    ++redux_library_only;                                           \
    ((shape)redux_fortran_library(#symbol, &library))(__VA_ARGS__); \
    --redux_library_only

#define REDUX_F08_8(symbol)                                                               \
    void symbol(void *a, void *b, void *c, void *d, void *e, void *f, void *g, void *h);  \
    void symbol(void *a, void *b, void *c, void *d, void *e, void *f, void *g, void *h) { \
        REDUX_F08_LIBRARY(symbol, pointers_8, a, b, c, d, e, f, g, h);                    \
    }
#define REDUX_F08_9(symbol)                                                                        \
    void symbol(void *a, void *b, void *c, void *d, void *e, void *f, void *g, void *h, void *i);  \
    void symbol(void *a, void *b, void *c, void *d, void *e, void *f, void *g, void *h, void *i) { \
        REDUX_F08_LIBRARY(symbol, pointers_9, a, b, c, d, e, f, g, h, i);                          \
    }
#define REDUX_F08_10(symbol)                                                                                \
    void symbol(void *a, void *b, void *c, void *d, void *e, void *f, void *g, void *h, void *i, void *j);  \
    void symbol(void *a, void *b, void *c, void *d, void *e, void *f, void *g, void *h, void *i, void *j) { \
        REDUX_F08_LIBRARY(symbol, pointers_10, a, b, c, d, e, f, g, h, i, j);                               \
    }

/* (sendbuf, recvbuf, count or recvcounts, datatype, op, [root,] comm, [info,] request, ierror) */
REDUX_F08_8(mpi_iallreduce_f08ts_)
REDUX_F08_8(mpi_iallreduce_f08ts_large_)
REDUX_F08_8(mpi_ireduce_scatter_block_f08ts_)
REDUX_F08_8(mpi_ireduce_scatter_block_f08ts_large_)
REDUX_F08_8(mpi_ireduce_scatter_f08ts_)
REDUX_F08_8(mpi_ireduce_scatter_f08ts_large_)
REDUX_F08_9(mpi_ireduce_f08ts_)
REDUX_F08_9(mpi_ireduce_f08ts_large_)
REDUX_F08_9(mpi_allreduce_init_f08ts_)
REDUX_F08_9(mpi_allreduce_init_f08ts_large_)
REDUX_F08_9(mpi_reduce_scatter_block_init_f08ts_)
REDUX_F08_9(mpi_reduce_scatter_block_init_f08ts_large_)
REDUX_F08_9(mpi_reduce_scatter_init_f08ts_)
REDUX_F08_9(mpi_reduce_scatter_init_f08ts_large_)
REDUX_F08_10(mpi_reduce_init_f08ts_)
REDUX_F08_10(mpi_reduce_init_f08ts_large_)
