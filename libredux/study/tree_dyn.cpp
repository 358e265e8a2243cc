// Tree-dyn and Non-Commut-Tree-dyn: Benoit, Canon & Marchal, "Non-clairvoyant reduction algorithms for
// heterogeneous platforms" (INRIA RR-8315, 2013), Section 3.2. Both are Pairings (simulator.hpp): the engine
// calls on_idle whenever a rank holds a partial result and has folded everything sent to it -- every rank at
// time 0, in rank order, then each time a fold ends -- and the pairing answers where that rank sends, or keeps
// it waiting. The costs are the simulator's (fixed or drawn per operation), so neither algorithm knows a cost
// before it is paid.
//
// Tree-dyn keeps one slot. An idle rank that finds the slot empty puts itself there and waits; one that finds
// it full empties it and sends its partial result to the rank that was there, which folds it and becomes idle
// again. A reduction starts as soon as two ranks are idle; any two ranks may pair, so the operator must be
// commutative. At time 0 rank 0 waits, 1 sends to 0, 2 waits, 3 sends to 2, ...: floor(n/2) transfers, as in
// the initial state of their Markov chain (Section 5). The run ends with one rank in the slot: the sink.
//
// Non-Commut-Tree-dyn keeps every idle rank. A rank owns the interval of values [lo, hi] it has reduced; it may
// only pair with the owner of [.., lo - 1] or of [hi + 1, ..] (a "neighbor value"). An idle rank with an idle
// neighbor sends to it -- to the one that has waited longer if both are idle, the left one on a tie -- and the
// receiver's interval grows by the sender's; otherwise it waits. With neighbors only, ranks may wait while
// others are idle (their Figure 3), which is what this algorithm pays for handling non-commutative operators.
#include "study/tree_dyn.hpp"

#include <vector>

namespace redux {
namespace {

class TreeDyn final : public Pairing {
public:
    int32_t on_idle(int32_t rank, int32_t, double) override {
        if (slot_ < 0) {
            slot_ = rank;
            return -1;
        }
        const int32_t partner = slot_;
        slot_ = -1;
        return partner;
    }

private:
    int32_t slot_ = -1;
};

class NonCommutTreeDyn final : public Pairing {
public:
    explicit NonCommutTreeDyn(int32_t n)
        : lo_(static_cast<size_t>(n)),
          hi_(static_cast<size_t>(n)),
          owner_of_lo_(static_cast<size_t>(n)),
          owner_of_hi_(static_cast<size_t>(n)),
          waiting_since_s_(static_cast<size_t>(n), -1.0) {
        for (int32_t r = 0; r < n; ++r) lo_[r] = hi_[r] = owner_of_lo_[r] = owner_of_hi_[r] = r;
    }

    int32_t on_idle(int32_t rank, int32_t, double now_s) override {
        const auto n = static_cast<int32_t>(lo_.size());
        const int32_t left = lo_[rank] > 0 ? owner_of_hi_[lo_[rank] - 1] : -1;
        const int32_t right = hi_[rank] < n - 1 ? owner_of_lo_[hi_[rank] + 1] : -1;
        const bool left_idle = left >= 0 && waiting_since_s_[left] >= 0;
        const bool right_idle = right >= 0 && waiting_since_s_[right] >= 0;
        if (!left_idle && !right_idle) {
            waiting_since_s_[rank] = now_s;
            return -1;
        }
        const bool to_left = left_idle && (!right_idle || waiting_since_s_[left] <= waiting_since_s_[right]);
        const int32_t partner = to_left ? left : right;
        waiting_since_s_[partner] = -1.0;
        if (to_left) {  // partner's [lo, hi] becomes [lo, hi of rank]
            hi_[partner] = hi_[rank];
            owner_of_hi_[hi_[rank]] = partner;
        } else {
            lo_[partner] = lo_[rank];
            owner_of_lo_[lo_[rank]] = partner;
        }
        return partner;
    }

private:
    std::vector<int32_t> lo_, hi_;                    // by rank: the interval of values it holds
    std::vector<int32_t> owner_of_lo_, owner_of_hi_;  // by position: the rank whose interval starts / ends there
    std::vector<double> waiting_since_s_;             // by rank: when it became idle, -1 when not waiting
};

}  // namespace

Simulation simulate_tree_dyn(int32_t n, CostSampler& costs, TransferModel model) {
    TreeDyn pairing;
    return run_simulation(n, pairing, costs, model);
}

Simulation simulate_non_commut_tree_dyn(int32_t n, CostSampler& costs, TransferModel model) {
    NonCommutTreeDyn pairing(n);
    return run_simulation(n, pairing, costs, model);
}

}  // namespace redux
