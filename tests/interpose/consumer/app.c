/* A user's program on an installed libredux: `redux_consumer PREFIX` under mpiexec checks that
 *   1. MPI_Reduce, as this program calls it, is defined by a libredux.so under PREFIX (the installed one, not
 *      the build tree's), and
 *   2. MPI_Reduce and redux_reduce (from the installed header) both sum 1000 integers correctly to root 0.
 * Exit status 0 when every rank passed; rank 0 prints the verdict. Valid C and C++. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include <redux/redux.h>

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether MPI_Reduce lies in a file under `prefix` (both paths resolved). */
static int reduce_is_under(const char *prefix) {
    union {
        int (*function)(const void *, void *, int, MPI_Datatype, MPI_Op, int, MPI_Comm);
        void *object;
    } address;
    address.function = MPI_Reduce;
    Dl_info info;
    char object[PATH_MAX], root[PATH_MAX];
    if (dladdr(address.object, &info) == 0 || realpath(info.dli_fname, object) == NULL ||
        realpath(prefix, root) == NULL) {
        fprintf(stderr, "redux_consumer: cannot tell where MPI_Reduce lies\n");
        return 0;
    }
    if (strncmp(object, root, strlen(root)) == 0 && object[strlen(root)] == '/') return 1;
    fprintf(stderr, "redux_consumer: MPI_Reduce lies in %s, not under %s\n", object, root);
    return 0;
}

static int check_sum(const char *name, int (*reduce)(const void *, void *, int, MPI_Datatype, MPI_Op, int, MPI_Comm),
                     int rank, int size) {
    enum { kCount = 1000 };
    int send[kCount], recv[kCount];
    for (int i = 0; i < kCount; ++i) send[i] = (rank + 1) * i;
    if (reduce(send, recv, kCount, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD) != MPI_SUCCESS) return 1;
    for (int i = 0; rank == 0 && i < kCount; ++i) {
        if (recv[i] != size * (size + 1) / 2 * i) {
            fprintf(stderr, "redux_consumer: %s: element %d is %d, expected %d\n", name, i, recv[i],
                    size * (size + 1) / 2 * i);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int failures = argc != 2 || !reduce_is_under(argv[1]);
    failures += check_sum("MPI_Reduce", MPI_Reduce, rank, size);
    failures += check_sum("redux_reduce", redux_reduce, rank, size);
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("redux_consumer: %d ranks, %s\n", size, total == 0 ? "passed" : "FAILED");
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
