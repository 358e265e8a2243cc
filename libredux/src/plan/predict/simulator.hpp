// The model simulator: replays a reduction, event by event, under the one-port cost models.
//
// It is written independently of the tree builders so it can check them. One engine serves every use:
//   - a fixed tree (the parent of every rank, -1 for the sink): the homogeneous model of Canon & Antoniu
//     (Section 3.1), heterogeneous costs c_i and d_ij, or costs drawn at random for each operation;
//   - a dynamic algorithm (tree_dyn.hpp), which decides at run time, through a Pairing, where each rank sends,
//     with each cost revealed only when the operation happens.
// The rules:
//   - every rank holds its own element at time 0;
//   - a rank that has folded everything sent to it is idle; the Pairing then says where it sends (a static tree:
//     its parent once all its children are folded, not before its release time if it has one);
//   - a receiver's port serves requests one at a time, in the order they are made (order of readiness; equal
//     times in rank order); the transfer j -> p takes d_jp; with a time in flight L (costs.hpp, homogeneous
//     costs) the message leaves when its sender is ready (send_start_s), reaches the port L later, waits
//     there for the port if it is busy, and holds it for d - L;
//   - the receiver folds arrived elements one at a time, in arrival order, each fold on p taking c_p.
//     TransferModel::overlap: the port takes the next transfer while the previous element is folded.
//     TransferModel::no_overlap (Liu & Wang): the port is busy until the fold of the element it received ends;
//   - the makespan is when the last fold ends (for a static tree, when the sink is ready).
#pragma once

#include "model/cost_sampler.hpp"
#include "model/costs.hpp"
#include "model/hetero_costs.hpp"

#include <cstdint>
#include <vector>

namespace redux {

struct Simulation {
    std::vector<int32_t> parent;       // by rank: where it sent its partial result (-1 for the sink)
    std::vector<double> ready_s;       // by rank: its last fold ended (0 for a leaf)
    std::vector<double> send_start_s;  // by rank: transfer to the parent starts (-1 for the sink)
    std::vector<double> arrive_s;      // by rank: that transfer ends (-1 for the sink)
    double makespan_s = 0;             // the last fold's end: the sink's ready time
    int32_t sink = -1;
};

// Decides, while a simulation runs, where each rank sends its partial result.
class Pairing {
public:
    virtual ~Pairing() = default;
    // `rank` holds a partial result, has folded `folds_done` elements and nothing is on its way to it, at time
    // now_s. Returns the rank it sends to now (it must be a rank that has not sent), or -1 to keep it waiting.
    // Called for every rank at time 0 in rank order, then each time a rank becomes idle again.
    virtual int32_t on_idle(int32_t rank, int32_t folds_done, double now_s) = 0;
    // Whether on_idle could return a rank once `rank` has folded `folds_done` elements. Only saves the engine
    // the turns that cannot lead anywhere (a static tree's rank waits for its last child); answer true if unsure.
    virtual bool may_send_after(int32_t /*rank*/, int32_t /*folds_done*/) const { return true; }
};

// The engine. release_s is empty or one entry per rank (the earliest time each rank may start sending).
// Throws std::logic_error if the pairing sends a rank's result twice or to itself.
Simulation run_simulation(int32_t n, Pairing& pairing, CostSampler& costs, TransferModel model,
                          const std::vector<double>& release_s = {});

// A fixed tree. Throws std::invalid_argument if `parent` is not a tree (exactly one -1, no cycle, indices in
// range) or if release_s is neither empty nor one entry per rank.
Simulation simulate(const std::vector<int32_t>& parent, CostSampler& costs, TransferModel model,
                    const std::vector<double>& release_s = {});
Simulation simulate(const std::vector<int32_t>& parent, const HeteroCosts& costs,
                    TransferModel model = TransferModel::overlap, const std::vector<double>& release_s = {});
// The homogeneous model, overlapped.
Simulation simulate(const std::vector<int32_t>& parent, const Costs& costs, const std::vector<double>& release_s = {});

// Largest number of transfers in flight at one instant (intervals [send_start, arrive), empty ones ignored).
int max_concurrent_transfers(const Simulation& sim);
// The same; `costs` is not read (the homogeneous callers pass it).
int max_concurrent_transfers(const Simulation& sim, const Costs& costs);

}  // namespace redux
