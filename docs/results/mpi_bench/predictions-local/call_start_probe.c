/* A 2-rank probe of what one reduce call costs, five ways (Open MPI, MPI_SUM of one double, 2000 samples each,
 * medians and quartiles in us on rank 0). Built and run as:
 *   mpicc.openmpi -O2 -o call_start_probe call_start_probe.c
 *   mpirun.openmpi --allow-run-as-root --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 -np 2
 * ./call_start_probe pingpong: half a round trip of 8 B (libredux's d); A: the MPI library's reduce to rank 0 then to
 * rank 1, in turns, half a turn (what calibration's call_s is taken from); B: a barrier, then a reduce timed on the
 * root (the benchmark's default); E: rank 0 sends an empty "go" to rank 1 and both call the reduce, timed on rank 0
 * from the go (one one-way latency more than a reduce from a common start). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
static int cmp(const void* a, const void* b) {
    double x = *(double*)a, y = *(double*)b;
    return x < y ? -1 : x > y;
}
#define N 2000
static double t[N];
static void report(const char* name, int r) {
    if (r) return;
    qsort(t, N, sizeof(double), cmp);
    printf("%-28s min=%.3f q1=%.3f med=%.3f q3=%.3f\n", name, t[0] * 1e6, t[N / 4] * 1e6, t[N / 2] * 1e6,
           t[3 * N / 4] * 1e6);
}
int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm c = MPI_COMM_WORLD;
    double x = 1, y = 0;
    char b8[8];
    for (int k = 0; k < 50000; k++) {
        PMPI_Reduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, 0, c);
        PMPI_Reduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, 1, c);
    }
    // P: ping-pong one-way
    for (int i = 0; i < N; i++) {
        double s = MPI_Wtime();
        if (r == 0) {
            MPI_Send(b8, 8, MPI_BYTE, 1, 0, c);
            MPI_Recv(b8, 8, MPI_BYTE, 1, 0, c, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(b8, 8, MPI_BYTE, 0, 0, c, MPI_STATUS_IGNORE);
            MPI_Send(b8, 8, MPI_BYTE, 0, 0, c);
        }
        t[i] = (MPI_Wtime() - s) / 2;
    }
    report("pingpong one-way", r);
    // A: reduce ping-pong half turn
    for (int i = 0; i < N; i++) {
        double s = MPI_Wtime();
        PMPI_Reduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, 0, c);
        PMPI_Reduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, 1, c);
        t[i] = (MPI_Wtime() - s) / 2;
    }
    report("A reduce turns half", r);
    // B: barrier then reduce, root time
    for (int i = 0; i < N; i++) {
        MPI_Barrier(c);
        double s = MPI_Wtime();
        PMPI_Reduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, 0, c);
        t[i] = MPI_Wtime() - s;
    }
    report("B barrier+reduce", r);
    // E: go message then reduce: a sends go, b recv then leaf reduce; a root reduce; time/ minus later
    for (int i = 0; i < N; i++) {
        double s = MPI_Wtime();
        if (r == 0) {
            MPI_Send(b8, 0, MPI_BYTE, 1, 2, c);
        } else {
            MPI_Recv(b8, 0, MPI_BYTE, 0, 2, c, MPI_STATUS_IGNORE);
        }
        PMPI_Reduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, 0, c);
        t[i] = MPI_Wtime() - s;
    }
    report("E go+reduce (2 one-ways)", r);
    MPI_Finalize();
}
