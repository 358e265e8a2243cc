// A call's own cost on a link (LinkFit::call_s, model/costs.hpp), the last part of measuring a link class
// (ping_pong.cpp): a and b alone on a communicator of two call the MPI library's reduce of 8 B to a from a start both
// agree on where they share a node with a hardware thread each (time_call_from_start), else to one, then to the
// other, in turns (time_call_in_turns); the call's median less d(8 B). Both keep to a size's budget of ping-pong
// (kSizeBudget_s, kMaxRoundTrips).
#include "calib/call_timing.hpp"

#include "calib/ping_pong.hpp"
#include "mpi/mpi_check.hpp"
#include "mpi/yielding.hpp"
#include "util/host_clock.hpp"
#include "util/median.hpp"

#include <algorithm>
#include <vector>

namespace redux {
namespace {

constexpr int kCallsAtLeast = 5;  // timed calls (time_call), after one warm-up
// How far ahead of now a sets the common start of a call (time_call_from_start): b gets it in a message of a
// microsecond or less (one host), or, on shared cores, when the scheduler runs it.
constexpr double kCallStartAhead_s = 20e-6;

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

}  // namespace

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

}  // namespace redux
