// Link calibration: d(bytes) for each link class a communicator has, piecewise linear through measured times
// (model/link_costs.hpp says why).
//
// In order, cheapest first, every step collective and agreed by all ranks:
//   1. classes this process already knows (measured or read on another communicator): an MPI_Allreduce of
//      the known classes, then rank 0's fits broadcast, so all ranks plan with the same numbers;
//   2. the calibration file, read by rank 0 and broadcast (a missing, stale, foreign or corrupt file: one
//      warning from rank 0, then step 3; the warning says when the file will not be written, see 4);
//   3. measurement: for each class, one pair of ranks (Topology::first_pair) first ping-pongs 8 B untimed for
//      kWarmUp_s (a job's first milliseconds of ping-pong run several times slower than the rest: see kWarmUp_s),
//      then ping-pongs messages of 8 B, every power of two from 1 to 64 KiB (the MPI libraries switch protocols in
//      that range: Open MPI's shared memory at 4 KiB, TCP at 64 KiB, model/node_pairs.hpp; a line over the range
//      misses the steps) and 256 KiB (one warm-up, then at least 5 round trips each, more while the size has taken
//      less than kSizeBudget_s), 1 MiB and 4 MiB (one warm-up, then 2: a round trip at 4 MiB on a slow link is long),
//      and on a fast link 16 and 64 MiB (below). Per size the median half round trip where there were kMedianOf or
//      more (small sizes on a fast link: what a reduction sees, also on ranks that share cores), else the fastest (on
//      a shared machine scheduling delays only add time) makes d (fit_link), which is broadcast. Then the time in
//      flight (LinkFit::flight_s): a stream of kStreamMessages messages of 8 B, a to b, into receives b posted ahead,
//      answered by one 8 B message once all have arrived, takes 2 d + (k - 1) p, where p is the part of d that holds
//      the receiver (its port: overheads and gap); p from the fastest stream against d(8 B), and L = d(8 B) - p; the
//      same with messages of each of kFlightBytes (LinkFit::flight_points: L(s) = d(s) - p(s)). Then a call's own cost
//      (LinkFit::call_s, model/costs.hpp): a and b alone on a communicator of two call the MPI library's reduce of 8 B
//      to a from a start both agree on where they share a node with a thread each, else to one, then to the other, in
//      turns (time_call); the call's median less d(8 B). The large sizes are where long
//      vectors and their segments are planned: beyond the largest size measured d follows the slope of the last two.
//      A few pairs per class, never n^2. On one node most of the time goes to the warm-up and to first-touching the
//      largest buffer; between nodes to the round trips of the largest sizes, and each size from 1 to 16 KiB adds
//      6 round trips there (at most kSizeBudget_s each on one node).
//   4. on 3 to kMaxPairNodes nodes, every pair of nodes (model/node_pairs.cpp says why): the nodes' leaders (the
//      lowest rank of each) meet in the rounds of a round-robin schedule, each pair in a round at once, and
//      ping-pong each of kPairBytes (8 B, 8, 32, 64 and 256 KiB: one warm-up, then kPairTrips); the fastest half
//      round trips, one MPI_Allreduce, and every rank holds them: n - 1 rounds, each as long as its slowest pair's
//      round trips. Kept in the calibration file with the links (an entry of the layout without them: measured, and
//      the entry written again), and read from it with them.
//   5. rank 0 writes the file with what was measured, if it may: only a missing file or libredux's own
//      (calibration_file_replaceable; a C source, another program's JSON, a damaged or unreadable file is
//      never replaced). store_calibration judges the file again when writing, and says why it did not.
#include "calib/link_calibration.hpp"

#include "mpi/mpi_check.hpp"
#include "mpi/tags.hpp"
#include "mpi/yielding.hpp"
#include "policy/calibration_file.hpp"
#include "util/host_clock.hpp"
#include "util/median.hpp"

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

struct PingSize {
    size_t bytes;
    bool warm_up;     // one round trip first, not timed
    int round_trips;  // timed
};
constexpr PingSize kPingSizes[] = {{8, true, 5},         {1 << 10, true, 5},  {2 << 10, true, 5},  {4 << 10, true, 5},
                                   {8 << 10, true, 5},   {16 << 10, true, 5}, {32 << 10, true, 5}, {64 << 10, true, 5},
                                   {256 << 10, true, 5}, {1 << 20, true, 2},  {4 << 20, true, 2}};
// A size's round trips go on past its count while they have taken less than this in all (at most kMaxRoundTrips):
// hundreds of small ones on one node, none more on a link of milliseconds.
constexpr double kSizeBudget_s = 1e-3;
constexpr int kMaxRoundTrips = 200;
// Before the first timed round trip, the pair ping-pongs 8 B messages for this long, untimed. On local ranks the
// first milliseconds of a job's ping-pong run several times slower than the rest, whatever the job did before
// (nothing, loading hwloc's topology, a nonblocking collective), and then at once at the speed reductions see from
// then on; timed in those milliseconds, even the fastest of hundreds of trips plans every small message at several
// times its cost. The warm-up is long enough to pass that phase with a margin; on a link of milliseconds it is a
// few round trips.
constexpr double kWarmUp_s = 30e-3;
constexpr int kWarmUpMaxTrips = 100000;

// A size timed this many times or more (small sizes on a fast link) is planned at its median half round trip, fewer at
// their fastest. With many, the median is what a reduction sees: on ranks that share cores the fastest is a moment
// when both happened to run, far below the typical trip and different from run to run, while the median is steady;
// on cores of their own the two differ little. With a few (large sizes, slow links) a slow one is more likely a
// disturbance than the link, so the fastest.
constexpr size_t kMedianOf = 25;

// How many timed round trips a size gets: at least at_least, and more while they have taken less than budget_s in all,
// up to at_most.
struct Trips {
    int at_least = 1;
    double budget_s = 0;
    int at_most = kMaxRoundTrips;
};
// Beyond the last of kPingSizes: 4x larger sizes, up to the largest the planner is built for, while the largest
// size so far took less than kExtendBelow_s one way (a fast link, where the next costs little), so that the
// slope beyond is that of messages larger than the caches (shared memory: 4 MiB stays in a 32 MiB L3 and moves
// at twice the speed of 64 MiB). No warm-up there: first-touching the larger buffer costs more than its
// round trips.
constexpr size_t kLargestPlannedBytes = size_t{64} << 20;
constexpr double kExtendBelow_s = 2e-3;
constexpr int kExtraRoundTrips = 2;
constexpr int kStreamMessages = 16;
constexpr int kStreams = 5;  // timed, after one warm-up
// Sizes above 8 B whose time in flight is measured too (LinkFit::flight_points). Over TCP most of a small message's
// d is its flight at any size to the eager limit, and a size's own stream says how much of the rest holds the
// receiver; read off d(8 B)'s flight, 8 KiB messages from many nodes would be planned to hold the root's port one
// after another, where they arrive together. One size: the flight between it and 8 B is interpolated, beyond it
// stays (LinkFit::flight_at).
constexpr size_t kFlightBytes[] = {8 << 10};
constexpr int kCallsAtLeast = 5;  // timed calls (time_call), after one warm-up
// How far ahead of now a sets the common start of a call (time_call_from_start): b gets it in a message of a
// microsecond or less (one host), or, on shared cores, when the scheduler runs it.
constexpr double kCallStartAhead_s = 20e-6;
// A protocol step (find_step): d of the larger of two neighbouring sizes more than this times what the smaller's and
// the curve's slope make, from sizes of at least kStepFrom; bisected down to kStepResolution bytes.
constexpr double kStepFactor = 1.5;
constexpr size_t kStepFrom = 1 << 10;
constexpr size_t kStepResolution = 1 << 10;
constexpr int kPairTrips = 5;  // as the classes' small sizes: fewer leave the fastest slow on a loaded host

LinkFits g_known;  // this process's link fits, by class

// Timed half round trips of `bytes` between a and b (after one warm-up if `warm_up`), as many as `trips` says,
// appended to `samples`; of kMedianOf or more, only their median (fit_link then keeps it, as the fastest of one).
// The first side decides; the first byte of each trip's message says whether it is the last, after which the other
// side stops. Both sides receive with tag tags::kPing only: a receive with MPI_ANY_TAG could take a message of
// another protocol from the same peer (mpi/tags.hpp).
int time_size(MPI_Comm comm, bool first, int peer, size_t bytes, bool warm_up, const Trips& trips,
              std::vector<char>& buffer, std::vector<PingSample>& samples) {
    if (buffer.size() < bytes) buffer.resize(bytes);
    const int n = static_cast<int>(bytes);
    const double begin = MPI_Wtime();
    const size_t first_sample = samples.size();
    const auto keep_median = [&] {
        const size_t taken = samples.size() - first_sample;
        if (taken < kMedianOf) return;
        const auto middle = samples.begin() + static_cast<std::ptrdiff_t>(first_sample + taken / 2);
        std::nth_element(samples.begin() + static_cast<std::ptrdiff_t>(first_sample), middle, samples.end(),
                         [](const PingSample& x, const PingSample& y) { return x.one_way_s < y.one_way_s; });
        const PingSample median = *middle;
        samples.resize(first_sample);
        samples.push_back(median);
    };
    for (int trip = warm_up ? 0 : 1;; ++trip) {  // trip 0 warms up
        const double start = MPI_Wtime();
        bool last = false;
        if (first) {
            last = trip >= trips.at_least && (trip >= trips.at_most || start - begin >= trips.budget_s);
            buffer[0] = last ? 1 : 0;
            REDUX_MPI(MPI_Send(buffer.data(), n, MPI_BYTE, peer, tags::kPing, comm));
            REDUX_MPI(MPI_Recv(buffer.data(), n, MPI_BYTE, peer, tags::kPing, comm, MPI_STATUS_IGNORE));
        } else {
            REDUX_MPI(MPI_Recv(buffer.data(), n, MPI_BYTE, peer, tags::kPing, comm, MPI_STATUS_IGNORE));
            last = buffer[0] != 0;
            REDUX_MPI(MPI_Send(buffer.data(), n, MPI_BYTE, peer, tags::kPing, comm));
        }
        if (trip > 0) samples.push_back({bytes, (MPI_Wtime() - start) / 2});
        if (last) {
            keep_median();
            return MPI_SUCCESS;
        }
    }
}

// The time in flight of the link for messages of `bytes`: kStreams timed streams of kStreamMessages such messages
// from a to b, each answered by b with one 8 B message once all have arrived (module comment): a stream takes
// d(bytes) + (k - 1) p + d(8 B). `fit`: d. b posts every receive of a stream before it starts, as the executor posts
// a rank's receives together where the plan has a time in flight (RankProgram::receive_together): where a message
// moves only once its receive is posted (a rendezvous: SMPI's every message, an MPI library's above its eager
// limit), receives taken one at a time would measure the stream as one message after another, L = 0, and the plans
// that post together would be predicted as if they did not.
int time_flight(MPI_Comm comm, bool first, int peer, size_t bytes, const LinkFit& fit, std::vector<char>& buffer,
                double& flight_s) {
    if (buffer.size() < bytes * kStreamMessages) buffer.resize(bytes * kStreamMessages);
    const int n = static_cast<int>(bytes);
    double fastest = -1;
    std::array<MPI_Request, kStreamMessages> received{};
    for (int stream = 0; stream <= kStreams; ++stream) {  // stream 0 warms up
        const double start = MPI_Wtime();
        if (first) {
            for (int m = 0; m < kStreamMessages; ++m) {
                REDUX_MPI(MPI_Send(buffer.data(), n, MPI_BYTE, peer, tags::kPing, comm));
            }
            REDUX_MPI(MPI_Recv(buffer.data(), 8, MPI_BYTE, peer, tags::kPing, comm, MPI_STATUS_IGNORE));
        } else {
            received.fill(MPI_REQUEST_NULL);
            int rc = MPI_SUCCESS;
            for (int m = 0; m < kStreamMessages && rc == MPI_SUCCESS; ++m) {
                rc = PMPI_Irecv(buffer.data() + static_cast<size_t>(m) * bytes, n, MPI_BYTE, peer, tags::kPing, comm,
                                &received[static_cast<size_t>(m)]);
            }
            if (rc == MPI_SUCCESS) rc = PMPI_Waitall(kStreamMessages, received.data(), MPI_STATUSES_IGNORE);
            if (rc != MPI_SUCCESS) {  // every receive posted is completed before returning
                for (MPI_Request& request : received) {
                    if (request == MPI_REQUEST_NULL) continue;
                    PMPI_Cancel(&request);
                    PMPI_Wait(&request, MPI_STATUS_IGNORE);
                }
                return rc;
            }
            REDUX_MPI(MPI_Send(buffer.data(), 8, MPI_BYTE, peer, tags::kPing, comm));
        }
        const double took = MPI_Wtime() - start;
        if (stream > 0 && (fastest < 0 || took < fastest)) fastest = took;
    }
    const double d_s = fit.at(bytes);
    const double port_s = std::max(0.0, (fastest - d_s - fit.at(8)) / (kStreamMessages - 1));
    flight_s = std::clamp(d_s - port_s, 0.0, d_s);
    return MPI_SUCCESS;
}

// A call's own cost on the link (LinkFit::call_s; module comment): on `pair` (a is its rank 0, b its rank 1), the MPI
// library's own reduce of one double to a, then to b, in turns, at least kCallsAtLeast times and more while they have
// taken less than kSizeBudget_s, up to kMaxRoundTrips (after one turn untimed). Each call waits for the other rank's
// last one, so a turn is a round trip of calls, as a ping-pong is of messages. Half a turn (the median) is what
// `took_s` gets. a decides the last turn and says so in what it sends to b (1 in its double, b's is 0).
int time_call_in_turns(MPI_Comm pair, bool first, double& took_s) {
    std::vector<double> took;
    const double begin = MPI_Wtime();
    for (int turn = 0;; ++turn) {  // turn 0 warms up
        const double start = MPI_Wtime();
        double mine = 0, sum = 0;
        REDUX_MPI(PMPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, pair));
        if (first) {
            const auto timed = static_cast<int>(took.size());
            mine = timed >= kCallsAtLeast && (timed >= kMaxRoundTrips || start - begin >= kSizeBudget_s) ? 1 : 0;
        }
        REDUX_MPI(PMPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 1, pair));
        if (first && turn > 0) took.push_back((MPI_Wtime() - start) / 2);
        if (first ? mine != 0 : sum != 0) break;
    }
    took_s = first ? median(took) : 0;
    return MPI_SUCCESS;
}

// The same call, to a, from a start both ranks of one host agree on: a sends b a time kCallStartAhead_s ahead on the
// host's CLOCK_MONOTONIC (which both read), both spin to it, call, and a times from it to the call's return. One
// call from a common start, as a program's ranks make it; in turns each call begins the moment the other's message
// lands, with everything the pair touches still in its caches, and takes less than a program's call does. A call
// whose start either rank got after it had passed is not counted (b says so in what it sends): where the pair
// shares a CPU after all (ranks bound to one; thread_each counts the node's cgroup, not the binding) the rank that
// spins holds it and the other gets nearly every start late. At least kCallsAtLeast counted, more while the calls
// have taken less than kSizeBudget_s, at most kMaxRoundTrips counted; a stops after 4 kMaxRoundTrips calls, or after
// 4 kCallsAtLeast of which fewer than half counted (each late call can cost a time slice); false in `counted` if
// fewer than kCallsAtLeast were on time. a decides, and a start of 0 tells b to stop.
int time_call_from_start(MPI_Comm pair, bool first, double& took_s, bool& counted) {
    std::vector<double> took;
    const double begin = MPI_Wtime();
    for (int call = 0;; ++call) {  // call 0 warms up
        double start_s = 0;
        if (first) {
            const auto timed = static_cast<int>(took.size());
            const bool enough =
                timed >= kCallsAtLeast && (timed >= kMaxRoundTrips || MPI_Wtime() - begin >= kSizeBudget_s);
            const bool mostly_late = call >= 4 * kCallsAtLeast && 2 * timed < call;
            start_s = enough || mostly_late || call >= 4 * kMaxRoundTrips ? 0 : host_clock_s() + kCallStartAhead_s;
        }
        REDUX_MPI(PMPI_Bcast(&start_s, 1, MPI_DOUBLE, 0, pair));
        if (start_s == 0) break;
        double late = host_clock_s() > start_s ? 1 : 0, any_late = 0;
        while (host_clock_s() < start_s) {
        }
        REDUX_MPI(PMPI_Reduce(&late, &any_late, 1, MPI_DOUBLE, MPI_SUM, 0, pair));
        const double took_this_s = host_clock_s() - start_s;
        if (first && call > 0 && any_late == 0) took.push_back(took_this_s);
    }
    counted = static_cast<int>(took.size()) >= kCallsAtLeast;
    took_s = counted ? median(took) : 0;
    return MPI_SUCCESS;
}

// LinkFit::call_s: one call less d(8 B) (`d8_s`), at least 0, on a's side (0 on b's). Between ranks of one node with a
// hardware thread each (`thread_each`) the call from a common start (time_call_from_start); else, or where it counted
// too few calls, half a turn (time_call_in_turns: from a start both ranks share too, the other's last message, without
// a barrier's skew; the hosts' clocks cannot agree to a fraction of a microsecond, on links of microseconds or more it
// does not matter, and on shared threads the scheduler decides). Simulated ranks (SMPI): in turns, the host's clock is
// not theirs.
int time_call(MPI_Comm pair, bool first, bool thread_each, double d8_s, double& call_s) {
    double took_s = 0;
    int counted = 0;  // a's verdict, which b takes
    if (thread_each && !kSimulatedRanks) {
        bool enough = false;
        REDUX_MPI(time_call_from_start(pair, first, took_s, enough));
        counted = enough ? 1 : 0;
        REDUX_MPI(PMPI_Bcast(&counted, 1, MPI_INT, 0, pair));
    }
    if (counted == 0) REDUX_MPI(time_call_in_turns(pair, first, took_s));
    call_s = first ? std::max(0.0, took_s - d8_s) : 0;
    return MPI_SUCCESS;
}

// Half round trips between a and b (called on both); fitted on rank a (fit_link keeps the fastest per size, which is
// the median where time_size kept only that).
// Whether to go on past kPingSizes is a's decision, sent to b.
// A protocol step of the curve (samples so far, fitted): two neighbouring sizes lo < hi where d(hi) exceeds by more
// than kStepFactor what d(lo) and the bytes between at the curve's last slope (the link's bandwidth) make. An MPI
// library switches there from eager sends to a rendezvous (Open MPI's TCP transport at 64 KiB, MPICH's at 128 KiB), a
// round trip more per message. Returns the largest such excess's pair, or {0, 0}.
std::pair<size_t, size_t> find_step(const LinkFit& fit) {
    const double slope = std::max(fit.beta_s_per_byte, 0.0);
    std::pair<size_t, size_t> step{0, 0};
    double worst = kStepFactor;
    for (size_t i = 1; i < fit.points.size(); ++i) {
        const PingSample& lo = fit.points[i - 1];
        const PingSample& hi = fit.points[i];
        if (lo.bytes < kStepFrom) continue;
        const double expected = lo.one_way_s + static_cast<double>(hi.bytes - lo.bytes) * slope;
        if (expected > 0 && hi.one_way_s / expected > worst) {
            worst = hi.one_way_s / expected;
            step = {lo.bytes, hi.bytes};
        }
    }
    return step;
}

// Where the curve has a protocol step (find_step), the first side bisects it: each size between is timed like the
// others and joins the samples, until the step lies within kStepResolution bytes. A segment just below the step
// then costs what it does (an eager message), not the interpolation towards the rendezvous above: a pipeline of
// segments under an eager limit streams, one of rendezvous segments pays a handshake for each (docs/design.md).
// The first side sends each size to time (0: done).
int refine_step(MPI_Comm comm, bool first, int peer, std::vector<char>& buffer, std::vector<PingSample>& samples) {
    auto [lo, hi] = first ? find_step(fit_link(samples)) : std::pair<size_t, size_t>{0, 0};
    for (;;) {
        long long size = 0;
        LinkFit fit;  // the first side's, before this size
        if (first) {
            fit = fit_link(samples);
            if (hi > lo + kStepResolution) size = static_cast<long long>((lo + hi) / 2 / 1024 * 1024);
            if (size <= static_cast<long long>(lo)) size = 0;
            REDUX_MPI(MPI_Send(&size, 1, MPI_LONG_LONG, peer, tags::kPing, comm));
        } else {
            REDUX_MPI(MPI_Recv(&size, 1, MPI_LONG_LONG, peer, tags::kPing, comm, MPI_STATUS_IGNORE));
        }
        if (size == 0) return MPI_SUCCESS;
        REDUX_MPI(time_size(comm, first, peer, static_cast<size_t>(size), true,
                            {kPingSizes[0].round_trips, kSizeBudget_s}, buffer, samples));
        if (!first) continue;
        // The middle joins the side it lies closer to: below half the step's excess, the eager side.
        const double slope = std::max(fit.beta_s_per_byte, 0.0);
        const double at_lo = fit.at(lo), at_hi = fit.at(hi);
        const double low_line = at_lo + static_cast<double>(static_cast<size_t>(size) - lo) * slope;
        const double excess = at_hi - (at_lo + static_cast<double>(hi - lo) * slope);
        double measured = samples.back().one_way_s;
        for (const PingSample& sample : samples) {
            if (sample.bytes == static_cast<size_t>(size)) measured = std::min(measured, sample.one_way_s);
        }
        (measured < low_line + excess / 2 ? lo : hi) = static_cast<size_t>(size);
    }
}

int ping_pong(MPI_Comm comm, MPI_Comm pair, int rank, int a, int b, bool thread_each, LinkFit& fit) {
    std::vector<char> buffer;
    std::vector<PingSample> samples;
    const bool first = rank == a;
    const int peer = first ? b : a;
    std::vector<PingSample> untimed;
    REDUX_MPI(time_size(comm, first, peer, 8, false, {1, kWarmUp_s, kWarmUpMaxTrips}, buffer, untimed));
    for (const PingSize& size : kPingSizes) {
        REDUX_MPI(
            time_size(comm, first, peer, size.bytes, size.warm_up, {size.round_trips, kSizeBudget_s}, buffer, samples));
    }
    for (size_t bytes = 4 * kPingSizes[std::size(kPingSizes) - 1].bytes; bytes <= kLargestPlannedBytes; bytes *= 4) {
        int more = 0;
        if (first) {
            double fastest = samples.back().one_way_s;
            for (auto s = samples.rbegin(); s != samples.rend() && s->bytes == samples.back().bytes; ++s) {
                fastest = std::min(fastest, s->one_way_s);
            }
            more = fastest < kExtendBelow_s;
            REDUX_MPI(MPI_Send(&more, 1, MPI_INT, peer, tags::kPing, comm));
        } else {
            REDUX_MPI(MPI_Recv(&more, 1, MPI_INT, peer, tags::kPing, comm, MPI_STATUS_IGNORE));
        }
        if (!more) break;
        REDUX_MPI(time_size(comm, first, peer, bytes, false, {kExtraRoundTrips}, buffer, samples));
    }
    REDUX_MPI(refine_step(comm, first, peer, buffer, samples));
    fit = fit_link(samples);
    REDUX_MPI(time_flight(comm, first, peer, kPingSizes[0].bytes, fit, buffer, fit.flight_s));
    for (const size_t bytes : kFlightBytes) {
        double flight_s = 0;
        REDUX_MPI(time_flight(comm, first, peer, bytes, fit, buffer, flight_s));
        fit.flight_points.push_back({bytes, flight_s});
    }
    REDUX_MPI(time_call(pair, first, thread_each, fit.at(kPingSizes[0].bytes), fit.call_s));
    return MPI_SUCCESS;
}

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

// Step 4 (module comment): `times` empty unless the communicator spans 3 .. kMaxPairNodes nodes; taken from
// `file_pairs` (rank 0's, read from the calibration file) where they are of these nodes, else measured (`measured`).
int node_pairs(MPI_Comm comm, int rank, const Topology& topology, const NodePairTimes& file_pairs, NodePairTimes& times,
               bool& measured) {
    times = {};
    measured = false;
    std::vector<int32_t> ids;
    for (const RankPlace& place : topology.place) ids.push_back(place.node);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    const auto n = static_cast<int32_t>(ids.size());
    if (n < 3 || n > kMaxPairNodes) return MPI_SUCCESS;
    const auto cells = static_cast<size_t>(n) * static_cast<size_t>(n);
    int from_file = rank == 0 && file_pairs.node_ids == ids ? 1 : 0;
    REDUX_MPI(bcast_yielding(&from_file, 1, MPI_INT, 0, comm));
    if (from_file != 0) {
        times.node_ids = std::move(ids);
        for (size_t k = 0; k < kPairBytes.size(); ++k) {
            times.one_way_s[k] = rank == 0 ? file_pairs.one_way_s[k] : std::vector<double>(cells, 0.0);
            REDUX_MPI(bcast_yielding(times.one_way_s[k].data(), static_cast<int>(cells), MPI_DOUBLE, 0, comm));
        }
        return MPI_SUCCESS;
    }
    measured = true;
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
    NodePairTimes file_pairs;
    REDUX_MPI(agree_on_known(comm, topology, out.fits, done));
    out.source = "process";
    if (!done) {
        REDUX_MPI(read_file(comm, rank, topology, settings, out.fits, file_pairs, done, may_store));
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
    for (int c = 0; c < kLinkClasses; ++c) {
        if (topology.present[c]) g_known[c] = out.fits[c];
    }
    bool pairs_measured = false;
    REDUX_MPI(node_pairs(comm, rank, topology, file_pairs, out.pairs, pairs_measured));
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
