// Transfer costs per link class: d(bytes), piecewise linear through measured ping-pong times.
//
// Ranks are placed on nodes (hosts sharing memory) and, within a node, on packages (sockets). A pair of ranks
// is in one of three link classes: same package, same node but another package (or a package that cannot be
// told, for ranks not bound to one), other node. Calibration (libredux/src/calib) measures a few pairs per
// class at a few sizes from 8 B to a few MiB; the planner reads d for a message size from the fit (at()). Value
// types and pure functions only: no MPI, no clock.
//
// Why points and not one line: a line through 8 B .. 256 KiB does not extrapolate. Over TCP the middle sizes
// still pay for the window opening, so the slope of such a line is steeper than the link's and plans long
// messages at several times their time. Measuring up to 4 MiB (and on fast links 16 MiB, past the caches) and
// following the measured curve holds from 8 B to 64 MiB instead.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace redux {

enum class LinkClass : uint8_t { same_package = 0, same_node = 1, other_node = 2 };
constexpr int kLinkClasses = 3;

std::string_view link_class_name(LinkClass c);

// Where a rank runs: node index (ranks sharing memory share it), package index on that node (-1: unknown,
// the rank may run on several packages), and how many of the node's hardware threads its ranks may run on (0:
// unknown; plan/predict/shared_cores.hpp).
struct RankPlace {
    int32_t node = 0;
    int32_t package = -1;
    int32_t node_cpus = 0;
};

LinkClass link_class(const RankPlace& a, const RankPlace& b);

// Whether place[r]'s node has a hardware thread for each of its ranks in `place` (by rank): false where it does not
// say how many it has (node_cpus 0).
bool thread_per_rank(const std::vector<RankPlace>& place, size_t r);

struct PingSample {
    size_t bytes = 0;
    double one_way_s = 0;  // half a round trip
};

// The most points a fit keeps (calibration measures 5 sizes; the file and the broadcast hold at most this many).
constexpr size_t kMaxLinkPoints = 32;

// d(bytes) for one link class. With points (what calibration makes): the piecewise-linear curve through them,
// alpha below the first, and beyond the last its time plus beta per byte. Without points: the line
// alpha + beta * bytes (a fit given as two numbers, and fit_line's).
struct LinkFit {
    double alpha_s = 0;          // latency, the part of d that does not grow with the bytes: d at 0 bytes
    double beta_s_per_byte = 0;  // the large-message slope: seconds per byte beyond the largest size measured
    bool measured = false;
    std::vector<PingSample> points;  // sizes strictly increasing, times non-decreasing; empty: the line
    // The time in flight (model/costs.hpp, LogP's L): the part of d that leaves the receiver's port free.
    // Measured at 8 B as d(8 B) less the time per message of a stream of 8 B messages (the receiver's port part);
    // 0 when not measured (the one-port model). flight_points: the same measured at larger sizes (bytes
    // increasing, above 8 B; may be empty: calibration files without them). flight_at() reads it at any size.
    double flight_s = 0;
    std::vector<PingSample> flight_points = {};
    // A call's own cost (model/costs.hpp, Costs::call_s): what one call of the MPI library's reduce of 8 B between
    // the pair took beyond d, the median of calls from a common start or made in turns (calib/call_timing.cpp,
    // time_call); 0 when not measured.
    double call_s = 0;

    double at(size_t bytes) const;
    // The time in flight of a message of `bytes`: linear between flight_s (at 8 B and below) and flight_points,
    // the last one's beyond them (what d grows by past the largest stream measured holds the port: bandwidth),
    // within [0, at(bytes)].
    double flight_at(size_t bytes) const;
};

// The most sizes above 8 B the time in flight is kept at (the file and the broadcast hold at most this many).
constexpr size_t kMaxFlightPoints = 4;

using LinkFits = std::array<LinkFit, kLinkClasses>;

// The link model from ping-pong samples, any number per size in any order. Per size the fastest sample is kept
// (on a shared machine scheduling delays and interrupts only add time), then a time above that of a larger
// size is lowered to it (d does not fall with the bytes; the larger size's time bounds the smaller one's, and
// the noise is in the slower). alpha is the time of the smallest size (8 bytes on every link cost no more
// than 0 bytes, within the noise), beta the slope between the two largest sizes (0 with one size). Of more
// than kMaxLinkPoints sizes, the smallest and the largest kMaxLinkPoints - 1 are kept. Fitting a fit's own
// points gives the same fit. No samples: an unmeasured fit.
LinkFit fit_link(const std::vector<PingSample>& samples);

// Least-squares line through the samples, with alpha and beta clamped at 0 (a negative intercept from noise
// means "latency too small to see"; the slope is refitted through the origin then). One distinct size gives
// alpha = its mean time and beta = 0. No samples: an unmeasured fit. No points: at() is the line.
LinkFit fit_line(const std::vector<PingSample>& samples);

}  // namespace redux
