// Slowest-Node-First: Liu & Wang, "Reduction Optimization in Heterogeneous Cluster Environments", Sections 3
// and 4 (the Earliest-Possible schedule, Lemma 1's destinations, and the slowest-first order).
//
// Their model: rank p sends to anyone in t(p) (send_s[p]); a rank takes part in one transmission at a time;
// computation is free. Every rank but one (the receiver) sends exactly once, so a schedule is a start time per
// sender. Algorithm EP starts the senders in the given order, each as early as two ranks are free -- one to send,
// one to receive:
//   free = n, time = 0; while senders remain: while free >= 2, start the next sender at `time` (free -= 2);
//   then move `time` to the smallest completion among the active transmissions, and each completion there frees
//   its receiver (free += 1 per completion; the sender is done for good).
// Lemma 1 turns the start times into destinations. We keep the two "free tokens" each start consumes: a token is
// either one of the n ranks free at time 0 or the receiver freed by the completion of sender q. Tokens are taken
// oldest first. Going backwards from the last sender, whose destination is the receiver: the sender s holds its
// first token and its destination dest[s] holds its second, so the sender q that released the first token sends
// to s, and the one that released the second sends to dest[s]. Both completed before s started, so no rank is
// in two overlapping windows.
//
// SNF (Section 4) is EP with the senders sorted by non-increasing t(p): slow senders overlap one another at the
// start instead of waiting for each other at the end. It is within a factor 2 of the optimum (Theorem 2) and
// optimal when every t(p) is a power of 2 times the fastest (Theorem 1) or when there are two speeds at least a
// factor 2 apart (Theorem 3). Theta(n log n).
#include "plan/trees/snf.hpp"

#include <algorithm>
#include <deque>
#include <queue>
#include <stdexcept>
#include <utility>

namespace redux {

EarliestPossible earliest_possible(const std::vector<double>& send_s, const std::vector<int32_t>& senders,
                                   int32_t receiver) {
    const auto n = static_cast<int32_t>(send_s.size());
    if (receiver < 0 || receiver >= n || static_cast<int32_t>(senders.size()) != n - 1) {
        throw std::invalid_argument("earliest_possible: senders must list every rank but the receiver");
    }
    std::vector<uint8_t> seen(static_cast<size_t>(n), 0);
    seen[receiver] = 1;
    for (const int32_t s : senders) {
        if (s < 0 || s >= n || seen[s]) {
            throw std::invalid_argument("earliest_possible: senders must list every rank but the receiver");
        }
        seen[s] = 1;
    }

    EarliestPossible ep;
    ep.senders = senders;
    ep.receiver = receiver;
    ep.start_s.assign(static_cast<size_t>(n), -1.0);
    ep.parent.assign(static_cast<size_t>(n), -1);
    // Tokens: -1 for a rank free from time 0, else the sender whose completion freed its receiver.
    std::deque<int32_t> tokens(static_cast<size_t>(n), -1);
    std::vector<std::pair<int32_t, int32_t>> taken(static_cast<size_t>(n), {-1, -1});
    using Completion = std::pair<double, int32_t>;  // (time, position in `senders`)
    std::priority_queue<Completion, std::vector<Completion>, std::greater<>> active;

    double time_s = 0;
    for (size_t next = 0; next < senders.size();) {
        while (tokens.size() >= 2 && next < senders.size()) {
            const int32_t s = senders[next];
            ep.start_s[s] = time_s;
            taken[s].first = tokens.front();
            tokens.pop_front();
            taken[s].second = tokens.front();
            tokens.pop_front();
            active.push({time_s + send_s[s], static_cast<int32_t>(next)});
            ep.makespan_s = std::max(ep.makespan_s, time_s + send_s[s]);
            ++next;
        }
        if (next == senders.size()) break;
        time_s = active.top().first;
        while (!active.empty() && active.top().first == time_s) {
            tokens.push_back(senders[active.top().second]);
            active.pop();
        }
    }

    if (!senders.empty()) ep.parent[senders.back()] = receiver;
    for (auto k = senders.size(); k-- > 0;) {
        const int32_t s = senders[k];
        if (taken[s].first >= 0) ep.parent[taken[s].first] = s;
        if (taken[s].second >= 0) ep.parent[taken[s].second] = ep.parent[s];
    }
    return ep;
}

EarliestPossible slowest_node_first(const std::vector<double>& send_s, int32_t receiver) {
    std::vector<int32_t> senders;
    for (int32_t p = 0; p < static_cast<int32_t>(send_s.size()); ++p) {
        if (p != receiver) senders.push_back(p);
    }
    std::stable_sort(senders.begin(), senders.end(), [&](int32_t a, int32_t b) { return send_s[a] > send_s[b]; });
    return earliest_possible(send_s, senders, receiver);
}

RankTree snf_tree(const HeteroCosts& costs, int32_t sink) {
    std::vector<double> send_s(static_cast<size_t>(costs.size()));
    for (int32_t p = 0; p < costs.size(); ++p) send_s[p] = costs.mean_send_s(p);
    EarliestPossible ep = slowest_node_first(send_s, sink);
    return {std::move(ep.parent), sink, ep.makespan_s};
}

}  // namespace redux
