// main() for GoogleTest programs that run under mpiexec (after KaMPIng's test main).
//
// Every rank runs every test. Rank 0 prints gtest's usual report; the other ranks print only their failed
// assertions, each prefixed with "[rank R]", so a failure on one rank is visible without eight interleaved
// reports. After the tests the ranks agree on the outcome (the maximum of their return codes), so a failure
// on any rank makes every rank, and hence mpiexec, exit non-zero. Built with REDUX_TEST_THREAD_MULTIPLE
// (redux_mpi_test_main_threads), it asks MPI for MPI_THREAD_MULTIPLE; tests read what they got from
// MPI_Query_thread.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <string>

namespace {

class RankFailurePrinter : public ::testing::EmptyTestEventListener {
public:
    explicit RankFailurePrinter(int rank) : rank_(rank) {}

    // Remembered here: UnitTest::current_test_info() would deadlock inside OnTestPartResult.
    void OnTestStart(const ::testing::TestInfo& test) override {
        test_name_ = std::string(test.test_suite_name()) + "." + test.name();
    }

    void OnTestPartResult(const ::testing::TestPartResult& result) override {
        if (!result.failed()) {
            return;
        }
        std::fprintf(stderr, "[rank %d] %s\n[rank %d] %s:%d: Failure\n%s\n", rank_, test_name_.c_str(), rank_,
                     result.file_name() != nullptr ? result.file_name() : "unknown", result.line_number(),
                     result.message());
        std::fflush(stderr);
    }

private:
    int rank_;
    std::string test_name_;
};

}  // namespace

int main(int argc, char** argv) {
#ifdef REDUX_TEST_THREAD_MULTIPLE
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
#else
    MPI_Init(&argc, &argv);
#endif
    ::testing::InitGoogleTest(&argc, argv);

    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0) {
        ::testing::TestEventListeners& listeners = ::testing::UnitTest::GetInstance()->listeners();
        delete listeners.Release(listeners.default_result_printer());
        listeners.Append(new RankFailurePrinter(rank));
    }

    const int local_result = RUN_ALL_TESTS();
    int agreed_result = 0;
    PMPI_Allreduce(&local_result, &agreed_result, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && agreed_result != local_result) {
        std::fprintf(stderr, "[rank 0] tests failed on another rank (see the [rank R] lines)\n");
    }

    MPI_Finalize();
    return agreed_result;
}
