// Slowest-Node-First (Liu & Wang, "Reduction Optimization in Heterogeneous Cluster Environments"): the
// Earliest-Possible schedule of their Section 3 fed with the senders in non-increasing transmission time
// (Section 4), destinations assigned as in their Lemma 1. See snf.cpp for how it works.
#pragma once

#include "model/hetero_costs.hpp"
#include "plan/tree.hpp"

#include <cstdint>
#include <vector>

namespace redux {

struct EarliestPossible {
    std::vector<int32_t> senders;  // in the order they were given (non-decreasing start times)
    std::vector<double> start_s;   // by rank: its transmission window starts (-1 for the final receiver)
    std::vector<int32_t> parent;   // by rank: its destination (Lemma 1); -1 for the final receiver
    int32_t receiver = 0;
    double makespan_s = 0;  // the last transmission's completion time (no computation in Liu & Wang's model)
};

// Algorithm EP of Liu & Wang's Figure 2: `send_s[p]` is the transmission time t(p) of every rank; `senders`
// lists every rank but `receiver`, in the order EP starts them. Throws std::invalid_argument if `senders` is not
// such a list.
EarliestPossible earliest_possible(const std::vector<double>& send_s, const std::vector<int32_t>& senders,
                                   int32_t receiver);

// SNF: EP with every rank but `receiver` by non-increasing send_s (equal times: lower rank first). Liu & Wang
// make the slowest rank the receiver; the planner makes it the MPI root.
EarliestPossible slowest_node_first(const std::vector<double>& send_s, int32_t receiver);

// SNF on general costs: each rank's transmission time is its mean d_ij over j != i (exactly t(p_i) when d
// depends on the sender only); c_i does not enter the order (Liu & Wang have no computation). The tree ends on
// `sink`; builder_makespan_s is the EP length.
RankTree snf_tree(const HeteroCosts& costs, int32_t sink);

}  // namespace redux
