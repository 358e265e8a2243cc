// Which function each user op runs, as MPI_Op_create was told (interpose/mpi_reduce.c), so that the wisdom file can
// name an op the same way in every job: by the function's symbol and the file that holds it (dladdr). An op made
// another way (a Fortran binding that does not call MPI_Op_create, an MPI library's internal op) has no name.
#pragma once

#include <mpi.h>

#include <string>

namespace redux {

// "MPI_SUM" for a predefined op; "my_sum@libmine.so" for a user op whose function has a dynamic symbol (the file's
// name without its directory, so the same program installed elsewhere names it alike); "" when it has none (a
// static function, or a program linked without exporting its symbols) or MPI_Op_create was not seen.
std::string op_identity(MPI_Op op);

// The function MPI_Op_create was told for the user op `op`, while the op lives; null where it was not seen (or for a
// predefined op).
void* op_function(MPI_Op op);

}  // namespace redux
