// Settings that differ between ranks (a variable exported on some nodes only, a wrapper script setting it on one
// rank): never a hang, never a wrong result. Each scenario (REDUX_TEST_SCENARIO) sets REDUX_* variables on one
// rank only, before libredux reads its configuration (on its first reduce): every rank must then run what rank
// 0's settings say, on every communicator, with one warning per process naming the variables that differ.
//   rank0_binomial  rank 0 has REDUX_ALGORITHM=binomial, the others the default (auto)
//   last_native     the last rank has REDUX_ALGORITHM=native (it alone would call the MPI library's reduce)
//   last_knobs      the last rank has REDUX_CHUNK_BYTES=8, REDUX_RECV_WINDOW=1, REDUX_DEBUG=1, REDUX_D=1
//   last_invalid    the last rank has REDUX_ALGORITHM=fastest (invalid: alone, it would go native)
#include "reduce_check.hpp"
#include "yielding_wait.hpp"

#include "redux/redux.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string scenario() {
    const char* s = std::getenv("REDUX_TEST_SCENARIO");
    return s != nullptr ? s : "";
}

// Sets this scenario's variables on the rank it names; returns the variable names rank 0 should warn about
// (empty when no rank differs, e.g. with one rank).
std::vector<std::string> set_scenario_environment(int rank, int size) {
    const std::string name = scenario();
    const int last = size - 1;
    std::vector<std::pair<const char*, const char*>> vars;
    int target = 0;
    if (name == "rank0_binomial") {
        vars = {{"REDUX_ALGORITHM", "binomial"}};
    } else if (name == "last_native") {
        vars = {{"REDUX_ALGORITHM", "native"}};
        target = last;
    } else if (name == "last_knobs") {
        vars = {{"REDUX_CHUNK_BYTES", "8"}, {"REDUX_RECV_WINDOW", "1"}, {"REDUX_DEBUG", "1"}, {"REDUX_D", "1"}};
        target = last;
    } else if (name == "last_invalid") {
        vars = {{"REDUX_ALGORITHM", "fastest"}};
        target = last;
    } else {
        ADD_FAILURE() << "unknown REDUX_TEST_SCENARIO '" << name << "'";
    }
    if (rank == target) {
        for (const auto& [variable, value] : vars) setenv(variable, value, 1);
    }
    std::vector<std::string> expected;
    if (size > 1) {
        for (const auto& [variable, value] : vars) expected.emplace_back(variable);
    }
    return expected;
}

// One reduce of ints on `comm`, checked on the root against the sum computed here; returns what ran.
redux_call_info reduce_and_check(MPI_Comm comm, int count, int root) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    std::vector<int> send(static_cast<size_t>(count)), recv(static_cast<size_t>(count), -7);
    for (int i = 0; i < count; ++i) send[static_cast<size_t>(i)] = (rank + 1) * (i % 13 + 1);
    redux_call_info info{};
    const int rc = redux_reduce_ex(send.data(), rank == root ? recv.data() : nullptr, count, MPI_INT, MPI_SUM, root,
                                   comm, nullptr, &info);
    EXPECT_EQ(rc, MPI_SUCCESS);
    if (rank == root) {
        for (int i = 0; i < count; ++i) {
            EXPECT_EQ(recv[static_cast<size_t>(i)], size * (size + 1) / 2 * (i % 13 + 1)) << "element " << i;
        }
    }
    return info;
}

TEST(ConfigAgreement, EveryRankRunsWhatRankZerosSettingsSay) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const std::vector<std::string> expected_names = set_scenario_environment(rank, size);

    // Rank 0's stderr goes to a file while libredux may warn.
    char path[] = "/tmp/redux_agreement_XXXXXX";
    int saved_stderr = -1;
    if (rank == 0) {
        const int fd = mkstemp(path);
        ASSERT_GE(fd, 0);
        std::fflush(stderr);
        saved_stderr = dup(2);
        dup2(fd, 2);
        close(fd);
    }
    MPI_Comm split = MPI_COMM_NULL, dup_comm = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &split);  // reversed rank order inside each half
    MPI_Comm_dup(MPI_COMM_WORLD, &dup_comm);
    for (MPI_Comm comm : {MPI_COMM_WORLD, split, dup_comm}) {
        int comm_size = 1;
        MPI_Comm_size(comm, &comm_size);
        // Settings are agreed per communicator, on its rank 0's: is that world rank 0, which set binomial?
        int leader = rank;
        MPI_Bcast(&leader, 1, MPI_INT, 0, comm);
        for (int root : {0, comm_size - 1}) {
            for (int count : {1, 1000, 40000}) {
                for (int repeat = 0; repeat < 12; ++repeat) {  // past auto's trials
                    const redux_call_info info = reduce_and_check(comm, count, root);
                    // Every rank ran the same thing.
                    int mine[2] = {info.planned, static_cast<int>(info.algorithm)}, low[2], high[2];
                    MPI_Allreduce(mine, low, 2, MPI_INT, MPI_MIN, comm);
                    MPI_Allreduce(mine, high, 2, MPI_INT, MPI_MAX, comm);
                    EXPECT_EQ(low[0], high[0]);
                    EXPECT_EQ(low[1], high[1]);
                    if (scenario() == "rank0_binomial" && leader == 0) {
                        // rank 0's algorithm, for everyone (auto would have chosen by measurement)
                        EXPECT_EQ(info.planned, comm_size > 1 ? 1 : 0);
                        if (comm_size > 1) {
                            EXPECT_EQ(info.algorithm, REDUX_ALGORITHM_BINOMIAL);
                        }
                    }
                }
            }
        }
    }
    MPI_Comm_free(&split);
    MPI_Comm_free(&dup_comm);
    if (rank != 0) return;
    std::fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    unlink(path);
    const std::string log = text.str();
    size_t warnings = 0;
    for (size_t at = log.find("settings differ"); at != std::string::npos; at = log.find("settings differ", at + 1)) {
        ++warnings;
    }
    if (expected_names.empty()) {
        EXPECT_EQ(warnings, 0u) << log;
        return;
    }
    EXPECT_EQ(warnings, 1u) << "one warning per process: " << log;
    for (const std::string& name : expected_names) {
        EXPECT_NE(log.find(name), std::string::npos) << "the warning names " << name << ": " << log;
    }
}

}  // namespace
