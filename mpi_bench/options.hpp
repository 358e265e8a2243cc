// mpi_bench's command line: what to time (collective, algorithms, sizes, op, datatype, root), how (iterations,
// warm-up, costs to plan with) and where the results go (table, CSV, costs CSV, progress).
#pragma once

#include "dynamic.hpp"
#include "ops.hpp"

#include "redux/redux.h"

#include <string>
#include <vector>

namespace redux_bench {

// The collective timed (--collective). reduce: MPI_Reduce, the root's result and time. allreduce: MPI_Allreduce,
// every rank's result, the slowest rank's time. reduce_scatter_block: MPI_Reduce_scatter_block, each rank's
// block of the reduced vector, the slowest rank's time; a size is each rank's whole input vector.
enum class Collective { reduce, allreduce, reduce_scatter_block };

// "reduce", "allreduce", "reduce_scatter_block": as on the command line.
const char* collective_option(Collective collective);
// "MPI_Reduce", "MPI_Allreduce", "MPI_Reduce_scatter_block".
const char* collective_mpi_name(Collective collective);

// How each call is made: MPI_Allreduce; MPI_Iallreduce then MPI_Test and MPI_Wait; MPI_Start of a request made once
// per size by MPI_Allreduce_init (MPIX_ under Open MPI 4.1). The other collectives alike.
enum class CallMode { blocking, nonblocking, persistent };
// SimGrid's SMPI has no persistent collectives, so with simulated ranks (smpicxx defines SMPI_H) the persistent
// modes, whose native column is the library's own MPI_Allreduce_init, are not offered.
#ifdef SMPI_H
constexpr bool kPersistentCalls = false;
#else
constexpr bool kPersistentCalls = true;
#endif

// The call's name as mpi_bench reports it: MPI_Reduce, MPI_Iallreduce, MPI_Reduce_scatter_block_init, ...
std::string call_mpi_name(Collective collective, CallMode mode);

struct AlgorithmChoice {
    std::string name;  // as on the command line and in the CSV: native, optimal, fibonacci, binomial, auto
    redux_algorithm algorithm;
    bool planned() const { return algorithm != REDUX_ALGORITHM_NATIVE; }
};

// Sizes up to this many bytes get the small-message iteration counts (OSU's LARGE_MESSAGE_SIZE); sizes above
// kHugeMessageBytes (long vectors, up to 64 MiB and more) fewer iterations still.
constexpr long kLargeMessageBytes = 8192;
constexpr long kHugeMessageBytes = 4L << 20;

struct BenchOptions {
    Collective collective = Collective::reduce;
    CallMode mode = CallMode::blocking;  // --collective iallreduce, allreduce_init, ...
    double overlap_s = 0;                // --overlap: work between a nonblocking or persistent start and its wait
    std::vector<AlgorithmChoice> algorithms;
    std::vector<long> sizes_bytes;
    int iterations = 0;  // 0: 1000 up to kLargeMessageBytes, 100 up to kHugeMessageBytes, 20 above
    int warmup = -1;     // -1: 100 up to kLargeMessageBytes, 10 above (auto's trials come before, runner.cpp)
    int root = 0;        // reduce only; the others have none and are timed and reported by rank 0
    bool in_place = false;
    OpSpec op;                     // op.cost_cv: --op-cost-cv
    ArrivalSpec arrival;           // --arrival: when each rank reaches each call (dynamic.hpp)
    bool measured_costs = false;   // --costs measured: d and c measured here and passed to the planner
    bool window_sync = false;      // --sync window: iterations start at an agreed time (start_clock.hpp)
    long long segment_bytes = -1;  // --segment-bytes, redux_options.segment_bytes of the planned algorithms
    double size_seconds = 0;       // --size-seconds: > 0 caps the iterations of slow sizes (Runner::limit_rounds)
    bool cold = false;             // --cold: auto timed from its first calls, as a job sees them (no warm-up)
    std::string csv_path;
    std::string costs_csv_path;
    bool min_max = false;
    bool quiet = false;
    std::string corrupt_algorithm;  // tests: damage this algorithm's result before verification

    // allreduce and reduce_scatter_block: every rank has a result to verify and a time that counts.
    bool every_rank_results() const { return collective != Collective::reduce; }

    int iterations_for(long bytes) const {
        if (iterations > 0) return iterations;
        return bytes <= kLargeMessageBytes ? 1000 : bytes <= kHugeMessageBytes ? 100 : 20;
    }
    int warmup_for(long bytes) const {
        return cold ? 0 : warmup >= 0 ? warmup : bytes <= kLargeMessageBytes ? 100 : 10;
    }
};

enum class ParseOutcome { run, help, usage_error };

// Parses argv for a communicator of `ranks` ranks. Every rank gets the same argv and so the same outcome.
// `message` is the help or --version text (help) or the error followed by the usage (usage_error).
ParseOutcome parse_options(int argc, char** argv, int ranks, BenchOptions& options, std::string& message);

// The synopsis printed with every command-line error.
const char* usage_text();

// The name of a redux_algorithm as on the command line ("native", "optimal", "recursive-doubling", ...).
std::string algorithm_name(redux_algorithm algorithm);

// "8:4M" (doubling), "8,64,1K", "1M"; K, M, G are powers of 1024. Empty with `error` set when invalid.
std::vector<long> parse_sizes(const std::string& text, std::string& error);

}  // namespace redux_bench
