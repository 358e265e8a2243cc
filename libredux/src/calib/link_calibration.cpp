// Link calibration: d(bytes) for each link class a communicator has, piecewise linear through measured times
// (model/link_costs.hpp says why).
//
// In order, cheapest first, every step collective and agreed by all ranks:
//   1. classes this process already knows (measured or read on another communicator): an MPI_Allreduce of
//      the known classes, then rank 0's fits broadcast, so all ranks plan with the same numbers;
//   2. the calibration file, read by rank 0 and broadcast (a missing, stale, foreign or corrupt file: one
//      warning from rank 0, then step 3; the warning says when the file will not be written, see 4);
//   3. measurement: for each class, one pair of ranks (Topology::first_pair) ping-pongs messages of 8 B,
//      32 KiB, 64 KiB (a protocol switch: model/node_pairs.hpp) and 256 KiB (one warm-up, then 5 round trips each), 1
//      MiB and 4 MiB (one warm-up, then 2: a round trip at 4 MiB on a slow link costs 80 ms), and on a fast link 16 and
//      64 MiB (below); the fastest half round trip per size (on a shared machine scheduling delays only add time, so
//      the fastest is the link's own) makes d (fit_link), which is broadcast. Then the time in flight
//      (LinkFit::flight_s): a stream of kStreamMessages messages of 8 B, a to b, answered by one 8 B message once all
//      have arrived, takes 2 d + (k - 1) p, where p is the part of d that holds the receiver (its port: overheads and
//      gap); p from the fastest stream against the fastest 8 B round trip, and L = d(8 B) - p. The large sizes are
//      where long vectors and their segments are planned: beyond the largest size measured d follows the slope of the
//      last two. A few pairs per class, never n^2. It takes, measured: 40-65 ms on 8 ranks of one node (2 cores, a
//      VM; 1.5 ms when it stopped at 256 KiB), most of it first-touching the 16 MiB buffer; 0.5 s between two nodes 2
//      ms and 1 Gbit/s apart (0.19 s before), where 4 MiB alone is 3 round trips of 80 ms.
//   4. on 3 to kMaxPairNodes nodes, every pair of nodes (model/node_pairs.cpp says why): the nodes' leaders (the
//      lowest rank of each) meet in the rounds of a round-robin schedule, each pair in a round at once, and
//      ping-pong each of kPairBytes (8 B, 32, 64 and 256 KiB: one warm-up, then kPairTrips); the fastest half
//      round trips, one MPI_Allreduce, and every rank holds them. Measured
//      on every communicator that spans such nodes, not kept in the calibration file: on the emulated
//      heterogeneous cluster (8 nodes, 0.2 to 10 ms one way) it takes about 1 s.
//   5. rank 0 writes the file with what was measured, if it may: only a missing file or libredux's own
//      (calibration_file_replaceable; a C source, another program's JSON, a damaged or unreadable file is
//      never replaced). store_calibration judges the file again when writing, and says why it did not.
#include "calib/link_calibration.hpp"

#include "core/calibration_file.hpp"
#include "mpi/mpi_check.hpp"
#include "mpi/yielding.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace redux {
namespace {

constexpr int kTagPing = 3;
struct PingSize {
    size_t bytes;
    bool warm_up;     // one round trip first, not timed
    int round_trips;  // timed
};
constexpr PingSize kPingSizes[] = {{8, true, 5},         {32 << 10, true, 5}, {64 << 10, true, 5},
                                   {256 << 10, true, 5}, {1 << 20, true, 2},  {4 << 20, true, 2}};
// Beyond the last of kPingSizes: 4x larger sizes, up to the largest the planner is built for, while the largest
// size so far took less than kExtendBelow_s one way (a fast link, where the next costs little), so that the
// slope beyond is that of messages larger than the caches (shared memory: 4 MiB stays in a 32 MiB L3 and moves
// at twice the speed of 64 MiB). No warm-up there: first-touching the larger buffer costs more than its
// round trips (16 MiB: 17 ms in a VM).
constexpr size_t kLargestPlannedBytes = size_t{64} << 20;
constexpr double kExtendBelow_s = 2e-3;
constexpr int kExtraRoundTrips = 2;
constexpr int kStreamMessages = 16;
constexpr int kStreams = 5;    // timed, after one warm-up
constexpr int kPairTrips = 5;  // as the classes' small sizes: a pair's fastest of 3 was 20-45 % slow on a loaded host

LinkFits g_known;  // this process's link fits, by class

// `round_trips` timed half round trips of `bytes` between a and b (after one warm-up if `warm_up`), appended to
// `samples`.
int time_size(MPI_Comm comm, bool first, int peer, size_t bytes, bool warm_up, int round_trips,
              std::vector<char>& buffer, std::vector<PingSample>& samples) {
    if (buffer.size() < bytes) buffer.resize(bytes);
    const int n = static_cast<int>(bytes);
    for (int trip = warm_up ? 0 : 1; trip <= round_trips; ++trip) {  // trip 0 warms up
        const double start = MPI_Wtime();
        if (first) {
            REDUX_MPI(MPI_Send(buffer.data(), n, MPI_BYTE, peer, kTagPing, comm));
            REDUX_MPI(MPI_Recv(buffer.data(), n, MPI_BYTE, peer, kTagPing, comm, MPI_STATUS_IGNORE));
        } else {
            REDUX_MPI(MPI_Recv(buffer.data(), n, MPI_BYTE, peer, kTagPing, comm, MPI_STATUS_IGNORE));
            REDUX_MPI(MPI_Send(buffer.data(), n, MPI_BYTE, peer, kTagPing, comm));
        }
        if (trip > 0) samples.push_back({bytes, (MPI_Wtime() - start) / 2});
    }
    return MPI_SUCCESS;
}

// The time in flight of the link: kStreams timed streams of kStreamMessages messages of 8 B from a to b, each
// answered by b once all have arrived (module comment). `d8_s`: the fastest half round trip of 8 B (a's).
int time_flight(MPI_Comm comm, bool first, int peer, double d8_s, double& flight_s) {
    char bytes[8] = {};
    double fastest = -1;
    for (int stream = 0; stream <= kStreams; ++stream) {  // stream 0 warms up
        const double start = MPI_Wtime();
        if (first) {
            for (int m = 0; m < kStreamMessages; ++m) {
                REDUX_MPI(MPI_Send(bytes, 8, MPI_BYTE, peer, kTagPing, comm));
            }
            REDUX_MPI(MPI_Recv(bytes, 8, MPI_BYTE, peer, kTagPing, comm, MPI_STATUS_IGNORE));
        } else {
            for (int m = 0; m < kStreamMessages; ++m) {
                REDUX_MPI(MPI_Recv(bytes, 8, MPI_BYTE, peer, kTagPing, comm, MPI_STATUS_IGNORE));
            }
            REDUX_MPI(MPI_Send(bytes, 8, MPI_BYTE, peer, kTagPing, comm));
        }
        const double took = MPI_Wtime() - start;
        if (stream > 0 && (fastest < 0 || took < fastest)) fastest = took;
    }
    const double port_s = std::max(0.0, (fastest - 2 * d8_s) / (kStreamMessages - 1));
    flight_s = std::clamp(d8_s - port_s, 0.0, d8_s);
    return MPI_SUCCESS;
}

// Half round trips between a and b (called on both); fitted on rank a (fit_link keeps the fastest per size).
// Whether to go on past kPingSizes is a's decision, sent to b.
int ping_pong(MPI_Comm comm, int rank, int a, int b, LinkFit& fit) {
    std::vector<char> buffer;
    std::vector<PingSample> samples;
    const bool first = rank == a;
    const int peer = first ? b : a;
    for (const PingSize& size : kPingSizes) {
        REDUX_MPI(time_size(comm, first, peer, size.bytes, size.warm_up, size.round_trips, buffer, samples));
    }
    for (size_t bytes = 4 * kPingSizes[std::size(kPingSizes) - 1].bytes; bytes <= kLargestPlannedBytes; bytes *= 4) {
        int more = 0;
        if (first) {
            double fastest = samples.back().one_way_s;
            for (auto s = samples.rbegin(); s != samples.rend() && s->bytes == samples.back().bytes; ++s) {
                fastest = std::min(fastest, s->one_way_s);
            }
            more = fastest < kExtendBelow_s;
            REDUX_MPI(MPI_Send(&more, 1, MPI_INT, peer, kTagPing, comm));
        } else {
            REDUX_MPI(MPI_Recv(&more, 1, MPI_INT, peer, kTagPing, comm, MPI_STATUS_IGNORE));
        }
        if (!more) break;
        REDUX_MPI(time_size(comm, first, peer, bytes, false, kExtraRoundTrips, buffer, samples));
    }
    fit = fit_link(samples);
    REDUX_MPI(time_flight(comm, first, peer, fit.at(kPingSizes[0].bytes), fit.flight_s));
    return MPI_SUCCESS;
}

// Broadcasts the fits of the classes in `which` from `root`: per class alpha, beta, flight, the number of points, then
// each point's bytes and seconds (bytes as doubles: exact below 2^53). Copied as they are, not refitted, so every
// rank holds the same numbers.
int broadcast_fits(MPI_Comm comm, int root, const std::array<bool, kLinkClasses>& which, LinkFits& fits) {
    constexpr size_t kPerClass = 4 + 2 * kMaxLinkPoints;
    std::array<double, kPerClass * kLinkClasses> values{};
    for (int c = 0; c < kLinkClasses; ++c) {
        double* v = &values[kPerClass * c];
        const std::vector<PingSample>& points = fits[c].points;
        const size_t n = std::min(points.size(), kMaxLinkPoints);  // fit_link keeps no more
        v[0] = fits[c].alpha_s;
        v[1] = fits[c].beta_s_per_byte;
        v[2] = fits[c].flight_s;
        v[3] = static_cast<double>(n);
        for (size_t i = 0; i < n; ++i) {
            v[4 + 2 * i] = static_cast<double>(points[i].bytes);
            v[5 + 2 * i] = points[i].one_way_s;
        }
    }
    REDUX_MPI(bcast_yielding(values.data(), static_cast<int>(values.size()), MPI_DOUBLE, root, comm));
    for (int c = 0; c < kLinkClasses; ++c) {
        if (!which[c]) continue;
        const double* v = &values[kPerClass * c];
        LinkFit fit{v[0], v[1], true, {}, v[2]};
        for (size_t i = 0; i < static_cast<size_t>(v[3]); ++i) {
            fit.points.push_back({static_cast<size_t>(v[4 + 2 * i]), v[5 + 2 * i]});
        }
        fits[c] = std::move(fit);
    }
    return MPI_SUCCESS;
}

// Step 1: true when every rank knows every class the communicator has.
int agree_on_known(MPI_Comm comm, const Topology& topology, LinkFits& fits, bool& complete) {
    int known = 0;
    for (int c = 0; c < kLinkClasses; ++c) known |= (g_known[c].measured ? 1 : 0) << c;
    int everywhere = 0;
    REDUX_MPI(allreduce_yielding(&known, &everywhere, 1, MPI_INT, MPI_BAND, comm));
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

// Step 2: true when rank 0 found every class the communicator has in the file. may_store (rank 0): whether
// what was read may be replaced with the measured fits.
int read_file(MPI_Comm comm, int rank, const Topology& topology, const CalibrationSettings& settings, LinkFits& fits,
              bool& found, bool& may_store) {
    int ok = 0;
    may_store = false;
    if (rank == 0 && !settings.file.empty()) {
        const LoadResult loaded = load_calibration(settings.file, topology.signature,
                                                   static_cast<int64_t>(std::time(nullptr)), settings.max_age_s);
        ok = loaded.status == LoadStatus::found;
        may_store = calibration_file_replaceable(loaded.status);
        for (int c = 0; ok && c < kLinkClasses; ++c) ok = !topology.present[c] || loaded.links[c].measured;
        // One warning per file and reason in a process: later communicators with other link classes read the
        // file again and would repeat it.
        static std::mutex warned_mutex;  // threads may calibrate different communicators at once
        static std::set<std::string> warned;
        const std::string reason =
            loaded.status == LoadStatus::found ? "lacks a link class of this layout" : loaded.reason;
        bool first_time = false;
        if (!ok) {
            const std::lock_guard<std::mutex> lock(warned_mutex);
            first_time = warned.insert(settings.file + '\n' + reason).second;
        }
        if (ok) {
            fits = loaded.links;
        } else if (first_time) {
            std::fprintf(stderr, "libredux: calibration file %s %s; measuring the links%s\n", settings.file.c_str(),
                         reason.c_str(),
                         may_store ? ""
                                   : " and leaving the file as it is (libredux writes only where no file is, or "
                                     "over its own calibration file)");
        }
    }
    if (settings.file.empty()) {
        found = false;
        return MPI_SUCCESS;
    }
    REDUX_MPI(bcast_yielding(&ok, 1, MPI_INT, 0, comm));
    found = ok != 0;
    if (found) REDUX_MPI(broadcast_fits(comm, 0, topology.present, fits));
    return MPI_SUCCESS;
}

// Step 4 (module comment): `times` empty unless the communicator spans 3 .. kMaxPairNodes nodes.
int measure_node_pairs(MPI_Comm comm, int rank, const Topology& topology, NodePairTimes& times) {
    times = {};
    std::vector<int32_t> ids;
    for (const RankPlace& place : topology.place) ids.push_back(place.node);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    const auto n = static_cast<int32_t>(ids.size());
    if (n < 3 || n > kMaxPairNodes) return MPI_SUCCESS;
    const auto cells = static_cast<size_t>(n) * static_cast<size_t>(n);
    std::vector<double> mine(kPairBytes.size() * cells, 0.0), all(mine.size(), 0.0);              // by size, then pair
    const auto me = static_cast<int32_t>(std::find(ids.begin(), ids.end(), rank) - ids.begin());  // n: not a leader
    std::vector<char> buffer;
    for (int32_t round = 0; me < n && round < pair_rounds(n); ++round) {
        const int32_t other = pair_partner(n, round, me);
        if (other < 0) continue;
        const size_t cell = static_cast<size_t>(me) * static_cast<size_t>(n) + static_cast<size_t>(other);
        for (size_t k = 0; k < kPairBytes.size(); ++k) {
            std::vector<PingSample> samples;
            REDUX_MPI(time_size(comm, me < other, ids[other], kPairBytes[k], true, kPairTrips, buffer, samples));
            double fastest = samples.front().one_way_s;
            for (const PingSample& sample : samples) fastest = std::min(fastest, sample.one_way_s);
            mine[k * cells + cell] = fastest;
        }
    }
    REDUX_MPI(allreduce_yielding(mine.data(), all.data(), static_cast<int>(all.size()), MPI_DOUBLE, MPI_MAX, comm));
    times.node_ids = std::move(ids);
    for (size_t k = 0; k < kPairBytes.size(); ++k) {
        const auto begin = all.begin() + static_cast<std::ptrdiff_t>(k * cells);
        times.one_way_s[k].assign(begin, begin + static_cast<std::ptrdiff_t>(cells));
    }
    return MPI_SUCCESS;
}

}  // namespace

int calibrate_links(MPI_Comm comm, const Topology& topology, const CalibrationSettings& settings,
                    LinkCalibration& out) {
    const double start = MPI_Wtime();
    int rank = 0;
    REDUX_MPI(MPI_Comm_rank(comm, &rank));
    bool done = false, may_store = false;
    REDUX_MPI(agree_on_known(comm, topology, out.fits, done));
    out.source = "process";
    if (!done) {
        REDUX_MPI(read_file(comm, rank, topology, settings, out.fits, done, may_store));
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
        if (rank == 0 && !settings.file.empty() && may_store) {
            std::string error;
            if (!store_calibration(settings.file,
                                   {topology.signature, static_cast<int64_t>(std::time(nullptr)), out.fits}, error)) {
                std::fprintf(stderr, "libredux: %s\n", error.c_str());
            }
        }
    }
    for (int c = 0; c < kLinkClasses; ++c) {
        if (topology.present[c]) g_known[c] = out.fits[c];
    }
    REDUX_MPI(measure_node_pairs(comm, rank, topology, out.pairs));
    out.seconds = MPI_Wtime() - start;
    return MPI_SUCCESS;
}

}  // namespace redux
