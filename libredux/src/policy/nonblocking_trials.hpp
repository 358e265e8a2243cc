// auto for a key's nonblocking calls (MPI_Iallreduce, ...): the library's own call or one of the key's trees, decided
// by the nonblocking calls' own times, from their start to the completion call that found them complete (what a
// program overlapping work with them waits for, which a blocking call's time does not say). No MPI here: the caller
// starts and times the calls and makes the agreement this class asks for.
//
//   weighing  the key's nonblocking calls take turns, the library's own first, then each of the key's trees (the one
//             auto decided for by blocking calls first, where it did), each timed at this rank. At most
//             kRounds x kSamples calls of each contender; those after them run the library's own, untimed, until
//             the agreement;
//   agreement a nonblocking call may not wait for other ranks, so the times are agreed at the communicator's next
//             blocking reduction (or persistent init), which every rank reaches after the same nonblocking calls:
//             each call's slowest rank, a call not complete at some rank left out. With kSamples calls of every
//             contender agreed, the tree of the smallest median is kept where that median lies more than kTieMargin
//             below the library's (a tie keeps the library's own); with fewer after the most calls, the library's
//             own. Else the weighing goes on;
//   decided   every later nonblocking call of the key runs the decision, untimed, for the rest of the job.
// Every step depends on call counts and agreed times only, so every rank takes it at the same call.
#pragma once

#include "policy/auto_limits.hpp"

#include <cstdint>
#include <mutex>
#include <vector>

namespace redux {

class NonblockingTrials {
public:
    static constexpr int kSamples = 4;  // agreed calls of each contender that decide
    static constexpr int kRounds = 2;   // kSamples calls of each contender, this many times at most
    static constexpr int kMostTrees = AutoLimits::kMaxTrees;
    static constexpr double kTieMargin = AutoLimits::kTieMargin;
    static constexpr double kMissing = 1e300;  // a call not complete at this rank when agreed

    enum class Phase : uint8_t { weighing, native, tree };

    // `trees`: the key's trees weighed against the library's own (the first kMostTrees of them).
    explicit NonblockingTrials(const std::vector<int>& trees);

    // The next nonblocking call of the key: the tree's index, or -1 for the library's own; `trial` its index among
    // the calls weighed (timed: completed() takes its time), or -1.
    int start(int& trial);
    // This rank's time of call `trial` from its start to its completion.
    void completed(int trial, double seconds);
    // Whether calls were weighed since the last agreement: the next blocking reduction agrees on them.
    bool to_agree() const;
    // This rank's times of the calls weighed since the last agreement, kMissing where one is not complete.
    std::vector<double> local() const;
    // The ranks' local() reduced with MPI_MAX. Returns whether it decided.
    bool agree(const std::vector<double>& agreed);

    Phase phase() const;
    // The calls weighed at most: kRounds x kSamples of each contender.
    int most_calls() const { return kRounds * kSamples * static_cast<int>(times_.size()); }
    // After a decision: the tree of the smallest median (the one decided for, under Phase::tree), that median and
    // the library's own, and the calls weighed.
    int tree() const { return tree_; }
    double tree_s() const { return tree_s_; }
    double native_s() const { return native_s_; }
    int calls() const { return started_; }

private:
    mutable std::mutex lock_;  // completed() may come from another thread's completion call
    std::vector<int> trees_;
    Phase phase_ = Phase::weighing;
    int started_ = 0;                         // calls weighed
    int agreed_ = 0;                          // of them, agreed
    std::vector<double> mine_;                // by call weighed: this rank's time, or kMissing
    std::vector<std::vector<double>> times_;  // by contender (the library's own, then trees_): agreed complete calls
    int tree_ = -1;
    double tree_s_ = 0, native_s_ = 0;
};

}  // namespace redux
