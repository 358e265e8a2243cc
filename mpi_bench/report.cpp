#include "report.hpp"

#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace redux_bench {
namespace {

constexpr int kColumn = 15;
constexpr int kSpeedupColumn = 8;
constexpr int kCostColumn = 10;

// A column as wide as its header: kColumn, or a longer name ("recursive-doubling").
int column_width(const std::string& header) { return std::max(kColumn, static_cast<int>(header.size())); }

AlgorithmKind kind_of(const AlgorithmChoice& choice) {
    if (choice.algorithm == REDUX_ALGORITHM_NATIVE) return AlgorithmKind::native;
    return choice.algorithm == REDUX_ALGORITHM_AUTO ? AlgorithmKind::automatic : AlgorithmKind::strategy;
}

std::string fixed(double value, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

std::string segments_setting(long long segment_bytes) {
    if (segment_bytes < 0) return "library's choice";
    if (segment_bytes == 0) return "none (unsegmented)";
    return "of " + std::to_string(segment_bytes) + " B (forced)";
}

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
        if (algorithm.plan.planned) {
            transfer_s = algorithm.plan.transfer_s;
            compute_s = algorithm.plan.compute_s;
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
    const long small = kLargeMessageBytes, large = kHugeMessageBytes;
    const std::string collective = call_mpi_name(options_.collective, options_.mode);
    const bool every_rank = options_.every_rank_results();
    std::printf("# mpi_bench: %s latency, libredux against %s (native = P%s)\n", collective.c_str(),
                library_version().c_str(), collective.c_str());
    if (options_.mode != CallMode::blocking) {
        std::printf("# from the start to MPI_Wait's return; %.0f us of work between them, MPI_Test every 50 us\n",
                    options_.overlap_s * 1e6);
    }
    const std::string root = every_rank ? "" : ", root " + std::to_string(options_.root);
    std::printf("# ranks %d%s, op %s, datatype %s (%d B per element)%s, costs %s, segments %s\n", ranks_, root.c_str(),
                op_label(options_.op).c_str(), datatype_name(options_.op.type).c_str(), element_bytes_,
                options_.in_place ? ", in place" : "", options_.measured_costs ? "measured" : "library",
                segments_setting(options_.segment_bytes).c_str());
    if (options_.collective == Collective::reduce_scatter_block) {
        std::printf(
            "# sizes: each rank's input vector, ranks x recvcount elements (recvcount: the CSV's count, each "
            "rank's block)\n");
    }
    if (options_.iterations > 0) {
        std::printf("# iterations %d; warm-up %d up to %ld B, %d above\n", options_.iterations,
                    options_.warmup_for(small), small, options_.warmup_for(small + 1));
    } else {
        std::printf("# iterations %d up to %ld B, %d up to %ld B, %d above; warm-up %d up to %ld B, %d above\n",
                    options_.iterations_for(small), small, options_.iterations_for(large), large,
                    options_.iterations_for(large + 1), options_.warmup_for(small), small,
                    options_.warmup_for(small + 1));
    }
    if (options_.size_seconds > 0) {
        std::printf("# --size-seconds %g: fewer iterations (at least 3) where a round of the algorithms is slow\n",
                    options_.size_seconds);
    }
    if (!skipped_sizes.empty()) {
        std::printf("# skipped (smaller than one element%s): %s\n",
                    options_.collective == Collective::reduce_scatter_block ? " per rank" : "", skipped_sizes.c_str());
    }
    std::printf(
        "# latency (us): median over iterations \u00b1 half the interquartile range (%% of the median), %s to\n"
        "#   %s; =NAME: the same plan as NAME (libredux reports the same d and segments,\n"
        "#   and predictions equal up to its c measured per plan); speedup: native / auto (> 1: auto faster);\n"
        "#   d, c (us): planned with; plans: the algorithms of each plan joined by '=', [its segment count]\n",
        options_.window_sync ? "agreed start time (--sync window)" : "barrier",
        every_rank ? "the slowest rank's completion" : "the root's completion");
    print_dynamic_header();
    std::printf("%-10s", "# Size");
    const std::vector<ExtraColumn> extra = extra_columns();
    for (const AlgorithmChoice& algorithm : options_.algorithms) {
        std::printf(" %*s", column_width(algorithm.name), algorithm.name.c_str());
        for (const ExtraColumn& column : extra) {
            const std::string name = algorithm.name + column.suffix;
            std::printf(" %*s", column_width(name), name.c_str());
        }
    }
    std::printf(" %*s %*s %*s", kSpeedupColumn, "speedup", kCostColumn, "d(us)", kCostColumn, "c(us)");
    if (shows_floor()) std::printf(" %*s", kCostColumn, "floor(us)");
    std::printf("  %s\n", "plans[segments]");
    std::fflush(stdout);
}

std::vector<Report::ExtraColumn> Report::extra_columns() const {
    std::vector<ExtraColumn> columns;
    if (options_.min_max) {
        columns.push_back({":min", [](const AlgorithmResult& r) { return r.latency.min_s; }});
        columns.push_back({":max", [](const AlgorithmResult& r) { return r.latency.max_s; }});
    }
    if (options_.arrival.kind == ArrivalKind::together) return columns;
    columns.push_back({":last", [](const AlgorithmResult& r) { return r.after_last.median_s; }});
    if (options_.min_max) {
        columns.push_back({":last-p90", [](const AlgorithmResult& r) { return r.after_last.p90_s; }});
        columns.push_back({":last-mean", [](const AlgorithmResult& r) { return r.after_last.mean_s; }});
    }
    return columns;
}

// The '#' lines of --op-cost-cv and --arrival, when they are set.
void Report::print_dynamic_header() const {
    if (options_.op.cost_cv > 0) {
        std::printf("# op cost: each application a gamma draw of mean its nominal cost, coefficient of variation %g\n",
                    options_.op.cost_cv);
    }
    const ArrivalSpec& arrival = options_.arrival;
    if (arrival.kind == ArrivalKind::together) return;
    std::printf(
        "# arrival %s: in each iteration %s (asleep until then),\n"
        "#   counted from %s;\n"
        "#   NAME:last (us): median time from the last rank's entry into the call to %s%s\n",
        arrival_label(arrival).c_str(), arrival_description(arrival).c_str(),
        options_.window_sync ? "the agreed start (one clock)"
                             : "each rank's own exit of the barrier (--sync window: one clock)",
        options_.every_rank_results() ? "the slowest rank's completion" : "the root's completion",
        options_.min_max ? "\n#   (NAME:last-p90, NAME:last-mean: its 90th percentile and mean)" : "");
    if (shows_floor()) {
        std::printf(
            "#   floor (us): d + c, one transfer and one fold of the whole vector: the least any plan takes after the\n"
            "#   last arrival of a rank other than the root (the root last: its one fold, c)\n");
    }
}

bool Report::shows_floor() const {
    return options_.collective == Collective::reduce && options_.arrival.kind != ArrivalKind::together;
}

int Report::find(AlgorithmKind kind) const {
    for (size_t a = 0; a < options_.algorithms.size(); ++a) {
        if (kind_of(options_.algorithms[a]) == kind) return static_cast<int>(a);
    }
    return -1;
}

void Report::add(const SizeResult& result, size_t index, size_t total) {
    std::vector<AlgorithmPlan> plans;
    for (size_t a = 0; a < result.algorithms.size(); ++a) {
        const AlgorithmResult& r = result.algorithms[a];
        plans.push_back({options_.algorithms[a].name, kind_of(options_.algorithms[a]), r.plan, r.ran != "native"});
    }
    const std::vector<int> shown_as = same_plan_as(plans, ranks_);
    print_row(result, shown_as, plans);
    write_csv(result, shown_as);
    const int native = find(AlgorithmKind::native), automatic = find(AlgorithmKind::automatic);
    if (native >= 0 && automatic >= 0) {
        const auto n = static_cast<size_t>(native), a = static_cast<size_t>(automatic);
        auto_against_native_.push_back(
            {result.bytes, result.algorithms[n].latency, result.algorithms[a].latency, result.algorithms[a].ran});
    }
    if (!options_.quiet) print_progress(result, index, total);
    if (result.late_starts > 0) {
        std::fprintf(stderr, "mpi_bench: %ld B: %ld rank-iterations began after the agreed start (margin %.0f us)\n",
                     result.bytes, result.late_starts, result.start_margin_s * 1e6);
    }
}

void Report::print_row(const SizeResult& result, const std::vector<int>& shown_as,
                       const std::vector<AlgorithmPlan>& plans) {
    std::string row = std::to_string(result.bytes);
    row.resize(std::max<size_t>(row.size(), 10), ' ');
    const std::vector<ExtraColumn> extra = extra_columns();
    for (size_t a = 0; a < result.algorithms.size(); ++a) {
        const AlgorithmResult& r = result.algorithms[a];
        const bool merged = shown_as[a] >= 0 && plans[a].kind == AlgorithmKind::strategy;
        const std::string& name = options_.algorithms[a].name;
        row +=
            " " + right_aligned(merged ? "=" + plans[static_cast<size_t>(shown_as[a])].name : latency_cell(r.latency),
                                column_width(name));
        for (const ExtraColumn& column : extra) {
            row += " " +
                   right_aligned(merged ? "-" : fixed(column.value_s(r) * 1e6, 2), column_width(name + column.suffix));
        }
    }
    const int native = find(AlgorithmKind::native), automatic = find(AlgorithmKind::automatic);
    std::string speedup = "-";
    if (native >= 0 && automatic >= 0) {
        const double auto_s = result.algorithms[static_cast<size_t>(automatic)].latency.median_s;
        if (auto_s > 0)
            speedup = fixed(result.algorithms[static_cast<size_t>(native)].latency.median_s / auto_s, 2) + "x";
    }
    row += " " + right_aligned(speedup, kSpeedupColumn);
    double transfer_s = 0, compute_s = 0;
    const bool costs = planned_costs(result, transfer_s, compute_s);
    row += " " + right_aligned(costs ? fixed(transfer_s * 1e6, 2) : "-", kCostColumn);
    row += " " + right_aligned(costs ? fixed(compute_s * 1e6, 2) : "-", kCostColumn);
    if (shows_floor()) row += " " + right_aligned(costs ? fixed((transfer_s + compute_s) * 1e6, 2) : "-", kCostColumn);
    row += "  " + plans_text(plans, shown_as);
    std::printf("%s\n", row.c_str());
    std::fflush(stdout);
}

void Report::print_progress(const SizeResult& result, size_t index, size_t total) {
    const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::string line;
    for (size_t a = 0; a < result.algorithms.size(); ++a) {
        line += (a == 0 ? "" : ", ") + options_.algorithms[a].name + " " +
                fixed(result.algorithms[a].latency.median_s * 1e6, 1) + " us";
    }
    std::fprintf(stderr, "mpi_bench: [%zu/%zu] %ld B: %s (elapsed %.1f s)\n", index + 1, total, result.bytes,
                 line.c_str(), elapsed_s);
}

void Report::finish() {
    if (auto_against_native_.empty()) return;
    std::printf("# verdict, auto against native (speedup native / auto; noise: the interquartile ranges overlap):\n");
    for (const std::string& line : verdict_lines(auto_against_native_)) std::printf("#   %s\n", line.c_str());
    std::fflush(stdout);
}

void Report::write_csv(const SizeResult& result, const std::vector<int>& shown_as) {
    const std::string op = op_label(options_.op);
    if (csv_ != nullptr) {
        const int native = find(AlgorithmKind::native);
        for (size_t a = 0; a < result.algorithms.size(); ++a) {
            const AlgorithmResult& r = result.algorithms[a];
            const Summary& l = r.latency;
            std::fprintf(csv_, "%s,%s,%d,%ld,%d,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,", options_.algorithms[a].name.c_str(),
                         op.c_str(), ranks_, result.bytes, result.count, l.samples, l.median_s * 1e6, l.mean_s * 1e6,
                         l.q1_s * 1e6, l.q3_s * 1e6, l.min_s * 1e6, l.max_s * 1e6);
            if (r.plan.planned) std::fprintf(csv_, "%.3f,%d", r.plan.predicted_s * 1e6, r.plan.segments);
            std::fprintf(csv_, r.plan.planned ? ",%s," : ",,%s,", r.ran.c_str());
            if (shown_as[a] >= 0) std::fputs(options_.algorithms[static_cast<size_t>(shown_as[a])].name.c_str(), csv_);
            std::fputc(',', csv_);
            if (native >= 0 && l.median_s > 0) {
                std::fprintf(csv_, "%.4f",
                             result.algorithms[static_cast<size_t>(native)].latency.median_s / l.median_s);
            }
            const Summary& after = r.after_last;
            std::fprintf(csv_, ",%s,%g,%.3f,%.3f,%.3f,%.3f\n", arrival_label(options_.arrival).c_str(),
                         options_.op.cost_cv, after.median_s * 1e6, after.p90_s * 1e6, after.mean_s * 1e6,
                         l.p90_s * 1e6);
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
