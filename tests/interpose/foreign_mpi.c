/* A program of the OTHER MPI than libredux's (built with that MPI's mpicc, started with its launcher and
 * LD_PRELOAD=libredux.so): libredux must leave every MPI_Reduce to the library and say so once per process
 * (foreign_mpi_test.cmake counts the lines). It knows nothing of libredux: it calls MPI_Reduce and checks the
 * results against a closed form -- sums of ints at root 0 and at the last rank (1, 1000 and 100000 elements,
 * each call three times), on MPI_COMM_WORLD and on a duplicate, and a small MPI_IN_PLACE sum at the last rank
 * (3 elements: MPICH 4.0 itself crashes above 2048 bytes there, see tests/mpi/reduce_in_place_test.cpp).
 * Exit status 0 when every rank passed; rank 0 prints "foreign_mpi: ok" or what failed. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>

static int g_rank = 0;

static long expected(int size, long i) { return (long)size * (size + 1) / 2 * (i % 1000 + 1); }

static int check_sum(MPI_Comm comm, int size, int count, int root) {
    int *send = malloc(sizeof(int) * (size_t)count);
    int *recv = malloc(sizeof(int) * (size_t)count);
    int failures = 0;
    for (int repeat = 0; repeat < 3; ++repeat) {
        for (int i = 0; i < count; ++i) {
            send[i] = (g_rank + 1) * (i % 1000 + 1);
            recv[i] = -1;
        }
        if (MPI_Reduce(send, recv, count, MPI_INT, MPI_SUM, root, comm) != MPI_SUCCESS) ++failures;
        for (int i = 0; g_rank == root && i < count && failures == 0; ++i) {
            if (recv[i] != expected(size, i)) {
                fprintf(stderr, "[rank %d] sum of %d ints at root %d: element %d is %d, expected %ld\n", g_rank, count,
                        root, i, recv[i], expected(size, i));
                ++failures;
            }
        }
    }
    free(send);
    free(recv);
    return failures;
}

static int check_in_place(int size) {
    enum { kCount = 3 };
    int data[kCount], ignored[kCount];
    const int root = size - 1;
    for (int i = 0; i < kCount; ++i) data[i] = (g_rank + 1) * (i + 1);
    int failures = MPI_Reduce(g_rank == root ? MPI_IN_PLACE : data, g_rank == root ? data : ignored, kCount, MPI_INT,
                              MPI_SUM, root, MPI_COMM_WORLD) != MPI_SUCCESS;
    for (int i = 0; g_rank == root && i < kCount && failures == 0; ++i) {
        if (data[i] != expected(size, i)) {
            fprintf(stderr, "[rank %d] in place at %d: element %d is %d, expected %ld\n", g_rank, root, i, data[i],
                    expected(size, i));
            ++failures;
        }
    }
    return failures;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);

    static const int kCounts[] = {1, 1000, 100000};
    int failures = 0;
    for (int c = 0; c < 3; ++c) {
        failures += check_sum(MPI_COMM_WORLD, size, kCounts[c], 0);
        failures += check_sum(MPI_COMM_WORLD, size, kCounts[c], size - 1);
        failures += check_sum(dup, size, kCounts[c], size / 2);
    }
    failures += check_in_place(size);

    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (g_rank == 0) printf(total == 0 ? "foreign_mpi: ok\n" : "foreign_mpi: %d failures\n", total);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
