#include "model/link_costs.hpp"

#include <algorithm>

namespace redux {

std::string_view link_class_name(LinkClass c) {
    switch (c) {
        case LinkClass::same_package:
            return "same_package";
        case LinkClass::same_node:
            return "same_node";
        case LinkClass::other_node:
            return "other_node";
    }
    return "unknown";
}

LinkClass link_class(const RankPlace& a, const RankPlace& b) {
    if (a.node != b.node) return LinkClass::other_node;
    if (a.package >= 0 && a.package == b.package) return LinkClass::same_package;
    return LinkClass::same_node;
}

LinkFit fit_link(const std::vector<PingSample>& samples) {
    LinkFit fit;
    if (samples.empty()) return fit;
    fit.measured = true;
    double mean_x = 0, mean_y = 0;
    for (const PingSample& s : samples) {
        mean_x += static_cast<double>(s.bytes);
        mean_y += s.one_way_s;
    }
    mean_x /= static_cast<double>(samples.size());
    mean_y /= static_cast<double>(samples.size());
    double sxx = 0, sxy = 0, sx2 = 0, sx2y = 0;
    for (const PingSample& s : samples) {
        const double x = static_cast<double>(s.bytes);
        sxx += (x - mean_x) * (x - mean_x);
        sxy += (x - mean_x) * (s.one_way_s - mean_y);
        sx2 += x * x;
        sx2y += x * s.one_way_s;
    }
    if (sxx <= 0) {  // one distinct size
        fit.alpha_s = std::max(0.0, mean_y);
        return fit;
    }
    fit.beta_s_per_byte = sxy / sxx;
    fit.alpha_s = mean_y - fit.beta_s_per_byte * mean_x;
    if (fit.beta_s_per_byte < 0) {
        fit.beta_s_per_byte = 0;
        fit.alpha_s = mean_y;
    } else if (fit.alpha_s < 0) {
        fit.alpha_s = 0;
        fit.beta_s_per_byte = sx2 > 0 ? std::max(0.0, sx2y / sx2) : 0;
    }
    fit.alpha_s = std::max(0.0, fit.alpha_s);
    return fit;
}

}  // namespace redux
