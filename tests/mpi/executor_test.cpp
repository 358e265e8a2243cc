// The executor on paths the planner's trees do not reach, and under MPI errors.
//
// FinalTransfer: a non-commutative reduction along a chain whose sink is not the root ends with one more
// transfer, sink -> root (plan/layout.hpp). No tree the builders make needs it (the layout always finds a
// sink on the root), so the programs are written here by hand: the chain 0 <- 1 <- ... <- n-1 (each rank folds
// its right neighbour's interval on the right, the result ends on rank 0) and its mirror (ending on rank n-1),
// run by the executor (redux::execute) for every root, in place or not, unsegmented and in 3 segments (the sink sends
// each segment to the root, which receives it once its own part of the segment has left), and checked against the
// rank-order product.
//
// ReceiveTogether: a star whose root posts its children's receives one after the other, or all at once as plans
// with a time in flight ask (RankProgram::receive_together), from small vectors to ones past the eager limits.
//
// WeightedTrees: segments dealt to several trees (the multi-tree strategy, RankProgram::deal): random trees towards
// the root with random deals, and the planner's own multi-tree plans, for every root, in place or not, from one
// element to past the eager limits, with commutative user ops: the rank-order sum either way.
//
// Halving: recursive halving's pieces sent with every window of them ahead of the partner's.
//
// Lanes: what the planner's programs become (lane_program.hpp): two-tree, multi-tree, receives together.
//
// TooManyTrees: a program over more trees than there are tags (tags::kMostTrees) returns MPI_ERR_TAG and posts
// nothing, rather than sending segments of different trees with one tag.
//
// MidwayError: an MPI error inside the executor (injected by the request counter at the root, after requests
// are posted; unsegmented and in segments of one int) is returned and reaches the user's error handler once, and every
// request the call started has been completed or cancelled when it returns. The other ranks' calls return (small
// messages are sent eagerly).
#include "counting_errhandler.hpp"
#include "exec/execution.hpp"
#include "mpi/tags.hpp"
#include "plan/exec_limits.hpp"
#include "plan/planner.hpp"
#include "plan/steady_state/multi_tree.hpp"
#include "reduce_check.hpp"
#include "request_counter.hpp"
#include "user_ops.hpp"

#include <redux/redux.h>

#include <gtest/gtest.h>
#include <mpi.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

// Runs a tree program through the executor's entry: `args` completed with the layout and the communicator.
int run_program(const redux::RankProgram& program, int segments, int rank, redux::ExecCall args,
                const redux::ElementLayout& layout, MPI_Comm comm, redux::Workspace& workspace,
                const redux::ExecKnobs& knobs) {
    redux::ExecPlan plan;
    plan.program = &program;
    plan.segments = segments;
    plan.knobs = knobs;
    args.layout = layout;
    args.comm = comm;
    args.rank = rank;
    MPI_Comm_size(comm, &args.size);
    return redux::execute(plan, args, workspace);
}

// The chain towards `sink_at_zero ? 0 : n - 1`, with the final transfer to `root` when the sink is not the root.
redux::RankProgram chain_program(int rank, int n, bool sink_at_zero, int root) {
    redux::RankProgram program;
    const int sink = sink_at_zero ? 0 : n - 1;
    const int step = sink_at_zero ? 1 : -1;  // towards the far end
    if (rank != sink) program.parent = rank - step;
    const int child = rank + step;
    if (child >= 0 && child < n) program.children.push_back({child, /*joins_left=*/!sink_at_zero});
    if (sink != root) {
        if (rank == sink) program.send_result_to = root;
        if (rank == root) program.receive_result_from = sink;
    }
    return program;
}

// Runs `program` (this rank's part of a non-commutative reduction) on `operand` and checks the root's result
// against the rank-order product; every request the call started must be completed.
void expect_rank_order_product(const redux_test::Operand& operand, const redux::ElementLayout& layout, int count,
                               int segments, int root, bool in_place, const redux::RankProgram& program, MPI_Comm comm,
                               const redux::ExecKnobs& knobs, bool commutative = false) {
    int rank = 0, size = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const uint64_t seed = static_cast<uint64_t>(count * 31 + root);
    redux_test::TypedBuffer send(operand.datatype(), count), recv(operand.datatype(), count),
        want(operand.datatype(), count);
    const bool at_root = rank == root;
    operand.fill((in_place && at_root ? recv : send).origin(), count, rank, seed);
    redux::ExecCall args;
    args.in_place = in_place && at_root;
    args.input = args.in_place ? recv.origin() : send.origin();
    args.recvbuf = recv.origin();
    args.count = count;
    args.datatype = operand.datatype();
    args.op = operand.op();
    args.commutative = commutative;
    args.root = root;
    redux::Workspace workspace;
    const auto before = redux_test::request_counts();
    const int rc = run_program(program, segments, rank, args, layout, comm, workspace, knobs);
    const auto after = redux_test::request_counts();
    EXPECT_EQ(rc, MPI_SUCCESS);
    EXPECT_EQ(after.started - before.started, after.completed - before.completed);
    if (at_root) {
        operand.expect(want.origin(), count, size, seed);
        EXPECT_EQ(operand.compare(recv.origin(), want.origin(), count), "");
    }
}

// This rank, the size and a duplicate of MPI_COMM_WORLD, freed at the end of the test.
struct World {
    int rank = 0, size = 0;
    MPI_Comm comm = MPI_COMM_NULL;
    World() {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    }
    ~World() { MPI_Comm_free(&comm); }
    World(const World&) = delete;
    World& operator=(const World&) = delete;
};

// Folds in chunks of 40 bytes: several chunks per fold, polling in between.
redux::ExecKnobs small_chunk_knobs() {
    redux::ExecKnobs knobs;
    knobs.chunk_bytes = 40;
    return knobs;
}

std::vector<std::unique_ptr<redux_test::Operand>> non_commutative_operands() {
    std::vector<std::unique_ptr<redux_test::Operand>> operands;
    operands.push_back(redux_test::packed_matrix_operand());
    operands.push_back(redux_test::matrix_operand(redux_test::MatrixLayout::struct_negative_lb));
    operands.push_back(redux_test::matrix_operand(redux_test::MatrixLayout::resized_padded));
    return operands;
}

TEST(FinalTransfer, ChainsEndingAwayFromTheRootGiveTheRankOrderProduct) {
    const World world;
    const int rank = world.rank, size = world.size;
    MPI_Comm comm = world.comm;
    const redux::ExecKnobs small_chunks = small_chunk_knobs();
    for (const auto& operand : non_commutative_operands()) {
        redux::ElementLayout layout;
        ASSERT_EQ(redux::describe_layout(operand->datatype(), layout), MPI_SUCCESS);
        for (int count : {1, 7, 300}) {
            for (bool sink_at_zero : {true, false}) {
                for (int segments : {1, 3}) {
                    for (int root = 0; root < size; ++root) {
                        for (bool in_place : {false, true}) {
                            SCOPED_TRACE(operand->name() + " count " + std::to_string(count) + " segments " +
                                         std::to_string(segments) + " root " + std::to_string(root) +
                                         (sink_at_zero ? " sink 0" : " sink n-1") + (in_place ? " in place" : ""));
                            expect_rank_order_product(*operand, layout, count, segments, root, in_place,
                                                      chain_program(rank, size, sink_at_zero, root), comm,
                                                      small_chunks);
                        }
                    }
                }
            }
        }
    }
}

// Runs `args` by `algorithm` with `flight` bytes ahead (ExecPlan::flight_bytes) and `knobs`; every request it starts
// is completed.
void run_family(redux::FamilyAlgorithm algorithm, const redux::ExecKnobs& knobs, int64_t flight,
                const redux::ExecCall& args) {
    redux::ExecPlan plan;
    plan.algorithm = algorithm;
    plan.knobs = knobs;
    plan.flight_bytes = flight;
    redux::Workspace workspace;
    const auto before = redux_test::request_counts();
    ASSERT_EQ(redux::execute(plan, args, workspace), MPI_SUCCESS);
    const auto after = redux_test::request_counts();
    EXPECT_EQ(after.started - before.started, after.completed - before.completed);
}

// Halving: recursive halving's allreduce (exec/exchanges.cpp) with each step's half in many pieces, sent one at a
// time after the partner's (window 1), a few ahead (3 pieces in flight) and all at once, unsegmented op chunks or
// small ones, a non-commutative op: every rank's result is the rank-order product, and every request is completed.
TEST(Halving, WindowsOfPiecesGiveTheRankOrderProduct) {
    const World world;
    const int rank = world.rank, size = world.size;
    const auto operand = redux_test::matrix_operand(redux_test::MatrixLayout::struct_negative_lb);
    redux::ElementLayout layout;
    ASSERT_EQ(redux::describe_layout(operand->datatype(), layout), MPI_SUCCESS);
    const int64_t piece = redux::kExecLimits.family_piece_bytes;
    // 16 pieces in step 0's half where the ranks are a power of two (fewer, longer ones after a pair folds)
    const int count = static_cast<int>(32 * piece / layout.type_size);
    for (const int64_t flight : {int64_t{0}, 3 * piece, int64_t{1} << 40}) {
        for (const redux::ExecKnobs& knobs : {redux::ExecKnobs{}, small_chunk_knobs()}) {
            SCOPED_TRACE("flight " + std::to_string(flight) + " chunk " + std::to_string(knobs.chunk_bytes));
            const uint64_t seed = static_cast<uint64_t>(flight % 1000 + knobs.chunk_bytes);
            redux_test::TypedBuffer send(operand->datatype(), count), recv(operand->datatype(), count),
                want(operand->datatype(), count);
            operand->fill(send.origin(), count, rank, seed);
            redux::ExecCall args;
            args.collective = redux::Collective::allreduce;
            args.input = send.origin();
            args.recvbuf = recv.origin();
            args.count = count;
            args.datatype = operand->datatype();
            args.op = operand->op();
            args.commutative = false;
            args.layout = layout;
            args.comm = world.comm;
            args.rank = rank;
            args.size = size;
            run_family(redux::FamilyAlgorithm::reduce_scatter, knobs, flight, args);
            operand->expect(want.origin(), count, size, seed);
            EXPECT_EQ(operand->compare(recv.origin(), want.origin(), count), "");
        }
    }
}

// Ring: the ring's allreduce and reduce-scatter-block (exec/exchanges.cpp) with each block in several pieces (and
// neighbouring blocks in different numbers of them), one piece in flight (window 1), a few, or all at once, whole or
// small op chunks, in place or not: every rank's result is the sum, and every request is completed.
TEST(Ring, WindowsOfPiecesGiveTheSum) {
    const World world;
    const int rank = world.rank, size = world.size;
    const int64_t piece = redux::kExecLimits.family_piece_bytes;
    // 5 pieces of ints per block; one element less (allreduce's uneven blocks) makes 4
    const int per_block = static_cast<int>(5 * piece / static_cast<int64_t>(sizeof(int)));
    const auto value = [](int r, int64_t i) { return static_cast<int>((r + 1) * 7 + i % 1013); };
    // one piece in flight; three, with small op chunks, in place; all of them, in place
    const struct {
        int64_t flight;
        redux::ExecKnobs knobs;
        bool in_place;
    } cases[] = {{0, redux::ExecKnobs{}, false},
                 {3 * piece, small_chunk_knobs(), true},
                 {int64_t{1} << 40, redux::ExecKnobs{}, true}};
    for (const redux::Collective collective : {redux::Collective::allreduce, redux::Collective::reduce_scatter_block}) {
        const bool allreduce = collective == redux::Collective::allreduce;
        const int count = allreduce ? per_block * size - size / 2 : per_block;
        const int64_t total = allreduce ? count : static_cast<int64_t>(count) * size;
        for (const auto& c : cases) {
            SCOPED_TRACE(std::string(allreduce ? "allreduce" : "reduce-scatter-block") + " flight " +
                         std::to_string(c.flight) + " chunk " + std::to_string(c.knobs.chunk_bytes) +
                         (c.in_place ? " in place" : ""));
            std::vector<int> send(static_cast<size_t>(total)), recv(static_cast<size_t>(total), -1);
            for (int64_t i = 0; i < total; ++i) send[static_cast<size_t>(i)] = value(rank, i);
            if (c.in_place) recv = send;
            redux::ExecCall args;
            args.collective = collective;
            args.input = c.in_place ? recv.data() : send.data();
            args.recvbuf = recv.data();
            args.in_place = c.in_place;
            args.count = count;
            args.datatype = MPI_INT;
            args.op = MPI_SUM;
            ASSERT_EQ(redux::describe_layout(MPI_INT, args.layout), MPI_SUCCESS);
            args.comm = world.comm;
            args.rank = rank;
            args.size = size;
            run_family(redux::FamilyAlgorithm::ring, c.knobs, c.flight, args);
            const int64_t first = allreduce ? 0 : static_cast<int64_t>(rank) * count;
            int wrong = 0;
            for (int64_t i = 0; i < count; ++i) {
                int want = 0;
                for (int r = 0; r < size; ++r) want += value(r, first + i);
                wrong += recv[static_cast<size_t>(i)] != want;
            }
            EXPECT_EQ(wrong, 0);
        }
    }
}

// ReceiveTogether: a star on the root (every other rank its child; those below it join on the left, nearest
// first, those above on the right), its receives posted one after the other or all at once
// (RankProgram::receive_together), with vectors from one element to past the MPI libraries' eager limits (the
// sends then wait for their receives), for every root, in place or not: the rank-order product either way.
TEST(ReceiveTogether, StarsGiveTheRankOrderProductEitherWay) {
    const World world;
    const int rank = world.rank, size = world.size;
    MPI_Comm comm = world.comm;
    const redux::ExecKnobs knobs;
    for (const auto& operand : non_commutative_operands()) {
        redux::ElementLayout layout;
        ASSERT_EQ(redux::describe_layout(operand->datatype(), layout), MPI_SUCCESS);
        const int past_eager = static_cast<int>((256 << 10) / layout.extent) + 1;
        for (int count : {1, 300, past_eager}) {
            for (int root = 0; root < size; ++root) {
                redux::RankProgram star;
                if (rank != root) star.parent = root;
                for (int child = root - 1; rank == root && child >= 0; --child) star.children.push_back({child, true});
                for (int child = root + 1; rank == root && child < size; ++child)
                    star.children.push_back({child, false});
                for (bool together : {false, true}) {
                    star.receive_together = together;
                    for (bool in_place : {false, true}) {
                        SCOPED_TRACE(operand->name() + " count " + std::to_string(count) + " root " +
                                     std::to_string(root) + (together ? " together" : " one by one") +
                                     (in_place ? " in place" : ""));
                        expect_rank_order_product(*operand, layout, count, 1, root, in_place, star, comm, knobs);
                    }
                }
            }
        }
    }
}

// This rank's part of trees given by parent vectors (every rank's parent in each tree, -1 at the root), children
// in rank order, joining on the right; segment j along tree deal[j % deal.size()].
redux::RankProgram weighted_program(int rank, const std::vector<std::vector<int32_t>>& parents,
                                    std::vector<int32_t> deal) {
    redux::RankProgram program;
    for (size_t t = 0; t < parents.size(); ++t) {
        redux::RankProgram::TreeRole role;
        role.parent = parents[t][static_cast<size_t>(rank)];
        for (size_t u = 0; u < parents[t].size(); ++u) {
            if (parents[t][u] == rank) role.children.push_back({static_cast<int32_t>(u), false});
        }
        if (t == 0) {
            program.parent = role.parent;
            program.children = role.children;
        } else {
            program.more_trees.push_back(role);
        }
    }
    program.deal = std::move(deal);
    return program;
}

// A random tree towards `root`: ranks joined in a random order, each to a random one already in.
std::vector<int32_t> random_in_tree(int size, int root, std::mt19937& rng) {
    std::vector<int32_t> order(static_cast<size_t>(size)), parent(static_cast<size_t>(size), -1);
    for (int r = 0; r < size; ++r) order[static_cast<size_t>(r)] = r;
    std::swap(order[0], order[static_cast<size_t>(root)]);
    std::shuffle(order.begin() + 1, order.end(), rng);
    for (size_t k = 1; k < order.size(); ++k) {
        parent[static_cast<size_t>(order[k])] = order[std::uniform_int_distribution<size_t>(0, k - 1)(rng)];
    }
    return parent;
}

TEST(WeightedTrees, RandomTreesAndDealsGiveTheSum) {
    const World world;
    const int rank = world.rank, size = world.size;
    MPI_Comm comm = world.comm;
    const redux::ExecKnobs small_chunks = small_chunk_knobs();
    std::vector<std::unique_ptr<redux_test::Operand>> operands;
    operands.push_back(redux_test::user_sum_operand(true));
    operands.push_back(redux_test::struct_operand());
    for (const auto& operand : operands) {
        redux::ElementLayout layout;
        ASSERT_EQ(redux::describe_layout(operand->datatype(), layout), MPI_SUCCESS);
        const int past_eager = static_cast<int>((256 << 10) / layout.extent) + 1;
        for (int count : {1, 7, 300, past_eager}) {
            for (int root = 0; root < size; ++root) {
                std::mt19937 rng(static_cast<uint32_t>(count * 131 + root));  // the same trees on every rank
                const int trees = 1 + static_cast<int>(rng() % 4);
                std::vector<std::vector<int32_t>> parents;
                for (int t = 0; t < trees; ++t) parents.push_back(random_in_tree(size, root, rng));
                std::vector<int32_t> deal(1 + rng() % 7);
                for (int32_t& t : deal) t = static_cast<int32_t>(rng() % static_cast<uint32_t>(trees));
                const redux::RankProgram program = weighted_program(rank, parents, deal);
                for (int segments : {1, 5, 13}) {
                    for (bool in_place : {false, true}) {
                        SCOPED_TRACE(operand->name() + " count " + std::to_string(count) + " root " +
                                     std::to_string(root) + " trees " + std::to_string(trees) + " deal of " +
                                     std::to_string(deal.size()) + " segments " + std::to_string(segments) +
                                     (in_place ? " in place" : ""));
                        expect_rank_order_product(*operand, layout, count, segments, root, in_place, program, comm,
                                                  small_chunks, /*commutative=*/true);
                    }
                }
            }
        }
    }
}

// The planner's multi-tree plan for `size` ranks whose links to `root` are 3x faster than the others (several
// trees from 3 ranks on), for `elements` elements in `segments` segments.
redux::Plan multi_tree_plan(int size, int root, int64_t elements, int32_t segments) {
    std::vector<double> transfer_s(static_cast<size_t>(size * size));
    for (int u = 0; u < size; ++u) {
        for (int v = 0; v < size; ++v)
            transfer_s[static_cast<size_t>(u * size + v)] = u == root || v == root ? 1e-3 : 3e-3;
    }
    redux::PlanRequest request;
    request.ranks = size;
    request.root = root;
    request.strategy = redux::Strategy::multi_tree;
    request.hetero_costs =
        std::make_shared<redux::HeteroCosts>(std::vector<double>(static_cast<size_t>(size), 0.0), transfer_s);
    request.costs = request.hetero_costs->mean_costs();
    request.elements = elements;
    request.segments = segments;
    return redux::make_plan(request);
}

// The planner's multi-tree plan where the root's links are 3x faster than the others (the triangle of the unit
// tests, widened to every size): several trees from 3 ranks on, run as planned.
TEST(WeightedTrees, PlannedMultiTreeGivesTheSum) {
    const World world;
    const int rank = world.rank, size = world.size;
    if (size > redux::kMultiTreeMaxRanks) GTEST_SKIP() << "above the multi-tree's rank limit";
    const auto operand = redux_test::user_sum_operand(true);
    redux::ElementLayout layout;
    ASSERT_EQ(redux::describe_layout(operand->datatype(), layout), MPI_SUCCESS);
    bool several = false;
    for (int root = 0; root < size; ++root) {
        const redux::Plan plan = multi_tree_plan(size, root, 1000, 24);
        several = several || !plan.more_trees.empty();
        for (bool in_place : {false, true}) {
            SCOPED_TRACE("root " + std::to_string(root) + " trees " + std::to_string(1 + plan.more_trees.size()) +
                         (in_place ? " in place" : ""));
            expect_rank_order_product(*operand, layout, 1000, plan.segments, root, in_place,
                                      redux::program_for(plan, rank), world.comm, redux::ExecKnobs{},
                                      /*commutative=*/true);
        }
    }
    if (size >= 3) {
        EXPECT_TRUE(several) << "the planner made one tree where the ports ask for several";
    }
}

// Lanes: what build_lanes makes of the planner's programs (no MPI traffic). A two-tree plan gives every rank two
// stream lanes with its tree's tag, children in at most one of them but at the collector; the root of a
// non-commutative two-tree plan whose collector is elsewhere takes its segments in turn and receives the result.
// A multi-tree plan receives per child. A star with a time in flight on every link receives together while the
// children's vectors fit ExecLimits::together_bytes, and one at a time beyond.
TEST(Lanes, PlansBecomeLanes) {
    const int n = 8;
    redux::PlanRequest request;
    request.ranks = n;
    request.costs = {1e-3, 1e-4};
    request.strategy = redux::Strategy::two_tree;
    request.commutative = false;
    request.root = 3;
    request.elements = 1000;
    request.segments = 10;
    const redux::Plan two = redux::make_plan(request);
    ASSERT_TRUE(two.final_transfer);
    redux::LaneProgram lanes;
    for (int rank = 0; rank < n; ++rank) {
        const redux::RankProgram program = redux::program_for(two, rank);
        ASSERT_TRUE(redux::build_lanes(program, two.segments, {rank, 3, false, 2, false}, lanes));
        ASSERT_EQ(lanes.lanes.size(), 2U);
        int interior = 0;
        for (const redux::Lane& lane : lanes.lanes) {
            EXPECT_EQ(lane.tag, redux::tags::tree(lane.tree));
            EXPECT_EQ(lane.receives, redux::Receives::stream);
            EXPECT_EQ(lane.segments, 5);
            interior += lane.child_count > 0 ? 1 : 0;
        }
        if (rank == two.sink) {
            EXPECT_EQ(lanes.lanes[0].end, redux::LaneEnd::result);
        } else {
            EXPECT_LE(interior, 1) << "rank " << rank;
        }
        EXPECT_EQ(lanes.in_turn, rank == 3);
        EXPECT_EQ(lanes.result_from, rank == 3 ? two.sink : -1);
    }

    request.strategy = redux::Strategy::multi_tree;
    request.commutative = true;
    request.root = 0;
    std::vector<double> transfer_s(static_cast<size_t>(n * n));
    for (int u = 0; u < n; ++u) {
        for (int v = 0; v < n; ++v) transfer_s[static_cast<size_t>(u * n + v)] = u == 0 || v == 0 ? 1e-3 : 3e-3;
    }
    request.hetero_costs =
        std::make_shared<redux::HeteroCosts>(std::vector<double>(static_cast<size_t>(n), 0.0), transfer_s);
    const redux::Plan multi = redux::make_plan(request);
    ASSERT_FALSE(multi.more_trees.empty());
    ASSERT_TRUE(redux::build_lanes(redux::program_for(multi, 0), multi.segments, {0, 0, false, 2, false}, lanes));
    for (const redux::Lane& lane : lanes.lanes) EXPECT_EQ(lane.receives, redux::Receives::per_child);

    redux::PlanRequest star;
    star.ranks = n;
    star.costs = {1e-3, 0.0, 0.9e-3};  // a time in flight on every link: the star
    star.strategy = redux::Strategy::optimal;
    star.element_bytes = 8;
    const int64_t fits = redux::kExecLimits.together_bytes / (n - 1) / star.element_bytes;
    for (const int64_t elements : {fits, fits + 1}) {
        star.elements = elements;
        const redux::Plan plan = redux::make_plan(star);
        ASSERT_EQ(plan.segments, 1);
        ASSERT_EQ(plan.child_offset[1] - plan.child_offset[0], n - 1) << "not the star";
        const redux::RankProgram program = redux::program_for(plan, 0);
        EXPECT_EQ(program.receive_together, elements == fits);
        ASSERT_TRUE(redux::build_lanes(program, 1, {0, 0, false, 2, false}, lanes));
        EXPECT_EQ(lanes.stream_posting,
                  elements == fits ? redux::StreamPosting::together : redux::StreamPosting::one_in_flight);
    }
}

TEST(TooManyTrees, ReturnsAnErrorAndPostsNothing) {
    const World world;
    redux::RankProgram program;
    if (world.rank != 0) program.parent = 0;
    program.more_trees.resize(static_cast<size_t>(redux::tags::kMostTrees));  // one tree more than the tags
    for (redux::RankProgram::TreeRole& role : program.more_trees) role.parent = program.parent;
    program.deal = {0, 1};
    std::vector<int> send(4, world.rank + 1), recv(4, 0);
    redux::ExecCall args;
    args.input = send.data();
    args.recvbuf = recv.data();
    args.count = 4;
    args.datatype = MPI_INT;
    args.op = MPI_SUM;
    redux::ElementLayout layout;
    ASSERT_EQ(redux::describe_layout(MPI_INT, layout), MPI_SUCCESS);
    redux::Workspace workspace;
    const auto before = redux_test::request_counts();
    EXPECT_EQ(run_program(program, 4, world.rank, args, layout, world.comm, workspace, {}), MPI_ERR_TAG);
    EXPECT_EQ(redux_test::request_counts().started, before.started);
}

// One sum of 4 ints at root 0 on a fresh communicator, with `entry` failing at the root after `calls_before`
// calls; `must_fire`: the test expects the root to reach that call. `segment_bytes` > 0 pipelines the sum in
// segments of that many bytes (4: one int a segment); `algorithm` is the tree (default the optimal one).
void sum_with_failure_at_root(redux_test::Entry entry, int calls_before, bool must_fire, long long segment_bytes = 0,
                              redux_algorithm algorithm = REDUX_ALGORITHM_OPTIMAL) {
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm comm = MPI_COMM_NULL;  // set aside at the end, never freed (below)
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Errhandler handler = redux_test::make_counting_errhandler();
    MPI_Comm_set_errhandler(comm, handler);
    std::vector<int> send(4, rank + 1), recv(4, 0);
    redux_options tree = REDUX_OPTIONS_INIT;  // a tree on every call (auto would try the library's reduce too)
    tree.algorithm = algorithm;
    tree.segment_bytes = segment_bytes;
    auto reduce = [&](MPI_Comm on) {
        return redux_reduce_ex(send.data(), recv.data(), 4, MPI_INT, MPI_SUM, 0, on, &tree, nullptr);
    };
    // Make libredux's state for comm first (its creation is collective and must not meet the failure).
    ASSERT_EQ(reduce(comm), MPI_SUCCESS);

    redux_test::reset_error_count();
    const long long injected_before = redux_test::injected_failures();
    if (rank == 0) redux_test::inject_failure(entry, calls_before, MPI_ERR_OTHER);
    const auto before = redux_test::request_counts();
    const int rc = reduce(comm);
    const auto after = redux_test::request_counts();
    redux_test::inject_failure(entry, -1, MPI_SUCCESS);  // disarm, fired or not
    const bool fired = redux_test::injected_failures() > injected_before;

    EXPECT_EQ(after.started - before.started, after.completed - before.completed)
        << "a request started by the call was neither completed nor cancelled";
    if (must_fire && rank == 0) {
        EXPECT_TRUE(fired) << "the injected failure was not reached";
    }
    if (fired) {
        int cls = MPI_SUCCESS;
        MPI_Error_class(rc, &cls);
        EXPECT_EQ(cls, MPI_ERR_OTHER);
        EXPECT_EQ(redux_test::error_count().calls, 1);
        EXPECT_EQ(redux_test::error_count().last_class, MPI_ERR_OTHER);
    } else {
        EXPECT_EQ(rc, MPI_SUCCESS);
        EXPECT_EQ(redux_test::error_count().calls, 0);
    }
    // After an error the communicator's messages may be out of step: the test sets it aside and checks that a
    // fresh one works. Not freed: the children's messages that the root never received stay queued on its
    // (and libredux's private communicator's) context, and MPICH gives a freed context to the next
    // communicator created, where they would be matched (seen: "Message truncated" in the next test).
    static std::vector<MPI_Comm> failed;
    failed.push_back(comm);
    MPI_Errhandler_free(&handler);
    MPI_Comm fresh = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &fresh);
    std::fill(recv.begin(), recv.end(), 0);
    ASSERT_EQ(reduce(fresh), MPI_SUCCESS);
    if (rank == 0) {
        EXPECT_EQ(recv, std::vector<int>(4, size * (size + 1) / 2));
    }
    MPI_Comm_free(&fresh);
}

// The root's first wait on its first child's receive fails: that receive is cancelled (or completed).
TEST(MidwayError, FailedWaitCancelsThePostedReceive) {
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    sum_with_failure_at_root(redux_test::Entry::test, 0, /*must_fire=*/size > 1);
}

// The root's poll during its first fold fails while the next child's receive is in flight (this executable
// runs with REDUX_CHUNK_BYTES=8: two chunks of 4 ints, one poll in between). With three ranks or more the root
// has two children or more under the default costs (c << d: a binomial-like tree), so the poll happens.
TEST(MidwayError, FailedPollCancelsTheReceiveInFlight) {
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    sum_with_failure_at_root(redux_test::Entry::testsome, 0, /*must_fire=*/size > 2);
}

// The root's first receive cannot be posted.
TEST(MidwayError, FailedPostIsReported) {
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    sum_with_failure_at_root(redux_test::Entry::irecv, 0, /*must_fire=*/size > 1);
}

// Segmented: the root has posted the receive of its first child's first segment (the window holds two) when
// posting the second fails; the first is cancelled or completed.
TEST(MidwayError, SegmentedFailedPostCancelsTheSegmentsPosted) {
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    sum_with_failure_at_root(redux_test::Entry::irecv, 1, /*must_fire=*/size > 1, /*segment_bytes=*/4);
}

// Two trees: the root (the collector) has posted its first receive from one tree's root when posting the next,
// from the other tree's, fails; meanwhile the other ranks send their leaf segments ahead.
TEST(MidwayError, TwoTreeFailedPostCancelsTheSegmentsPosted) {
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    sum_with_failure_at_root(redux_test::Entry::irecv, 1, /*must_fire=*/size > 1, /*segment_bytes=*/4,
                             REDUX_ALGORITHM_TWO_TREE);
}

// Segmented: the root's first wait fails with receives of several segments posted.
TEST(MidwayError, SegmentedFailedWaitCancelsTheSegmentsPosted) {
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    sum_with_failure_at_root(redux_test::Entry::test, 0, /*must_fire=*/size > 1, /*segment_bytes=*/4);
}

// Multi-tree (one pipeline per tree, each child's receives posted together): the root has posted its first
// receive when posting the next fails; every receive it posted is cancelled or completed, and the error is
// returned. The other ranks' segments (one int each) are sent eagerly, so their calls return.
TEST(MidwayError, MultiTreeFailedPostCancelsTheSegmentsPosted) {
    const World world;
    const int rank = world.rank, size = world.size;
    if (size > redux::kMultiTreeMaxRanks) GTEST_SKIP() << "above the multi-tree's rank limit";
    const int count = 24;
    const redux::Plan plan = multi_tree_plan(size, 0, count, count);
    MPI_Comm comm = MPI_COMM_NULL;  // set aside at the end, never freed (sum_with_failure_at_root says why)
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    std::vector<int> send(count, rank + 1), recv(count, 0);
    redux::ExecCall args;
    args.input = send.data();
    args.recvbuf = recv.data();
    args.count = count;
    args.datatype = MPI_INT;
    args.op = MPI_SUM;
    args.root = 0;
    redux::ElementLayout layout;
    ASSERT_EQ(redux::describe_layout(MPI_INT, layout), MPI_SUCCESS);
    redux::Workspace workspace;
    const long long injected_before = redux_test::injected_failures();
    if (rank == 0) redux_test::inject_failure(redux_test::Entry::irecv, 1, MPI_ERR_OTHER);
    const auto before = redux_test::request_counts();
    const int rc = run_program(redux::program_for(plan, rank), plan.segments, rank, args, layout, comm, workspace, {});
    const auto after = redux_test::request_counts();
    redux_test::inject_failure(redux_test::Entry::irecv, -1, MPI_SUCCESS);
    const bool fired = redux_test::injected_failures() > injected_before;
    EXPECT_EQ(after.started - before.started, after.completed - before.completed)
        << "a request started by the call was neither completed nor cancelled";
    if (rank == 0 && size > 1) {
        EXPECT_TRUE(fired) << "the injected failure was not reached";
        EXPECT_EQ(rc, MPI_ERR_OTHER);
    } else {
        EXPECT_EQ(rc, MPI_SUCCESS);
    }
    static std::vector<MPI_Comm> failed;
    failed.push_back(comm);
    MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace
