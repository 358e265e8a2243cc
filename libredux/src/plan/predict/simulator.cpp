// Discrete-event simulation of a reduction under the one-port models (see simulator.hpp for the rules).
//
// Events are (time, kind, rank) in one min-heap; equal times are taken in kind order, then rank order, which
// makes the run deterministic. Two kinds:
//   arrival(p): an element reaches p; p's reducer folds it at max(now, fold_free[p]) for c_p, and p gets a turn
//               when that fold ends. Under overlap the port is free again at once and serves its next request;
//   turn(p):    a fold on p ended (or time 0, or p's release time came). Under no_overlap the port is free only
//               now. If p is idle -- this was its last scheduled fold and nothing is in flight or queued to it --
//               the Pairing says where p sends; the request goes to that port, which starts it now if it is free
//               or queues it (first come, first served), each transfer j -> q taking d_jq.
// Costs are asked of the CostSampler when the operation is scheduled: a transfer when it starts, a fold when its
// element arrives. Nothing here shares code with the tree builders or with Proposition 3 (schedule.cpp).
#include "plan/predict/simulator.hpp"

#include <algorithm>
#include <queue>
#include <stdexcept>
#include <tuple>

namespace redux {
namespace {

enum class EventKind : int { arrival = 0, turn = 1 };
constexpr int32_t kSendTurn = -1;  // a turn that only starts p's delayed send (its release time came)

struct Event {
    double time_s;
    EventKind kind;
    int32_t rank;
    int32_t fold_seq;  // turns: the number of folds scheduled on `rank` when the turn was made, or kSendTurn
    bool operator>(const Event& o) const {
        return std::tie(time_s, kind, rank, fold_seq) > std::tie(o.time_s, o.kind, o.rank, o.fold_seq);
    }
};

class Engine {
public:
    Engine(int32_t n, Pairing& pairing, CostSampler& costs, TransferModel model, const std::vector<double>& release_s)
        : n_(n), pairing_(pairing), costs_(costs), model_(model), release_s_(release_s) {
        const auto count = static_cast<size_t>(n);
        sim_.parent.assign(count, -1);
        sim_.ready_s.assign(count, 0.0);
        sim_.send_start_s.assign(count, -1.0);
        sim_.arrive_s.assign(count, -1.0);
        fold_seq_.assign(count, 0);
        port_busy_.assign(count, 0);
        queue_head_.assign(count, -1);
        queue_tail_.assign(count, -1);
        queue_next_.assign(count, -1);
    }

    Simulation run() {
        // Every rank's turn at time 0, taken from a cursor in rank order rather than from the heap.
        int32_t first_turn = 0;
        while (first_turn < n_ || !events_.empty()) {
            const Event initial{0.0, EventKind::turn, first_turn, 0};
            Event e = initial;
            if (first_turn < n_ && (events_.empty() || events_.top() > initial)) {
                ++first_turn;
            } else {
                e = events_.top();
                events_.pop();
            }
            if (e.kind == EventKind::arrival) {
                on_arrival(e.rank, e.time_s);
            } else if (e.fold_seq == kSendTurn) {
                request(e.rank, e.time_s);
            } else {
                on_turn(e.rank, e.fold_seq, e.time_s);
            }
        }
        int32_t unsent = 0;
        for (int32_t j = 0; j < n_; ++j) {
            if (sim_.parent[j] == -1) {
                ++unsent;
                sim_.sink = j;
            }
            sim_.makespan_s = std::max(sim_.makespan_s, sim_.ready_s[j]);
        }
        if (unsent != 1) sim_.sink = -1;
        return std::move(sim_);
    }

private:
    void on_arrival(int32_t p, double now_s) {
        sim_.ready_s[p] = std::max(now_s, sim_.ready_s[p]) + costs_.compute_s(p);
        ++fold_seq_[p];
        if (model_ == TransferModel::no_overlap || pairing_.may_send_after(p, fold_seq_[p])) {
            events_.push({sim_.ready_s[p], EventKind::turn, p, fold_seq_[p]});
        }
        if (model_ == TransferModel::overlap) free_port(p, now_s);
    }

    void on_turn(int32_t p, int32_t fold_seq, double now_s) {
        if (model_ == TransferModel::no_overlap && fold_seq > 0) free_port(p, now_s);
        const bool idle = fold_seq == fold_seq_[p] && !port_busy_[p] && sim_.parent[p] == -1;
        if (!idle) return;
        const int32_t to = pairing_.on_idle(p, fold_seq_[p], now_s);
        if (to < 0) return;
        if (to >= n_ || to == p || sim_.parent[to] != -1 || sim_.send_start_s[to] >= 0) {
            throw std::logic_error("simulation: the pairing chose a rank that cannot receive");
        }
        sim_.parent[p] = to;
        const double release_s = release_s_.empty() ? 0.0 : release_s_[p];
        const double flight_s = costs_.flight_s(p, to);
        if (flight_s > 0) sim_.send_start_s[p] = std::max(release_s, now_s);  // it leaves now, whatever the port
        const double at_port_s = std::max(release_s, now_s) + flight_s;
        if (at_port_s > now_s) {
            events_.push({at_port_s, EventKind::turn, p, kSendTurn});
        } else {
            request(p, now_s);
        }
    }

    void request(int32_t j, double now_s) {
        const int32_t p = sim_.parent[j];
        if (port_busy_[p]) {  // append j to p's queue (a rank requests once, so one link per rank is enough)
            (queue_tail_[p] < 0 ? queue_head_[p] : queue_next_[queue_tail_[p]]) = j;
            queue_tail_[p] = j;
        } else {
            start_transfer(j, p, now_s);
        }
    }

    // j's message reached p's port (after its time in flight) and the port is free: it holds the port for the
    // rest of d. Without a time in flight the transfer starts now (the one-port model: the sender waits).
    void start_transfer(int32_t j, int32_t p, double now_s) {
        port_busy_[p] = 1;
        const double flight_s = costs_.flight_s(j, p);
        if (flight_s <= 0) sim_.send_start_s[j] = now_s;
        sim_.arrive_s[j] = now_s + (costs_.transfer_s(j, p) - flight_s);
        events_.push({sim_.arrive_s[j], EventKind::arrival, p, 0});
    }

    void free_port(int32_t p, double now_s) {
        port_busy_[p] = 0;
        const int32_t j = queue_head_[p];
        if (j < 0) return;
        queue_head_[p] = queue_next_[j];
        if (queue_head_[p] < 0) queue_tail_[p] = -1;
        start_transfer(j, p, now_s);
    }

    int32_t n_;
    Pairing& pairing_;
    CostSampler& costs_;
    TransferModel model_;
    const std::vector<double>& release_s_;
    Simulation sim_;
    std::vector<int32_t> fold_seq_;
    std::vector<uint8_t> port_busy_;
    std::vector<int32_t> queue_head_, queue_tail_, queue_next_;  // each port's FIFO of waiting senders
    std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
};

// A fixed tree: a rank sends to its parent once it has folded all its children.
class TreePairing final : public Pairing {
public:
    TreePairing(const std::vector<int32_t>& parent, std::vector<int32_t> children)
        : parent_(parent), children_(std::move(children)) {}
    int32_t on_idle(int32_t rank, int32_t folds_done, double) override {
        return folds_done == children_[rank] ? parent_[rank] : -1;
    }
    bool may_send_after(int32_t rank, int32_t folds_done) const override { return folds_done == children_[rank]; }

private:
    const std::vector<int32_t>& parent_;
    std::vector<int32_t> children_;
};

}  // namespace

Simulation run_simulation(int32_t n, Pairing& pairing, CostSampler& costs, TransferModel model,
                          const std::vector<double>& release_s) {
    if (!release_s.empty() && static_cast<int32_t>(release_s.size()) != n) {
        throw std::invalid_argument("simulate: release_s must be empty or have one entry per rank");
    }
    return Engine(n, pairing, costs, model, release_s).run();
}

Simulation simulate(const std::vector<int32_t>& parent, CostSampler& costs, TransferModel model,
                    const std::vector<double>& release_s) {
    const auto n = static_cast<int32_t>(parent.size());
    std::vector<int32_t> children(static_cast<size_t>(n), 0);
    int32_t sink = -1;
    for (int32_t j = 0; j < n; ++j) {
        if (parent[j] == -1) {
            if (sink != -1) throw std::invalid_argument("simulate: more than one rank has parent -1");
            sink = j;
        } else if (parent[j] < 0 || parent[j] >= n || parent[j] == j) {
            throw std::invalid_argument("simulate: parent index out of range");
        } else {
            ++children[parent[j]];
        }
    }
    if (n > 0 && sink == -1) throw std::invalid_argument("simulate: no rank has parent -1");
    TreePairing pairing(parent, std::move(children));
    Simulation sim = run_simulation(n, pairing, costs, model, release_s);
    if (sim.sink != sink) throw std::invalid_argument("simulate: parent array has a cycle");
    return sim;
}

Simulation simulate(const std::vector<int32_t>& parent, const HeteroCosts& costs, TransferModel model,
                    const std::vector<double>& release_s) {
    if (costs.size() != static_cast<int32_t>(parent.size())) {
        throw std::invalid_argument("simulate: the costs are for another number of ranks");
    }
    FixedCosts sampler(costs);
    return simulate(parent, sampler, model, release_s);
}

Simulation simulate(const std::vector<int32_t>& parent, const Costs& costs, const std::vector<double>& release_s) {
    UniformCosts sampler(costs);
    return simulate(parent, sampler, TransferModel::overlap, release_s);
}

int max_concurrent_transfers(const Simulation& sim) {
    std::vector<std::pair<double, int>> edges;  // (time, +1 start / -1 end); ends sort first at equal times
    for (size_t j = 0; j < sim.send_start_s.size(); ++j) {
        if (sim.send_start_s[j] < 0 || !(sim.arrive_s[j] > sim.send_start_s[j])) continue;
        edges.emplace_back(sim.send_start_s[j], +1);
        edges.emplace_back(sim.arrive_s[j], -1);
    }
    std::sort(edges.begin(), edges.end());
    int now = 0, most = 0;
    for (const auto& edge : edges) {
        now += edge.second;
        most = std::max(most, now);
    }
    return most;
}

int max_concurrent_transfers(const Simulation& sim, const Costs&) { return max_concurrent_transfers(sim); }

}  // namespace redux
