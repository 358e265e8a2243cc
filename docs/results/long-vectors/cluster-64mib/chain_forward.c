// Plain MPI, no libredux: an 8-rank chain that forwards a 64 MiB vector in segments (rank r receives segment j
// from r + 1, W receives posted ahead, adds its own when FOLD is 1, sends to r - 1). What a pipelined chain reaches
// on the emulated cluster from this host. Usage: chain_forward TOTAL_BYTES SEGMENT_BYTES W FOLD (see COMMAND.txt).
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, n; MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &n);
  long total = atol(argv[1]); long seg = atol(argv[2]); int W = atoi(argv[3]); int fold = atoi(argv[4]);
  int m = total / seg; int cnt = seg / 8;
  double* mine = malloc(total); for (long i = 0; i < total/8; ++i) mine[i] = rank;
  double* bufs = malloc((size_t)seg * m);
  for (int it = 0; it < 4; ++it) {
    MPI_Request* rr = malloc(sizeof(MPI_Request) * m); MPI_Request* sr = malloc(sizeof(MPI_Request) * m);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    int posted = 0;
    for (int j = 0; j < m; ++j) {
      if (rank < n - 1) {
        while (posted < m && posted < j + W) { MPI_Irecv(bufs + (size_t)posted * cnt, cnt, MPI_DOUBLE, rank + 1, 1, MPI_COMM_WORLD, &rr[posted]); ++posted; }
        MPI_Wait(&rr[j], MPI_STATUS_IGNORE);
        if (fold) { double* b = bufs + (size_t)j * cnt; double* o = mine + (size_t)j * cnt; for (int i = 0; i < cnt; ++i) b[i] += o[i]; }
      }
      if (rank > 0) MPI_Isend(rank < n - 1 ? bufs + (size_t)j * cnt : mine + (size_t)j * cnt, cnt, MPI_DOUBLE, rank - 1, 1, MPI_COMM_WORLD, &sr[j]);
      else ;
    }
    if (rank > 0) MPI_Waitall(m, sr, MPI_STATUSES_IGNORE);
    double t = MPI_Wtime() - t0;
    if (rank == 0) printf("total %ld seg %ld W %d fold %d: %.3f s\n", total, seg, W, fold, t);
    free(rr); free(sr);
  }
  MPI_Finalize();
}
