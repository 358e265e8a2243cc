// One size of the benchmark: inputs, costs, verification of every algorithm, then the timed iterations with
// the algorithms alternating, then verification again.
//
// Timing follows the OSU convention for collectives: every iteration starts after a barrier, and the latency
// is the root's time from leaving the barrier to the return of its MPI_Reduce. MPI_Allreduce and
// MPI_Reduce_scatter_block (--collective) end on every rank, and the rank that ends last depends on the algorithm
// (a tree's broadcast ends on its leaves, recursive doubling everywhere at once), so there every rank times its
// calls the same way and an iteration's latency is the largest of the ranks' times, gathered to rank 0 after the
// timed iterations; every rank's result is verified. --arrival (dynamic.hpp) then delays each rank's entry into
// the call from that start, by sleeping: every rank reads its arrival, the time from its start to its entry
// into the call, and the latest arrival of each iteration is gathered to the root, which reports the time
// after the last arrival, the latency less the latest arrival (the same end: the root's completion, or the
// slowest rank's). With --sync window the start is common (every rank's clock corrected to the root's);
// with a barrier each rank's arrival counts from its own exit of the barrier. The barrier waits by
// MPI_Test and sched_yield (yielding.hpp), not in MPI_Barrier, so ranks that are done do not take the core
// of ranks still working when ranks outnumber cores. Within an iteration the algorithms run one after the
// other, starting one further along the list each iteration, so slow phases of the machine hit all alike.
#pragma once

#include "comparison.hpp"
#include "costs.hpp"
#include "ops.hpp"
#include "options.hpp"
#include "policy/auto_select.hpp"
#include "stats.hpp"

#include "start_clock.hpp"

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

namespace redux_bench {

// auto's trials: its first calls on a size take turns between its trees and PMPI_Reduce, then a tree they choose
// takes turns with PMPI_Reduce, timed where the calls are made (docs/design.md, "auto"). Before the warm-up, auto
// alone makes calls (the verification call included), each started as the timed calls are (a barrier, or the agreed
// start of --sync window), until libredux reports the size decided (redux_call_info.deciding 0, the same on every
// rank) and at most AutoSelect::kMaxCallsToDecide, so that what is timed is what it settled on, as an application
// sees it once auto has decided, and its confirmation saw the calls started the way the timed ones are.
constexpr int kAutoTrialCalls = redux::AutoSelect::kMaxCallsToDecide;

struct AlgorithmResult {
    Summary latency;     // over the timed iterations, on the root (every_rank_results: each the slowest rank's)
    Summary after_last;  // over the same iterations: the latency less the iteration's latest arrival
    PlanReport plan;     // libredux's report of the latest planned call; plan.planned false when none was
    std::string ran;     // what the last timed call ran: "native" or a strategy (auto's choice, a fallback)
};

struct SizeResult {
    long bytes = 0;  // each rank's input vector
    int count = 0;   // the call's count: the vector's elements, or reduce_scatter_block's recvcount
    bool costs_measured = false;
    MeasuredCosts costs;                      // when costs_measured
    std::vector<AlgorithmResult> algorithms;  // in BenchOptions::algorithms' order
    long late_starts = 0;                     // --sync window: iterations some rank began after the agreed start
    double start_margin_s = 0;
};

class Runner {
public:
    Runner(const BenchOptions& options, const BenchOp& op, MPI_Comm comm);

    // Collective. Times calls of `count` (reduce_scatter_block: recvcount, each rank's input ranks x count
    // elements); false on every rank when a result was wrong, after the root printed why on stderr. The results
    // are meaningful on the root only.
    bool run_size(int count, SizeResult& result);
    ~Runner() { free_requests(); }

private:
    void prepare(size_t algorithm);
    void* result_buffer(size_t algorithm);
    const void* send_buffer() const;
    redux_options call_options(size_t algorithm) const;
    int call(size_t algorithm, int count, redux_call_info* info);
    int blocking_call(size_t algorithm, int count, redux_call_info* info);
    void weigh_nonblocking(size_t algorithm, int count, int warmup, AlgorithmResult& out);
    int start(size_t algorithm, int count, redux_call_info* info, MPI_Request& request);
    int complete(MPI_Request& request) const;
    void free_requests();
    bool verify(int count, const char* when, bool corrupt);
    std::string first_wrong_result(int count, bool corrupt);
    bool report_wrong_result(const std::string& wrong, const char* when);
    void largest_over_ranks(std::vector<double>& values) const;
    void check_call(int rc, size_t algorithm) const;
    void limit_rounds(double round_s, int& iterations, int& warmup) const;

    struct CallStart {
        double start_s;    // this rank's clock (MPI_Wtime) at the iteration's start
        double arrival_s;  // from the start to this rank's entry into the call
    };
    CallStart start_call(long iteration);

    const BenchOptions& options_;
    const BenchOp& op_;
    MPI_Comm comm_;
    int rank_ = 0;
    int size_ = 0;
    std::unique_ptr<StartClock> start_clock_;  // --sync window
    MeasuredCosts costs_;
    std::vector<unsigned char> send_;      // this rank's input vector
    std::vector<unsigned char> expected_;  // what this rank's result must be, where it is verified
    // One result buffer per algorithm where results are verified (reduce: the root; else every rank), else one.
    // In place they hold the input before each call: reduce_scatter_block's then holds the whole vector.
    std::vector<std::vector<unsigned char>> recv_;
    std::vector<MPI_Request> persistent_;  // per algorithm, for this size (--collective *_init)
    bool first_call_ = false;              // the call is the verification's: blocking, making the plan
};

}  // namespace redux_bench
