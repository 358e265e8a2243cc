// Runs the planner's per-rank programs over real MPI, on symbolic values, for every plan request shape.
//
// Every rank builds the plan for its communicator size (the planner is deterministic, so all ranks must get
// the same plan; an allreduce of a hash checks it) and runs program_for(plan, rank) with plain blocking MPI:
// its value is the vector {rank}; for each child in fold order it receives the child's vector and concatenates
// it (child ++ acc when the child joins on the left, acc ++ child otherwise); then it sends acc to its parent.
// A sink that is not the root sends the result to the root, which receives it after its own part of the tree.
// Concatenation is the free non-commutative operator, so the root's vector records exactly which ranks were
// folded in which order: 0, 1, ..., n-1 for a non-commutative plan; every rank exactly once for a commutative
// one.
//
// This runner is a reference for the test, not the executor.
#include "plan/planner.hpp"
#include "yielding_wait.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <sched.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Shape {
    redux::Strategy strategy;
    int32_t limit;
};

const Shape kShapes[] = {
    {redux::Strategy::optimal, 0},
    {redux::Strategy::fibonacci, 0},
    {redux::Strategy::binomial, 0},
    {redux::Strategy::chain, 0},
    {redux::Strategy::binary, 0},
    {redux::Strategy::ksss, 0},
    {redux::Strategy::transfers_limited, 1},
    {redux::Strategy::transfers_limited, 2},
    {redux::Strategy::reducers_limited, 1},
    {redux::Strategy::reducers_limited, 2},
};

const redux::Costs kCosts[] = {{1.0, 1.0}, {1.0, 3.0}, {2.0, 0.0}};

std::string describe(const redux::PlanRequest& request) {
    std::ostringstream out;
    out << redux::strategy_name(request.strategy) << " limit=" << request.limit << " ranks=" << request.ranks
        << " root=" << request.root << (request.commutative ? " commutative" : " non-commutative")
        << " d=" << request.costs.transfer_s << " c=" << request.costs.compute_s;
    return out.str();
}

uint64_t plan_hash(const redux::Plan& plan) {
    uint64_t hash = 14695981039346656037ull;  // FNV-1a
    auto mix = [&hash](int64_t value) {
        hash ^= static_cast<uint64_t>(value);
        hash *= 1099511628211ull;
    };
    mix(plan.sink);
    for (int32_t p : plan.parent) mix(p);
    for (int32_t c : plan.child_rank) mix(c);
    for (uint8_t left : plan.child_joins_left) mix(left);
    return hash;
}

// The runner would deadlock on programs whose sends and receives do not pair up, so check that first: every
// child names its parent, every rank with a parent is some rank's child exactly once, parents lead to the sink
// without cycles, and the sink hands the result to the root unless it is the root.
std::string pairing_error(const std::vector<redux::RankProgram>& programs, int32_t root) {
    const int32_t n = static_cast<int32_t>(programs.size());
    std::vector<int> times_child(n, 0);
    for (int32_t r = 0; r < n; ++r) {
        for (const redux::ChildStep& child : programs[r].children) {
            if (child.rank < 0 || child.rank >= n || programs[child.rank].parent != r) {
                return "rank " + std::to_string(r) + " lists child " + std::to_string(child.rank) +
                       " that does not name it as parent";
            }
            ++times_child[child.rank];
        }
    }
    int32_t sinks = 0;
    for (int32_t r = 0; r < n; ++r) {
        if (programs[r].parent < 0) {
            ++sinks;
            const int32_t expected_to = r == root ? -1 : root;
            if (programs[r].send_result_to != expected_to ||
                programs[root].receive_result_from != (r == root ? -1 : r)) {
                return "sink " + std::to_string(r) + " and root do not agree on the final transfer";
            }
        } else if (times_child[r] != 1) {
            return "rank " + std::to_string(r) + " is listed as a child " + std::to_string(times_child[r]) + " times";
        }
        int32_t steps = 0;
        for (int32_t a = r; a >= 0 && steps <= n; a = programs[a].parent) ++steps;
        if (steps > n) return "rank " + std::to_string(r) + " is on a cycle of parents";
    }
    return sinks == 1 ? "" : std::to_string(sinks) + " ranks have no parent";
}

// The messages and the checks wait by redux_test::wait_yielding, not in blocking calls: MPICH's busy-poll, and
// with 8 ranks on 2 cores this test took 45 s there (0.5 s under Open MPI).
void send_vector(const std::vector<int>& values, int dest, int tag, MPI_Comm comm) {
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Isend(values.data(), static_cast<int>(values.size()), MPI_INT, dest, tag, comm, &request);
    redux_test::wait_yielding(request);
}

std::vector<int> receive_vector(int source, int tag, MPI_Comm comm) {
    MPI_Status status;
    int arrived = 0;
    while (MPI_Iprobe(source, tag, comm, &arrived, &status) == MPI_SUCCESS && !arrived) sched_yield();
    int count = 0;
    MPI_Get_count(&status, MPI_INT, &count);
    std::vector<int> values(static_cast<size_t>(count));
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Irecv(values.data(), count, MPI_INT, source, tag, comm, &request);
    redux_test::wait_yielding(request);
    return values;
}

template <typename T>
T reduced(T value, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    T out{};
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Iallreduce(&value, &out, 1, datatype, op, comm, &request);
    redux_test::wait_yielding(request);
    return out;
}

std::vector<int> run_program(const redux::RankProgram& program, int rank, int tag, MPI_Comm comm) {
    const int tree_tag = 2 * tag;
    const int result_tag = 2 * tag + 1;
    std::vector<int> acc{rank};
    for (const redux::ChildStep& child : program.children) {
        std::vector<int> received = receive_vector(child.rank, tree_tag, comm);
        if (child.joins_left) {
            received.insert(received.end(), acc.begin(), acc.end());
            acc = std::move(received);
        } else {
            acc.insert(acc.end(), received.begin(), received.end());
        }
    }
    if (program.parent >= 0) send_vector(acc, program.parent, tree_tag, comm);
    if (program.send_result_to >= 0) send_vector(acc, program.send_result_to, result_tag, comm);
    if (program.receive_result_from >= 0) acc = receive_vector(program.receive_result_from, result_tag, comm);
    return acc;
}

// Every strategy (with both limits for the limited ones), every cost case, commutative or not, every root.
std::vector<redux::PlanRequest> all_requests(int32_t ranks) {
    std::vector<redux::PlanRequest> requests;
    for (const Shape& shape : kShapes) {
        for (const redux::Costs& costs : kCosts) {
            for (bool commutative : {true, false}) {
                for (int32_t root = 0; root < ranks; ++root) {
                    redux::PlanRequest request;
                    request.ranks = ranks;
                    request.costs = costs;
                    request.strategy = shape.strategy;
                    request.limit = shape.limit;
                    request.root = root;
                    request.commutative = commutative;
                    requests.push_back(request);
                }
            }
        }
    }
    return requests;
}

// True when every rank holds the same plan and found it well formed; collective over comm.
bool all_ranks_can_run(const redux::Plan& plan, bool well_formed, MPI_Comm comm) {
    const uint64_t hash = plan_hash(plan);
    const uint64_t hash_min = reduced(hash, MPI_UINT64_T, MPI_MIN, comm);
    const uint64_t hash_max = reduced(hash, MPI_UINT64_T, MPI_MAX, comm);
    const bool all_ok = redux_test::all_of(well_formed, comm);
    EXPECT_EQ(hash_min, hash_max) << "ranks computed different plans";
    return hash_min == hash_max && all_ok;
}

// Plans the request, runs this rank's program and checks the result at the root. Collective over comm.
void plan_run_and_check(const redux::PlanRequest& request, int tag, MPI_Comm comm) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    // The planner is a pure function: a request it rejects is rejected on every rank alike.
    ASSERT_EQ(redux::validate(request), "");
    const redux::Plan plan = redux::make_plan(request);

    std::vector<redux::RankProgram> programs;
    for (int32_t r = 0; r < request.ranks; ++r) {
        programs.push_back(redux::program_for(plan, r));
    }
    const std::string error = pairing_error(programs, request.root);
    EXPECT_EQ(error, "");
    if (!all_ranks_can_run(plan, error.empty(), comm)) {
        return;  // running would hang
    }

    std::vector<int> result = run_program(programs[rank], rank, tag, comm);
    if (rank != request.root) {
        return;
    }
    std::vector<int> in_rank_order(static_cast<size_t>(request.ranks));
    std::iota(in_rank_order.begin(), in_rank_order.end(), 0);
    if (request.commutative) {
        std::sort(result.begin(), result.end());
        EXPECT_EQ(result, in_rank_order) << "each rank must be folded in exactly once";
    } else {
        EXPECT_EQ(result, in_rank_order) << "ranks must be folded in rank order";
    }
}

TEST(PlanPrograms, EveryRankIsFoldedOnceAndInOrderWhenRequired) {
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    int size = 0;
    MPI_Comm_size(comm, &size);

    const std::vector<redux::PlanRequest> requests = all_requests(size);
    for (size_t i = 0; i < requests.size(); ++i) {
        SCOPED_TRACE(describe(requests[i]));
        plan_run_and_check(requests[i], static_cast<int>(i % 16000), comm);
    }
    MPI_Comm_free(&comm);
}

}  // namespace
