// Link calibration: d(bytes) for each link class a communicator has, piecewise linear through measured times
// (model/link_costs.hpp says why).
//
// In order, cheapest first, every step collective and agreed by all ranks:
//   1. classes this process already knows (measured or read on another communicator): an MPI_Allreduce of
//      the known classes, then rank 0's fits broadcast, so all ranks plan with the same numbers;
//   2. the calibration file, read by rank 0 and broadcast (a missing, stale, foreign or corrupt file: one
//      warning from rank 0, then step 3; the warning says when the file will not be written, see 4);
//   3. measurement: for each class, one pair of ranks (Topology::first_pair) measures the link (ping_pong.cpp: d by
//      ping-pong, the time in flight by streams, a call's own cost by call_timing.cpp), and the first rank's fit is
//      broadcast. A few pairs per class, never n^2;
//   4. on 3 to kMaxPairNodes nodes, every pair of nodes (model/node_pairs.cpp says why): the nodes' leaders (the
//      lowest rank of each) meet in the rounds of a round-robin schedule, each pair in a round at once, and
//      ping-pong each of kPairBytes (8 B, 8, 32, 64 and 256 KiB: one warm-up, then kPairTrips, or 3 where two of
//      them agree, kSettledShare in ping_pong.hpp); the fastest half
//      round trips, one MPI_Allreduce, and every rank holds them: n - 1 rounds, each as long as its slowest pair's
//      round trips. Kept in the calibration file with the links (an entry of the layout without them: measured, and
//      the entry written again), and read from it with them; a later communicator of the same nodes takes those
//      this process holds (KnownLinks), in one broadcast, as it does those of the file.
//   5. rank 0 writes the file with what was measured, if it may: only a missing file or libredux's own
//      (calibration_file_replaceable; a C source, another program's JSON, a damaged or unreadable file is
//      never replaced). store_calibration judges the file again when writing, and says why it did not.
//
// What a calibration ends with, from whichever step, joins the classes this process knows (KnownLinks), which step 1
// of every later calibration reads. Threads may calibrate different communicators at once: the known links are one
// object in the process, read and written only under its mutex, whole fits at a time.
#include "calib/link_calibration.hpp"

#include "calib/ping_pong.hpp"
#include "mpi/mpi_check.hpp"
#include "mpi/yielding.hpp"
#include "policy/calibration_file.hpp"

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

constexpr int kPairTrips = 5;  // as the classes' small sizes: fewer leave the fastest slow on a loaded host

// The link fits this process knows, by class, and the times between its nodes' pairs: measured or read by any
// calibration in it, on any communicator.
class KnownLinks {
public:
    LinkFits copy() const {
        const std::lock_guard<std::mutex> lock(mutex_);
        return fits_;
    }
    // The classes in `which` take their fits from `fits`.
    void remember(const std::array<bool, kLinkClasses>& which, const LinkFits& fits) {
        const std::lock_guard<std::mutex> lock(mutex_);
        for (int c = 0; c < kLinkClasses; ++c) {
            if (which[c]) fits_[c] = fits[c];
        }
    }

    NodePairTimes pairs() const {
        const std::lock_guard<std::mutex> lock(mutex_);
        return pairs_;
    }
    void remember_pairs(const NodePairTimes& pairs) {
        const std::lock_guard<std::mutex> lock(mutex_);
        pairs_ = pairs;
    }

private:
    mutable std::mutex mutex_;
    LinkFits fits_;
    NodePairTimes pairs_;  // the last calibration's (another set of nodes replaces it)
};

KnownLinks g_known;

// Up to `most` of `points` into `out` as bytes, seconds, bytes, ... (bytes as doubles: exact below 2^53); how many.
size_t pack_points(const std::vector<PingSample>& points, size_t most, double* out) {
    const size_t n = std::min(points.size(), most);
    for (size_t i = 0; i < n; ++i) {
        out[2 * i] = static_cast<double>(points[i].bytes);
        out[2 * i + 1] = points[i].one_way_s;
    }
    return n;
}

std::vector<PingSample> unpack_points(const double* in, double count) {
    std::vector<PingSample> points;
    for (size_t i = 0; i < static_cast<size_t>(count); ++i)
        points.push_back({static_cast<size_t>(in[2 * i]), in[2 * i + 1]});
    return points;
}

// Broadcasts the fits of the classes in `which` from `root`: per class alpha, beta, flight, the number of points,
// call_s, the number of flight points, then the points (pack_points), then the flight points. Copied as they are, not
// refitted, so every rank holds the same numbers.
int broadcast_fits(MPI_Comm comm, int root, const std::array<bool, kLinkClasses>& which, LinkFits& fits) {
    constexpr size_t kHeader = 6, kFlights = kHeader + 2 * kMaxLinkPoints, kPerClass = kFlights + 2 * kMaxFlightPoints;
    std::array<double, kPerClass * kLinkClasses> values{};
    for (int c = 0; c < kLinkClasses; ++c) {
        double* v = &values[kPerClass * c];
        v[0] = fits[c].alpha_s;
        v[1] = fits[c].beta_s_per_byte;
        v[2] = fits[c].flight_s;
        v[3] = static_cast<double>(pack_points(fits[c].points, kMaxLinkPoints, v + kHeader));  // fit_link keeps no more
        v[4] = fits[c].call_s;
        v[5] = static_cast<double>(pack_points(fits[c].flight_points, kMaxFlightPoints, v + kFlights));
    }
    REDUX_MPI(bcast_yielding(values.data(), static_cast<int>(values.size()), MPI_DOUBLE, root, comm));
    for (int c = 0; c < kLinkClasses; ++c) {
        if (!which[c]) continue;
        const double* v = &values[kPerClass * c];
        fits[c] = {v[0], v[1], true, unpack_points(v + kHeader, v[3]), v[2], unpack_points(v + kFlights, v[5]), v[4]};
    }
    return MPI_SUCCESS;
}

// Step 1: true when every rank knows every class the communicator has.
int agree_on_known(MPI_Comm comm, const Topology& topology, LinkFits& fits, bool& complete) {
    fits = g_known.copy();
    int known = 0;
    for (int c = 0; c < kLinkClasses; ++c) known |= (fits[c].measured ? 1 : 0) << c;
    int everywhere = 0;
    REDUX_MPI(allreduce_yielding(&known, &everywhere, 1, MPI_INT, MPI_BAND, comm));
    std::array<bool, kLinkClasses> usable{};
    complete = true;
    for (int c = 0; c < kLinkClasses; ++c) {
        usable[c] = topology.present[c] && ((everywhere >> c) & 1);
        complete = complete && (usable[c] || !topology.present[c]);
    }
    REDUX_MPI(broadcast_fits(comm, 0, usable, fits));
    for (int c = 0; c < kLinkClasses; ++c) {
        if (!usable[c]) fits[c] = {};  // ranks may know other values; only agreed ones stay
    }
    return MPI_SUCCESS;
}

// Step 2: true when rank 0 found every class the communicator has in the file. may_store (rank 0): whether
// what was read may be replaced with the measured fits.
int read_file(MPI_Comm comm, int rank, const Topology& topology, const CalibrationSettings& settings, LinkFits& fits,
              NodePairTimes& file_pairs, bool& found, bool& may_store) {
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
            file_pairs = loaded.pairs;
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

// Where rank 0's known node pairs came from (node_pairs' broadcast carries it).
enum class PairsFrom : int { none = 0, file = 1, process = 2 };

// Step 4 (module comment): `times` empty unless the communicator spans 3 .. kMaxPairNodes nodes; taken from
// `known_pairs` (rank 0's, read from the calibration file or held by this process: `from`) where they are of these
// nodes, else measured. `source`: "file", "process", "measured", or empty without pairs; the same on every rank.
int node_pairs(MPI_Comm comm, int rank, const Topology& topology, const NodePairTimes& known_pairs, PairsFrom from,
               NodePairTimes& times, std::string& source) {
    times = {};
    source.clear();
    std::vector<int32_t> ids;
    for (const RankPlace& place : topology.place) ids.push_back(place.node);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    const auto n = static_cast<int32_t>(ids.size());
    if (n < 3 || n > kMaxPairNodes) return MPI_SUCCESS;
    const auto cells = static_cast<size_t>(n) * static_cast<size_t>(n);
    // Rank 0's known times for these nodes, if any, in one broadcast: where they came from (PairsFrom), then by size,
    // then pair.
    std::vector<double> sent(1 + kPairBytes.size() * cells, 0.0);
    if (rank == 0 && from != PairsFrom::none && known_pairs.node_ids == ids) {
        sent[0] = static_cast<double>(from);
        for (size_t k = 0; k < kPairBytes.size(); ++k) {
            std::copy(known_pairs.one_way_s[k].begin(), known_pairs.one_way_s[k].end(), sent.begin() + 1 + k * cells);
        }
    }
    REDUX_MPI(bcast_yielding(sent.data(), static_cast<int>(sent.size()), MPI_DOUBLE, 0, comm));
    if (sent[0] != 0) {
        times.node_ids = std::move(ids);
        for (size_t k = 0; k < kPairBytes.size(); ++k) {
            const auto begin = sent.begin() + static_cast<std::ptrdiff_t>(1 + k * cells);
            times.one_way_s[k].assign(begin, begin + static_cast<std::ptrdiff_t>(cells));
        }
        source = sent[0] == static_cast<double>(PairsFrom::file) ? "file" : "process";
        return MPI_SUCCESS;
    }
    source = "measured";
    std::vector<double> mine(kPairBytes.size() * cells, 0.0), all(mine.size(), 0.0);              // by size, then pair
    const auto me = static_cast<int32_t>(std::find(ids.begin(), ids.end(), rank) - ids.begin());  // n: not a leader
    std::vector<char> buffer;
    for (int32_t round = 0; me < n && round < pair_rounds(n); ++round) {
        const int32_t other = pair_partner(n, round, me);
        if (other < 0) continue;
        const size_t cell = static_cast<size_t>(me) * static_cast<size_t>(n) + static_cast<size_t>(other);
        for (size_t k = 0; k < kPairBytes.size(); ++k) {
            std::vector<PingSample> samples;
            REDUX_MPI(time_size(comm, me < other, ids[other], kPairBytes[k], true, {kPairTrips}, buffer, samples));
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

// Whether a and b run on one node that has a hardware thread for each of its ranks (time_call: a call from a common
// start). Where ranks share threads, a rank that got the start in time may still wait for the scheduler after it;
// there, as between nodes, calls in turns.
bool thread_each(const Topology& topology, int a, int b) {
    return topology.link(a, b) != LinkClass::other_node && thread_per_rank(topology.place, static_cast<size_t>(a));
}

}  // namespace

int calibrate_links(MPI_Comm comm, const Topology& topology, const CalibrationSettings& settings,
                    LinkCalibration& out) {
    const double start = MPI_Wtime();
    int rank = 0;
    REDUX_MPI(MPI_Comm_rank(comm, &rank));
    bool done = false, may_store = false;
    NodePairTimes known_pairs;
    REDUX_MPI(agree_on_known(comm, topology, out.fits, done));
    out.source = "process";
    if (!done) {
        REDUX_MPI(read_file(comm, rank, topology, settings, out.fits, known_pairs, done, may_store));
        out.source = "file";
    }
    const bool links_measured = !done;
    if (links_measured) {
        out.source = "measured";
        for (int c = 0; c < kLinkClasses; ++c) {
            if (!topology.present[c]) continue;
            int a = 0, b = 0;
            topology.first_pair(static_cast<LinkClass>(c), a, b);
            MPI_Comm pair = MPI_COMM_NULL;  // a and b alone, a first (time_call)
            REDUX_MPI(MPI_Comm_split(comm, rank == a || rank == b ? 0 : MPI_UNDEFINED, rank == a ? 0 : 1, &pair));
            if (rank == a || rank == b) {
                const int rc = ping_pong(comm, pair, rank, a, b, thread_each(topology, a, b), out.fits[c]);
                MPI_Comm_free(&pair);
                REDUX_MPI(rc);
            }
            std::array<bool, kLinkClasses> only{};
            only[c] = true;
            REDUX_MPI(broadcast_fits(comm, a, only, out.fits));
        }
    }
    g_known.remember(topology.present, out.fits);
    // The pairs rank 0 knows (node_pairs reads only its): the file's where it read them, else those this process
    // holds (another communicator's calibration).
    PairsFrom from = known_pairs.node_ids.empty() ? PairsFrom::none : PairsFrom::file;
    if (rank == 0 && from == PairsFrom::none) {
        known_pairs = g_known.pairs();
        if (!known_pairs.node_ids.empty()) from = PairsFrom::process;
    }
    REDUX_MPI(node_pairs(comm, rank, topology, known_pairs, from, out.pairs, out.pairs_source));
    const bool pairs_measured = out.pairs_source == "measured";
    if (!out.pairs.node_ids.empty()) g_known.remember_pairs(out.pairs);
    // What was measured goes to the file (where the links came from the process, the file was not read).
    if (rank == 0 && !settings.file.empty() && may_store && (links_measured || pairs_measured)) {
        std::string error;
        if (!store_calibration(settings.file,
                               {topology.signature, static_cast<int64_t>(std::time(nullptr)), out.fits, out.pairs},
                               error)) {
            std::fprintf(stderr, "libredux: %s\n", error.c_str());
        }
    }
    out.seconds = MPI_Wtime() - start;
    return MPI_SUCCESS;
}

}  // namespace redux
