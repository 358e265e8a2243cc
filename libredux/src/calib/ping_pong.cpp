// Measuring one link class (calibrate_links's step 3, link_calibration.cpp): a pair of ranks a and b
// (Topology::first_pair) first ping-pongs 8 B untimed for kWarmUp_s (a job's first milliseconds of ping-pong run
// several times slower than the rest: see kWarmUp_s), then ping-pongs messages of 8 B, every power of two from 1 to
// 64 KiB (the MPI libraries switch protocols in that range: Open MPI's shared memory at 4 KiB, TCP at 64 KiB,
// model/node_pairs.hpp; a line over the range misses the steps) and 256 KiB (one warm-up, then at least 5 round trips
// each, more while the size has taken less than kSizeBudget_s; on a slow link 3 where two agree, kSettledShare), 1 MiB
// and 4 MiB (one warm-up, then 2: a round trip at
// 4 MiB on a slow link is long), and on a fast link 16 and 64 MiB (kLargestPlannedBytes). Per size the median half
// round trip where there were kMedianOf or more (small sizes on a fast link: what a reduction sees, also on ranks that
// share cores), else the fastest (on a shared machine scheduling delays only add time) makes d (fit_link) on a. Where
// the curve has a protocol step, a bisects it (refine_step). Then the time in flight (LinkFit::flight_s): a stream of
// kStreamMessages messages of 8 B, a to b, into receives b posted ahead, answered by one 8 B message once all have
// arrived, takes 2 d + (k - 1) p, where p is the part of d that holds the receiver (its port: overheads and gap); p
// from the fastest stream against d(8 B), and L = d(8 B) - p; the same with messages of each of kFlightBytes
// (LinkFit::flight_points: L(s) = d(s) - p(s)). Last a call's own cost (LinkFit::call_s, call_timing.cpp). The large
// sizes are where long vectors and their segments are planned: beyond the largest size measured d follows the slope
// of the last two. On one node most of the time goes to the warm-up and to first-touching the largest buffer;
// between nodes to the round trips of the largest sizes, and each size from 1 to 16 KiB adds 6 round trips there (at
// most kSizeBudget_s each on one node).
#include "calib/ping_pong.hpp"

#include "calib/call_timing.hpp"
#include "mpi/mpi_check.hpp"
#include "mpi/tags.hpp"

#include <algorithm>
#include <array>
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
// A protocol step (find_step): d of the larger of two neighbouring sizes more than this times what the smaller's and
// the curve's slope make, from sizes of at least kStepFrom; bisected down to kStepResolution bytes.
constexpr double kStepFactor = 1.5;
constexpr size_t kStepFrom = 1 << 10;
constexpr size_t kStepResolution = 1 << 10;

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

}  // namespace

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
    double fastest = 0, second = 0;              // of the timed trips so far (first side)
    for (int trip = warm_up ? 0 : 1;; ++trip) {  // trip 0 warms up
        const double start = MPI_Wtime();
        bool last = false;
        if (first) {
            const bool spent = start - begin >= trips.budget_s;
            const bool settled = trip > 2 && spent && second - fastest <= kSettledShare * fastest;
            last = (trip >= trips.at_least || settled) && (trip >= trips.at_most || spent);
            buffer[0] = last ? 1 : 0;
            REDUX_MPI(MPI_Send(buffer.data(), n, MPI_BYTE, peer, tags::kPing, comm));
            REDUX_MPI(MPI_Recv(buffer.data(), n, MPI_BYTE, peer, tags::kPing, comm, MPI_STATUS_IGNORE));
        } else {
            REDUX_MPI(MPI_Recv(buffer.data(), n, MPI_BYTE, peer, tags::kPing, comm, MPI_STATUS_IGNORE));
            last = buffer[0] != 0;
            REDUX_MPI(MPI_Send(buffer.data(), n, MPI_BYTE, peer, tags::kPing, comm));
        }
        if (trip > 0) {
            const double half = (MPI_Wtime() - start) / 2;
            samples.push_back({bytes, half});
            if (trip == 1 || half < fastest) {
                second = trip == 1 ? half : fastest;
                fastest = half;
            } else if (trip == 2 || half < second) {
                second = half;
            }
        }
        if (last) {
            keep_median();
            return MPI_SUCCESS;
        }
    }
}

// Half round trips between a and b (called on both); fitted on rank a (fit_link keeps the fastest per size, which is
// the median where time_size kept only that).
// Whether to go on past kPingSizes is a's decision, sent to b.
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

}  // namespace redux
