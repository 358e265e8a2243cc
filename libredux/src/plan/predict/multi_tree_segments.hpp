// The segmented model (segments.cpp) of a plan over several trees, simulated segment by segment.
//
// Several trees (Plan::more_trees, the two-tree strategy): segment j goes along tree tree_of(j), j % T there. A rank's
// receives still form one stream, segment-major, now with each segment's children in its own tree. Its sends form one
// stream per tree (to that tree's parent, in segment order), as the executor's: the segments a rank is a leaf
// for are its own data, ready at 0 and sent ahead of its folds. The streams of different trees share the rank's
// link out as a network shares it between messages under way together: each send pays its latency alone, and its
// bytes move at the full bandwidth while it is the rank's only send under way, at half while a send of the other
// tree is (the two-tree: a rank sends in both trees, one segment per tree every two segments). Which sends overlap
// depends on the schedule, so it is computed again until it settles (share_link): each pass shares the links
// with the sends as they are placed so far in this pass and, beyond, as the pass before placed them. That settles
// within 0.01 % in about a dozen passes at 64 KiB; at 4 MiB in a hundred segments it swings by a few percent
// from pass to pass, and the last of kSharingPasses is taken (fewer passes on large plans: kSharingWork). The exception
// is a root that receives the result from the sink (a final transfer): the executor has it send every segment in turn,
// so there its leaf segments are ready once it has folded the earlier ones and its sends are one stream. A rank's times
// now depend on ranks outside its subtree (a parent in another tree paces its sends), so the simulation goes segment by
// segment, and within a segment through its tree in post-order (children first), with each rank's receive port,
// reducer, send streams and W scratch slots carried from one segment to the next. Theta(n m log m) time per pass and
// Theta(n (W + T) + n m) memory. With one tree it is segments.cpp's single-tree simulation (a unit test checks it).
#pragma once

#include "plan/planner.hpp"
#include "plan/predict/segment_model.hpp"
#include "plan/predict/segments.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace redux::segmented {

class MultiTreeSimulation {
public:
    MultiTreeSimulation(const Plan& plan, int32_t segments)
        : plan_(plan),
          m_(segments),
          window_(std::max<int32_t>(1, plan.request.recv_window)),
          costs_(plan.request, segments) {
        trees_.push_back({&plan.child_offset, &plan.child_rank});  // tree 0 is the plan's own
        for (const TreeShape& tree : plan.more_trees) trees_.push_back({&tree.child_offset, &tree.child_rank});
        for (const Children& tree : trees_) order_.push_back(post_order(*tree.offset, *tree.rank, plan.sink));
    }

    // The schedule is computed again, each pass sharing every rank's link out with its sends of the other trees as
    // the pass before placed them, until no send moves (or kSharingPasses).
    // The passes at most of a prediction whose pass simulates `steps` rank-segments.
    static int32_t most_passes(int64_t steps) {
        return static_cast<int32_t>(std::clamp<int64_t>(kSharingWork / std::max<int64_t>(steps, 1), 1, kSharingPasses));
    }

    // passes_at_most: fewer than most_passes() makes a cheaper, rougher prediction (the search's, segment_search.cpp).
    SegmentTimes run(int32_t passes_at_most = kSharingPasses) {
        SegmentTimes times = pass();
        const int32_t passes = std::min(passes_at_most, most_passes(static_cast<int64_t>(plan_.parent.size()) * m_));
        for (int32_t p = 1; p < passes && trees_.size() > 1; ++p) {
            previous_.swap(sends_);
            const SegmentTimes next = pass();
            const bool settled = std::abs(next.makespan_s - times.makespan_s) <= kSettled * times.makespan_s;
            times = next;
            if (settled) break;
        }
        return times;
    }

private:
    SegmentTimes pass() {
        const auto n = static_cast<size_t>(plan_.parent.size());
        const size_t trees = trees_.size();
        sends_.assign(n * trees, {});
        arrived_.assign(n, 0.0);
        folded_.assign(n, 0.0);
        sent_.assign(n * trees, 0.0);
        for (size_t r = 0; r < n && !plan_.release_s.empty(); ++r) {
            std::fill_n(sent_.begin() + static_cast<std::ptrdiff_t>(r * trees), trees, plan_.release_s[r]);
        }
        slot_free_.assign(n * static_cast<size_t>(window_), 0.0);
        slot_.assign(n, 0);
        const Link link_to_root = costs_.link(plan_.sink, plan_.request.root);
        double sink_ready_s = 0, result_arrived_s = 0, result_next_send_s = 0;
        for (int32_t j = 0; j < m_; ++j) {
            const auto t = static_cast<size_t>(plan_.tree_of(j));
            for (int32_t rank : order_[t]) receive_children(trees_[t], t, rank, j);
            sink_ready_s = folded_[static_cast<size_t>(plan_.sink)];
            if (plan_.final_transfer) {
                const Transfer tr =
                    costs_.transfer(link_to_root, j, std::max(sink_ready_s, result_next_send_s), result_arrived_s);
                result_arrived_s = tr.arrived_s;
                result_next_send_s = tr.next_send_s;
            }
        }
        return {sink_ready_s, plan_.final_transfer ? result_arrived_s : sink_ready_s};
    }

    // One tree's children lists (the plan's own, or one of more_trees), in fold order.
    struct Children {
        const std::vector<int32_t>* offset;
        const std::vector<int32_t>* rank;
    };

    // Sends ahead: every rank but a root waiting for the sink's result, when there are several trees.
    bool ahead(size_t rank) const {
        return trees_.size() > 1 && !(plan_.final_transfer && rank == static_cast<size_t>(plan_.request.root));
    }

    // Segment j's receives at `rank` from its children in tree t, in fold order; folded_[rank] becomes the time
    // its segment j is ready.
    void receive_children(const Children& tree, size_t t, int32_t rank, int32_t j) {
        const std::vector<int32_t>& offset = *tree.offset;
        const auto r = static_cast<size_t>(rank);
        const double compute_s = costs_.compute_s(rank);
        const double fold_s = costs_.fold_s(compute_s, j);
        double* slots = slot_free_.data() + r * static_cast<size_t>(window_);
        for (int32_t k = offset[rank]; k < offset[rank + 1]; ++k) {
            const int32_t child_rank = (*tree.rank)[k];
            const auto child = static_cast<size_t>(child_rank);
            const bool leaf = offset[child] == offset[child + 1];
            double& sent_s = sent_[child * trees_.size() + (ahead(child) ? t : 0)];
            const double can_send_s = std::max(leaf && ahead(child) ? 0.0 : folded_[child], sent_s);
            const Link link = costs_.link(child_rank, rank);
            Transfer tr = costs_.transfer(link, j, can_send_s, std::max(arrived_[r], slots[slot_[r]]));
            if (ahead(child)) share_link(child, t, link, j, tr);
            arrived_[r] = tr.arrived_s;
            folded_[r] = std::max(arrived_[r], folded_[r]) + fold_s;
            sent_s = tr.next_send_s;
            slots[slot_[r]] = folded_[r];
            if (++slot_[r] == window_) slot_[r] = 0;
        }
    }

    // `rank`'s send in tree t of segment j over `link`, as `tr` has it alone on the link: after its latency, its
    // bytes share the rank's link out with its sends of the other trees as the previous pass placed them (a fair
    // share: half the bandwidth while one of those is under way), which delays its arrival and the next send.
    void share_link(size_t rank, size_t t, const Link& link, int32_t j, Transfer& tr) {
        const double latency_s = costs_.latency_s(link, j);
        const double bytes_s = costs_.segment_s(link, j) - latency_s;
        const double begin_s = tr.arrived_s - bytes_s;  // its bytes start moving
        double end_s = begin_s + bytes_s;
        if (!previous_.empty()) {
            // the other trees' sends from this rank (two trees: one other send stream, its sends one at a time)
            double at_s = begin_s, left_s = bytes_s;
            for (size_t u = 0; u < trees_.size() && left_s > 0; ++u) {
                if (u == t) continue;
                // this pass's sends so far, then the previous pass's later ones
                const std::vector<Busy>& now = sends_[rank * trees_.size() + u];
                const std::vector<Busy>& before = previous_[rank * trees_.size() + u];
                const auto send = [&](size_t i) -> const Busy& { return i < now.size() ? now[i] : before[i]; };
                const size_t count = std::max(now.size(), before.size());
                size_t lo = 0, hi = count;  // the first that ends after at_s
                while (lo < hi) {
                    const size_t mid = (lo + hi) / 2;
                    if (send(mid).end_s <= at_s) {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                for (size_t i = lo; i < count && left_s > 0; ++i) {
                    const Busy* busy = &send(i);
                    const double alone_s = std::max(0.0, busy->begin_s - at_s);  // the link to itself until then
                    if (left_s <= alone_s) break;
                    left_s -= alone_s;
                    at_s = std::max(at_s, busy->begin_s);
                    const double shared_s = busy->end_s - at_s;  // half the bandwidth until the other one ends
                    if (left_s <= shared_s / 2) {
                        at_s += 2 * left_s;
                        left_s = 0;
                        break;
                    }
                    left_s -= shared_s / 2;
                    at_s = busy->end_s;
                }
            }
            end_s = at_s + left_s;
        }
        sends_[rank * trees_.size() + t].push_back({begin_s, end_s});
        const double delay_s = end_s - (begin_s + bytes_s);
        tr.arrived_s += delay_s;
        tr.next_send_s += delay_s;
    }

    struct Busy {
        double begin_s, end_s;
    };
    static constexpr int32_t kSharingPasses = 24;  // at most; they settle in about a dozen
    static constexpr double kSettled = 1e-6;       // a pass that moves the makespan less than this: done
    // Rank-segments simulated for one prediction, at most: every pass up to 64 ranks in 1024 segments (the same
    // work as one pass of 1024 ranks in 1536), fewer beyond, so that planning time stays that of one tree's
    // simulation times a small factor.
    static constexpr int64_t kSharingWork = int64_t{kSharingPasses} * 65536;

    const Plan& plan_;
    int32_t m_;
    int32_t window_;
    SegmentCosts costs_;
    std::vector<Children> trees_;
    std::vector<std::vector<int32_t>> order_;  // by tree: its ranks children first
    // By rank: its last receive arrived, its last fold ended (= its latest segment ready), its last send of each
    // tree arrived (T a rank), its W scratch slots' fold ends and the next slot.
    std::vector<double> arrived_, folded_, sent_, slot_free_;
    std::vector<int32_t> slot_;
    // By rank and tree: the rank's sends in that tree, when their bytes move, this pass and the one before.
    std::vector<std::vector<Busy>> sends_, previous_;
};

}  // namespace redux::segmented
