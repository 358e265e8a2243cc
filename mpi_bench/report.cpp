#include "report.hpp"

#include <mpi.h>

#include <cerrno>
#include <cstring>

namespace redux_bench {
namespace {

constexpr int kColumn = 15;

std::string library_version() {
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    MPI_Get_library_version(version, &length);
    std::string text(version);
    const auto end = text.find_first_of(",\n");
    return end == std::string::npos ? text : text.substr(0, end);
}

std::FILE* open_csv(const std::string& path, const char* header, std::string& error) {
    std::FILE* file = std::fopen(path.c_str(), "w");
    if (file == nullptr) {
        error = "cannot write '" + path + "': " + std::strerror(errno);
        return nullptr;
    }
    std::fprintf(file, "%s\n", header);
    return file;
}

// The d and c the planned algorithms used: measured, or the first planned call's report.
bool planned_costs(const SizeResult& result, double& transfer_s, double& compute_s) {
    if (result.costs_measured) {
        transfer_s = result.costs.transfer_s;
        compute_s = result.costs.compute_s;
        return true;
    }
    for (const AlgorithmResult& algorithm : result.algorithms) {
        if (algorithm.planned) {
            transfer_s = algorithm.transfer_s;
            compute_s = algorithm.compute_s;
            return true;
        }
    }
    return false;
}

}  // namespace

Report::Report(const BenchOptions& options, int ranks, int element_bytes)
    : options_(options), ranks_(ranks), element_bytes_(element_bytes), start_(std::chrono::steady_clock::now()) {}

Report::~Report() {
    if (csv_ != nullptr) std::fclose(csv_);
    if (costs_csv_ != nullptr) std::fclose(costs_csv_);
}

bool Report::open(std::string& error) {
    if (!options_.csv_path.empty() && (csv_ = open_csv(options_.csv_path, kCsvHeader, error)) == nullptr) return false;
    if (!options_.costs_csv_path.empty() &&
        (costs_csv_ = open_csv(options_.costs_csv_path, kCostsCsvHeader, error)) == nullptr) {
        return false;
    }
    return true;
}

void Report::print_header(const std::string& skipped_sizes) {
    const long small = kLargeMessageBytes;
    std::printf("# mpi_bench: MPI_Reduce latency, libredux against %s (native = PMPI_Reduce)\n",
                library_version().c_str());
    std::printf("# ranks %d, root %d, op %s, datatype %s (%d B per element)%s, costs %s\n", ranks_, options_.root,
                op_label(options_.op).c_str(), datatype_name(options_.op.type).c_str(), element_bytes_,
                options_.in_place ? ", in place" : "", options_.measured_costs ? "measured" : "library");
    std::printf("# iterations %d up to %ld B, %d above; warm-up %d, %d\n", options_.iterations_for(small), small,
                options_.iterations_for(small + 1), options_.warmup_for(small), options_.warmup_for(small + 1));
    if (!skipped_sizes.empty()) std::printf("# skipped (smaller than one element): %s\n", skipped_sizes.c_str());
    std::printf("# latency (us): median over iterations, %s to the root's completion; d, c (us): planned with\n",
                options_.window_sync ? "agreed start time (--sync window)" : "barrier");
    std::printf("%-10s", "# Size");
    for (const AlgorithmChoice& algorithm : options_.algorithms) {
        std::printf(" %*s", kColumn, algorithm.name.c_str());
        if (options_.min_max) {
            std::printf(" %*s %*s", kColumn, (algorithm.name + ":min").c_str(), kColumn,
                        (algorithm.name + ":max").c_str());
        }
    }
    std::printf(" %*s %*s\n", kColumn, "d(us)", kColumn, "c(us)");
    std::fflush(stdout);
}

void Report::add(const SizeResult& result, size_t index, size_t total) {
    std::printf("%-10ld", result.bytes);
    for (const AlgorithmResult& algorithm : result.algorithms) {
        std::printf(" %*.2f", kColumn, algorithm.latency.median_s * 1e6);
        if (options_.min_max) {
            std::printf(" %*.2f %*.2f", kColumn, algorithm.latency.min_s * 1e6, kColumn, algorithm.latency.max_s * 1e6);
        }
    }
    double transfer_s = 0, compute_s = 0;
    if (planned_costs(result, transfer_s, compute_s)) {
        std::printf(" %*.2f %*.2f\n", kColumn, transfer_s * 1e6, kColumn, compute_s * 1e6);
    } else {
        std::printf(" %*s %*s\n", kColumn, "-", kColumn, "-");
    }
    std::fflush(stdout);
    write_csv(result);

    if (!options_.quiet) {
        const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        std::string line;
        for (size_t a = 0; a < result.algorithms.size(); ++a) {
            char part[96];
            std::snprintf(part, sizeof part, "%s%s %.1f us", a == 0 ? "" : ", ", options_.algorithms[a].name.c_str(),
                          result.algorithms[a].latency.median_s * 1e6);
            line += part;
        }
        std::fprintf(stderr, "mpi_bench: [%zu/%zu] %ld B: %s (elapsed %.1f s)\n", index + 1, total, result.bytes,
                     line.c_str(), elapsed_s);
    }
    if (result.late_starts > 0) {
        std::fprintf(stderr, "mpi_bench: %ld B: %ld rank-iterations began after the agreed start (margin %.0f us)\n",
                     result.bytes, result.late_starts, result.start_margin_s * 1e6);
    }
}

void Report::write_csv(const SizeResult& result) {
    const std::string op = op_label(options_.op);
    if (csv_ != nullptr) {
        const AlgorithmResult* native = nullptr;
        for (size_t a = 0; a < result.algorithms.size(); ++a) {
            if (!options_.algorithms[a].planned()) native = &result.algorithms[a];
        }
        for (size_t a = 0; a < result.algorithms.size(); ++a) {
            const AlgorithmResult& r = result.algorithms[a];
            std::fprintf(csv_, "%s,%s,%d,%ld,%d,%.3f,%.3f,%.3f,", options_.algorithms[a].name.c_str(), op.c_str(),
                         ranks_, result.bytes, result.count, r.latency.median_s * 1e6, r.latency.min_s * 1e6,
                         r.latency.max_s * 1e6);
            if (r.planned) std::fprintf(csv_, "%.3f", r.predicted_s * 1e6);
            std::fputc(',', csv_);
            if (native != nullptr && r.latency.median_s > 0) {
                std::fprintf(csv_, "%.4f", native->latency.median_s / r.latency.median_s);
            }
            std::fputc('\n', csv_);
        }
        std::fflush(csv_);
    }
    double transfer_s = 0, compute_s = 0;
    if (costs_csv_ != nullptr && planned_costs(result, transfer_s, compute_s)) {
        std::fprintf(costs_csv_, "%s,%d,%ld,%d,%.3f,%.3f,%s\n", op.c_str(), ranks_, result.bytes, result.count,
                     transfer_s * 1e6, compute_s * 1e6, result.costs_measured ? "measured" : "library");
        std::fflush(costs_csv_);
    }
}

}  // namespace redux_bench
