// A communicator error handler that counts its calls and remembers the class of the last error, for tests
// that check that libredux reports an error through the user's handler exactly as often as MPI would.
#pragma once

#include <mpi.h>

namespace redux_test {

// A new handler (the caller frees it with MPI_Errhandler_free); every handler made here counts into the
// same process-wide counters.
MPI_Errhandler make_counting_errhandler();

struct ErrorCount {
    int calls = 0;
    int last_class = MPI_SUCCESS;
};

void reset_error_count();
ErrorCount error_count();

}  // namespace redux_test
