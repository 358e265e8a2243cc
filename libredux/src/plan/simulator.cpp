// Discrete-event simulation of a reduction tree under the homogeneous model (see simulator.hpp for the rules).
//
// Events are (time, kind, rank) in one min-heap; equal times are taken in kind order, then rank order, which
// makes the run deterministic. Two kinds:
//   request(j): j is ready and released; its parent p's port takes it at max(now, port_free[p]) for d,
//               and an arrival at p is scheduled for the end of the transfer;
//   arrival(p): an element reaches p; p's reducer folds it at max(now, fold_free[p]) for c; when p has
//               folded all its children it is ready and issues its own request (the sink just stops).
// Ports serve requests in the order they are made, so a parent receives its children in order of readiness.
// Nothing here shares code with the tree builders or with Proposition 3 (schedule.cpp).
#include "plan/simulator.hpp"

#include <algorithm>
#include <queue>
#include <stdexcept>
#include <tuple>

namespace redux {
namespace {

enum class EventKind : int { arrival = 0, request = 1 };

struct Event {
    double time_s;
    EventKind kind;
    int32_t rank;
    bool operator>(const Event& o) const { return std::tie(time_s, kind, rank) > std::tie(o.time_s, o.kind, o.rank); }
};

}  // namespace

Simulation simulate(const std::vector<int32_t>& parent, const Costs& costs, const std::vector<double>& release_s) {
    const auto n = static_cast<int32_t>(parent.size());
    if (!release_s.empty() && static_cast<int32_t>(release_s.size()) != n) {
        throw std::invalid_argument("simulate: release_s must be empty or have one entry per rank");
    }
    Simulation sim;
    std::vector<int32_t> pending(static_cast<size_t>(n), 0);
    for (int32_t j = 0; j < n; ++j) {
        if (parent[j] == -1) {
            if (sim.sink != -1) throw std::invalid_argument("simulate: more than one rank has parent -1");
            sim.sink = j;
        } else if (parent[j] < 0 || parent[j] >= n || parent[j] == j) {
            throw std::invalid_argument("simulate: parent index out of range");
        } else {
            ++pending[parent[j]];
        }
    }
    if (n > 0 && sim.sink == -1) throw std::invalid_argument("simulate: no rank has parent -1");

    sim.ready_s.assign(static_cast<size_t>(n), -1.0);
    sim.send_start_s.assign(static_cast<size_t>(n), -1.0);
    std::vector<double> port_free_s(static_cast<size_t>(n), 0.0);
    std::vector<double> fold_free_s(static_cast<size_t>(n), 0.0);
    std::priority_queue<Event, std::vector<Event>, std::greater<>> events;

    auto become_ready = [&](int32_t j, double at_s) {
        sim.ready_s[j] = at_s;
        if (parent[j] == -1) return;
        const double release = release_s.empty() ? 0.0 : release_s[j];
        events.push({std::max(at_s, release), EventKind::request, j});
    };
    for (int32_t j = 0; j < n; ++j) {
        if (pending[j] == 0) become_ready(j, 0.0);
    }
    while (!events.empty()) {
        const Event e = events.top();
        events.pop();
        if (e.kind == EventKind::request) {
            const int32_t p = parent[e.rank];
            const double start_s = std::max(e.time_s, port_free_s[p]);
            port_free_s[p] = start_s + costs.transfer_s;
            sim.send_start_s[e.rank] = start_s;
            events.push({port_free_s[p], EventKind::arrival, p});
        } else {
            const int32_t p = e.rank;
            fold_free_s[p] = std::max(e.time_s, fold_free_s[p]) + costs.compute_s;
            if (--pending[p] == 0) become_ready(p, fold_free_s[p]);
        }
    }
    for (int32_t j = 0; j < n; ++j) {
        if (sim.ready_s[j] < 0) throw std::invalid_argument("simulate: parent array has a cycle");
    }
    sim.makespan_s = n > 0 ? sim.ready_s[sim.sink] : 0.0;
    return sim;
}

int max_concurrent_transfers(const Simulation& sim, const Costs& costs) {
    if (costs.transfer_s <= 0) return 0;
    std::vector<std::pair<double, int>> edges;  // (time, +1 start / -1 end); ends sort first at equal times
    for (double start : sim.send_start_s) {
        if (start < 0) continue;
        edges.emplace_back(start, +1);
        edges.emplace_back(start + costs.transfer_s, -1);
    }
    std::sort(edges.begin(), edges.end());
    int now = 0, most = 0;
    for (const auto& edge : edges) {
        now += edge.second;
        most = std::max(most, now);
    }
    return most;
}

}  // namespace redux
