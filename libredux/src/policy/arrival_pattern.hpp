// How the ranks come to a key's calls, as auto's trial starts see them (policy/auto_select.hpp): how late each rank
// comes after the first one there, the prediction being the median over the starts, and whether that repeats from
// one call to the next, as a program's load imbalance does, or not, as random delays do. No MPI.
#pragma once

#include <cstdint>
#include <vector>

namespace redux {

class ArrivalPattern {
public:
    // A start holds the prediction when no rank came further from its predicted lateness than this share of the
    // spread (the largest predicted lateness); the pattern repeats when at least three quarters of the starts do (on 3
    // ranks, one of two drawn at random each call holds a median prediction in half the starts or more).
    static constexpr double kRepeatShare = 0.25;
    // The fewest starts a pattern is told from.
    static constexpr int kLeastStarts = 3;

    // One start: by rank, how long after the first rank each came (seconds, >= 0).
    void add(std::vector<double> lateness_s) { starts_.push_back(std::move(lateness_s)); }
    void clear() { starts_.clear(); }
    int starts() const { return static_cast<int>(starts_.size()); }

    // By rank, the median of its lateness over the starts (empty when there were none).
    std::vector<double> predicted_s() const;
    // The largest predicted lateness, the root's included (0 when none).
    double spread_s() const;
    // How long `root` is predicted to wait for the last rank: the spread less its own lateness (0 when none); root -1:
    // the earliest rank (an allreduce is done when its last rank is, and its first waits longest).
    double wait_s(int root) const;
    // Whether the arrivals repeat: at least kLeastStarts starts, and at least three quarters of them held the
    // prediction.
    bool repeats() const { return starts() >= kLeastStarts && held() * 4 >= starts() * 3; }
    // How many starts held the prediction: no rank further than kRepeatShare of the spread from it (0 where the
    // spread is 0).
    int held() const;

private:
    std::vector<std::vector<double>> starts_;
};

}  // namespace redux
