#include "api/process_config.hpp"

#include "api/startup_line.hpp"
#include "exec/timeline.hpp"
#include "mpi/yielding.hpp"
#include "policy/owned_file.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace redux {
namespace {

// The environment as libredux reads it. On simulated ranks (SimGrid SMPI) the default wisdom file's folders are
// not seen, so that no wisdom is kept there unless REDUX_WISDOM names a file: a simulation's decisions are the
// model's, and each run is to make them again.
const char* real_getenv(const char* name) {
    if (kSimulatedRanks && (std::strcmp(name, "HOME") == 0 || std::strcmp(name, "XDG_CACHE_HOME") == 0)) return nullptr;
    return std::getenv(name);
}

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
        // The default wisdom file's folder (the user's cache), made once where it is missing: its files are
        // published there (a file named by REDUX_WISDOM or REDUX_CALIBRATION_FILE is where the user says, or an
        // error that names it).
        const char* named = real_getenv("REDUX_WISDOM");
        if ((named == nullptr || *named == '\0') && !parsed.wisdom_path.empty()) make_folder_of(parsed.wisdom_path);
        if (!parsed.timeline_prefix.empty()) {
            const std::string problem = Timeline::open(parsed.timeline_prefix);
            if (!problem.empty()) std::fprintf(stderr, "libredux: REDUX_TIMELINE: %s\n", problem.c_str());
        }
        return parsed;
    }();
    return cfg;
}

}  // namespace redux
