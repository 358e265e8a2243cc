#include "exhaustive.hpp"

#include "plan/predict/simulator.hpp"

#include <algorithm>
#include <limits>

namespace redux::testing {
namespace {

void extend(std::vector<int32_t>& parent, int32_t i, const std::function<void(const std::vector<int32_t>&)>& visit) {
    if (i == static_cast<int32_t>(parent.size())) {
        visit(parent);
        return;
    }
    for (int32_t p = 0; p < i; ++p) {
        parent[i] = p;
        extend(parent, i + 1, visit);
    }
}

struct Interval {
    double start_s, end_s;
};

// Most intervals overlapping [start, start + len) at one instant, with the new one included.
int overlap_with(const std::vector<Interval>& busy, double start_s, double len_s) {
    if (len_s <= 0) return 1;
    std::vector<double> probes{start_s};
    for (const auto& b : busy) {
        if (b.start_s > start_s && b.start_s < start_s + len_s) probes.push_back(b.start_s);
    }
    int most = 0;
    for (double p : probes) {
        int count = 1;
        for (const auto& b : busy) count += (b.start_s <= p && p < b.end_s) ? 1 : 0;
        most = std::max(most, count);
    }
    return most;
}

struct LimitedSearch {
    int32_t n, limit;
    Costs costs;
    std::vector<double> s;  // reversed time at which each machine may compute next
    std::vector<Interval> busy;
    double best_s = std::numeric_limits<double>::infinity();

    void insert(int32_t i, double length_s) {
        if (length_s >= best_s) return;
        if (i == n) {
            best_s = length_s;
            return;
        }
        const double d = costs.transfer_s, c = costs.compute_s;
        for (int32_t m = 0; m < i; ++m) {
            // Earliest start of the transfer m -> i: after m's computation, or when some transfer ends.
            std::vector<double> starts{s[m] + c};
            for (const auto& b : busy) {
                if (b.end_s > s[m] + c) starts.push_back(b.end_s);
            }
            std::sort(starts.begin(), starts.end());
            double start_s = starts.back();
            for (double x : starts) {
                if (overlap_with(busy, x, d) <= limit) {
                    start_s = x;
                    break;
                }
            }
            const double end_s = start_s + d;
            const double saved_m = s[m];
            s[m] = std::max(s[m] + c, end_s - c);
            s[i] = end_s;
            busy.push_back({start_s, end_s});
            insert(i + 1, std::max(length_s, end_s));
            busy.pop_back();
            s[m] = saved_m;
        }
    }
};

}  // namespace

void for_each_tree(int32_t n, const std::function<void(const std::vector<int32_t>&)>& visit) {
    std::vector<int32_t> parent(static_cast<size_t>(n), -1);
    extend(parent, 1, visit);
}

double best_makespan(int32_t n, const Costs& costs, int32_t max_reducers) {
    double best = std::numeric_limits<double>::infinity();
    for_each_tree(n, [&](const std::vector<int32_t>& parent) {
        if (max_reducers > 0) {
            std::vector<uint8_t> reduces(parent.size(), 0);
            for (size_t i = 1; i < parent.size(); ++i) reduces[parent[i]] = 1;
            if (std::count(reduces.begin(), reduces.end(), 1) > max_reducers) return;
        }
        best = std::min(best, simulate(parent, costs).makespan_s);
    });
    return best;
}

double best_makespan_transfers_limited(int32_t n, const Costs& costs, int32_t transfer_limit) {
    LimitedSearch search{n, transfer_limit, costs, std::vector<double>(static_cast<size_t>(n), 0.0), {}};
    search.insert(1, 0.0);
    return search.best_s;
}

std::vector<Costs> cost_grid() {
    std::vector<Costs> grid;
    for (double d : {0.0, 0.5, 1.0, 2.0, 3.0}) {
        for (double c : {0.0, 0.5, 1.0, 2.0, 3.0}) grid.push_back({d, c});
    }
    return grid;
}

std::vector<Costs> flight_grid() {
    std::vector<Costs> grid;
    for (const double d : {1.0, 2.0}) {
        for (const double c : {0.0, 0.1, 0.5, 1.0, 3.0}) {
            for (const double share : {0.0, 0.25, 0.5, 0.9, 1.0}) grid.push_back({d, c, share * d});
        }
    }
    return grid;
}

std::string describe(const Costs& costs) {
    return "d=" + std::to_string(costs.transfer_s) + " c=" + std::to_string(costs.compute_s) +
           " L=" + std::to_string(costs.flight_s);
}

}  // namespace redux::testing
