// Which predefined operators MPI defines on which datatypes, from the standard's table (MPI-4.0, section
// 6.9.2, "Predefined Reduction Operations"), so that a call MPI_Reduce would reject is left to it. See the .cpp.
#pragma once

#include <mpi.h>

namespace redux {

// True for user operators, and for a predefined operator on a predefined datatype for which the standard
// defines it. False leaves the call to
// PMPI_Reduce: it answers with the library's own error, or with its own result where it is more lenient.
bool op_defined_on(MPI_Op op, MPI_Datatype datatype);

// True for MPI's predefined operators (whose handles are never freed, so a handle names one operator).
bool is_predefined(MPI_Op op);
// "MPI_SUM" for MPI_SUM; null for a user operator.
const char* predefined_op_name(MPI_Op op);

}  // namespace redux
