// The choice of a plan's segment count: a search over the counts, each predicted by the segmented model
// (segments.cpp), bounded by the work it may simulate.
//
// Choosing m (PlanRequest::segments == 0). The prediction T(m) falls steeply while segments shorten the pipeline
// fill, then rises slowly as the latency of every extra segment adds up: close to a convex function of m, as the
// closed forms of the encyclopedia entry (segments.cpp), (latency + (d - latency) / m)(h + K m - K), are. But the cut
// makes it ripple: m segments of which the largest holds ceil(elements / m) elements pace the pipeline like the fewest
// segments with that largest size, and cost more latency. The search (choose_segments) therefore walks the candidates,
// the fewest segments for each largest size (every m once elements >= cap^2):
//   1. every m from 1 to the cap when the cap is at most kExhaustiveUpTo (64); otherwise
//   2. a coarse scan of the candidates, about geometric (m = 1, 2, 3, 4, 6, 9, ..., ratio 3/2), that stops once
//      two scanned counts in a row predict 10 % more than the best so far (past the minimum of a convex T);
//   3. a ternary search over the candidates between the neighbours of the best scanned one, down to
//      kLocalWidth of them, then each of those;
//   4. the counts after the best with the same largest segment (more segments, a smaller first one: the fill
//      shortens, sometimes by more than the extra latency).
// Exact on a unimodal T. The unit tests compare it with every count (elements up to 5000, every homogeneous
// strategy): the same minimum within 1e-9 whenever latency_s > 0; with latency_s = 0 (predictions nearly flat
// near the cap) up to 1e-4 above it, less than one element's share of the vector.
// The cap is min(elements, 4096): in the closed forms the most a larger count could gain is the fill of the
// pipeline at the cap, about (h - 1)(d - latency) / 4096 for a tree of height h, under 1 % of d up to height 41
// (every logarithmic tree up to millions of ranks); and each segment is one more message per edge, whose software
// costs the executor pays and the model sees only through latency_s. A forced count (segments >= 1) is not capped.
//
// Planning time: one simulation costs O(ranks x segments), times its passes for a plan over several trees (up to
// MultiTreeSimulation::kSharingPasses), and the search simulates a few dozen counts per candidate. Every rank of a
// communicator plans each new key, so the search is bounded by its work, never by a clock (the ranks must reach the
// same plan): its search simulates at most kSearchSegments segments per rank (ranks x kSearchSegments
// rank-segments), whatever the vector's length, and a plan over several trees about as much again to predict its
// finalists in more passes (Search). The first prediction is always made; a count whose prediction
// would go past the bound is skipped, treated as no better than the best so far. The steps above run in the
// order of their worth: the main search (small counts first), the curve's points from the largest size down (the
// fewest segments first), the counts after the best. At 8 to 16 ranks a search then takes a millisecond or less;
// choice_cache.hpp keeps its answers for keys of the same shape.
#include "plan/predict/segments.hpp"

#include "plan/planner.hpp"
#include "plan/predict/choice_cache.hpp"
#include "plan/predict/multi_tree_segments.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace redux {
namespace {

using segmented::MultiTreeSimulation;

constexpr int32_t kExhaustiveUpTo = 64;  // caps at most this: every m is predicted
constexpr int32_t kLocalWidth = 8;       // the ternary search stops at intervals this narrow, then scans them
constexpr double kTieRelative = 1e-12;   // predictions closer than this are equal: the fewer segments win
constexpr double kRiseToStop = 0.1;      // the scan stops after two counts predicted 10 % above the best so far

// Predictions by segment count, each made once; `better` orders them (smaller makespan, then fewer segments). A
// plan over several trees is searched on its first pass only (each further pass moves its sends by what the other
// trees' took in the pass before: a few percent of the makespan, the ranking of counts mostly as the first pass
// has it), and the kFinalists counts whose first pass predicts least are predicted again at the end, in as many
// passes as another kSearchSegments allow (every pass, up to MultiTreeSimulation::kSharingPasses, where the vector
// is cut into few segments), the best of them in two passes at least. In all, a choice simulates at most
// kSearchSegments segments per rank in its search and kSearchSegments + 2 kMaxChosenSegments in its finalists.
class Search {
public:
    explicit Search(const Plan& plan) : plan_(plan), several_trees_(!plan.more_trees.empty()) {}

    // The prediction at m segments; infinite where making it would go past kSearchSegments.
    double operator()(int32_t m) {
        auto found = seen_.find(m);
        if (found == seen_.end()) {
            const int64_t work = m == 1 && !several_trees_ ? 0 : m;  // one segment of one tree: the plan's own
            if (!seen_.empty() && searched_ + work > kSearchSegments) return std::numeric_limits<double>::infinity();
            searched_ += work;
            const SegmentTimes times =
                several_trees_ ? MultiTreeSimulation(plan_, m).run(1) : predict_segments(plan_, m);
            found = seen_.emplace(m, times).first;
        }
        return found->second.makespan_s;
    }

    bool better(int32_t a, int32_t b) {
        const double ta = (*this)(a), tb = (*this)(b);
        if (std::abs(ta - tb) <= kTieRelative * std::max(ta, tb)) return a < b;
        return ta < tb;
    }

    // The count of the smallest prediction so far (among equal ones the fewest segments).
    int32_t best_seen() const { return best_of(seen_).segments; }

    // The best count seen; of a plan over several trees, the best of the finalists predicted again.
    SegmentChoice best() const {
        SegmentChoice choice = best_of(seen_);
        choice.evaluations = static_cast<int32_t>(seen_.size());
        choice.simulated_segments = searched_;
        if (!several_trees_) return choice;
        std::vector<std::pair<double, int32_t>> ranked;  // (first pass's prediction, m)
        for (const auto& [m, times] : seen_) ranked.emplace_back(times.makespan_s, m);
        std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        std::map<int32_t, SegmentTimes> finalists;
        int64_t left = kSearchSegments, simulated = searched_;
        for (size_t i = 0; i < ranked.size() && i < static_cast<size_t>(kFinalists); ++i) {
            const int32_t m = ranked[i].second;
            const int64_t most = MultiTreeSimulation::most_passes(static_cast<int64_t>(plan_.parent.size()) * m);
            const int64_t passes = std::min(most, std::max<int64_t>(i == 0 ? 2 : 0, left / m));
            if (passes < std::min<int64_t>(most, 2)) break;  // no pass beyond the search's
            finalists.emplace(m, MultiTreeSimulation(plan_, m).run(static_cast<int32_t>(passes)));
            left -= passes * m;
            simulated += passes * m;
        }
        const int32_t evaluations = choice.evaluations + static_cast<int32_t>(finalists.size());
        choice = best_of(finalists);
        choice.evaluations = evaluations;
        choice.simulated_segments = simulated;
        return choice;
    }

private:
    static constexpr int32_t kFinalists = 6;

    // The smallest prediction, among equal ones the fewest segments.
    static SegmentChoice best_of(const std::map<int32_t, SegmentTimes>& predicted) {
        SegmentChoice choice;
        bool first = true;
        for (const auto& [m, times] : predicted) {  // in increasing m
            const double t = times.makespan_s, best_t = choice.times.makespan_s;
            if (first || (std::abs(t - best_t) > kTieRelative * std::max(t, best_t) && t < best_t)) {
                choice.segments = m;
                choice.times = times;
                first = false;
            }
        }
        return choice;
    }

    const Plan& plan_;
    const bool several_trees_;
    int64_t searched_ = 0;  // segments per rank the search has simulated
    std::map<int32_t, SegmentTimes> seen_;
};

}  // namespace

int32_t max_chosen_segments(const Plan& plan) {
    if (plan.request.model != TransferModel::overlap) return 1;
    return static_cast<int32_t>(std::min<int64_t>(plan.request.elements, kMaxChosenSegments));
}

std::vector<int32_t> candidate_segments(int64_t elements, int32_t cap) {
    std::vector<int32_t> counts;
    for (int32_t m = 1; m <= cap; ++m) {
        const int64_t largest = (elements + m - 1) / m;
        if ((elements + largest - 1) / largest == m) counts.push_back(m);
    }
    return counts;
}

namespace {

// The counts after the best one found that cut no larger segments (up to the next candidate): more segments, the
// largest of the same size, sometimes a little better.
void scan_same_largest(Search& search, const std::vector<int32_t>& counts) {
    const int32_t best = search.best().segments;
    const auto next = std::upper_bound(counts.begin(), counts.end(), best);
    const int32_t end = next == counts.end() ? counts.back() + 1 : *next;
    for (int32_t m = best + 1; m < end; ++m) search(m);
}

// Steps 2 and 3 of the search (above) over `counts`, ascending.
void search_counts(Search& search, const std::vector<int32_t>& counts) {
    const auto last = static_cast<int32_t>(counts.size()) - 1;
    std::vector<int32_t> scanned;  // indices into counts, roughly geometric in m
    size_t best = 0;
    int32_t rising = 0;  // scanned counts in a row predicted well above the best
    for (int32_t i = 0, target = counts.front(); i <= last && rising < 2; ++i) {
        if (counts[i] < target && i < last) continue;
        scanned.push_back(i);
        target = std::max(target + 1, target * 3 / 2);
        if (search.better(counts[i], counts[scanned[best]])) best = scanned.size() - 1;
        rising = search(counts[i]) > (1 + kRiseToStop) * search(counts[scanned[best]]) ? rising + 1 : 0;
    }
    int32_t lo = scanned[best > 0 ? best - 1 : 0];
    int32_t hi = scanned[std::min(best + 1, scanned.size() - 1)];
    while (hi - lo > kLocalWidth) {
        const int32_t third = (hi - lo) / 3;
        if (search.better(counts[lo + third], counts[hi - third])) {
            hi -= third;
        } else {
            lo += third;
        }
    }
    for (int32_t i = lo; i <= hi; ++i) search(counts[i]);
}

// The search of choose_segments over `counts`, each residue mod `trees` on its own (T trees ripple with m mod T).
void search_residues(Search& search, const std::vector<int32_t>& counts, int32_t trees) {
    for (int32_t residue = 0; residue < trees; ++residue) {
        std::vector<int32_t> some;
        for (int32_t m : counts) {
            if (trees == 1 || m % trees == residue) some.push_back(m);
        }
        if (!some.empty()) search_counts(search, some);
    }
}

// Below each point of the calibrated curve: where the curve has a protocol step (an eager limit, a rendezvous above
// it), T(m) jumps down at the fewest segments that fit under it, and a search of a convex T steps over that. Where
// the fewest segments under a point predict less than the best so far, the counts from there on are searched
// again (the curve's points include the sizes just below a step: calibration bisects it).
void search_curve_points(Search& search, const PlanRequest& request, const std::vector<int32_t>& counts,
                         int32_t trees) {
    if (!request.segment_curve || request.element_bytes <= 0) return;
    const std::vector<PingSample>& points = request.segment_curve->points;
    for (auto point = points.rbegin(); point != points.rend(); ++point) {  // the fewest segments first
        const int64_t per_segment = static_cast<int64_t>(point->bytes) / request.element_bytes;
        if (per_segment < 1 || per_segment >= request.elements) continue;
        const int64_t fewest = (request.elements + per_segment - 1) / per_segment;
        std::vector<int32_t> from;
        for (int32_t m : counts) {
            if (m >= fewest) from.push_back(m);
        }
        // Searched again only where the step shows: the fewest counts under it (one per residue) beat the best so far.
        const int32_t before = search.best_seen();
        bool below_step = false;
        for (size_t i = 0; i < from.size() && i < static_cast<size_t>(trees); ++i) {
            below_step = search.better(from[i], before) || below_step;
        }
        if (below_step) search_residues(search, from, trees);
    }
}

}  // namespace

SegmentChoice search_segments(const Plan& plan) {
    const int32_t cap = max_chosen_segments(plan);
    Search search(plan);
    if (cap <= kExhaustiveUpTo) {
        for (int32_t m = 1; m <= cap; ++m) search(m);
        return search.best();
    }
    const std::vector<int32_t> counts = candidate_segments(plan.request.elements, cap);
    // With T trees the prediction ripples with m mod T (the trees carry ceil or floor of m / T segments each):
    // each residue is searched on its own, where it is close to convex again.
    const auto trees = static_cast<int32_t>(1 + plan.more_trees.size());
    search_residues(search, counts, trees);
    search_curve_points(search, plan.request, counts, trees);
    scan_same_largest(search, counts);
    return search.best();
}

SegmentChoice choose_segments(const Plan& plan) {
    const std::string key = choice_key(plan);
    if (key.empty()) return search_segments(plan);
    if (std::optional<SegmentChoice> kept = cached_choice(key)) return *kept;
    const SegmentChoice choice = search_segments(plan);
    keep_choice(key, choice);
    return choice;
}

}  // namespace redux
