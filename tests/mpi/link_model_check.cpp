// How well the link model predicts real transfers: for each message size, the d that libredux plans with (its
// own calibration, through redux_reduce_ex's call info) next to ping-pongs of that size between ranks 0 and 1.
// A measurement, not a test (64 MiB ping-pongs take seconds on a slow link): built, never run by ctest.
//
//   mpiexec -n 2 redux_link_model_check [--trips N] [BYTES...]     (default: 1 MiB, 4 MiB, 64 MiB)
//
// Prints one line per size: the model's d, the fastest and the median half round trip of N (after one warm-up),
// and the model's error against the median. Run it without REDUX_D and REDUX_CALIBRATION_FILE to see the
// model as calibrated by this job (on 2 ranks d is the one link class the pair has).
#include <redux/redux.h>

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

// The model's d for `bytes`: what an optimal-tree reduction of that many bytes was planned with.
double model_transfer_s(size_t bytes, MPI_Comm comm) {
    const int count = static_cast<int>(bytes / sizeof(double));
    std::vector<double> send(static_cast<size_t>(count), 1.0), recv(static_cast<size_t>(count), 0.0);
    redux_options options = REDUX_OPTIONS_INIT;
    options.algorithm = REDUX_ALGORITHM_OPTIMAL;
    redux_call_info info{};
    if (redux_reduce_ex(send.data(), recv.data(), count, MPI_DOUBLE, MPI_SUM, 0, comm, &options, &info) !=
        MPI_SUCCESS) {
        return -1;
    }
    return info.transfer_s;
}

// Half round trips of `bytes` between ranks 0 and 1, sorted; one warm-up first.
std::vector<double> ping_pong(size_t bytes, int trips, int rank, MPI_Comm comm) {
    std::vector<char> buffer(bytes);
    std::vector<double> times;
    const int n = static_cast<int>(bytes);
    for (int trip = 0; trip <= trips; ++trip) {
        MPI_Barrier(comm);
        const double start = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(buffer.data(), n, MPI_BYTE, 1, 7, comm);
            MPI_Recv(buffer.data(), n, MPI_BYTE, 1, 7, comm, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buffer.data(), n, MPI_BYTE, 0, 7, comm, MPI_STATUS_IGNORE);
            MPI_Send(buffer.data(), n, MPI_BYTE, 0, 7, comm);
        }
        if (trip > 0) times.push_back((MPI_Wtime() - start) / 2);
    }
    std::sort(times.begin(), times.end());
    return times;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int trips = 10;
    std::vector<size_t> sizes;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--trips") == 0 && i + 1 < argc) {
            trips = std::max(1, std::atoi(argv[++i]));
        } else {
            sizes.push_back(std::strtoull(argv[i], nullptr, 10));
        }
    }
    if (sizes.empty()) sizes = {size_t{1} << 20, size_t{4} << 20, size_t{64} << 20};
    if (size < 2) {
        if (rank == 0) std::fprintf(stderr, "redux_link_model_check: needs 2 ranks or more\n");
        MPI_Finalize();
        return 2;
    }
    const double start = MPI_Wtime();
    const double first = model_transfer_s(sizes[0], MPI_COMM_WORLD);  // calibrates the links
    if (rank == 0) std::printf("# first call (calibration and reduction): %.3f s\n", MPI_Wtime() - start);
    if (rank == 0) std::printf("# %12s %14s %14s %14s %9s\n", "bytes", "model_s", "fastest_s", "median_s", "error");
    for (size_t bytes : sizes) {
        const double model = bytes == sizes[0] ? first : model_transfer_s(bytes, MPI_COMM_WORLD);
        const std::vector<double> times = ping_pong(bytes, trips, rank, MPI_COMM_WORLD);
        if (rank != 0) continue;
        const double median = times[times.size() / 2];
        std::printf("  %12zu %14.6e %14.6e %14.6e %+8.1f%%\n", bytes, model, times.front(), median,
                    100 * (model - median) / median);
    }
    MPI_Finalize();
    return 0;
}
