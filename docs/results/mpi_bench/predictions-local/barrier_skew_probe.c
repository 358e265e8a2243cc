/* A 2-rank MPI_Reduce (MPI_SUM of doubles) after a yielding nonblocking barrier (MPI_Ibarrier, MPI_Test and sched_yield,
   as mpi_bench waits), timed on the root, 5000 times per size; medians and quartiles. Built with mpicc -O2 and run
   with mpirun --bind-to core -np 2. barrier_skew_probe.txt holds its output. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
static int cmp(const void* a, const void* b) { double x = *(const double*)a, y = *(const double*)b; return x < y ? -1 : x > y; }
int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    static double s[5000], x[512], y[512];
    int counts[] = {1, 32, 64, 1, 64};
    for (int k = 0; k < 5; ++k) {
        int n = counts[k];
        for (int i = 0; i < 5000; ++i) {
            { MPI_Request r; int done = 0; MPI_Ibarrier(MPI_COMM_WORLD, &r); while (!done) { MPI_Test(&r, &done, MPI_STATUS_IGNORE); if (!done) sched_yield(); } }
            double t0 = MPI_Wtime();
            MPI_Reduce(x, y, n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
            s[i] = MPI_Wtime() - t0;
        }
        qsort(s, 5000, sizeof *s, cmp);
        if (rank == 0) printf("%4d B: median %.2f us  q1 %.2f q3 %.2f\n", n * 8, s[2500] * 1e6, s[1250] * 1e6, s[3750] * 1e6);
    }
    MPI_Finalize();
}
