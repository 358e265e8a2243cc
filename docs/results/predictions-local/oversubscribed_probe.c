/* On ranks that share cores, is the time of one reduce a property of the machine that calibration could
   predict, or of the job? Per job (the MPI library alone, no libredux), each wait an MPI_Test loop that yields
   after 200 polls, as libredux's and mpi_bench's waits do:
     d     ranks 0 and 1 ping-pong 8 B while the others wait (what calibration measures): median half round trip
           of 200, after 20 ms of untimed ping-pong;
     h     a token of 8 B passed round all ranks (every rank busy as in a reduce): median time per hop of 200 rounds;
     root  the MPI library's 8 B reduce after a yielding MPI_Ibarrier, timed on the root (mpi_bench's barrier
           start): median and quartiles of 1000 calls;
     span  the same calls, from the first rank to leave the barrier to the root's completion (CLOCK_MONOTONIC,
           one clock for every rank of one host).
   Built with mpicc.openmpi -O2; run as mpirun.openmpi --oversubscribe --bind-to none --mca mpi_yield_when_idle 1
   -np N (unbound, as the main job runs ranks). oversubscribed_probe.txt holds its output. */
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int cmp(const void* a, const void* b) { double x = *(const double*)a, y = *(const double*)b; return x < y ? -1 : x > y; }
static double mono(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static void wait_req(MPI_Request* r) {
    int done = 0, polls = 0;
    while (!done) { MPI_Test(r, &done, MPI_STATUS_IGNORE); if (!done && ++polls > 200) sched_yield(); }
}
static void ybarrier(void) { MPI_Request r; MPI_Ibarrier(MPI_COMM_WORLD, &r); wait_req(&r); }
static void yrecv(void* b, int from, int tag) { MPI_Request r; MPI_Irecv(b, 8, MPI_BYTE, from, tag, MPI_COMM_WORLD, &r); wait_req(&r); }
static void ysend(void* b, int to, int tag) { MPI_Request r; MPI_Isend(b, 8, MPI_BYTE, to, tag, MPI_COMM_WORLD, &r); wait_req(&r); }
static double median(double* v, int n) { qsort(v, n, sizeof *v, cmp); return v[n / 2]; }

enum { kTrips = 200, kCalls = 1000 };
static double s[kCalls], sp[kCalls];

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    char buf[8] = {0};
    ybarrier();
    if (rank < 2 && n > 1) {
        int go = 1;
        for (double t0 = MPI_Wtime(); go;) {
            if (rank == 0) { ysend(buf, 1, 1); yrecv(buf, 1, 1); go = MPI_Wtime() - t0 < 0.02; MPI_Send(&go, 1, MPI_INT, 1, 2, MPI_COMM_WORLD); }
            else { yrecv(buf, 0, 1); ysend(buf, 0, 1); MPI_Recv(&go, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }
        }
        for (int i = 0; i < kTrips; ++i) {
            double t = MPI_Wtime();
            if (rank == 0) { ysend(buf, 1, 3); yrecv(buf, 1, 3); s[i] = (MPI_Wtime() - t) / 2; }
            else { yrecv(buf, 0, 3); ysend(buf, 0, 3); }
        }
    }
    double d = rank == 0 ? median(s, kTrips) : 0;
    ybarrier();
    for (int i = 0; i < kTrips + 10; ++i) {  /* 10 rounds untimed */
        double t = MPI_Wtime();
        if (rank == 0) { ysend(buf, 1 % n, 4); yrecv(buf, n - 1, 4); if (i >= 10) s[i - 10] = (MPI_Wtime() - t) / n; }
        else { yrecv(buf, rank - 1, 4); ysend(buf, (rank + 1) % n, 4); }
    }
    double h = rank == 0 ? median(s, kTrips) : 0;
    double x = 1, y;
    for (int i = 0; i < kCalls; ++i) {
        ybarrier();
        double t = mono();
        MPI_Reduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        double e = mono(), first;
        s[i] = e - t;
        MPI_Reduce(&t, &first, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
        sp[i] = e - first;
    }
    if (rank == 0) {
        double root = median(s, kCalls), span = median(sp, kCalls);
        printf("%d ranks: d %5.2f  h %5.2f  root %6.2f (q1 %6.2f q3 %6.2f)  span %6.2f (q1 %6.2f q3 %6.2f)  root/d %5.2f  span/h %5.2f\n",
               n, d * 1e6, h * 1e6, root * 1e6, s[kCalls / 4] * 1e6, s[3 * kCalls / 4] * 1e6, span * 1e6,
               sp[kCalls / 4] * 1e6, sp[3 * kCalls / 4] * 1e6, root / d, span / h);
    }
    MPI_Finalize();
}
