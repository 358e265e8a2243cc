// The optimal summation tree of Karp, Sahay, Santos & Schauser, "Optimal Broadcast and Summation in the LogP
// Model" (SPAA 1993): their optimal single-item broadcast tree, run backwards in time with the cost of the
// additions in it, which is how the paper's summation section builds its schedule, here on our model.
//
// LogP and our model (costs.hpp). A message holds its receiver's port for port_s() = d - L, the "port time"
// that stands for LogP's receive overhead and gap, and is in flight for L, when the port is free; a fold costs c
// and overlaps the next receive. A reduction sends every partial result once, so the sender's side of LogP
// never queues and only lengthens a hop, which d already covers. Two numbers then describe every rank:
//     step_s = d + c          a child's result travels and is folded: the shortest hop (LogP's L + 2o, plus
//                             the addition)
//     pace_s = max(d - L, c)  the rank takes its next child's result once port and reducer are both free
//                             (LogP's g; in LogP proper a receive's overhead and an addition cannot overlap)
// and pace_s <= step_s.
//
// Reversed time. A rank whose result is due at T folds its last child by T, so that child must be ready by
// T - step_s; the child before it by T - step_s - pace_s; the k-th from last by T - step_s - k pace_s (the
// earliest schedule, schedule.cpp, is exactly this). Read backwards from T, the sink "un-computes" and hands
// out one element per pace_s, each arriving step_s later at a rank that starts handing out in turn: KSSS's
// broadcast tree, where the root sends at 0, g, 2g, ... and every rank informed at t sends at t, t + g, ...
// So P(T), the most operands (one per rank, all ready at 0) that one tree sums by T, obeys KSSS's recurrence
//     P(T) = 0 (T < 0),   1 (0 <= T < step_s),   P(T - pace_s) + P(T - step_s) (T >= step_s)
// (the rank keeps its own operand and its earlier children within T - pace_s, its last child sums within
// T - step_s), and no tree sums more: by induction, a rank with k children needs its i-th from last ready by
// T - step_s - i pace_s, and each such child sums at most P of that. So the smallest T with P(T) >= n is the
// optimum of our model (and as the greedy's last rank is the n-th earliest of the same infinite tree, at that
// T, this argues the generalised Algorithm 1 optimal too). The recurrence's solution counts paths: a rank m
// hops below the root whose hops waited k paces in all is due k pace_s + m step_s after the root, and there
// are C(k + m - 1, m - 1) of them, so
//     P(T) = sum over m >= 0 with T >= m step_s of C(K_m + m, m),   K_m = floor((T - m step_s) / pace_s)
// (capacity(), binomial_capped()). P jumps only on the lattice T = a pace_s + b step_s, and a Deadline holds
// the integers (a, b): K_m = a + paces_in(b - m), so P(a, b) = P(a - 1, b) + P(a, b - 1) holds exactly, not up
// to rounding, and the construction below never runs out of room.
//
// The tree. smallest_deadline() finds T*, the smallest lattice deadline with P >= n: for b = 1, 2, ... hops
// the fewest paces a by bisection, until b step_s alone is past the best (P(0, b) >= 2^b: b <= ceil(log2 n)).
// Then top-down, each Pending node holds its deadline (a, b) and count, the operands its subtree must sum,
// count <= P(a, b). While count > 1 the node's next slot is its last-folded child, due at (a, b - 1); the
// node's earlier slots and itself, due at (a - 1, b), keep what they can hold, kept = P(a - 1, b), the child
// gets count - kept <= P(a, b - 1) (the recurrence), and the node goes on with (a - 1, b, kept). If the
// earlier slots can hold everything the last ones stay empty: empty_slots() skips to the last slot needed
// (the largest j with P(a - j, b) >= count, doubling then bisection) and the node ends before its deadline.
// So only the spine of last-folded children is cut short; every other subtree is KSSS's whole tree for its
// deadline. Nodes are numbered depth first (parent[i] < i) and make_plan lays them out on ranks as it does
// Algorithm 1's trees (layout.cpp: the sink on the root; contiguous intervals for non-commutative ops).
// Why the earlier slots are filled first: the sink's children are then whole, of sizes P(T* - step_s -
// k pace_s), k >= 1, each at most one more than the sum of the smaller ones (the recurrence), plus one cut
// child no larger than that sum plus one; such sizes add up to every number 0 .. n - 1, so a non-commutative
// plan always finds the root among the sink's positions and needs no final transfer. Filling the last-folded
// child first would not: for n = 3, d = 1, c = L = 0 it makes the chain 0 <- 1 <- 2, and root 1 is unreachable.
//
// Against Algorithm 1 generalised (greedy.cpp): it keeps the n earliest ranks, in reversed time, of the same
// infinite tree (what KSSS's broadcast does for n processors); this file gets T* from the recurrence without
// a heap and cuts the tree top-down. Both are optimal in our model, so the lengths agree (ksss_test.cpp checks
// both against each other, against exhaustive search for n <= 7 and against hand-worked cases), and their
// trees differ where T* leaves room: the greedy trims every subtree at T*, this tree only its spine (n = 6,
// d = 1, c = L = 0: the sink's subtrees hold 3, 1 and 1 ranks there, 2, 2 and 1 here; both take 3).
// Cost: Theta(n) nodes with O(log^2 n) arithmetic each for P; the pending stack is as deep as the tree.
#include "plan/trees/ksss.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace redux {
namespace {

// Relative slack when a deadline meets a lattice point: a point that rounding puts a hair past the deadline
// still counts, so a length can come out a rounding error long, never a pace too long.
constexpr double kSlack = 1e-9;
constexpr double kHugePaces = 1e18;            // saturates every binomial: counts are capped far below
constexpr int64_t kMaxCap = int64_t{1} << 31;  // keeps binomial_capped's products within int64

// floor(x), with the slack, clamped to +-kHugePaces.
int64_t floor_with_slack(double x) {
    const double y = std::floor(x + kSlack * std::max(1.0, std::abs(x)));
    return static_cast<int64_t>(std::clamp(y, -kHugePaces, kHugePaces));
}

// C(k + m, m) for k, m >= 0 -- the ranks m hops deep whose hops waited at most k paces in all -- or `cap` if
// that is less.
int64_t binomial_capped(int64_t k, int64_t m, int64_t cap) {
    if (m == 0) return std::min<int64_t>(1, cap);
    if (k >= cap) return cap;  // C(k + m, m) >= k + 1
    int64_t value = 1;         // C(k + i, i), an integer at every i
    for (int64_t i = 1; i <= m; ++i) {
        value = value * (k + i) / i;
        if (value >= cap) return cap;
    }
    return value;
}

// P capped at `cap`: the sum over m = 0, 1, ... of C(K_m + m, m) while K_m = paces_left(m) >= 0 (K_m decreases).
template <typename PacesLeft>
int64_t capacity(int64_t cap, PacesLeft paces_left) {
    int64_t total = 0;
    for (int64_t m = 0; total < cap; ++m) {
        const int64_t k = paces_left(m);
        if (k < 0) break;
        total += binomial_capped(k, m, cap - total);
    }
    return total;
}

// Deadlines a pace_s + b step_s, held as integers (a may be negative; the deadline is then still >= 0).
struct Deadline {
    int64_t a = 0;
    int64_t b = 0;
};

struct Lattice {
    double pace_s, step_s;

    double seconds(const Deadline& t) const {
        return static_cast<double>(t.a) * pace_s + static_cast<double>(t.b) * step_s;
    }
    // floor(j step_s / pace_s): the paces j steps hold (j < 0: minus the paces j steps short take back).
    int64_t paces_in(int64_t j) const { return floor_with_slack(static_cast<double>(j) * (step_s / pace_s)); }
    // P(a, b), capped.
    int64_t operands(int64_t a, int64_t b, int64_t cap) const {
        return capacity(cap, [&](int64_t m) { return a + paces_in(b - m); });
    }
};

// T*, for n >= 2 and pace_s > 0. Every rank but the sink is at least one hop deep (b >= 1); the star,
// P(n - 2, 1) >= n, bounds a; P(a, b) grows with a and with b.
Deadline smallest_deadline(int32_t n, const Lattice& lattice) {
    Deadline best{n - 2, 1};
    double best_s = lattice.seconds(best);
    for (int64_t b = 1; static_cast<double>(b) * lattice.step_s < best_s; ++b) {
        int64_t too_few = -1, enough = n - 2;  // P(too_few, b) < n (or none), P(enough, b) >= n
        while (enough - too_few > 1) {
            const int64_t a = too_few + (enough - too_few) / 2;
            (lattice.operands(a, b, n) >= n ? enough : too_few) = a;
        }
        const Deadline t{enough, b};
        if (lattice.seconds(t) < best_s) {
            best = t;
            best_s = lattice.seconds(t);
        }
    }
    return best;
}

struct Pending {
    int32_t node;
    Deadline due;
    int64_t count;  // operands its subtree sums, <= P(due)
};

// The last slots that stay empty: the largest j with P(a - j, b) >= count, by doubling then bisection.
int64_t empty_slots(const Lattice& lattice, const Pending& p) {
    auto fits = [&](int64_t j) { return lattice.operands(p.due.a - j, p.due.b, p.count) >= p.count; };
    int64_t fit = 0, no_fit = 1;
    while (fits(no_fit)) {
        fit = no_fit;
        no_fit *= 2;
    }
    while (no_fit - fit > 1) {
        const int64_t j = fit + (no_fit - fit) / 2;
        (fits(j) ? fit : no_fit) = j;
    }
    return fit;
}

}  // namespace

int64_t ksss_operands(double deadline_s, const Costs& costs, int64_t cap) {
    if (cap < 1 || cap > kMaxCap) throw std::invalid_argument("ksss_operands: cap must be in [1, 2^31]");
    const double pace_s = costs.pace_s(), step_s = costs.step_s();
    if (pace_s <= 0) {  // no port time, no fold time: a rank takes any number of children by step_s
        if (deadline_s < 0) return 0;
        return deadline_s >= step_s ? cap : 1;
    }
    return capacity(cap, [&](int64_t m) { return floor_with_slack((deadline_s - m * step_s) / pace_s); });
}

Tree ksss_tree(int32_t n, const Costs& costs) {
    if (n < 1) throw std::invalid_argument("ksss_tree: n must be >= 1");
    Tree tree;
    tree.parent.assign(static_cast<size_t>(n), -1);
    if (n == 1) return tree;
    const Lattice lattice{costs.pace_s(), costs.step_s()};
    if (lattice.pace_s <= 0) {  // P is unbounded from step_s on: the star, every child folded at once
        for (int32_t i = 1; i < n; ++i) tree.parent[i] = 0;
        tree.builder_makespan_s = lattice.step_s;
        return tree;
    }
    const Deadline deadline = smallest_deadline(n, lattice);
    tree.builder_makespan_s = lattice.seconds(deadline);

    std::vector<Pending> pending{{0, deadline, n}};
    int32_t next = 1;
    while (!pending.empty()) {
        Pending& p = pending.back();
        if (p.count == 1) {
            pending.pop_back();
            continue;
        }
        p.due.a -= empty_slots(lattice, p);
        // After the skip kept < count; it is at least the node itself, whatever rounding says.
        const int64_t kept = std::max<int64_t>(1, lattice.operands(p.due.a - 1, p.due.b, p.count));
        const Pending child{next++, {p.due.a, p.due.b - 1}, p.count - kept};
        tree.parent[child.node] = p.node;
        p.due.a -= 1;
        p.count = kept;
        pending.push_back(child);  // p is not used again: the push may move it
    }
    return tree;
}

}  // namespace redux
