// A small MPI program for the calibration scripts: a few reductions through libredux on MPI_COMM_WORLD, so
// that libredux calibrates (or reads REDUX_CALIBRATION_FILE) as an application would make it, then the same on a
// duplicate of it, whose calibration takes what the process holds. Checks the results; exit status 1 on a wrong one.
#include <redux/redux.h>

#include <mpi.h>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<double> send(1000, rank + 1.0), recv(1000, 0.0);
    int wrong = 0;
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    for (MPI_Comm comm : {MPI_COMM_WORLD, dup}) {
        for (int call = 0; call < 16; ++call) {  // past auto's trials, so that it logs its decision
            redux_reduce(send.data(), recv.data(), 1000, MPI_DOUBLE, MPI_SUM, 0, comm);
            if (rank == 0 && recv[999] != size * (size + 1) / 2.0) wrong = 1;
        }
    }
    MPI_Comm_free(&dup);
    if (wrong) std::fprintf(stderr, "calibration_driver: wrong result\n");
    MPI_Finalize();
    return wrong;
}
