/* What libredux's Fortran bindings (mpi_reduce_f.c, mpi_requests_f.c) share: the MPI's Fortran constants seen from
 * C, the MPI library's own Fortran symbol for a call that goes on untouched, and the four name manglings of one
 * Fortran MPI call. See fortran_binding.c. */
#ifndef REDUX_INTERPOSE_FORTRAN_BINDING_H
#define REDUX_INTERPOSE_FORTRAN_BINDING_H

#include "api/mpi_identity.h" /* REDUX_INTERNAL, redux_foreign_mpi */

#include <mpi.h>

/* Makes the MPI's Fortran constants readable from C: MPICH fills its pointers to them (MPIR_F_MPI_IN_PLACE,
 * MPI_F_STATUS_IGNORE, ...) on its first Fortran call, which may be libredux's; Open MPI's are there from the start.
 * Every binding calls it before it looks at a buffer or a status. */
REDUX_INTERNAL void redux_fortran_ready(void);

/* The C buffer argument for a Fortran one: C's MPI_BOTTOM for Fortran's MPI_BOTTOM, C's MPI_IN_PLACE for Fortran's
 * MPI_IN_PLACE where `in_place_allowed`, else `buffer` itself. */
REDUX_INTERNAL void *redux_fortran_buffer(void *buffer, int in_place_allowed);

/* Any function; the caller casts it to the Fortran call's own type. */
typedef void (*redux_fortran_function)(void);

/* The MPI library's own Fortran symbol `name` (one spelling), which libredux's definition hides: the next one after
 * libredux.so in the dynamic linker's search order. Looked up once and kept in `*cached`; aborts, saying so, when
 * the library has none. */
REDUX_INTERNAL redux_fortran_function redux_fortran_library(const char *name, redux_fortran_function *cached);

/* A Fortran LOGICAL from a C truth value: gfortran's .TRUE. is 1, the value both Debian MPIs' Fortran bindings
 * write (Open MPI's OMPI_FORTRAN_VALUE_TRUE, MPICH's MPIR_F_TRUE). */
#define REDUX_FORTRAN_LOGICAL(value) ((MPI_Fint)((value) ? 1 : 0))

/* The length of a Fortran status in MPI_Fint (MPI_STATUS_SIZE). Open MPI 4.1's <mpi.h> does not define
 * MPI_F_STATUS_SIZE; there the Fortran status (6 integers) is as large as the C one, as under MPICH (5). */
#ifdef MPI_F_STATUS_SIZE
#define REDUX_FORTRAN_STATUS_SIZE MPI_F_STATUS_SIZE
#else
#define REDUX_FORTRAN_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#endif

/* The start of a binding's body, where `name` and `cached` are its spelling and its library symbol: under another MPI
 * than libredux's the call goes on, untouched, to the library's own (`shape`, the arguments), and the body returns;
 * else the Fortran constants are made readable. */
#define REDUX_FORTRAN_ENTER(shape, ...)                            \
    if (redux_foreign_mpi()) {                                     \
        ((shape)redux_fortran_library(name, cached))(__VA_ARGS__); \
        return;                                                    \
    }                                                              \
    redux_fortran_ready()

/* Defines one Fortran MPI call in the four spellings Fortran compilers give it (gfortran's is mpi_wait_; then
 * mpi_wait__, mpi_wait and MPI_WAIT), each as `body(arguments..., "spelling", &library)` where `library` keeps that
 * spelling's redux_fortran_library. `parameters` and `arguments` are parenthesised lists. */
#define REDUX_FORTRAN_LIST(...) __VA_ARGS__
#define REDUX_FORTRAN_SPELLING(symbol, body, parameters, arguments) \
    void symbol parameters;                                         \
    void symbol parameters {                                        \
        static redux_fortran_function library;                      \
        body(REDUX_FORTRAN_LIST arguments, #symbol, &library);      \
    }
#define REDUX_FORTRAN_CALL(lower, upper, body, parameters, arguments) \
    REDUX_FORTRAN_SPELLING(lower##_, body, parameters, arguments)     \
    REDUX_FORTRAN_SPELLING(lower##__, body, parameters, arguments)    \
    REDUX_FORTRAN_SPELLING(lower, body, parameters, arguments)        \
    REDUX_FORTRAN_SPELLING(upper, body, parameters, arguments)

#endif
