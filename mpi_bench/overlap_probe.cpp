// Does the executor overlap a transfer with a fold? Run on 3 ranks: the planned tree is a star (the root
// receives from two children), so with overlap the root takes about d + max(d, c) + c, and without it
// (the second transfer waits for the first fold) d + c + d + c. The op is a sum followed by a sleep of
// --delay-ns nanoseconds per element, so c is under control without taking a core from the other ranks (the
// probe runs on machines with fewer cores than ranks); d and c are measured here, in the same run.
//
//   mpirun -np 3 redux-overlap-probe [--bytes B] [--delay-ns NS] [--iterations N]
// Compare REDUX_CHUNK_BYTES=<default> (fold in chunks, polling in between) with REDUX_CHUNK_BYTES=<B or
// more> (one Reduce_local call per fold: no progress during the fold).
#include "redux/redux.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

long g_delay_ns = 0;

void delay_sum(void* in, void* inout, int* len, MPI_Datatype*) {
    const auto* a = static_cast<const double*>(in);
    auto* b = static_cast<double*>(inout);
    for (int i = 0; i < *len; ++i) b[i] += a[i];
    std::this_thread::sleep_for(std::chrono::nanoseconds(g_delay_ns * *len));
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    long bytes = 4 << 20;
    int iterations = 21;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--bytes")) bytes = std::atol(argv[i + 1]);
        if (!std::strcmp(argv[i], "--delay-ns")) g_delay_ns = std::atol(argv[i + 1]);
        if (!std::strcmp(argv[i], "--iterations")) iterations = std::atoi(argv[i + 1]);
    }
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int count = static_cast<int>(bytes / 8);
    std::vector<double> send(count, rank + 1.0), recv(count, 0.0), scratch(count, 0.0);
    MPI_Op op;
    MPI_Op_create(delay_sum, 1, &op);
    using clock = std::chrono::steady_clock;
    auto seconds = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };

    // d: one transfer 1 -> 0 (ping-pong, half the round trip); c: one application of the op at rank 0.
    std::vector<double> d_samples, c_samples, reduce_samples;
    for (int it = 0; it < iterations; ++it) {
        MPI_Barrier(MPI_COMM_WORLD);
        const auto t0 = clock::now();
        if (rank == 0) {
            MPI_Recv(recv.data(), count, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(recv.data(), count, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
        } else if (rank == 1) {
            MPI_Send(send.data(), count, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
            MPI_Recv(scratch.data(), count, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        d_samples.push_back(seconds(t0, clock::now()) / 2);
        if (rank == 0) {
            const auto t1 = clock::now();
            MPI_Reduce_local(send.data(), scratch.data(), count, MPI_DOUBLE, op);
            c_samples.push_back(seconds(t1, clock::now()));
        }
    }
    for (int it = 0; it < iterations; ++it) {
        MPI_Barrier(MPI_COMM_WORLD);
        const auto t0 = clock::now();
        redux_reduce(send.data(), recv.data(), count, MPI_DOUBLE, op, 0, MPI_COMM_WORLD);
        if (rank == 0) reduce_samples.push_back(seconds(t0, clock::now()));
    }
    if (rank == 0) {
        const double d = median(d_samples), c = median(c_samples), t = median(reduce_samples);
        const char* chunk = std::getenv("REDUX_CHUNK_BYTES");
        std::printf("ranks=%d bytes=%ld chunk_bytes=%s d=%.3f ms c=%.3f ms reduce=%.3f ms "
                    "overlapped(d+max+c)=%.3f ms serial(2d+2c)=%.3f ms\n",
                    size, bytes, chunk ? chunk : "default", d * 1e3, c * 1e3, t * 1e3,
                    (d + std::max(d, c) + c) * 1e3, (2 * d + 2 * c) * 1e3);
    }
    MPI_Op_free(&op);
    MPI_Finalize();
    return 0;
}
