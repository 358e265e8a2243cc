// Calibration inside the library, observed through redux_reduce_ex's report and REDUX_REPORT:
//   - c of an op whose cost is known (it takes a set time per element, per call, or both) is found within 20 %,
//     for a count timed whole and for one extrapolated from the line through the samples, and its per-call part
//     too (the decision log's c_call_s); an op whose cost is all per call is not cut into segments;
//   - calibration applies the op only to operands a reduction passes it: an op that checks that its left operand
//     comes from lower ranks than its right one (MPICH's coll10 does) never sees anything else;
//   - d is measured (no REDUX_D here) and positive, the same on every rank;
//   - auto's decision log: one JSON line per decision with the documented fields, native_s and planned_s
//     measured, the strategy the faster one; an explicit strategy logs its plan without them;
//   - ranks that outnumber the host's hardware threads (mpirun --oversubscribe) predict no less than their n - 1
//     transfers and folds over the threads (plan/predict/shared_cores.hpp), and ranks that do not, no floor at all.
// This executable sets REDUX_REPORT itself, before libredux reads its configuration (a static initializer
// runs before main): a file per job, named after the launcher process all ranks share.
#include "policy/auto_select.hpp"
#include "request_counter.hpp"

#include <redux/redux.h>

#include <gtest/gtest.h>
#include <mpi.h>
#include <nlohmann/json.hpp>

#include <sys/sysinfo.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace {

const std::string g_report_path = [] {
    const std::string path = "/tmp/redux-calibration-test-" + std::to_string(getppid()) + ".jsonl";
    setenv("REDUX_REPORT", path.c_str(), 1);
    unsetenv("REDUX_D");
    unsetenv("REDUX_C");
    return path;
}();

long g_op_ns_per_element = 0;
long g_op_ns_per_call = 0;

// A sum that takes a set time: it spins until then, so it ends on time where a sleep would wait for its wake-up
// (a rank sharing its core, or whose peer spins, woke up to 1.6 ms late from sleeps of 1-2 ms).
void timed_sum(void* in, void* inout, int* len, MPI_Datatype*) {
    const auto end =
        std::chrono::steady_clock::now() + std::chrono::nanoseconds(g_op_ns_per_call + g_op_ns_per_element * *len);
    for (int i = 0; i < *len; ++i) static_cast<double*>(inout)[i] += static_cast<const double*>(in)[i];
    while (std::chrono::steady_clock::now() < end) {
    }
}

// inout = in, where every `in` must be smaller than its `inout`: a reduction of rank numbers passes an op the
// lower ranks' partial result (whose value is its first rank) on the left. Counts what breaks that.
int g_out_of_order = 0;
void left_of_higher_ranks(void* in, void* inout, int* len, MPI_Datatype*) {
    for (int i = 0; i < *len; ++i) {
        int& right = static_cast<int*>(inout)[i];
        const int left = static_cast<const int*>(in)[i];
        if (right <= left) ++g_out_of_order;
        right = left;
    }
}

class Calibration : public ::testing::Test {
protected:
    void SetUp() override {
        MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
        MPI_Comm_rank(comm_, &rank_);
        MPI_Comm_size(comm_, &size_);
        if (size_ == 1) GTEST_SKIP() << "one rank: nothing is planned, nothing measured";
    }
    void TearDown() override { MPI_Comm_free(&comm_); }

    MPI_Comm comm_ = MPI_COMM_NULL;
    int rank_ = 0, size_ = 1;
};

TEST_F(Calibration, ComputeCostOfATimedOpWithinTwentyPercent) {
    MPI_Op op = MPI_OP_NULL;
    MPI_Op_create(timed_sum, 1, &op);
    // 30 doubles at 50 us each: timed whole, c = 1.5 ms. 1000 doubles at 50 us each: the sample stops growing
    // at 32 elements (1.6 ms) and c = 50 ms is extrapolated from the line through the samples.
    const struct {
        int count;
        long ns;
    } cases[] = {{30, 50000}, {1000, 50000}};
    for (const auto& c : cases) {
        SCOPED_TRACE("count " + std::to_string(c.count) + ", " + std::to_string(c.ns) + " ns per element");
        g_op_ns_per_element = c.ns;
        std::vector<double> send(c.count, rank_ + 1.0), recv(c.count, 0.0);
        redux_options options = REDUX_OPTIONS_INIT;
        options.algorithm = REDUX_ALGORITHM_OPTIMAL;
        redux_call_info info{};
        ASSERT_EQ(redux_reduce_ex(send.data(), recv.data(), c.count, MPI_DOUBLE, op, 0, comm_, &options, &info),
                  MPI_SUCCESS);
        const double expected = 1e-9 * static_cast<double>(c.ns) * c.count;
        EXPECT_EQ(info.planned, 1);
        EXPECT_NEAR(info.compute_s, expected, 0.2 * expected);
        EXPECT_GT(info.transfer_s, 0) << "d was not measured";
        if (rank_ == 0) {
            EXPECT_EQ(recv[c.count - 1], size_ * (size_ + 1) / 2.0);
        }
        // The same d and c on every rank (all ranks must plan the same tree).
        double mine[2] = {info.transfer_s, info.compute_s}, low[2], high[2];
        MPI_Allreduce(mine, low, 2, MPI_DOUBLE, MPI_MIN, comm_);
        MPI_Allreduce(mine, high, 2, MPI_DOUBLE, MPI_MAX, comm_);
        EXPECT_EQ(low[0], high[0]);
        EXPECT_EQ(low[1], high[1]);
    }
    MPI_Op_free(&op);
}

std::vector<nlohmann::json> read_report() {
    std::vector<nlohmann::json> lines;
    std::ifstream in(g_report_path);
    for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
    return lines;
}

TEST_F(Calibration, ComputeCostPerCallAndPerElement) {
    MPI_Op op = MPI_OP_NULL;
    MPI_Op_create(timed_sum, 1, &op);
    const struct {
        const char* what;
        int count;
        long per_element_ns, per_call_ns;
    } cases[] = {{"all per call", 64, 0, 2000000}, {"mixed", 1003, 20000, 1000000}};
    for (const auto& c : cases) {
        SCOPED_TRACE(c.what);
        g_op_ns_per_element = c.per_element_ns;
        g_op_ns_per_call = c.per_call_ns;
        std::vector<double> send(static_cast<size_t>(c.count), rank_ + 1.0), recv(static_cast<size_t>(c.count), 0.0);
        redux_options options = REDUX_OPTIONS_INIT;
        options.algorithm = REDUX_ALGORITHM_OPTIMAL;
        redux_call_info info{};
        if (rank_ == 0) std::remove(g_report_path.c_str());
        MPI_Barrier(comm_);
        ASSERT_EQ(redux_reduce_ex(send.data(), recv.data(), c.count, MPI_DOUBLE, op, 0, comm_, &options, &info),
                  MPI_SUCCESS);
        const double expected = 1e-9 * static_cast<double>(c.per_call_ns + c.per_element_ns * c.count);
        EXPECT_NEAR(info.compute_s, expected, 0.2 * expected);
        if (c.per_element_ns == 0) {
            EXPECT_EQ(info.segments, 1) << "every segment pays the op's cost per call";
        }
        if (rank_ == 0) {
            EXPECT_EQ(recv[static_cast<size_t>(c.count) - 1], size_ * (size_ + 1) / 2.0);
            const std::vector<nlohmann::json> lines = read_report();
            ASSERT_FALSE(lines.empty());
            const double per_call = 1e-9 * static_cast<double>(c.per_call_ns);
            EXPECT_NEAR(lines.back()["c_call_s"].get<double>(), per_call, 0.25 * per_call);
        }
    }
    g_op_ns_per_element = 0;
    g_op_ns_per_call = 0;
    MPI_Op_free(&op);
}

TEST_F(Calibration, TheOpSeesOnlyOperandsAReductionPasses) {
    MPI_Op op = MPI_OP_NULL;
    MPI_Op_create(left_of_higher_ranks, 0, &op);
    for (redux_algorithm algorithm : {REDUX_ALGORITHM_OPTIMAL, REDUX_ALGORITHM_AUTO, REDUX_ALGORITHM_REDUCE_SCATTER}) {
        for (int count : {1, 5, 20000}) {  // one element, a few, and more than one sample holds
            SCOPED_TRACE("algorithm " + std::to_string(algorithm) + ", count " + std::to_string(count));
            g_out_of_order = 0;
            std::vector<int> send(static_cast<size_t>(count), rank_), recv(static_cast<size_t>(count), -1);
            redux_options options = REDUX_OPTIONS_INIT;
            options.algorithm = algorithm;
            for (int call = 0; call < 3; ++call) {
                ASSERT_EQ(redux_reduce_ex(send.data(), recv.data(), count, MPI_INT, op, 0, comm_, &options, nullptr),
                          MPI_SUCCESS);
                if (rank_ == 0) {
                    EXPECT_EQ(recv[static_cast<size_t>(count) - 1], 0);
                }
            }
            EXPECT_EQ(g_out_of_order, 0) << "the op was called on operands no reduction passes it";
        }
    }
    MPI_Op_free(&op);
}

TEST_F(Calibration, AutoLogsItsDecision) {
    if (rank_ == 0) std::remove(g_report_path.c_str());
    MPI_Barrier(comm_);
    const int count = 777;  // a key no other test uses
    std::vector<double> send(count, 1.0), recv(count, 0.0);
    long long native_calls = 0;
    for (int call = 0; call < redux::AutoSelect::kMaxCallsToDecide; ++call) {  // decided by then, whatever the noise
        redux_call_info info{};
        const auto before = redux_test::request_counts();
        ASSERT_EQ(
            redux_reduce_ex(send.data(), recv.data(), count, MPI_DOUBLE, MPI_SUM, size_ - 1, comm_, nullptr, &info),
            MPI_SUCCESS);
        const bool started = redux_test::request_counts().started > before.started;
        EXPECT_EQ(info.planned == 1, started) << "call " << call << ": the report and the requests disagree";
        native_calls += info.planned == 0;
        if (rank_ == size_ - 1) {
            EXPECT_EQ(recv[0], size_);
        }
    }
    EXPECT_GE(native_calls, 3) << "the trials run native three times";
    redux_options optimal = REDUX_OPTIONS_INIT;
    optimal.algorithm = REDUX_ALGORITHM_OPTIMAL;
    ASSERT_EQ(
        redux_reduce_ex(send.data(), recv.data(), count, MPI_DOUBLE, MPI_SUM, size_ - 1, comm_, &optimal, nullptr),
        MPI_SUCCESS);
    MPI_Barrier(comm_);
    if (rank_ != 0) return;
    const std::vector<nlohmann::json> lines = read_report();
    std::string report;  // printed with any failure below
    for (const auto& line : lines) report += line.dump() + "\n";
    SCOPED_TRACE("REDUX_REPORT:\n" + report);
    // A first round that decided without the runners-up (the model's tree clearly faster than native, or a tie)
    // logs a second decision: the second look's, kSecondLookCalls calls later, with every tree in the trials.
    ASSERT_TRUE(lines.size() == 3u || lines.size() == 4u) << "one line per plan (auto's, optimal's) and per decision "
                                                             "(auto's, and its second look's), from the first call";
    if (lines.size() == 4u) {
        EXPECT_EQ(lines[1]["event"], "auto decision");
        bool not_needed = false;
        for (const nlohmann::json& drop : lines[1]["dropped"])
            not_needed = not_needed || drop["reason"] == "not needed";
        EXPECT_TRUE(not_needed) << "a second look only after a first round without the runners-up";
    }
    EXPECT_EQ(lines[0]["event"], "new plan");
    EXPECT_EQ(lines[0]["requested"], "auto");
    EXPECT_TRUE(lines[0]["native_s"].is_null()) << "not measured yet";
    const nlohmann::json& decision = lines[lines.size() - 2];  // the last decision
    EXPECT_EQ(decision["event"], "auto decision");
    for (const char* field : {"comm_size", "root", "count", "bytes", "commutative", "d_s", "c_s", "strategy",
                              "predicted_s", "native_s", "planned_s", "trial_calls", "calibration_s"}) {
        EXPECT_TRUE(decision.contains(field)) << field;
    }
    EXPECT_EQ(decision["comm_size"], size_);
    EXPECT_EQ(decision["root"], size_ - 1);
    EXPECT_EQ(decision["count"], count);
    EXPECT_EQ(decision["bytes"], count * 8);
    EXPECT_EQ(decision["commutative"], true);
    EXPECT_EQ(decision["requested"], "auto");
    EXPECT_GT(decision["d_s"].get<double>(), 0);
    EXPECT_GE(decision["c_s"].get<double>(), 0);
    EXPECT_GT(decision["predicted_s"].get<double>(), 0);
    // The prediction holds the call's own cost once (model/costs.hpp): the plan's makespan is what is left.
    ASSERT_TRUE(lines[0]["call_s"].is_number());
    EXPECT_GE(lines[0]["call_s"].get<double>(), 0);
    EXPECT_LT(lines[0]["call_s"].get<double>(), lines[0]["predicted_s"].get<double>());
    ASSERT_TRUE(decision["native_s"].is_number());
    ASSERT_TRUE(decision["planned_s"].is_number());
    const bool native_faster = decision["native_s"].get<double>() < decision["planned_s"].get<double>();
    const int trials = decision["trial_calls"].get<int>();
    const std::vector<std::string> tried = lines[0]["tried"].get<std::vector<std::string>>();
    ASSERT_FALSE(tried.empty());
    EXPECT_EQ(tried.front(), lines[0]["strategy"]) << "the model's tree first, then its runners-up";
    EXPECT_LE(tried.size(), static_cast<size_t>(redux::AutoSelect::kMaxTrees));
    // A median per tree tried; null for a tree the trials ended before reaching (dropped as "not reached"), or a
    // runner-up the first round made unneeded ("not needed").
    const nlohmann::json& trial_medians = decision["trial_medians_s"];
    ASSERT_EQ(trial_medians.size(), tried.size()) << "a median per tree tried";
    std::vector<double> medians;
    for (const nlohmann::json& median : trial_medians) {
        if (median.is_number()) medians.push_back(median.get<double>());
    }
    // Tree-dyn is weighed after the trials where the ranks came to them further apart than the choice takes (on
    // ranks sharing cores they may), or the arrival tree where their arrivals repeat: then in place against the
    // choice, and kept only where faster.
    const bool dynamic = decision["dynamic"].is_string() && decision["strategy"] == decision["dynamic"];
    if (size_ >= 3) {
        ASSERT_TRUE(decision["arrival_spread_s"].is_number()) << "every rank but the root's wait, agreed";
        EXPECT_GE(decision["arrival_spread_s"].get<double>(), 0);
    } else {
        EXPECT_TRUE(decision["arrival_spread_s"].is_null()) << "no tree-dyn on 2 ranks";
    }
    // Tree-dyn's rule (the arrival tree's takes the root's predicted wait out of both sides, which the log omits).
    if (decision["dynamic_s"].is_number() && decision["dynamic"] == "tree-dyn") {
        EXPECT_GT(decision["arrival_spread_s"].get<double>(), 0);
        EXPECT_EQ(dynamic, decision["dynamic_s"].get<double>() <
                                   redux::AutoSelect::kDynamicMargin * decision["dynamic_choice_s"].get<double>() &&
                               decision["dynamic_mean_s"].get<double>() <
                                   decision["dynamic_choice_mean_s"].get<double>() / redux::AutoSelect::kDynamicMargin);
    } else if (!decision["dynamic_s"].is_number()) {
        EXPECT_FALSE(dynamic) << "tree-dyn or the arrival tree only after it was weighed";
    }
    if (dynamic) {
        EXPECT_EQ(decision["planned_s"], decision["dynamic_s"]) << "planned_s is its median in place";
    } else if (decision["strategy"] != "native") {
        EXPECT_NE(std::find(medians.begin(), medians.end(), decision["planned_s"].get<double>()), medians.end())
            << "planned_s is the median of the tree kept";
    }
    const int contenders = static_cast<int>(tried.size()) + 1;
    EXPECT_GE(trials, 2) << "native's first call, then the model's tree's";
    EXPECT_LE(trials, contenders * redux::AutoSelect::kTrials * redux::AutoSelect::kMaxRounds);
    // What left the trials and why; how they ended.
    ASSERT_TRUE(decision["dropped"].is_array());
    int first_call_drops = 0;
    bool native_sat_out = false;
    for (const nlohmann::json& drop : decision["dropped"]) {
        const std::string name = drop["strategy"].get<std::string>();
        EXPECT_TRUE(name == "native" || std::find(tried.begin(), tried.end(), name) != tried.end()) << name;
        const std::string reason = drop["reason"].get<std::string>();
        const bool no_call = reason == "not reached" || reason == "not needed";
        if (reason == "clearly slower before") {  // a second look after a tree: native sits it out
            EXPECT_EQ(name, "native");
            native_sat_out = true;
            continue;
        }
        EXPECT_TRUE(reason == "first call over 2x the best" || reason == "clearly slower" || no_call) << reason;
        const auto at = std::find(tried.begin(), tried.end(), name);
        if (at != tried.end()) {
            EXPECT_EQ(trial_medians[static_cast<size_t>(at - tried.begin())].is_null(), no_call)
                << name << ": a median exactly for the trees the trials reached";
        }
        if (reason == "first call over 2x the best") {
            ++first_call_drops;
            EXPECT_GT(drop["first_s"].get<double>(), 2 * drop["best_s"].get<double>());
            EXPECT_NE(name, "native") << "native runs first and sets the best";
        }
    }
    const std::string end = decision["trials_end"].get<std::string>();
    EXPECT_TRUE(end == "one left" || end == "last round" || end == "extra time" || end == "no tree faster") << end;
    if (end == "extra time") {
        EXPECT_GT(decision["trial_extra_s"].get<double>(), decision["trial_extra_bound_s"].get<double>());
    }
    EXPECT_LE(first_call_drops, contenders - 1);
    // A tree the trials chose is confirmed in place: kept only if its median there is below native's (a tie: native).
    const bool confirmed = decision["confirm_planned_s"].is_number() && decision["confirm_incumbent_s"].is_number();
    const bool tree_won_in_place =
        confirmed && decision["confirm_planned_s"].get<double>() < decision["confirm_incumbent_s"].get<double>();
    if (dynamic) {
        // the trials' choice was weighed against it, whatever it was
    } else if (decision["strategy"] != "native") {
        EXPECT_NE(std::find(tried.begin(), tried.end(), decision["strategy"].get<std::string>()), tried.end())
            << "auto keeps a tree it tried, or native";
        if (native_sat_out) {  // the look's incumbent, the tree kept before, stays unless one beats it in place too
            ASSERT_EQ(lines.size(), 4u) << "a second look";
            const nlohmann::json& before = lines[1]["strategy"];
            if (decision["strategy"] != before) {
                EXPECT_TRUE(tree_won_in_place) << "faster in place than the tree kept before";
                EXPECT_EQ(decision["confirm_incumbent"], before);
            }
        } else {
            EXPECT_FALSE(native_faster) << "a tree is kept only when clearly faster";
            EXPECT_TRUE(tree_won_in_place) << "and faster in place too";
        }
    } else {
        EXPECT_TRUE(native_faster || end != "one left" || (confirmed && !tree_won_in_place))
            << "native when faster than every tree, when no tree was clearly faster after the last round or when "
               "the trials' extra time was spent, or when the tree the trials chose was not faster in place";
    }
    const nlohmann::json& plan = lines.back();
    EXPECT_EQ(plan["event"], "new plan");
    EXPECT_EQ(plan["requested"], "optimal");
    EXPECT_EQ(plan["strategy"], "optimal");
    EXPECT_TRUE(plan["native_s"].is_null());
    EXPECT_EQ(plan["d_s"], decision["d_s"]) << "d for one size comes from the communicator's calibration";
    std::remove(g_report_path.c_str());
}

TEST_F(Calibration, RanksSharingCoresPredictNoLessThanTheirTransfersOverTheThreads) {
    if (rank_ == 0) std::remove(g_report_path.c_str());
    MPI_Barrier(comm_);
    double send = 1.0, recv = 0.0;
    redux_options optimal = REDUX_OPTIONS_INIT;
    optimal.algorithm = REDUX_ALGORITHM_OPTIMAL;
    ASSERT_EQ(redux_reduce_ex(&send, &recv, 1, MPI_DOUBLE, MPI_SUM, 0, comm_, &optimal, nullptr), MPI_SUCCESS);
    if (rank_ == 0) {
        EXPECT_EQ(recv, size_);
    }
    MPI_Barrier(comm_);
    if (rank_ != 0) return;
    const std::vector<nlohmann::json> lines = read_report();
    ASSERT_EQ(lines.size(), 1u);
    const nlohmann::json& plan = lines[0];
    SCOPED_TRACE("REDUX_REPORT: " + plan.dump());
    ASSERT_EQ(plan["segments"], 1);
    // Every rank of this test runs on this host, unbound or bound within one package: one link class, one d.
    const int threads = get_nprocs();
    const double d = plan["d_s"].get<double>(), c = plan["c_s"].get<double>();
    const double floor = plan["shared_cores_floor_s"].get<double>();
    if (size_ > threads) {
        EXPECT_NEAR(floor, (size_ - 1) * (d + c) / threads, 1e-9 * floor);
        EXPECT_GE(plan["predicted_s"].get<double>(), floor + plan["call_s"].get<double>() - 1e-12);
    } else {
        EXPECT_EQ(floor, 0.0) << size_ << " ranks on " << threads << " hardware threads";
    }
    std::remove(g_report_path.c_str());
}

}  // namespace
