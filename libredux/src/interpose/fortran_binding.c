/* The MPI's Fortran constants seen from C, and the MPI library's own Fortran symbols (fortran_binding.h).
 *
 * Fortran's MPI_IN_PLACE and MPI_BOTTOM are not C's constants but the addresses of variables in common blocks, and
 * each MPI finds them its own way:
 *   Open MPI: the common blocks themselves, mpi_fortran_in_place_ and mpi_fortran_bottom_, defined by libmpi
 *             (one spelling per mangling; Open MPI 4.1 on Debian defines only the `_` one);
 *   MPICH:    the pointers MPIR_F_MPI_IN_PLACE and MPIR_F_MPI_BOTTOM in libmpichfort, which mpirinitf_() fills
 *             with the addresses of /MPIPRIV1/'s members on the first Fortran call (MPIR_F_NeedInit says
 *             whether it has run); MPICH's own bindings do exactly this before comparing.
 * All of them are weak references: libredux.so links against either MPI without the other's symbols and without any
 * Fortran library, and at run time those that exist resolve while the others stay null. As in both MPIs' own
 * bindings, MPI_IN_PLACE is recognised in sendbuf, MPI_BOTTOM in both buffers. Fortran's MPI_STATUS_IGNORE and
 * MPI_STATUSES_IGNORE need none of this: both MPIs give their addresses in C as the standard's MPI_F_STATUS_IGNORE
 * and MPI_F_STATUSES_IGNORE (MPICH once mpirinitf_() has run).
 *
 * Under another MPI than libredux's (preloaded into a program of the other MPI: api/mpi_identity.h) a binding may
 * do none of that -- MPI_*_f2c would give the other MPI's handles, and C's MPI_IN_PLACE is not libredux's -- so the
 * call goes, untouched, to the same Fortran symbol of the library that libredux's definition hides: the next
 * definition after libredux.so in the dynamic linker's search order (dlsym(RTLD_NEXT, name)). */
#define _GNU_SOURCE /* RTLD_NEXT */
#include "interpose/fortran_binding.h"

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

void redux_fortran_ready(void) {
    if (&MPIR_F_NeedInit != NULL && MPIR_F_NeedInit && mpirinitf_ != NULL) {
        mpirinitf_();
        MPIR_F_NeedInit = 0;
    }
}

/* Whether `buffer` is one of the Fortran constant's addresses (null entries are missing symbols). */
static int is_fortran_constant(const void *buffer, const void *const addresses[kSpellings], void *const *mpich) {
    for (int i = 0; i < kSpellings; ++i) {
        if (addresses[i] != NULL && buffer == addresses[i]) return 1;
    }
    return mpich != NULL && *mpich != NULL && buffer == *mpich;
}

void *redux_fortran_buffer(void *buffer, int in_place_allowed) {
    static const void *const in_place[kSpellings] = {&mpi_fortran_in_place, &mpi_fortran_in_place_,
                                                     &mpi_fortran_in_place__, &MPI_FORTRAN_IN_PLACE};
    static const void *const bottom[kSpellings] = {&mpi_fortran_bottom, &mpi_fortran_bottom_, &mpi_fortran_bottom__,
                                                   &MPI_FORTRAN_BOTTOM};
    if (is_fortran_constant(buffer, bottom, &MPIR_F_MPI_BOTTOM)) return MPI_BOTTOM;
    if (in_place_allowed && is_fortran_constant(buffer, in_place, &MPIR_F_MPI_IN_PLACE)) return MPI_IN_PLACE;
    return buffer;
}

redux_fortran_function redux_fortran_library(const char *name, redux_fortran_function *cached) {
    redux_fortran_function found = __atomic_load_n(cached, __ATOMIC_RELAXED);
    if (found != NULL) return found;
    void *symbol = dlsym(RTLD_NEXT, name);
    memcpy(&found, &symbol, sizeof found); /* POSIX: a function's address comes back as a void * */
    if (found == NULL) {
        fprintf(stderr, "libredux: the MPI library has no %s of its own to pass the call to\n", name);
        abort();
    }
    __atomic_store_n(cached, found, __ATOMIC_RELAXED);
    return found;
}
