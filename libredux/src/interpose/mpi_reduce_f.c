/* Interposition for Fortran: MPI_REDUCE, MPI_ALLREDUCE and MPI_REDUCE_SCATTER_BLOCK called from mpif.h or `use mpi`
 * become redux_reduce, redux_allreduce and redux_reduce_scatter_block (the last two the same way as the first).
 *
 * Open MPI's Fortran bindings call PMPI_Reduce, not MPI_Reduce, so the C definition in mpi_reduce.c never sees
 * a Fortran program's reduce. These four definitions take the place of the MPI library's Fortran symbols, one
 * per name mangling (gfortran's is mpi_reduce_), whenever libredux is linked before the MPI libraries or
 * preloaded. `use mpi_f08` is another path: MPICH's calls the C MPI_Reduce (so mpi_reduce.c catches it), Open
 * MPI 4.1's calls its internal ompi_reduce_f, which libredux does not define.
 *
 * Handles arrive as Fortran integers and go through MPI_*_f2c. The buffers need a translation too: Fortran's
 * MPI_IN_PLACE and MPI_BOTTOM are not C's constants but the addresses of variables in common blocks, and each
 * MPI finds them its own way:
 *   Open MPI: the common blocks themselves, mpi_fortran_in_place_ and mpi_fortran_bottom_, defined by libmpi
 *             (one spelling per mangling; Open MPI 4.1 on Debian defines only the `_` one);
 *   MPICH:    the pointers MPIR_F_MPI_IN_PLACE and MPIR_F_MPI_BOTTOM in libmpichfort, which mpirinitf_() fills
 *             with the addresses of /MPIPRIV1/'s members on the first Fortran call (MPIR_F_NeedInit says
 *             whether it has run); MPICH's own bindings do exactly this before comparing.
 * All of them are weak references: libredux.so links against either MPI without the other's symbols and
 * without any Fortran library, and at run time those that exist resolve while the others stay null. As in both
 * MPIs' own bindings, MPI_IN_PLACE is recognised in sendbuf, MPI_BOTTOM in both buffers.
 *
 * Under another MPI than libredux's (preloaded into a program of the other MPI: api/mpi_identity.h) none of
 * that may be done -- MPI_*_f2c would give the other MPI's handles, and C's MPI_IN_PLACE is not libredux's --
 * so the call goes, untouched, to the same Fortran symbol of the library that libredux's definition hides:
 * the next definition after libredux.so in the dynamic linker's search order (dlsym(RTLD_NEXT, name)). MPICH
 * has no pmpi_reduce_ to call instead, and its mpi_reduce_ calls the C MPI_Reduce, which passes it on too.
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include "redux/redux.h"

#include "api/mpi_identity.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REDUX_WEAK __attribute__((weak))

/* Open MPI */
extern int mpi_fortran_in_place REDUX_WEAK;
extern int mpi_fortran_in_place_ REDUX_WEAK;
extern int mpi_fortran_in_place__ REDUX_WEAK;
extern int MPI_FORTRAN_IN_PLACE REDUX_WEAK;
extern int mpi_fortran_bottom REDUX_WEAK;
extern int mpi_fortran_bottom_ REDUX_WEAK;
extern int mpi_fortran_bottom__ REDUX_WEAK;
extern int MPI_FORTRAN_BOTTOM REDUX_WEAK;

/* MPICH */
extern void *MPIR_F_MPI_IN_PLACE REDUX_WEAK;
extern void *MPIR_F_MPI_BOTTOM REDUX_WEAK;
extern int MPIR_F_NeedInit REDUX_WEAK;
extern void mpirinitf_(void) REDUX_WEAK;

enum { kSpellings = 4 };

/* Whether `buffer` is one of the Fortran constant's addresses (null entries are missing symbols). */
static int is_fortran_constant(const void *buffer, const void *const addresses[kSpellings], void *const *mpich) {
    for (int i = 0; i < kSpellings; ++i) {
        if (addresses[i] != NULL && buffer == addresses[i]) return 1;
    }
    return mpich != NULL && *mpich != NULL && buffer == *mpich;
}

/* The C buffer argument for a Fortran one. */
static void *c_buffer(void *buffer, int in_place_allowed) {
    static const void *const in_place[kSpellings] = {&mpi_fortran_in_place, &mpi_fortran_in_place_,
                                                     &mpi_fortran_in_place__, &MPI_FORTRAN_IN_PLACE};
    static const void *const bottom[kSpellings] = {&mpi_fortran_bottom, &mpi_fortran_bottom_, &mpi_fortran_bottom__,
                                                   &MPI_FORTRAN_BOTTOM};
    if (is_fortran_constant(buffer, bottom, &MPIR_F_MPI_BOTTOM)) return MPI_BOTTOM;
    if (in_place_allowed && is_fortran_constant(buffer, in_place, &MPIR_F_MPI_IN_PLACE)) return MPI_IN_PLACE;
    return buffer;
}

typedef void (*fortran_reduce)(void *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);

/* The MPI library's own `name` (one of the four spellings below), which libredux's definition hides. */
static fortran_reduce library_reduce_f(const char *name, fortran_reduce *cached) {
    fortran_reduce found = __atomic_load_n(cached, __ATOMIC_RELAXED);
    if (found != NULL) return found;
    void *symbol = dlsym(RTLD_NEXT, name);
    memcpy(&found, &symbol, sizeof found); /* POSIX: a function's address comes back as a void * */
    if (found == NULL) {
        fprintf(stderr, "libredux: the MPI library has no %s of its own to pass MPI_REDUCE to\n", name);
        abort();
    }
    __atomic_store_n(cached, found, __ATOMIC_RELAXED);
    return found;
}

static void reduce_f(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *root,
                     MPI_Fint *comm, MPI_Fint *ierr, const char *name, fortran_reduce *cached) {
    if (redux_foreign_mpi()) { /* before any handle, constant or f2c of libredux's MPI */
        library_reduce_f(name, cached)(sendbuf, recvbuf, count, datatype, op, root, comm, ierr);
        return;
    }
    if (&MPIR_F_NeedInit != NULL && MPIR_F_NeedInit && mpirinitf_ != NULL) {
        mpirinitf_();
        MPIR_F_NeedInit = 0;
    }
    *ierr = (MPI_Fint)redux_reduce(c_buffer(sendbuf, 1), c_buffer(recvbuf, 0), (int)*count, MPI_Type_f2c(*datatype),
                                   MPI_Op_f2c(*op), (int)*root, MPI_Comm_f2c(*comm));
}

void mpi_reduce_(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *root,
                 MPI_Fint *comm, MPI_Fint *ierr) {
    static fortran_reduce library;
    reduce_f(sendbuf, recvbuf, count, datatype, op, root, comm, ierr, "mpi_reduce_", &library);
}

void mpi_reduce__(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *root,
                  MPI_Fint *comm, MPI_Fint *ierr) {
    static fortran_reduce library;
    reduce_f(sendbuf, recvbuf, count, datatype, op, root, comm, ierr, "mpi_reduce__", &library);
}

void mpi_reduce(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *root,
                MPI_Fint *comm, MPI_Fint *ierr) {
    static fortran_reduce library;
    reduce_f(sendbuf, recvbuf, count, datatype, op, root, comm, ierr, "mpi_reduce", &library);
}

void MPI_REDUCE(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *root,
                MPI_Fint *comm, MPI_Fint *ierr) {
    static fortran_reduce library;
    reduce_f(sendbuf, recvbuf, count, datatype, op, root, comm, ierr, "MPI_REDUCE", &library);
}

/* MPI_ALLREDUCE and MPI_REDUCE_SCATTER_BLOCK: (sendbuf, recvbuf, count, datatype, op, comm, ierr). */
typedef void (*fortran_family)(void *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);
typedef int (*c_family)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);

static fortran_family library_family_f(const char *name, fortran_family *cached) {
    fortran_family found = __atomic_load_n(cached, __ATOMIC_RELAXED);
    if (found != NULL) return found;
    void *symbol = dlsym(RTLD_NEXT, name);
    memcpy(&found, &symbol, sizeof found);
    if (found == NULL) {
        fprintf(stderr, "libredux: the MPI library has no %s of its own to pass the call to\n", name);
        abort();
    }
    __atomic_store_n(cached, found, __ATOMIC_RELAXED);
    return found;
}

static void family_f(c_family entry, void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,
                     MPI_Fint *comm, MPI_Fint *ierr, const char *name, fortran_family *cached) {
    if (redux_foreign_mpi()) {
        library_family_f(name, cached)(sendbuf, recvbuf, count, datatype, op, comm, ierr);
        return;
    }
    if (&MPIR_F_NeedInit != NULL && MPIR_F_NeedInit && mpirinitf_ != NULL) {
        mpirinitf_();
        MPIR_F_NeedInit = 0;
    }
    *ierr = (MPI_Fint)entry(c_buffer(sendbuf, 1), c_buffer(recvbuf, 0), (int)*count, MPI_Type_f2c(*datatype),
                            MPI_Op_f2c(*op), MPI_Comm_f2c(*comm));
}

#define REDUX_FAMILY_F(symbol, entry)                                                                            \
    void symbol(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm, \
                MPI_Fint *ierr);                                                                                 \
    void symbol(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm, \
                MPI_Fint *ierr) {                                                                                \
        static fortran_family library;                                                                           \
        family_f(entry, sendbuf, recvbuf, count, datatype, op, comm, ierr, #symbol, &library);                   \
    }

REDUX_FAMILY_F(mpi_allreduce_, redux_allreduce)
REDUX_FAMILY_F(mpi_allreduce__, redux_allreduce)
REDUX_FAMILY_F(mpi_allreduce, redux_allreduce)
REDUX_FAMILY_F(MPI_ALLREDUCE, redux_allreduce)
REDUX_FAMILY_F(mpi_reduce_scatter_block_, redux_reduce_scatter_block)
REDUX_FAMILY_F(mpi_reduce_scatter_block__, redux_reduce_scatter_block)
REDUX_FAMILY_F(mpi_reduce_scatter_block, redux_reduce_scatter_block)
REDUX_FAMILY_F(MPI_REDUCE_SCATTER_BLOCK, redux_reduce_scatter_block)
