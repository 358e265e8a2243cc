// Every algorithm of the executor advances without waiting: an Execution (exec/execution.hpp) started on every rank
// but the last is stepped with progress() while the last rank has not even started, and only after rank 0's
// progress() has returned kSteps times without finishing does rank 0 let the last rank start. Were any progress()
// to wait for the late rank, rank 0 would never let it go: the test would hang and fail on its timeout. Each
// result is then checked against the sum computed here.
//
// Bounded: every algorithm's step applies the op to one chunk of elements at most.
//
// Cases: a reduction tree (MPI_Reduce; the planner's optimal tree, unsegmented and in 3 segments), a tree then its
// spread (MPI_Allreduce in 2 segments, MPI_Reduce_scatter_block), recursive doubling, recursive halving (with the
// allgather, the scatter of blocks and the gather to the root), and tree-dyn. SharedWorkspace: the schedule a
// workspace keeps is the running tree's.
#include "exec/execution.hpp"
#include "plan/planner.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <sched.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

constexpr int kSteps = 200;
constexpr int kGoTag = 77;

struct Case {
    std::string name;
    redux::FamilyAlgorithm algorithm;
    redux::Collective collective;
    int segments = 1;
};

std::vector<Case> cases() {
    using redux::Collective;
    using redux::FamilyAlgorithm;
    return {{"tree reduce", FamilyAlgorithm::tree, Collective::reduce, 1},
            {"tree reduce, 3 segments", FamilyAlgorithm::tree, Collective::reduce, 3},
            {"tree allreduce, 2 segments", FamilyAlgorithm::tree, Collective::allreduce, 2},
            {"tree reduce-scatter-block", FamilyAlgorithm::tree, Collective::reduce_scatter_block, 1},
            {"recursive doubling", FamilyAlgorithm::recursive_doubling, Collective::allreduce, 1},
            {"halving allreduce", FamilyAlgorithm::reduce_scatter, Collective::allreduce, 1},
            {"halving reduce-scatter-block", FamilyAlgorithm::reduce_scatter, Collective::reduce_scatter_block, 1},
            {"halving reduce", FamilyAlgorithm::reduce_scatter, Collective::reduce, 1},
            {"ring allreduce", FamilyAlgorithm::ring, Collective::allreduce, 1},
            {"ring reduce-scatter-block", FamilyAlgorithm::ring, Collective::reduce_scatter_block, 1},
            {"tree-dyn", FamilyAlgorithm::tree_dyn, Collective::reduce, 1}};
}

// `collective` of MPI_INT with MPI_SUM on `comm`, `count` elements (a reduce-scatter-block: per block).
redux::ExecCall int_sum(redux::Collective collective, const std::vector<int>& input, std::vector<int>& output,
                        int count, MPI_Comm comm) {
    redux::ExecCall call;
    call.collective = collective;
    call.input = input.data();
    call.recvbuf = output.data();
    call.count = count;
    call.datatype = MPI_INT;
    call.op = MPI_SUM;
    redux::describe_layout(MPI_INT, call.layout);
    call.comm = comm;
    MPI_Comm_rank(comm, &call.rank);
    MPI_Comm_size(comm, &call.size);
    return call;
}

// A spread down a binary tree from rank 0, in `segments` pieces.
redux::SpreadRole binary_spread(int rank, int size, int segments) {
    redux::SpreadRole role;
    role.parent = rank == 0 ? -1 : (rank - 1) / 2;
    for (int child : {2 * rank + 1, 2 * rank + 2}) {
        if (child < size) role.children.push_back(child);
    }
    role.segments = segments;
    return role;
}

// What a case runs on this rank: the plan of `total` elements and each algorithm's part of it.
struct CaseRun {
    CaseRun(const Case& c, int rank, int size, int total)
        : plan(make(size, total, c.segments)),
          program(redux::program_for(plan, rank)),
          spread(binary_spread(rank, size, c.segments)),
          batches({1e-5, 1e-6}, 1e-5) {
        exec_plan.algorithm = c.algorithm;
        exec_plan.program = &program;
        exec_plan.segments = c.segments;
        exec_plan.spread = &spread;
        exec_plan.batches = &batches;
    }
    static redux::Plan make(int size, int total, int segments) {
        redux::PlanRequest request;
        request.ranks = size;
        request.costs = {1e-5, 1e-6};
        request.elements = total;
        request.segments = segments;
        return redux::make_plan(request);
    }
    CaseRun(const CaseRun&) = delete;
    CaseRun& operator=(const CaseRun&) = delete;

    redux::Plan plan;
    redux::RankProgram program;
    redux::SpreadRole spread;
    redux::DynBatches batches;
    redux::ExecPlan exec_plan;
};

// The case's result on this rank against the sum of every rank's input, input_r[i] = (r + 1) * value(i).
template <typename Value>
void expect_sum(const Case& c, const std::vector<int>& output, int count, int rank, int size, Value value) {
    const int ranks_sum = size * (size + 1) / 2;
    if (c.collective == redux::Collective::reduce_scatter_block) {
        for (int j = 0; j < count; ++j) {
            ASSERT_EQ(output[static_cast<size_t>(j)], ranks_sum * value(rank * count + j)) << "element " << j;
        }
    } else if (c.collective == redux::Collective::allreduce || rank == 0) {
        for (int i = 0; i < count; ++i) {
            ASSERT_EQ(output[static_cast<size_t>(i)], ranks_sum * value(i)) << "element " << i;
        }
    }
}

TEST(Pause, EveryAlgorithmStepsWhileARankIsLate) {
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    const int late = size - 1;
    const int count = 6;  // per block for a reduce-scatter-block
    for (const Case& c : cases()) {
        SCOPED_TRACE(c.name);
        const int total = c.collective == redux::Collective::reduce_scatter_block ? count * size : count;
        std::vector<int> input(static_cast<size_t>(total)), output(static_cast<size_t>(total), -1);
        for (int i = 0; i < total; ++i) input[static_cast<size_t>(i)] = (rank + 1) * (i + 1);

        const CaseRun run(c, rank, size, total);
        const redux::ExecPlan& exec_plan = run.exec_plan;
        const redux::ExecCall call = int_sum(c.collective, input, output, count, comm);

        redux::Workspace workspace;
        redux::Execution execution;
        int go = 1;
        bool done = false;
        if (rank == late && size > 1) {
            MPI_Recv(&go, 1, MPI_INT, 0, kGoTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            ASSERT_EQ(execution.start(exec_plan, call, workspace), MPI_SUCCESS);
        } else {
            ASSERT_EQ(execution.start(exec_plan, call, workspace), MPI_SUCCESS);
            int steps = 0;
            for (; steps < kSteps && !done; ++steps) {
                bool moved = false;
                ASSERT_EQ(execution.progress(moved, done), MPI_SUCCESS);
            }
            if (rank == 0 && size > 1) {
                // Rank 0's part needs the late rank's data in every case: it cannot be over yet.
                EXPECT_FALSE(done) << "rank 0 finished without the late rank";
                MPI_Send(&go, 1, MPI_INT, late, kGoTag, MPI_COMM_WORLD);
            }
        }
        if (!done) {
            EXPECT_EQ(execution.finish(), MPI_SUCCESS);
        }
        expect_sum(c, output, count, rank, size, [](int i) { return i + 1; });
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Comm_free(&comm);
}

// Elements the counting op was applied to since the test last cleared it.
long g_applied = 0;

// MPI_SUM of ints that counts the elements it is applied to.
void counting_sum(void* in, void* inout, int* len, MPI_Datatype*) {
    const int* a = static_cast<const int*>(in);
    int* b = static_cast<int*>(inout);
    for (int i = 0; i < *len; ++i) b[i] += a[i];
    g_applied += *len;
}

// A step does a bounded amount of op work, so that a nonblocking call's MPI_Test returns promptly: with chunks of
// kChunk elements, no progress() applies the op to more than kChunk elements, whatever the vector's length (a
// one-tree plan runs one fold loop; tree-dyn and the schedules fold one chunk a step). The op is declared
// commutative and not (the tree's two fold orders), and each result is checked against the sum.
TEST(Bounded, EveryStepAppliesTheOpToAChunkAtMost) {
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    constexpr int kChunk = 16;
    const int count = 40 * kChunk + 3;  // per block for a reduce-scatter-block
    for (const int commute : {1, 0}) {
        MPI_Op op = MPI_OP_NULL;
        MPI_Op_create(counting_sum, commute, &op);
        for (const Case& c : cases()) {
            if (!commute && c.algorithm == redux::FamilyAlgorithm::ring) continue;  // ring: commutative ops only
            SCOPED_TRACE(c.name + (commute ? ", commutative" : ", not commutative"));
            const int total = c.collective == redux::Collective::reduce_scatter_block ? count * size : count;
            std::vector<int> input(static_cast<size_t>(total)), output(static_cast<size_t>(total), -1);
            for (int i = 0; i < total; ++i) input[static_cast<size_t>(i)] = (rank + 1) * (i % 97 + 1);

            CaseRun run(c, rank, size, total);
            redux::ExecPlan& exec_plan = run.exec_plan;
            exec_plan.knobs.chunk_bytes = kChunk * sizeof(int);
            redux::ExecCall call = int_sum(c.collective, input, output, count, comm);
            call.op = op;
            call.commutative = commute != 0;

            redux::Workspace workspace;
            redux::Execution execution;
            ASSERT_EQ(execution.start(exec_plan, call, workspace), MPI_SUCCESS);
            long most = 0, all = 0;
            for (bool done = false; !done;) {
                g_applied = 0;
                bool moved = false;
                ASSERT_EQ(execution.progress(moved, done), MPI_SUCCESS);
                most = std::max(most, g_applied);
                all += g_applied;
                if (!moved && !done) sched_yield();
            }
            EXPECT_LE(most, kChunk) << "elements folded in one step (" << all << " in all)";
            expect_sum(c, output, count, rank, size, [](int i) { return i % 97 + 1; });
            MPI_Barrier(MPI_COMM_WORLD);
        }
        MPI_Op_free(&op);
    }
    MPI_Comm_free(&comm);
}

}  // namespace

// A key's trees share one workspace, and each has its own spread: the schedule kept in the workspace is the
// running tree's, whichever ran before. Two spreads (a binary tree and a chain from rank 0) alternate; each run's
// sends go to its own role's children, and its result is the sum.
TEST(SharedWorkspace, EachTreeSpreadsDownItsOwnTree) {
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    const int count = 5;
    redux::PlanRequest request;
    request.ranks = size;
    request.costs = {1e-5, 1e-6};
    request.elements = count;
    const redux::RankProgram program = redux::program_for(redux::make_plan(request), rank);
    const redux::SpreadRole binary = binary_spread(rank, size, 1);
    redux::SpreadRole chain;
    chain.parent = rank - 1;
    if (rank + 1 < size) chain.children.push_back(rank + 1);
    redux::Workspace workspace;
    for (int run = 0; run < 4; ++run) {
        const redux::SpreadRole& role = run % 2 == 0 ? binary : chain;
        SCOPED_TRACE(run % 2 == 0 ? "binary" : "chain");
        redux::ExecPlan plan;
        plan.program = &program;
        plan.spread = &role;
        std::vector<int> input(count), output(count, -1);
        for (int i = 0; i < count; ++i) input[static_cast<size_t>(i)] = (rank + 1) * (i + 1) + run;
        const redux::ExecCall call = int_sum(redux::Collective::allreduce, input, output, count, comm);
        ASSERT_EQ(redux::execute(plan, call, workspace), MPI_SUCCESS);
        for (int i = 0; i < count; ++i) {
            EXPECT_EQ(output[static_cast<size_t>(i)], size * (size + 1) / 2 * (i + 1) + size * run) << "element " << i;
        }
        std::vector<int> sent_to;
        for (const redux::ScheduleStep& step : workspace.schedule.steps) {
            if (step.kind == redux::StepKind::send) sent_to.push_back(step.peer);
        }
        EXPECT_EQ(sent_to, role.children);
    }
    MPI_Comm_free(&comm);
}
