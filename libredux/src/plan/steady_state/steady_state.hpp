// The steady-state throughput of a series of reductions: the linear program of Legrand, Marchal & Robert,
// "Optimizing the steady-state throughput of scatter and reduce operations on heterogeneous platforms" (IPDPS
// 2004 / RR-2003-33), Section 4. See steady_state.cpp for the program and how it is solved; weighted_trees.hpp
// turns its solution into reduction trees.
//
// Size. With p participants there are p(p+1)/2 partial results v[k,m]; the program has one transfer column per
// partial result and edge (p^4 / 2 on a complete platform) and one task column per fold T[k,l,m] and
// participant (p^4 / 6 in all), and a conservation row per partial result and participant (p^3 / 2). GLPK's
// simplex needs many iterations per row on it, so its time grows much faster than the program's size: it solves
// the program within seconds up to kSteadyStateMaxParticipants participants, takes minutes a few participants
// beyond, and the program of 64 participants takes gigabytes to build. So the program is meant for
// p <= kSteadyStateMaxParticipants, as the reference the paper defines and to check other methods against.
// tree_packing.hpp reaches the same optimum by column generation over trees, for p up to
// kTreePackingMaxParticipants.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace redux {

// The partial result v[first, last]: the reduction, in rank order, of the values of participants first..last.
struct PartialResult {
    int32_t first = 0;
    int32_t last = 0;
};

inline bool operator==(PartialResult a, PartialResult b) { return a.first == b.first && a.last == b.last; }
inline bool operator!=(PartialResult a, PartialResult b) { return !(a == b); }

// "v[first,last]", for messages.
std::string to_string(PartialResult v);

// The p(p+1)/2 partial results of p participants, numbered those starting at 0 first, by length.
inline int32_t partial_result_count(int32_t p) { return p * (p + 1) / 2; }
inline int32_t partial_result_index(PartialResult v, int32_t p) {
    return v.first * p - v.first * (v.first - 1) / 2 + (v.last - v.first);
}

// Participant `from` sends partial result `value` to participant `to`.
struct ResultTransfer {
    PartialResult value;
    int32_t from = 0;
    int32_t to = 0;
};

// Task T[k,l,m] on `node`: v[k,l] (left) folded with v[l+1,m] (right) into v[k,m]. Only adjacent partial results
// fold, left before right, so the result is right for operators that are not commutative.
struct ResultFold {
    int32_t node = 0;
    PartialResult left;
    PartialResult right;

    PartialResult result() const { return {left.first, right.last}; }
};

// The platform graph of Section 2: participants 0..p-1 in rank order (participant i holds v[i,i]), the target
// that ends with v[0,p-1], for every ordered pair (i, j) the time to send one partial result over the edge
// i -> j (infinite where there is no edge), for every participant the time of one fold. All partial results
// have the same size (a segment of the vector), so one transfer time per edge is enough. Times are in seconds,
// or in any unit: rates come out per that unit.
class SteadyStatePlatform {
public:
    SteadyStatePlatform() = default;
    // No edges, every fold free (0 s).
    SteadyStatePlatform(int32_t participants, int32_t target);
    // Every ordered pair an edge: transfer_s is p * p, row-major (transfer_s[i * p + j] for i -> j; the diagonal
    // is ignored; an infinite entry is a missing edge); fold_s one entry per participant. Throws
    // std::invalid_argument on mismatched sizes or a target out of range.
    static SteadyStatePlatform complete(const std::vector<double>& transfer_s, const std::vector<double>& fold_s,
                                        int32_t target);

    int32_t size() const { return static_cast<int32_t>(fold_s_.size()); }
    int32_t target() const { return target_; }

    // Adds or replaces the edge from -> to; an infinite time removes it.
    void set_transfer_s(int32_t from, int32_t to, double transfer_s);
    void set_fold_s(int32_t node, double fold_s);

    bool has_edge(int32_t from, int32_t to) const;
    double transfer_s(int32_t from, int32_t to) const {
        return transfer_s_[static_cast<size_t>(from) * fold_s_.size() + static_cast<size_t>(to)];
    }
    double fold_s(int32_t node) const { return fold_s_[static_cast<size_t>(node)]; }
    // The largest finite time, transfer or fold (0 when there is none): the solvers' unit.
    double largest_time_s() const;

    // Empty when the target is a participant, every edge time is >= 0 (finite or infinite, no NaN) and every
    // fold time finite and >= 0; otherwise a message naming the first bad entry.
    std::string validate() const;

private:
    int32_t target_ = 0;
    std::vector<double> transfer_s_;  // p * p, +infinity where there is no edge (and on the diagonal)
    std::vector<double> fold_s_;
};

struct TransferRate {
    ResultTransfer transfer;
    double per_s = 0;  // send(P_from -> P_to, v[first,last]): transfers per time unit
};

struct FoldRate {
    ResultFold fold;
    double per_s = 0;  // cons(P_node, T[k,l,m]): folds per time unit
};

// s(P_i -> *) summed over i's outgoing edges (send), s(* -> P_i) over its incoming ones (receive), and the
// fraction of time i folds (compute): the one-port model and the compute bound keep each at most 1.
struct BusyFractions {
    std::vector<double> send;
    std::vector<double> receive;
    std::vector<double> compute;
};

BusyFractions busy_fractions(const SteadyStatePlatform& platform, const std::vector<TransferRate>& transfers,
                             const std::vector<FoldRate>& folds);

struct SteadyStateSolution {
    int32_t participants = 0;
    int32_t target = 0;
    double throughput_per_s = 0;          // TP: reductions completed at the target per time unit
    std::vector<TransferRate> transfers;  // the non-zero transfer variables
    std::vector<FoldRate> folds;          // the non-zero task variables
    BusyFractions busy;
    // The program's size and the time GLPK took (both passes), for the record.
    int64_t lp_rows = 0;
    int64_t lp_columns = 0;
    int64_t lp_nonzeros = 0;
    double solve_s = 0;
};

// Above this many participants solve_steady_state refuses (an error, no program built) unless the options raise
// the limit: from p = 14 on the simplex takes minutes (see the top of this file).
constexpr int32_t kSteadyStateMaxParticipants = 12;

struct SteadyStateOptions {
    int32_t max_participants = kSteadyStateMaxParticipants;
    double time_limit_s = 60;  // for each GLPK pass; past it the solve fails with an error
    // A second pass that keeps TP at its optimum and minimises the total busy time (transfers and folds): among
    // the optimal flows it picks one without useless work (a partial result sent round a cycle, a fold whose
    // result nobody uses), which the tree decomposition would only have to discard.
    bool least_busy = true;
};

// Why the solvers (solve_steady_state, pack_reduction_trees) refuse `platform` with a limit of max_participants:
// an invalid platform (validate()), fewer than two participants, more than the limit, or every cost zero. Empty
// when they can try.
std::string steady_state_refusal(const SteadyStatePlatform& platform, int32_t max_participants);

// Builds the Section 4 program for `platform` and solves it with GLPK's simplex. nullopt on an invalid platform,
// fewer than two participants, more than options.max_participants, an unbounded program (every cost on some
// route zero) or a GLPK failure; `error`, when given, says which. TP is 0 when some participant cannot reach the
// target.
std::optional<SteadyStateSolution> solve_steady_state(const SteadyStatePlatform& platform,
                                                      const SteadyStateOptions& options = {},
                                                      std::string* error = nullptr);

// Checks a flow against the program's constraints independently of the solver: non-negative rates on existing
// edges, adjacent folds, one-port and compute fractions at most 1, conservation of every partial result at every
// participant (except v[i,i] at participant i, the source, and v[0,p-1] at the target, where production minus
// shipping equals TP), all to `tolerance` (relative to the largest rate, at least 1). Empty when it holds,
// otherwise the first violation.
std::string steady_state_violation(const SteadyStatePlatform& platform, const SteadyStateSolution& solution,
                                   double tolerance = 1e-7);

}  // namespace redux
