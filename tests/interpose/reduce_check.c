/* An MPI program that knows nothing of libredux: it calls MPI_Reduce and checks what it gets. The interposition
 * tests run it twice, built without libredux and started with LD_PRELOAD=libredux.so, and linked with -lredux
 * before the MPI library; both must give the same two answers:
 *   1. MPI_Reduce, as this program resolves it, is libredux's (probe.c), and for 2 ranks or more libredux
 *      planned the first reduction, called kCallsToPlan times (REDUX_VERBOSE=1 must be set: rank 0 prints
 *      "libredux: new plan"; under auto a key's first two calls go to the MPI library's own reduce unplanned);
 *   2. every reduction equals a closed form computed here: integer sums big enough to be folded in several
 *      chunks, a maximum on doubles to a root other than 0, MPI_IN_PLACE at a middle root, and MPI_Reduce_scatter
 *      (planned as MPI_Reduce_scatter_block where every count is the same, and so reported; in place; counts
 *      that differ).
 * Exit status 0 when every rank passed every check; rank 0 prints the verdict. */
#include "probe.h"

#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_rank = 0;

static int fail(const char *check, long index, double got, double want) {
    fprintf(stderr, "[rank %d] %s: element %ld is %.17g, expected %.17g\n", g_rank, check, index, got, want);
    return 1;
}

/* Sum of (r + 1) * (i % 1000 + 1) over ranks r, to root 0: chunked folds (400 kB against 64 kB chunks). */
static int check_int_sum(int size, int expect_plan) {
    enum { kCount = 100000 };
    int *send = malloc(sizeof(int) * kCount);
    int *recv = malloc(sizeof(int) * kCount);
    for (int i = 0; i < kCount; ++i) send[i] = (g_rank + 1) * (i % 1000 + 1);

    enum { kCallsToPlan = 3 };
    if (g_rank == 0 && expect_plan) redux_probe_capture_stderr();
    int rc = MPI_SUCCESS;
    for (int call = 0; call < kCallsToPlan && rc == MPI_SUCCESS; ++call) {
        rc = MPI_Reduce(send, recv, kCount, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    }
    int failures = rc != MPI_SUCCESS;
    if (g_rank == 0 && expect_plan && !redux_probe_stderr_contains("libredux: new plan")) {
        fprintf(stderr, "[rank 0] int sum: libredux did not report planning it (is REDUX_VERBOSE=1 set?)\n");
        ++failures;
    }
    if (g_rank == 0) {
        const long ranks_sum = (long)size * (size + 1) / 2;
        for (long i = 0; i < kCount && !failures; ++i) {
            const long want = ranks_sum * (i % 1000 + 1);
            if (recv[i] != want) failures += fail("int sum", i, recv[i], (double)want);
        }
    }
    free(send);
    free(recv);
    return failures;
}

/* Maximum of r + i / 2 over ranks r, to the last rank. */
static int check_double_max(int size) {
    enum { kCount = 1000 };
    double send[kCount], recv[kCount];
    for (int i = 0; i < kCount; ++i) send[i] = g_rank + i * 0.5;
    const int root = size - 1;
    int failures = MPI_Reduce(send, recv, kCount, MPI_DOUBLE, MPI_MAX, root, MPI_COMM_WORLD) != MPI_SUCCESS;
    if (g_rank == root) {
        for (int i = 0; i < kCount && !failures; ++i) {
            if (recv[i] != (size - 1) + i * 0.5) failures += fail("double max", i, recv[i], (size - 1) + i * 0.5);
        }
    }
    return failures;
}

/* Sum of 1000 r + i over ranks r, in place at the middle rank. */
static int check_in_place(int size) {
    enum { kCount = 3 };
    long data[kCount];
    for (int i = 0; i < kCount; ++i) data[i] = 1000L * g_rank + i;
    const int root = size / 2;
    const void *send = g_rank == root ? MPI_IN_PLACE : data;
    long ignored[kCount];
    void *recv = g_rank == root ? data : ignored;
    int failures = MPI_Reduce(send, recv, kCount, MPI_LONG, MPI_SUM, root, MPI_COMM_WORLD) != MPI_SUCCESS;
    if (g_rank == root) {
        for (int i = 0; i < kCount && !failures; ++i) {
            const long want = 1000L * size * (size - 1) / 2 + (long)size * i;
            if (data[i] != want) failures += fail("long sum in place", i, (double)data[i], (double)want);
        }
    }
    return failures;
}

/* MPI_Reduce_scatter of the sum of (r + 1) * i + 1 over ranks r. With every count 7 (and 7 in place) it is
 * MPI_Reduce_scatter_block's: planned at its third call (as check_int_sum); with counts that differ (7 + r at rank r)
 * the library's own. */
static int check_reduce_scatter(int size, int expect_plan) {
    enum { kBlock = 7 };
    const int total = size * kBlock + size * (size - 1) / 2;
    int *send = malloc(sizeof(int) * (size_t)total);
    int *recv = malloc(sizeof(int) * (size_t)total);
    int *counts = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < total; ++i) send[i] = (g_rank + 1) * i + 1;
    const long ranks_sum = (long)size * (size + 1) / 2;
    int failures = 0;
    for (int pass = 0; pass < 3; ++pass) { /* 0: every count the same; 1: the same, in place; 2: counts differ */
        int first = 0;
        for (int r = 0; r < size; ++r) {
            counts[r] = pass < 2 ? kBlock : kBlock + r;
            if (r < g_rank) first += counts[r];
        }
        const int calls = pass == 0 ? 3 : 1;
        if (g_rank == 0 && expect_plan && pass == 0) redux_probe_capture_stderr();
        for (int call = 0; call < calls; ++call) { /* every rank makes every call, whatever failed before */
            if (pass == 1) memcpy(recv, send, sizeof(int) * (size_t)total);
            failures += MPI_Reduce_scatter(pass == 1 ? MPI_IN_PLACE : send, recv, counts, MPI_INT, MPI_SUM,
                                           MPI_COMM_WORLD) != MPI_SUCCESS;
        }
        if (g_rank == 0 && expect_plan && pass == 0 &&
            !redux_probe_stderr_contains("libredux: new plan for reduce_scatter_block")) {
            fprintf(stderr, "[rank 0] MPI_Reduce_scatter: libredux did not report planning it\n");
            ++failures;
        }
        for (int i = 0; i < counts[g_rank]; ++i) {
            const long want = ranks_sum * (first + i) + size;
            if (recv[i] != want) {
                failures += fail("MPI_Reduce_scatter", i, recv[i], (double)want);
                break;
            }
        }
    }
    free(send);
    free(recv);
    free(counts);
    return failures;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int failures = 0;
    if (!redux_probe_function_in_libredux((void (*)(void))MPI_Reduce, "MPI_Reduce (as this program calls it)"))
        ++failures;
    if (!redux_probe_symbol_in_libredux("MPI_Reduce")) ++failures;
    failures += check_int_sum(size, size >= 2);
    failures += check_double_max(size);
    failures += check_in_place(size);
    failures += check_reduce_scatter(size, size >= 2);

    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (g_rank == 0) {
        printf("reduce_check: %d ranks, %s (%d failed checks)\n", size, total == 0 ? "passed" : "FAILED", total);
    }
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
