// Plain MPI, no libredux: every link of an 8-rank chain carries TOTAL_BYTES at once (rank r sends to r - 1, no
// forwarding), in SEGMENT_BYTES messages all posted together. The network and host without a pipeline's dependencies.
// Usage: links_at_once TOTAL_BYTES SEGMENT_BYTES (see COMMAND.txt).
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, n; MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &n);
  long total = atol(argv[1]); long seg = atol(argv[2]); int m = total / seg; int cnt = seg / 8;
  char* a = malloc(total); char* b = malloc(total);
  for (long i = 0; i < total; ++i) a[i] = 1;
  for (int it = 0; it < 4; ++it) {
    MPI_Request* r = malloc(sizeof(MPI_Request) * 2 * m); int k = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int j = 0; j < m; ++j) {
      if (rank < n - 1) MPI_Irecv(b + (size_t)j * seg, cnt, MPI_DOUBLE, rank + 1, 1, MPI_COMM_WORLD, &r[k++]);
      if (rank > 0) MPI_Isend(a + (size_t)j * seg, cnt, MPI_DOUBLE, rank - 1, 1, MPI_COMM_WORLD, &r[k++]);
    }
    MPI_Waitall(k, r, MPI_STATUSES_IGNORE);
    double t = MPI_Wtime() - t0, mx;
    MPI_Reduce(&t, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("links at once: total %ld seg %ld: slowest %.3f s\n", total, seg, mx);
    free(r);
  }
  MPI_Finalize();
}
