#include "api/process_config.hpp"

#include "api/startup_line.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>

namespace redux {
namespace {

const char* real_getenv(const char* name) { return std::getenv(name); }

}  // namespace

const Config& config() {
    static const Config cfg = [] {
        Config parsed = parse_config(real_getenv);
        if (!parsed.problem.empty() || parsed.verbose) {
            int rank = 0;
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
            if (rank == 0 && !parsed.problem.empty()) {
                std::fprintf(stderr, "libredux: %s; using the MPI library's own MPI_Reduce\n", parsed.problem.c_str());
            }
            if (rank == 0 && parsed.verbose) {
                std::fprintf(stderr, "%s\n", startup_line(parsed, real_getenv).c_str());
            }
        }
        return parsed;
    }();
    return cfg;
}

}  // namespace redux
