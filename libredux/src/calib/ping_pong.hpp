// A pair of ranks measures d(bytes) of their link by ping-pong: the curve, its protocol step and the time in
// flight. See ping_pong.cpp.
#pragma once

#include "model/link_costs.hpp"

#include <mpi.h>

#include <cstddef>
#include <vector>

namespace redux {

// A size's round trips go on past its count while they have taken less than this in all (at most kMaxRoundTrips):
// hundreds of small ones on one node, none more on a link of milliseconds. A call's timing (call_timing.cpp) keeps
// to the same budget.
constexpr double kSizeBudget_s = 1e-3;
constexpr int kMaxRoundTrips = 200;

// Once a size's trips have taken budget_s (a slow link), its next trip is its last as soon as its two fastest timed
// round trips so far agree within this share, before at_least: on a link of milliseconds, round trips of one size
// repeat to within a few microseconds, and each more costs its milliseconds. Where they do not agree (a loaded host),
// at_least holds.
constexpr double kSettledShare = 0.03;

// How many timed round trips a size gets: at least at_least (or 3 where two agree, kSettledShare), and more
// while they have taken less than budget_s in all, up to at_most.
struct Trips {
    int at_least = 1;
    double budget_s = 0;
    int at_most = kMaxRoundTrips;
};

// Timed half round trips of `bytes` between this rank and `peer` on `comm` (`first`: this rank decides when to
// stop), after one untimed round trip if `warm_up`, as many as `trips` says, appended to `samples`. `buffer` grows
// to `bytes` and may be reused between calls.
int time_size(MPI_Comm comm, bool first, int peer, size_t bytes, bool warm_up, const Trips& trips,
              std::vector<char>& buffer, std::vector<PingSample>& samples);

// The link between a and b measured by the two of them (called on both; `rank` is this rank's in `comm`): d(bytes),
// the time in flight and a call's own cost on `pair` (a and b alone, a first; thread_each: they share a node with a
// hardware thread each). The fit is a's; b's holds only what it took part in, to be replaced by a's broadcast.
int ping_pong(MPI_Comm comm, MPI_Comm pair, int rank, int a, int b, bool thread_each, LinkFit& fit);

}  // namespace redux
