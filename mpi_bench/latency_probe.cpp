// Latency of one reduce, three ways in one run: the MPI library's own (PMPI_Reduce), the interposed
// MPI_Reduce (which REDUX_ALGORITHM steers: native measures libredux's pass-through overhead), and
// redux_reduce. Iterations alternate between the three so machine noise hits them alike; each iteration
// starts after a barrier and is timed on the root; medians are printed. MPI_SUM on doubles, root 0.
//
//   mpirun -np N redux-latency-probe [--bytes B] [--iterations N]
// mpi_bench, the benchmark proper, times more than this probe (algorithms side by side, sizes, an agreed start).
#include "mpi/mpi_version.hpp"
#include "redux/version.h"
#include "util/median.hpp"

#include "redux/redux.h"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using redux::median;

int main(int argc, char** argv) {
    if (argc == 2 && !std::strcmp(argv[1], "--version")) {  // before MPI_Init: no launcher needed
        std::printf("redux-latency-probe (libredux) %s\nbuilt for %s\n", REDUX_VERSION_STRING, redux::mpi_built_for());
        return 0;
    }
    MPI_Init(&argc, &argv);
    long bytes = 8;
    int iterations = 2000;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--bytes")) bytes = std::atol(argv[i + 1]);
        if (!std::strcmp(argv[i], "--iterations")) iterations = std::atoi(argv[i + 1]);
    }
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int count = static_cast<int>(std::max(1L, bytes / 8));
    std::vector<double> send(count, rank + 1.0), recv(count, 0.0);
    using ReduceFn = int (*)(const void*, void*, int, MPI_Datatype, MPI_Op, int, MPI_Comm);
    const ReduceFn ways[3] = {PMPI_Reduce, MPI_Reduce, redux_reduce};
    const char* names[3] = {"PMPI_Reduce", "MPI_Reduce", "redux_reduce"};
    std::vector<double> samples[3];
    for (int it = -iterations / 10; it < iterations; ++it) {  // the first tenth warms up
        for (int w = 0; w < 3; ++w) {
            MPI_Barrier(MPI_COMM_WORLD);
            const double t0 = MPI_Wtime();
            ways[w](send.data(), recv.data(), count, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
            const double t = MPI_Wtime() - t0;
            if (it >= 0 && rank == 0) samples[w].push_back(t);
            if (rank == 0 && recv[0] != size * (size + 1) / 2.0) {
                std::fprintf(stderr, "%s: wrong result %g\n", names[w], recv[0]);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
    }
    if (rank == 0) {
        const char* algorithm = std::getenv("REDUX_ALGORITHM");
        std::printf("ranks=%d bytes=%ld REDUX_ALGORITHM=%s iterations=%d", size, count * 8L,
                    algorithm ? algorithm : "(unset)", iterations);
        for (int w = 0; w < 3; ++w) std::printf(" %s=%.3f us", names[w], median(samples[w]) * 1e6);
        std::printf("\n");
    }
    MPI_Finalize();
    return 0;
}
