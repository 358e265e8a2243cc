/* One 2-rank reduce of 8 B (MPI_SUM of one double), and the messages under it, timed several ways in one job:
   pingpong: half a round trip of MPI_Send/MPI_Recv; from an exact common start on the host's CLOCK_MONOTONIC
   (both ranks spin to it, rank 0 times from it to its return): oneshot-send (rank 1 sends, rank 0 receives),
   oneshot-reduce (the MPI library's MPI_Reduce), oneshot-preposted (the receive posted before the start),
   isend-irecv-reduce_local (what libredux's executor calls for a 2-rank tree); reduce-turns: MPI_Reduce to 0, then
   to 1, half of the pair (libredux's calibration took call_s from this before it used a common start). Medians of
   2000, twice per job. Built with mpicc -O2, run with mpirun --bind-to core --mca mpi_yield_when_idle 0 -np 2.
   oneshot_probe.txt holds its output. */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static int cmp(const void* a, const void* b) { double x = *(const double*)a, y = *(const double*)b; return x < y ? -1 : x > y; }
static double hc(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
#define N 2000
static double took[N];
static double med(void){ qsort(took,N,sizeof(double),cmp); return took[N/2]*1e6; }
int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double x = 1, y = 0;
    double r[9];
    for (int rep = 0; rep < 2; ++rep) {
    /* ping-pong */
    for (int i = -200; i < N; ++i) {
        double t0 = hc();
        if (rank == 0) { MPI_Send(&x,1,MPI_DOUBLE,1,1,MPI_COMM_WORLD); MPI_Recv(&y,1,MPI_DOUBLE,1,1,MPI_COMM_WORLD,MPI_STATUS_IGNORE);}
        else { MPI_Recv(&y,1,MPI_DOUBLE,0,1,MPI_COMM_WORLD,MPI_STATUS_IGNORE); MPI_Send(&x,1,MPI_DOUBLE,0,1,MPI_COMM_WORLD);}
        if (i >= 0) took[i] = (hc() - t0) / 2;
    }
    r[0] = med();
    /* one-shot: modes 0 = send/recv, 1 = reduce, 2 = isend/irecv posted before start */
    for (int mode = 0; mode < 4; ++mode) {
      for (int i = -200; i < N; ++i) {
        MPI_Barrier(MPI_COMM_WORLD);
        double start = hc() + 30e-6;
        MPI_Bcast(&start, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        MPI_Request q = MPI_REQUEST_NULL;
        if (mode == 2) { if (rank == 0) MPI_Irecv(&y,1,MPI_DOUBLE,1,2,MPI_COMM_WORLD,&q); }
        while (hc() < start) {}
        if (mode == 0) { if (rank == 1) MPI_Send(&x,1,MPI_DOUBLE,0,2,MPI_COMM_WORLD); else MPI_Recv(&y,1,MPI_DOUBLE,1,2,MPI_COMM_WORLD,MPI_STATUS_IGNORE); }
        else if (mode == 1) MPI_Reduce(&x,&y,1,MPI_DOUBLE,MPI_SUM,0,MPI_COMM_WORLD);
        else if (mode == 2) { if (rank == 1) MPI_Send(&x,1,MPI_DOUBLE,0,2,MPI_COMM_WORLD); else MPI_Wait(&q, MPI_STATUS_IGNORE); }
        else { double t; if (rank == 1) { MPI_Isend(&x,1,MPI_DOUBLE,0,3,MPI_COMM_WORLD,&q); MPI_Wait(&q,MPI_STATUS_IGNORE);} else { y = x; MPI_Irecv(&t,1,MPI_DOUBLE,1,3,MPI_COMM_WORLD,&q); MPI_Waitall(1,&q,MPI_STATUSES_IGNORE); MPI_Reduce_local(&t,&y,1,MPI_DOUBLE,MPI_SUM);} }
        double end = hc();
        if (i >= 0) took[i] = end - start;
      }
      MPI_Bcast(took, N, MPI_DOUBLE, 0, MPI_COMM_WORLD);
      r[1+mode] = med();
    }
    /* reduce turns */
    for (int i = -200; i < N; ++i) {
        double t0 = hc();
        MPI_Reduce(&x,&y,1,MPI_DOUBLE,MPI_SUM,0,MPI_COMM_WORLD);
        MPI_Reduce(&x,&y,1,MPI_DOUBLE,MPI_SUM,1,MPI_COMM_WORLD);
        if (i >= 0) took[i] = (hc() - t0) / 2;
    }
    r[5] = med();
    if (rank == 0) printf("pingpong %.3f  oneshot-send %.3f  oneshot-reduce %.3f  oneshot-preposted %.3f  isend-irecv-reduce_local %.3f  reduce-turns %.3f\n", r[0], r[1], r[2], r[3], r[4], r[5]);
    }
    MPI_Finalize();
}
