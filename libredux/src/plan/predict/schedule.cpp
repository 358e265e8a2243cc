// Earliest transfer times of a reduction tree: Proposition 3 of Canon & Antoniu (INRIA RR-7898, Section 4.2).
//
// A node i with m children folds them in the order they can be sent, t^1 <= ... <= t^m (t^j: the time child
// j's partial result is ready, or its release time if a builder fixed a later one). With one port and
// transfers overlapping reductions, the last fold on i ends at
//     t_i = max over j of ( t^j + d + (m - j) max(d, c) + c )      (0 for a leaf)
// the j-th term being the chain "child j arrives, then the remaining folds follow each other at the pace of
// the slower of the port and the reducer" (with latency, costs.hpp, the port's part of d: max(d - L, c)).
// The builders' nodes satisfy parent[i] < i, so one sweep from the
// last node down to the sink sees every child before its parent: Theta(n log deg) for the sorts.
//
// The closed form is deliberately different code from the event simulator (simulator.cpp): the tests check
// that the two agree on every tree the builders make.
#include "plan/predict/schedule.hpp"

#include <algorithm>
#include <stdexcept>

namespace redux {

TreeSchedule earliest_schedule(const Tree& tree, const Costs& costs) {
    const int32_t n = tree.size();
    const bool released = !tree.release_s.empty();
    TreeSchedule sched;
    sched.ready_s.assign(static_cast<size_t>(n), 0.0);
    sched.fold = child_lists(tree.parent);
    std::vector<double> send_s(static_cast<size_t>(n), 0.0);

    for (int32_t i = n - 1; i >= 0; --i) {
        if (i > 0 && !(tree.parent[i] >= 0 && tree.parent[i] < i)) {
            throw std::invalid_argument("earliest_schedule: parent[i] < i is required");
        }
        const auto first = sched.fold.child.begin() + sched.fold.offset[i];
        const auto last = sched.fold.child.begin() + sched.fold.offset[i + 1];
        std::sort(first, last,
                  [&](int32_t a, int32_t b) { return send_s[a] != send_s[b] ? send_s[a] < send_s[b] : a < b; });
        const auto m = static_cast<int32_t>(last - first);
        double done_s = 0;
        for (int32_t j = 0; j < m; ++j) {
            const double term = send_s[first[j]] + costs.transfer_s + (m - 1 - j) * costs.pace_s() + costs.compute_s;
            done_s = std::max(done_s, term);
        }
        sched.ready_s[i] = done_s;
        send_s[i] = released ? std::max(done_s, tree.release_s[i]) : done_s;
    }
    sched.makespan_s = n > 0 ? sched.ready_s[0] : 0.0;
    return sched;
}

}  // namespace redux
