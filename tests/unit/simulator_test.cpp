// The model simulator on trees whose schedules can be worked out by hand, and on input that is not a tree.
#include "plan/predict/simulator.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace redux {
namespace {

TEST(Simulator, SingleRankTakesNoTime) {
    const Simulation sim = simulate({-1}, {1.0, 1.0});
    EXPECT_EQ(sim.sink, 0);
    EXPECT_EQ(sim.makespan_s, 0.0);
}

TEST(Simulator, StarPipelinesTransfersUnderFolds) {  // k elements on one machine: d + (k - 1) max(d, c) + c
    for (const Costs costs : {Costs{1.0, 3.0}, Costs{3.0, 1.0}, Costs{2.0, 2.0}}) {
        const std::vector<int32_t> star{-1, 0, 0, 0, 0};
        const Simulation sim = simulate(star, costs);
        EXPECT_DOUBLE_EQ(sim.makespan_s, costs.transfer_s + 3 * costs.max_s() + costs.compute_s);
        EXPECT_EQ(sim.send_start_s,
                  (std::vector<double>{-1, 0, costs.transfer_s, 2 * costs.transfer_s, 3 * costs.transfer_s}));
    }
}

TEST(Simulator, ChainDoesNotOverlap) {
    // 3 -> 2 -> 1 -> 0: each link waits for the fold below it.
    const Simulation sim = simulate({-1, 0, 1, 2}, {2.0, 1.0});
    EXPECT_EQ(sim.ready_s, (std::vector<double>{9.0, 6.0, 3.0, 0.0}));
    EXPECT_EQ(sim.makespan_s, 9.0);
}

TEST(Simulator, ReceivesChildrenInOrderOfReadiness) {
    // Sink 0 has a leaf (1) and a subtree 2 <- 3 that is ready at d + c = 3: the leaf goes first.
    const Simulation sim = simulate({-1, 0, 0, 2}, {2.0, 1.0});
    EXPECT_EQ(sim.send_start_s[1], 0.0);
    EXPECT_EQ(sim.send_start_s[2], 3.0);
    EXPECT_EQ(sim.makespan_s, 6.0);
}

TEST(Simulator, ReleaseTimesDelaySends) {
    const Simulation sim = simulate({-1, 0, 0}, {1.0, 1.0}, {0.0, 5.0, 0.0});
    EXPECT_EQ(sim.send_start_s[2], 0.0);
    EXPECT_EQ(sim.send_start_s[1], 5.0);
    EXPECT_EQ(sim.makespan_s, 7.0);
}

TEST(Simulator, LabelsNeedNotFollowInsertionOrder) {
    const Simulation a = simulate({-1, 0, 0, 2}, {1.0, 2.0});
    const Simulation b = simulate({2, 3, -1, 2}, {1.0, 2.0});  // the same shape, relabelled
    EXPECT_EQ(a.makespan_s, b.makespan_s);
    EXPECT_EQ(b.sink, 2);
}

TEST(Simulator, CountsConcurrentTransfers) {
    const Costs costs{1.0, 0.0};
    // Binomial tree on 4: two transfers at once in the first step.
    const Simulation sim = simulate({-1, 0, 0, 2}, costs);
    EXPECT_EQ(max_concurrent_transfers(sim, costs), 2);
}

TEST(Simulator, RejectsWhatIsNotATree) {
    EXPECT_THROW(simulate({-1, -1}, {1, 1}), std::invalid_argument);
    EXPECT_THROW(simulate({1, 0}, {1, 1}), std::invalid_argument);
    EXPECT_THROW(simulate({-1, 2, 1}, {1, 1}), std::invalid_argument);
    EXPECT_THROW(simulate({-1, 5}, {1, 1}), std::invalid_argument);
    EXPECT_THROW(simulate({-1, 1}, {1, 1}), std::invalid_argument);
    EXPECT_THROW(simulate({-1, 0}, {1, 1}, {0.0}), std::invalid_argument);
}

}  // namespace
}  // namespace redux
