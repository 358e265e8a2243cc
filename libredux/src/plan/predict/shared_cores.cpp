// Ranks that share cores: the models (Canon & Antoniu's one-port model, and its time in flight, model/costs.hpp)
// let every rank work at once; a node that runs more ranks than it has hardware threads cannot. There a
// transfer between two of its ranks takes a thread for about its whole d: calibration ping-pongs while the
// node's other ranks wait, and on shared cores d is mostly the scheduler handing the thread to the rank that
// receives (d grows with the ranks per core), which a message in flight does not shorten. So a node with P ranks
// on C < P threads needs at least (the d of its ranks' transfers to each other + the c of the folds they end in) /
// C, whatever the tree: a floor under the predicted time. A prediction is the plan's makespan or this floor, whichever
// is larger.
//
// Plan selection ranks plans by this prediction, then by makespan (plan/select.cpp): on one node every unsegmented
// tree of n ranks makes n - 1 transfers and has the same floor, so there the makespan decides; a plan in k segments
// makes k (n - 1) transfers, each paying its latency, and ranks behind. Without the floor the tree with the most
// messages in flight together is predicted several times faster than the binomial tree on shared cores, where it
// runs about as fast and takes several times its prediction; with the floor its prediction is near what it takes.
//
// Segments: each is a transfer; the segments of a link take together what the segmented model gives them
// (summed_segment_transfers_s), and its folds the whole c. Transfers between nodes are not counted: their d is
// mostly the network's.
#include "plan/predict/shared_cores.hpp"

#include "plan/planner.hpp"
#include "plan/predict/segments.hpp"

#include <algorithm>
#include <map>

namespace redux {

double shared_cores_floor_s(const Plan& plan, const std::vector<RankPlace>& place) {
    const PlanRequest& request = plan.request;
    const auto n = static_cast<size_t>(request.ranks);
    if (place.size() != n || plan.parent.size() != n) return 0;
    struct Node {
        int32_t ranks = 0, cpus = 0;
        double busy_s = 0;  // transfers and folds between its ranks
    };
    std::map<int32_t, Node> nodes;
    for (const RankPlace& p : place) {
        Node& node = nodes[p.node];
        ++node.ranks;
        node.cpus = std::max(node.cpus, p.node_cpus);
    }
    const HeteroCosts* h = request.hetero_costs.get();
    const int32_t segments = std::max(plan.segments, 1);
    std::map<double, double> summed_s;  // by a link's d: its segments' summed d_e
    auto add = [&](int32_t from, int32_t to, double share, bool folds) {
        const int32_t on = place[static_cast<size_t>(to)].node;
        Node& node = nodes[on];
        if (place[static_cast<size_t>(from)].node != on || node.cpus == 0 || node.ranks <= node.cpus) return;
        const double d = h ? h->transfer_s(from, to) : request.costs.transfer_s;
        const auto [it, fresh] = summed_s.try_emplace(d, 0.0);
        if (fresh) it->second = summed_segment_transfers_s(request, d, segments);
        node.busy_s += share * (it->second + (folds ? (h ? h->compute_s(to) : request.costs.compute_s) : 0.0));
    };
    // The share of the segments each tree (tree 0, then more_trees) reduces.
    std::vector<double> share(1 + plan.more_trees.size(), 0.0);
    for (int32_t j = 0; j < segments; ++j) share[static_cast<size_t>(plan.tree_of(j))] += 1.0 / segments;
    for (size_t t = 0; t < share.size(); ++t) {
        if (share[t] == 0) continue;  // a tree no segment goes along
        const std::vector<int32_t>& parent = t == 0 ? plan.parent : plan.more_trees[t - 1].parent;
        for (size_t r = 0; r < n; ++r) {
            if (parent[r] >= 0) add(static_cast<int32_t>(r), parent[r], share[t], true);
        }
    }
    if (plan.final_transfer) add(plan.sink, request.root, 1.0, false);
    double floor_s = 0;
    for (const auto& entry : nodes) {
        const Node& node = entry.second;
        if (node.busy_s > 0) floor_s = std::max(floor_s, node.busy_s / node.cpus);
    }
    return floor_s;
}

}  // namespace redux
