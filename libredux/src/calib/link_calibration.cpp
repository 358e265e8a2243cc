// Link calibration: d(bytes) = alpha + beta * bytes for each link class a communicator has.
//
// In order, cheapest first, every step collective and agreed by all ranks:
//   1. classes this process already knows (measured or read on another communicator): an MPI_Allreduce of
//      the known classes, then rank 0's fits broadcast, so all ranks plan with the same numbers;
//   2. the calibration file, read by rank 0 and broadcast (a missing, stale, foreign or corrupt file: one
//      warning from rank 0, then step 3);
//   3. measurement: for each class, one pair of ranks (Topology::first_pair) ping-pongs messages of 8 B, 32 KiB
//      and 256 KiB (one warm-up, then 5 round trips each; the fastest half round trip per size: on a shared
//      machine scheduling delays only add time, so the fastest is the link's own), fits the line
//      and broadcasts it. A few pairs per class, never n^2: on 8 ranks of one node this takes a few ms.
// Rank 0 then writes the file with what was measured.
#include "calib/link_calibration.hpp"

#include "calib/calibration_file.hpp"
#include "exec/mpi_check.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>
#include <vector>

namespace redux {
namespace {

constexpr int kTagPing = 3;
constexpr size_t kPingSizes[] = {8, 32768, 262144};
constexpr int kRoundTrips = 5;

LinkFits g_known;  // this process's link fits, by class

// Half round trips between a and b (called on both), the fastest per size; fitted on rank a.
int ping_pong(MPI_Comm comm, int rank, int a, int b, LinkFit& fit) {
    std::vector<char> buffer(kPingSizes[std::size(kPingSizes) - 1]);
    std::vector<PingSample> samples;
    const int peer = rank == a ? b : a;
    for (size_t bytes : kPingSizes) {
        std::vector<double> times;
        for (int trip = 0; trip <= kRoundTrips; ++trip) {  // trip 0 warms up
            const double start = MPI_Wtime();
            const int n = static_cast<int>(bytes);
            if (rank == a) {
                REDUX_MPI(MPI_Send(buffer.data(), n, MPI_BYTE, peer, kTagPing, comm));
                REDUX_MPI(MPI_Recv(buffer.data(), n, MPI_BYTE, peer, kTagPing, comm, MPI_STATUS_IGNORE));
            } else {
                REDUX_MPI(MPI_Recv(buffer.data(), n, MPI_BYTE, peer, kTagPing, comm, MPI_STATUS_IGNORE));
                REDUX_MPI(MPI_Send(buffer.data(), n, MPI_BYTE, peer, kTagPing, comm));
            }
            if (trip > 0) times.push_back((MPI_Wtime() - start) / 2);
        }
        samples.push_back({bytes, *std::min_element(times.begin(), times.end())});  // noise only adds time
    }
    fit = fit_link(samples);
    return MPI_SUCCESS;
}

// Broadcasts the fits of the classes in `which` from `root`.
int broadcast_fits(MPI_Comm comm, int root, const std::array<bool, kLinkClasses>& which, LinkFits& fits) {
    std::array<double, 2 * kLinkClasses> values{};
    for (int c = 0; c < kLinkClasses; ++c) {
        values[2 * c] = fits[c].alpha_s;
        values[2 * c + 1] = fits[c].beta_s_per_byte;
    }
    REDUX_MPI(MPI_Bcast(values.data(), static_cast<int>(values.size()), MPI_DOUBLE, root, comm));
    for (int c = 0; c < kLinkClasses; ++c) {
        if (which[c]) fits[c] = {values[2 * c], values[2 * c + 1], true};
    }
    return MPI_SUCCESS;
}

// Step 1: true when every rank knows every class the communicator has.
int agree_on_known(MPI_Comm comm, const Topology& topology, LinkFits& fits, bool& complete) {
    int known = 0;
    for (int c = 0; c < kLinkClasses; ++c) known |= (g_known[c].measured ? 1 : 0) << c;
    int everywhere = 0;
    REDUX_MPI(MPI_Allreduce(&known, &everywhere, 1, MPI_INT, MPI_BAND, comm));
    std::array<bool, kLinkClasses> usable{};
    complete = true;
    for (int c = 0; c < kLinkClasses; ++c) {
        usable[c] = topology.present[c] && ((everywhere >> c) & 1);
        complete = complete && (usable[c] || !topology.present[c]);
    }
    fits = g_known;
    REDUX_MPI(broadcast_fits(comm, 0, usable, fits));
    for (int c = 0; c < kLinkClasses; ++c) {
        if (!usable[c]) fits[c] = {};  // ranks may know other values; only agreed ones stay
    }
    return MPI_SUCCESS;
}

// Step 2: true when rank 0 found every class the communicator has in the file.
int read_file(MPI_Comm comm, int rank, const Topology& topology, const CalibrationSettings& settings, LinkFits& fits,
              bool& found) {
    int ok = 0;
    if (rank == 0 && !settings.file.empty()) {
        const LoadResult loaded =
            load_calibration(settings.file, topology.signature, static_cast<int64_t>(std::time(nullptr)),
                             settings.max_age_s);
        ok = loaded.status == LoadStatus::found;
        for (int c = 0; ok && c < kLinkClasses; ++c) ok = !topology.present[c] || loaded.links[c].measured;
        if (ok) {
            fits = loaded.links;
        } else {
            std::fprintf(stderr, "libredux: calibration file %s %s; measuring the links\n", settings.file.c_str(),
                         loaded.status == LoadStatus::found ? "lacks a link class of this layout"
                                                            : loaded.reason.c_str());
        }
    }
    if (settings.file.empty()) {
        found = false;
        return MPI_SUCCESS;
    }
    REDUX_MPI(MPI_Bcast(&ok, 1, MPI_INT, 0, comm));
    found = ok != 0;
    if (found) REDUX_MPI(broadcast_fits(comm, 0, topology.present, fits));
    return MPI_SUCCESS;
}

}  // namespace

int calibrate_links(MPI_Comm comm, const Topology& topology, const CalibrationSettings& settings,
                    LinkCalibration& out) {
    const double start = MPI_Wtime();
    int rank = 0;
    REDUX_MPI(MPI_Comm_rank(comm, &rank));
    bool done = false;
    REDUX_MPI(agree_on_known(comm, topology, out.fits, done));
    out.source = "process";
    if (!done) {
        REDUX_MPI(read_file(comm, rank, topology, settings, out.fits, done));
        out.source = "file";
    }
    if (!done) {
        out.source = "measured";
        for (int c = 0; c < kLinkClasses; ++c) {
            if (!topology.present[c]) continue;
            int a = 0, b = 0;
            topology.first_pair(static_cast<LinkClass>(c), a, b);
            if (rank == a || rank == b) REDUX_MPI(ping_pong(comm, rank, a, b, out.fits[c]));
            std::array<bool, kLinkClasses> only{};
            only[c] = true;
            REDUX_MPI(broadcast_fits(comm, a, only, out.fits));
        }
        if (rank == 0 && !settings.file.empty()) {
            std::string error;
            if (!store_calibration(settings.file, {topology.signature, static_cast<int64_t>(std::time(nullptr)), out.fits},
                                   error)) {
                std::fprintf(stderr, "libredux: %s\n", error.c_str());
            }
        }
    }
    for (int c = 0; c < kLinkClasses; ++c) {
        if (topology.present[c]) g_known[c] = out.fits[c];
    }
    out.seconds = MPI_Wtime() - start;
    return MPI_SUCCESS;
}

}  // namespace redux
