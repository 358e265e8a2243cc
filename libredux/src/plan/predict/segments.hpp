// Segmented, pipelined reductions: the vector cut into segments of whole elements, each reduced along the same
// tree. See segments.cpp for the model and the simulator, segment_search.cpp for how the segment count is chosen.
#pragma once

#include <cstdint>
#include <vector>

namespace redux {

struct Plan;
struct PlanRequest;

// The first element of segment j when `elements` are cut into `segments` pieces: segment j covers
// [segment_begin(j), segment_begin(j + 1)). Sizes differ by at most one element; no segment is empty when
// segments <= elements. Every rank and the model cut the vector this way.
inline int64_t segment_begin(int64_t elements, int32_t segments, int32_t j) { return elements * j / segments; }

// The most segments the planner considers when it chooses the count (segment_search.cpp says why this many).
constexpr int32_t kMaxChosenSegments = 4096;
// What one choice of the count may simulate, per rank: segments summed over its predictions, each pass of a plan
// over several trees counted (segment_search.cpp, "Planning time"), whatever the vector's length.
constexpr int64_t kSearchSegments = 8192;

struct SegmentTimes {
    double tree_makespan_s = 0;  // the sink holds the last segment of the result
    double makespan_s = 0;       // the root holds it (after the final transfers when the sink is not the root)
};

// The segmented model on `plan` (its tree, fold order, sink and final transfer; the costs, elements, latency_s,
// recv_window and release_s of its request), the vector cut into `segments` >= 1 pieces, at most
// plan.request.elements. Theta(n segments) time. At one segment it equals simulate() wherever the plan's fold
// order is the order in which the children's results arrive (every homogeneous strategy under homogeneous
// costs): tests/unit/segments_test.cpp checks it.
SegmentTimes simulate_segments(const Plan& plan, int32_t segments);

// The same model computed segment by segment (the way plans over several trees are simulated), for any plan:
// equal to simulate_segments() on a single tree. Exposed for the tests.
SegmentTimes simulate_segments_segment_major(const Plan& plan, int32_t segments);

// What the plan predicts at `segments`: the unsegmented simulation already in the plan (plan.tree_makespan_s,
// plan.makespan_s, as make_plan computed them) at one segment of a single tree, simulate_segments() otherwise.
SegmentTimes predict_segments(const Plan& plan, int32_t segments);

// The largest count choose_segments() considers: min(elements, kMaxChosenSegments); 1 under the no-overlap
// model (the segmented model overlaps receives, sends and folds).
int32_t max_chosen_segments(const Plan& plan);

// The counts m in [1, cap] that are the fewest segments for their largest one, ceil(elements / m): the others
// cut the vector into more segments no smaller at their largest. Ascending; every m when elements >= cap^2.
std::vector<int32_t> candidate_segments(int64_t elements, int32_t cap);

struct SegmentChoice {
    int32_t segments = 1;
    SegmentTimes times;
    int32_t evaluations = 0;         // predictions made to find it
    int64_t simulated_segments = 0;  // segments they simulated, per rank, each pass counted
};

// The count in [1, max_chosen_segments(plan)] whose predict_segments() makespan is smallest (among equals the
// fewest segments), found by a coarse geometric scan and a local integer search (segment_search.cpp). `plan` is an
// unsegmented plan as make_plan computes it.
// The answer is kept for plans of the same shape (plan/predict/choice_cache.hpp) and given to them without a search.
SegmentChoice choose_segments(const Plan& plan);
// The search itself, cache aside (for the tests, which compare the two).
SegmentChoice search_segments(const Plan& plan);

// What the `segments` pieces of a vector whose whole takes d on a link take together, as the segmented model
// costs each (d at one segment; more, by the latency every segment pays, at several).
double summed_segment_transfers_s(const PlanRequest& request, double d, int32_t segments);

}  // namespace redux
