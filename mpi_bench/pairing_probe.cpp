// How long a rank waits to learn its partner from the root, two ways, while the root is away from MPI: by message
// (tree-dyn's matchmaker: the rank sends "arrived", the root answers from its progress loop) and by a one-sided
// ticket (MPI_Fetch_and_op on a counter in a window at the root, then MPI_Win_flush: nothing for the root to
// answer, if the MPI library moves atomics without the target).
// In each iteration, after a barrier, the root stays out of MPI for --absent-ms (a late root), then alternates
// --fold-us out of MPI (a fold; asleep, as the benchmark's delay ops, so that ranks sharing a core do not slow it)
// with one call into MPI, until every other rank is served. Every other rank asks at once and times its wait.
// Message and ticket iterations alternate so machine noise hits them alike; medians and 90th percentiles are over
// every non-root rank's waits.
//
//   mpirun -np N redux-pairing-probe [--fold-us F] [--absent-ms L] [--iterations N]
// Where atomics need the target's progress, the ticket waits as long as the message: about L + a round trip,
// and up to F more.
#include "mpi/mpi_version.hpp"
#include "redux/version.h"
#include "stats.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

constexpr int kArrivedTag = 1, kOrderTag = 2;

void away_from_mpi(double seconds) {
    if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

// The root's part of a message iteration: answers each "arrived" with the number of ranks served before it.
void serve_messages(int others, double fold_s) {
    std::vector<int> orders(static_cast<size_t>(others));
    std::vector<MPI_Request> sends;
    int arrived = 0;
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Irecv(&arrived, 1, MPI_INT, MPI_ANY_SOURCE, kArrivedTag, MPI_COMM_WORLD, &request);
    for (int served = 0; served < others;) {
        int done = 0;
        MPI_Status status;
        MPI_Test(&request, &done, &status);
        if (!done) {
            away_from_mpi(fold_s);
            continue;
        }
        orders[static_cast<size_t>(served)] = served;
        sends.emplace_back();
        MPI_Isend(&orders[static_cast<size_t>(served)], 1, MPI_INT, status.MPI_SOURCE, kOrderTag, MPI_COMM_WORLD,
                  &sends.back());
        if (++served < others) MPI_Irecv(&arrived, 1, MPI_INT, MPI_ANY_SOURCE, kArrivedTag, MPI_COMM_WORLD, &request);
    }
    MPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
}

// The root's part of a ticket iteration: reads its own counter (which also gives the library a chance to
// progress) until every other rank has taken a ticket.
void serve_tickets(MPI_Win window, int64_t until, double fold_s) {
    const int64_t none = 0;
    for (int64_t taken = 0;;) {
        MPI_Fetch_and_op(&none, &taken, MPI_INT64_T, 0, 0, MPI_NO_OP, window);
        MPI_Win_flush(0, window);
        if (taken >= until) return;
        away_from_mpi(fold_s);
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 2 && !std::strcmp(argv[1], "--version")) {  // before MPI_Init: no launcher needed
        std::printf("redux-pairing-probe (libredux) %s\nbuilt for %s\n", REDUX_VERSION_STRING, redux::mpi_built_for());
        return 0;
    }
    MPI_Init(&argc, &argv);
    double fold_s = 2e-3, absent_s = 0;
    int iterations = 40;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--fold-us")) fold_s = std::atof(argv[i + 1]) * 1e-6;
        if (!std::strcmp(argv[i], "--absent-ms")) absent_s = std::atof(argv[i + 1]) * 1e-3;
        if (!std::strcmp(argv[i], "--iterations")) iterations = std::atoi(argv[i + 1]);
    }
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        if (rank == 0) std::fprintf(stderr, "redux-pairing-probe: needs 2 ranks or more\n");
        MPI_Finalize();
        return 1;
    }
    int64_t* counter = nullptr;
    MPI_Win window = MPI_WIN_NULL;
    MPI_Win_allocate(rank == 0 ? sizeof(int64_t) : 0, sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &counter,
                     &window);
    if (rank == 0) *counter = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, window);

    const int others = size - 1;
    std::vector<double> waits[2];  // message, ticket: this rank's
    int64_t tickets = 0;
    for (int it = -2; it < iterations; ++it) {  // the first two warm up
        for (int way = 0; way < 2; ++way) {
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank == 0) {
                away_from_mpi(absent_s);
                if (way == 0)
                    serve_messages(others, fold_s);
                else
                    serve_tickets(window, tickets += others, fold_s);
                continue;
            }
            const double t0 = MPI_Wtime();
            if (way == 0) {
                int order = -1;
                MPI_Send(&rank, 1, MPI_INT, 0, kArrivedTag, MPI_COMM_WORLD);
                MPI_Recv(&order, 1, MPI_INT, 0, kOrderTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                const int64_t one = 1;
                int64_t ticket = -1;
                MPI_Fetch_and_op(&one, &ticket, MPI_INT64_T, 0, 0, MPI_SUM, window);
                MPI_Win_flush(0, window);
            }
            if (it >= 0) waits[way].push_back(MPI_Wtime() - t0);
        }
    }
    MPI_Win_unlock_all(window);
    MPI_Win_free(&window);

    // Every non-root rank's waits, gathered at the root.
    std::vector<double> all[2];
    for (int way = 0; way < 2; ++way) {
        all[way].resize(static_cast<size_t>(size) * static_cast<size_t>(iterations));
        std::vector<double> mine(static_cast<size_t>(iterations), -1.0);
        std::copy(waits[way].begin(), waits[way].end(), mine.begin());
        MPI_Gather(mine.data(), iterations, MPI_DOUBLE, all[way].data(), iterations, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        all[way].erase(std::remove(all[way].begin(), all[way].end(), -1.0), all[way].end());
    }
    if (rank == 0) {
        std::printf("ranks=%d fold_us=%.0f absent_ms=%.1f iterations=%d, the wait to learn a partner (us):\n", size,
                    fold_s * 1e6, absent_s * 1e3, iterations);
        const char* names[2] = {"message (tree-dyn's matchmaker)", "ticket (MPI_Fetch_and_op at the root)"};
        for (int way = 0; way < 2; ++way) {
            const redux_bench::Summary waits = redux_bench::summarize(all[way]);
            std::printf("  %-40s median %10.1f  p90 %10.1f\n", names[way], waits.median_s * 1e6, waits.p90_s * 1e6);
        }
    }
    MPI_Finalize();
    return 0;
}
