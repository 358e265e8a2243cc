#include "counting_errhandler.hpp"

namespace redux_test {
namespace {

ErrorCount g_count;

void count_error(MPI_Comm*, int* code, ...) {
    ++g_count.calls;
    MPI_Error_class(*code, &g_count.last_class);
}

}  // namespace

MPI_Errhandler make_counting_errhandler() {
    MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
    MPI_Comm_create_errhandler(count_error, &handler);
    return handler;
}

void reset_error_count() { g_count = {}; }

ErrorCount error_count() { return g_count; }

}  // namespace redux_test
