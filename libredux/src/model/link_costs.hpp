// Transfer costs per link class: d(bytes) = alpha + beta * bytes, fitted from ping-pong samples.
//
// Ranks are placed on nodes (hosts sharing memory) and, within a node, on packages (sockets). A pair of ranks
// is in one of three link classes: same package, same node but another package (or a package that cannot be
// told, for ranks not bound to one), other node. Calibration (libredux/src/calib) measures a few pairs per
// class and fits this model; the planner reads d for a message size from it. Value types and pure functions
// only: no MPI, no clock.
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

// Where a rank runs: node index (ranks sharing memory share it) and package index on that node (-1: unknown,
// the rank may run on several packages).
struct RankPlace {
    int32_t node = 0;
    int32_t package = -1;
};

LinkClass link_class(const RankPlace& a, const RankPlace& b);

struct LinkFit {
    double alpha_s = 0;          // latency: the cost of an empty message
    double beta_s_per_byte = 0;  // inverse bandwidth
    bool measured = false;

    double at(size_t bytes) const { return alpha_s + beta_s_per_byte * static_cast<double>(bytes); }
};

using LinkFits = std::array<LinkFit, kLinkClasses>;

struct PingSample {
    size_t bytes = 0;
    double one_way_s = 0;  // half a round trip
};

// Least-squares line through the samples, with alpha and beta clamped at 0 (a negative intercept from noise
// means "latency too small to see"; the slope is refitted through the origin then). One distinct size gives
// alpha = its mean time and beta = 0. No samples: an unmeasured fit.
LinkFit fit_link(const std::vector<PingSample>& samples);

}  // namespace redux
