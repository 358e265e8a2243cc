/* A 2-rank reduce of 8 B (MPI_SUM of one double) from a start agreed in advance, after waiting for it in one of
   mpi_bench's two ways: spinning (mode 0), or sleeping through all but the last 200 us, yielding through all but
   the last 20 us and spinning through those (mode 1). Both ranks read one host's CLOCK_MONOTONIC, so the start is
   exact. The root times from the start to the return of its call, 3000 times; the median. argv: mode, then p for
   the MPI library's own reduce (PMPI_Reduce) or r for libredux's optimal tree (redux_reduce_ex). Built with
   mpicc -O2 against libredux and run with mpirun --bind-to core -np 2. start_wait_probe.txt holds its output. */
#include <mpi.h>
#include <redux/redux.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static int cmp(const void* a, const void* b) { double x = *(const double*)a, y = *(const double*)b; return x < y ? -1 : x > y; }
static double host_clock(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int mode = atoi(argv[1]), library = argv[2][0] == 'p', n = 3000;
    static double took[3000];
    double x = 1, y = 0;
    redux_options options = REDUX_OPTIONS_INIT;
    options.algorithm = REDUX_ALGORITHM_OPTIMAL;
    for (int i = -300; i < n; ++i) {
        MPI_Barrier(MPI_COMM_WORLD);
        double start = host_clock() + (mode == 0 ? 30e-6 : 600e-6);
        MPI_Bcast(&start, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        for (;;) {
            const double left = start - host_clock();
            if (left <= 0) break;
            if (mode == 1 && left > 300e-6) {
                const struct timespec pause = {0, (long)((left - 200e-6) * 1e9)};
                nanosleep(&pause, NULL);
            } else if (mode == 1 && left > 20e-6) {
                sched_yield();
            }
        }
        if (library) PMPI_Reduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        else redux_reduce_ex(&x, &y, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD, &options, NULL);
        const double end = host_clock();
        if (i >= 0) took[i] = end - start;
    }
    if (rank == 0) {
        qsort(took, n, sizeof(double), cmp);
        printf("%s, wait by %s: median %.3f us\n", library ? "PMPI_Reduce" : "libredux optimal",
               mode == 0 ? "spinning" : "sleeping, yielding", took[n / 2] * 1e6);
    }
    MPI_Finalize();
}
