// Does the executor overlap a transfer with a fold? Run on 3 ranks: the planned tree is a star (the root
// receives from two children), so with overlap the root takes about d + max(d, c) + c, and without it
// (the second transfer waits for the first fold) d + c + d + c. The op is a sum followed by a sleep of
// --delay-ns nanoseconds per element, so c is under control without taking a core from the other ranks (the
// probe runs on machines with fewer cores than ranks); d and c are measured here, in the same run.
//
//   mpirun -np 3 redux-overlap-probe [--bytes B] [--delay-ns NS] [--iterations N] [--late-ms L]
// Compare REDUX_CHUNK_BYTES=<default> (fold in chunks, polling in between) with REDUX_CHUNK_BYTES=<B or
// more> (one Reduce_local call per fold: no progress during the fold), and with REDUX_RECV_WINDOW=1 (the
// next receive is posted after the fold: no overlap by construction).
// --late-ms L makes rank 2 start L ms late, so that its partial result is announced while the root folds
// rank 1's: then only polling during the fold lets its transfer start before the fold ends. Predictions:
// with overlap max(d + c, L + d) + c, without max(d + c, L) + d + c.
#include "mpi/mpi_version.hpp"
#include "redux/version.h"
#include "util/median.hpp"

#include "redux/redux.h"

#include <mpi.h>
#include <sys/prctl.h>

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

using redux::median;

}  // namespace

int main(int argc, char** argv) {
    if (argc == 2 && !std::strcmp(argv[1], "--version")) {  // before MPI_Init: no launcher needed
        std::printf("redux-overlap-probe (libredux) %s\nbuilt for %s\n", REDUX_VERSION_STRING, redux::mpi_built_for());
        return 0;
    }
    MPI_Init(&argc, &argv);
    long bytes = 4 << 20;
    int iterations = 21;
    double late_s = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--bytes")) bytes = std::atol(argv[i + 1]);
        if (!std::strcmp(argv[i], "--delay-ns")) g_delay_ns = std::atol(argv[i + 1]);
        if (!std::strcmp(argv[i], "--iterations")) iterations = std::atoi(argv[i + 1]);
        if (!std::strcmp(argv[i], "--late-ms")) late_s = std::atof(argv[i + 1]) / 1e3;
    }
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int count = static_cast<int>(bytes / 8);
    const char* chunk_env = std::getenv("REDUX_CHUNK_BYTES");  // c is measured as the executor folds: in chunks
    const long chunk_bytes = chunk_env ? std::atol(chunk_env) : 65536;
    const int chunk_count = static_cast<int>(std::clamp<long>(chunk_bytes / 8, 1, count));
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);  // sleeps end on time (the default slack is 50 us a sleep)
    std::vector<double> send(count, rank + 1.0), recv(count, 0.0), scratch(count, 0.0);
    MPI_Op op;
    MPI_Op_create(delay_sum, 1, &op);
    using clock = std::chrono::steady_clock;
    auto seconds = [](clock::time_point a, clock::time_point b) {
        return std::chrono::duration<double>(b - a).count();
    };

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
            for (int first = 0; first < count; first += chunk_count) {  // as the executor folds
                MPI_Reduce_local(send.data() + first, scratch.data() + first, std::min(chunk_count, count - first),
                                 MPI_DOUBLE, op);
            }
            c_samples.push_back(seconds(t1, clock::now()));
        }
    }
    for (int it = 0; it < iterations; ++it) {
        MPI_Barrier(MPI_COMM_WORLD);
        const auto t0 = clock::now();
        if (rank == 2 && late_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(late_s));
        redux_reduce(send.data(), recv.data(), count, MPI_DOUBLE, op, 0, MPI_COMM_WORLD);
        if (rank == 0) reduce_samples.push_back(seconds(t0, clock::now()));
    }
    if (rank == 0) {
        const double d = median(d_samples), c = median(c_samples), t = median(reduce_samples);
        const char* window = std::getenv("REDUX_RECV_WINDOW");
        std::printf(
            "ranks=%d bytes=%ld chunk_bytes=%s recv_window=%s late=%.1f ms d=%.3f ms c=%.3f ms "
            "reduce=%.3f ms predicted: overlapped=%.3f ms serial=%.3f ms\n",
            size, bytes, chunk_env ? chunk_env : "default", window ? window : "default", late_s * 1e3, d * 1e3, c * 1e3,
            t * 1e3, (std::max(d + c, late_s + d) + c) * 1e3, (std::max(d + c, late_s) + d + c) * 1e3);
    }
    MPI_Op_free(&op);
    MPI_Finalize();
    return 0;
}
