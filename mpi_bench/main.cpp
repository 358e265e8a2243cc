// mpi_bench: MPI_Reduce (or MPI_Allreduce, MPI_Reduce_scatter_block: --collective) with the MPI library's own
// algorithm and with libredux's planned ones, side by side.
//
//   mpirun -np N mpi_bench [options]        (mpi_bench --help for the options, README.md for the outputs)
//
// main() parses the command line on every rank (all ranks see the same argv, so all reach the same verdict
// and a bad option ends every rank with status 2, nothing left waiting), then runs the sizes one by one
// (runner.hpp) and lets the root report them (report.hpp). Exit status: 0, 1 when a result is wrong, 2 for a
// bad command line or an output file that cannot be written.
#include "ops.hpp"
#include "options.hpp"
#include "report.hpp"
#include "runner.hpp"
#include "yielding.hpp"

#include <mpi.h>

#include <climits>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace {

constexpr int kExitWrongResult = 1;
constexpr int kExitUsage = 2;

int finish(int status) {
    MPI_Finalize();
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace redux_bench;
    MPI_Init(&argc, &argv);
    int rank = 0, ranks = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);

    BenchOptions options;
    std::string message;
    switch (parse_options(argc, argv, ranks, options, message)) {
        case ParseOutcome::help:
            if (rank == 0) std::fputs(message.c_str(), stdout);
            return finish(0);
        case ParseOutcome::usage_error:
            if (rank == 0) std::fputs(message.c_str(), stderr);
            return finish(kExitUsage);
        case ParseOutcome::run:
            break;
    }
    const bool reporter = rank == options.root;

    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int status = 0;
    {
        const std::unique_ptr<BenchOp> op = make_bench_op(options.op);
        const long element_bytes = op->element_bytes();

        // The same element size on every rank, so every rank agrees on the counts. A size is each rank's input
        // vector; reduce_scatter_block's count is its recvcount, the vector's elements / ranks (the rest dropped).
        const bool scatter = options.collective == Collective::reduce_scatter_block;
        const long smallest_bytes = scatter ? element_bytes * ranks : element_bytes;
        std::vector<int> counts;
        std::string skipped;
        for (const long bytes : options.sizes_bytes) {
            if (bytes < smallest_bytes) {
                skipped += (skipped.empty() ? "" : ",") + std::to_string(bytes);
            } else if (bytes / element_bytes > INT_MAX) {
                message = "--sizes: " + std::to_string(bytes) + " bytes is more than INT_MAX elements";
            } else {
                counts.push_back(static_cast<int>(bytes / smallest_bytes));
            }
        }
        if (message.empty() && counts.empty()) {
            message = "--sizes: no size holds one element of " + std::to_string(element_bytes) + " bytes" +
                      (scatter ? " per rank (" + std::to_string(ranks) + " ranks)" : "");
        }

        Report report(options, ranks, op->element_bytes());
        if (reporter && message.empty() && !report.open(message)) message.insert(0, "--csv: ");
        const bool usable = all_of_yielding(message.empty(), comm);
        if (!usable) {
            if (reporter) std::fprintf(stderr, "mpi_bench: error: %s\n%s", message.c_str(), usage_text());
            status = kExitUsage;
        } else {
            if (reporter) report.print_header(skipped);
            Runner runner(options, *op, comm);
            for (size_t i = 0; i < counts.size(); ++i) {
                SizeResult result;
                if (!runner.run_size(counts[i], result)) {
                    status = kExitWrongResult;
                    break;
                }
                if (reporter) report.add(result, i, counts.size());
            }
            if (reporter && status == 0) report.finish();
        }
    }
    MPI_Comm_free(&comm);
    return finish(status);
}
