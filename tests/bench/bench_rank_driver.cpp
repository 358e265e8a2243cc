// Runs mpi_bench as one rank of an MPI job and checks what that rank saw.
//
// redux_add_mpi_test starts this driver on every rank (`mpiexec -n N bench_rank_driver ...`). The driver is
// not an MPI program: it starts mpi_bench as its child, which inherits the launcher's environment and so
// joins the job as this rank, waits for it, then checks this rank's exit status and, on the root, the
// outputs. The job passes only when every rank's check passes, which is how "exit status 2 on every rank"
// is tested; the test's timeout catches a rank left hanging.
//
//   bench_rank_driver MODE --bench PATH --out DIR --name NAME [expectations] -- [mpi_bench arguments]
//   MODE  run          expect status 0; on the root, check the CSV, the costs CSV and the table
//         usage-error  expect status 2 on every rank; the root printed the error and the usage once
//         wrong-result expect status 1 on every rank; the root said which algorithm's result was wrong
//   expectations (written out by hand in CMakeLists.txt, independent of mpi_bench's own code):
//     --collective C          reduce (default), allreduce or reduce_scatter_block: the collective the table's
//                             first line names; reduce_scatter_block's sizes are each rank's vector, rounded
//                             down to a multiple of ranks elements (sizes under one element per rank have no
//                             rows), and its count is bytes / element size / ranks
//     --root R                the rank that reports (default 0)
//     --algorithms LIST       the CSV's algorithms, in order
//     --bytes LIST            the sizes that must have rows, in order
//     --element-bytes E       count = bytes / E
//     --op LABEL              the CSV's op column
//     --costs-source SOURCE   library (default) or measured
//     --iterations N          the CSV's iterations (default: mpi_bench's --iterations when given)
//     --segments N            the segment count of every planned row
//     --arrival LABEL         the CSV's arrival column (default together); other than together, the table has a
//                             NAME:last column after each algorithm's, and the mean latency less the mean time
//                             after the last arrival (the mean latest arrival) is at least one-late's delay, or
//                             above 0 for exp
//     --op-cost-cv CV         the CSV's op_cost_cv column (default 0)
//     --message TEXT          usage-error, wrong-result: text the root's stderr must contain ({last-rank}: the
//                             number of the last rank); may be given more than once
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace {

const char* const kCsvHeader =
    "algorithm,op,ranks,bytes,count,iterations,median_us,mean_us,q1_us,q3_us,min_us,max_us,predicted_us,segments,ran,"
    "same_plan_as,speedup_vs_native,arrival,op_cost_cv,after_last_median_us,after_last_p90_us,after_last_mean_us,"
    "p90_us";
const char* const kCostsHeader = "op,ranks,bytes,count,transfer_us,compute_us,source";

struct Expectations {
    std::string mode, bench, out_dir, name;
    std::string collective = "reduce";
    int root = 0;
    std::vector<std::string> algorithms;
    std::vector<long> bytes;
    long element_bytes = 8;
    std::string op = "sum";
    std::string costs_source = "library";
    std::vector<std::string> messages;
    int iterations = 0;  // the samples every row must have (0: not checked)
    int segments = 0;    // the segment count every planned row must have (0: any >= 1)
    std::string arrival = "together";
    std::string op_cost_cv = "0";
    bool window_sync = false;  // mpi_bench's --sync window: arrivals and ends on one clock
    std::vector<std::string> bench_args;
};

int g_rank = -1;
int g_failures = 0;

void fail(const std::string& what) {
    std::cerr << "[rank " << g_rank << "] FAILED: " << what << "\n";
    ++g_failures;
}

std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> parts;
    std::string part;
    std::istringstream stream(text);
    while (std::getline(stream, part, separator)) parts.push_back(part);
    if (!text.empty() && text.back() == separator) parts.emplace_back();
    return parts;
}

std::vector<std::string> words(const std::string& line) {
    std::vector<std::string> out;
    std::istringstream stream(line);
    std::string word;
    while (stream >> word) out.push_back(word);
    return out;
}

std::vector<std::string> read_lines(const std::string& path) {
    std::vector<std::string> lines;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) lines.push_back(line);
    return lines;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

int env_int(const char* a, const char* b) {
    for (const char* name : {a, b}) {
        if (const char* value = std::getenv(name)) return std::atoi(value);
    }
    return -1;
}

bool parse_number(const std::string& text, double& value) {
    if (text.empty()) return false;
    char* end = nullptr;
    value = std::strtod(text.c_str(), &end);
    return end == text.c_str() + text.size() && std::isfinite(value);
}

Expectations parse(int argc, char** argv) {
    Expectations e;
    if (argc < 2) {
        std::cerr << "usage: bench_rank_driver MODE --bench PATH --out DIR --name NAME ... -- ARGS\n";
        std::exit(2);
    }
    e.mode = argv[1];
    int i = 2;
    for (; i < argc && std::string(argv[i]) != "--"; i += 2) {
        const std::string key = argv[i];
        if (i + 1 >= argc) {
            std::cerr << "bench_rank_driver: " << key << " needs a value\n";
            std::exit(2);
        }
        const std::string value = argv[i + 1];
        if (key == "--bench")
            e.bench = value;
        else if (key == "--out")
            e.out_dir = value;
        else if (key == "--name")
            e.name = value;
        else if (key == "--collective")
            e.collective = value;
        else if (key == "--root")
            e.root = std::atoi(value.c_str());
        else if (key == "--algorithms")
            e.algorithms = split(value, ',');
        else if (key == "--bytes")
            for (const auto& b : split(value, ',')) e.bytes.push_back(std::atol(b.c_str()));
        else if (key == "--element-bytes")
            e.element_bytes = std::atol(value.c_str());
        else if (key == "--op")
            e.op = value;
        else if (key == "--costs-source")
            e.costs_source = value;
        else if (key == "--message")
            e.messages.push_back(value);
        else if (key == "--iterations")
            e.iterations = std::atoi(value.c_str());
        else if (key == "--segments")
            e.segments = std::atoi(value.c_str());
        else if (key == "--arrival")
            e.arrival = value;
        else if (key == "--op-cost-cv")
            e.op_cost_cv = value;
        else {
            std::cerr << "bench_rank_driver: unknown option " << key << "\n";
            std::exit(2);
        }
    }
    for (++i; i < argc; ++i) e.bench_args.emplace_back(argv[i]);
    for (size_t a = 0; a + 1 < e.bench_args.size(); ++a) {
        const std::string& arg = e.bench_args[a];
        const std::string& value = e.bench_args[a + 1];
        if (arg == "--iterations" && e.iterations == 0) e.iterations = std::atoi(value.c_str());
        if (arg == "--sync") e.window_sync = value == "window";
    }
    return e;
}

// Starts mpi_bench with stdout and stderr in files; its exit status, or -1.
int run_bench(const std::string& bench, const std::vector<std::string>& args, const std::string& out_path,
              const std::string& err_path) {
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(bench.c_str()));
    for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, bench.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) return -1;
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// CSV fields by position (the header is checked word for word first).
enum Field {
    kAlgorithm,
    kOp,
    kRanks,
    kBytes,
    kCount,
    kIterations,
    kMedian,
    kMean,
    kQ1,
    kQ3,
    kMin,
    kMax,
    kPredicted,
    kSegments,
    kRan,
    kSamePlanAs,
    kSpeedup,
    kArrival,
    kOpCostCv,
    kAfterLastMedian,
    kAfterLastP90,
    kAfterLastMean,
    kP90,
    kFields
};

struct CsvRow {
    std::vector<std::string> field;
    double median = 0;
};

bool contains(const std::vector<std::string>& list, const std::string& item) {
    for (const auto& x : list) {
        if (x == item) return true;
    }
    return false;
}

// The statistics of one row: 0 < min <= q1 <= median <= q3 <= p90 <= max, min <= mean <= max, the iterations run.
void check_latency(const std::vector<std::string>& f, int iterations, const std::string& where, double& median) {
    double v[7] = {};
    const Field order[7] = {kMin, kQ1, kMedian, kQ3, kMax, kMean, kP90};
    bool numbers = true;
    for (int i = 0; i < 7; ++i) numbers = numbers && parse_number(f[order[i]], v[i]);
    if (!numbers || !(v[0] > 0) || !(v[0] <= v[1] && v[1] <= v[2] && v[2] <= v[3] && v[3] <= v[4]) ||
        !(v[0] <= v[5] && v[5] <= v[4]) || !(v[3] <= v[6] && v[6] <= v[4])) {
        fail(where +
             "not 0 < min_us <= q1_us <= median_us <= q3_us <= p90_us <= max_us and min_us <= mean_us <= max_us");
    }
    if (iterations > 0 && f[kIterations] != std::to_string(iterations)) {
        fail(where + "iterations is not " + std::to_string(iterations));
    }
    median = v[2];
}

// arrival, op_cost_cv and the time after the last arrival of one row. In every iteration that time is the latency
// less the latest arrival, which is >= 0 (each rank's own start to its entry into the call), so its median and mean
// are at most the latency's, up to the CSV's rounding to 0.001 us; the mean latency less its mean is the mean latest
// arrival, at least one-late's delay, since the late rank sleeps that long from its start. With --sync window the
// ends and arrivals are on one clock, where nothing ends before the last rank entered the call.
void check_after_last(const Expectations& e, const std::vector<std::string>& f, const std::string& where) {
    if (f[kArrival] != e.arrival) fail(where + "arrival is not " + e.arrival);
    if (f[kOpCostCv] != e.op_cost_cv) fail(where + "op_cost_cv is not " + e.op_cost_cv);
    double median = 0, p90 = 0, mean = 0, latency_median = 0, latency_mean = 0, latency_max = 0;
    if (!parse_number(f[kAfterLastMedian], median) || !parse_number(f[kAfterLastP90], p90) ||
        !parse_number(f[kAfterLastMean], mean) || !parse_number(f[kMedian], latency_median) ||
        !parse_number(f[kMean], latency_mean) || !parse_number(f[kMax], latency_max)) {
        fail(where + "after_last_median_us, after_last_p90_us or after_last_mean_us is not a number");
        return;
    }
    constexpr double kRounding_us = 0.0015;
    if (!(median <= p90 + kRounding_us && p90 <= latency_max + kRounding_us)) {
        fail(where + "not after_last_median_us <= after_last_p90_us <= max_us");
    }
    if (!(median <= latency_median + kRounding_us && mean <= latency_mean + kRounding_us)) {
        fail(where + "the time after the last arrival exceeds the latency (median or mean)");
    }
    const std::string late = "one-late:";
    const double last_arrival_us = latency_mean - mean;
    if (e.arrival.rfind(late, 0) == 0 && last_arrival_us < std::atof(e.arrival.c_str() + late.size()) * 1e3 - 0.002) {
        fail(where + "the mean latest arrival, mean_us - after_last_mean_us, is less than one-late's delay");
    }
    if (e.arrival.rfind("exp:", 0) == 0 && !(last_arrival_us > 0)) fail(where + "exp: no rank arrived late");
    if (e.window_sync && !(median >= 0 && mean >= 0)) {
        fail(where + "on one clock (--sync window), the time after the last arrival is negative");
    }
}

// predicted_us, segments, ran and same_plan_as of one row.
void check_plan_fields(const Expectations& e, const std::vector<std::string>& f, size_t index, bool planned,
                       const std::string& where) {
    const std::string& algorithm = e.algorithms[index];
    double predicted = 0, segments = 0;
    if (planned && (!parse_number(f[kPredicted], predicted) || !(predicted > 0))) fail(where + "no predicted_us");
    if (planned && (!parse_number(f[kSegments], segments) || segments < 1 || segments != std::floor(segments))) {
        fail(where + "segments is not a count >= 1");
    }
    if (planned && e.segments > 0 && f[kSegments] != std::to_string(e.segments)) {
        fail(where + "segments is not " + std::to_string(e.segments));
    }
    if (!planned && (!f[kPredicted].empty() || !f[kSegments].empty())) {
        fail(where + "predicted_us and segments should be empty");
    }
    // What ran: native for native and wherever libredux passed the call on; auto may choose either.
    if ((!planned || algorithm == "native") && f[kRan] != "native") fail(where + "ran is not native");
    if (planned && algorithm != "auto" && (f[kRan].empty() || f[kRan] == "native" || f[kRan] == "auto")) {
        fail(where + "ran is not a strategy");
    }
    // The algorithm shown in its place: one run before it (auto: any, or native when it ran native).
    const std::string& same = f[kSamePlanAs];
    if (same.empty()) return;
    const auto at = std::find(e.algorithms.begin(), e.algorithms.end(), same);
    const bool before = at != e.algorithms.end() && static_cast<size_t>(at - e.algorithms.begin()) < index;
    if (algorithm == "native" || (!planned && algorithm != "auto") || same == algorithm || at == e.algorithms.end() ||
        (algorithm != "auto" && (!before || same == "native" || same == "auto")) ||
        (algorithm == "auto" && (same == "native") != (f[kRan] == "native"))) {
        fail(where + "same_plan_as '" + same + "' is not a possible algorithm");
    }
}

// speedup_vs_native of every row of one size against the medians.
void check_speedups(bool has_native, double native_median, const std::vector<CsvRow>& size_rows) {
    for (const CsvRow& row : size_rows) {
        const std::string& speedup_text = row.field[kSpeedup];
        if (!has_native) {
            if (!speedup_text.empty()) fail("speedup_vs_native without native: " + speedup_text);
            continue;
        }
        double speedup = 0;
        if (!parse_number(speedup_text, speedup)) {
            fail("speedup_vs_native '" + speedup_text + "' is not a number");
            continue;
        }
        // median_us is printed to 0.001 us and the speedup to 0.0001: allow for both roundings.
        const double ratio = native_median / row.median;
        const double tolerance = 1e-4 + ratio * (0.001 / row.median + 0.001 / native_median);
        if (std::fabs(speedup - ratio) > tolerance) {
            fail("speedup_vs_native " + speedup_text + " is not native median / median = " + std::to_string(ratio) +
                 " (" + row.field[kAlgorithm] + ", " + row.field[kBytes] + " B)");
        }
        if (row.field[kAlgorithm] == "native" && speedup_text != "1.0000") fail("native's speedup is " + speedup_text);
    }
}

void check_csv(const Expectations& e, int ranks, const std::string& csv_path, std::vector<CsvRow>& rows) {
    const std::vector<std::string> lines = read_lines(csv_path);
    if (lines.empty() || lines[0] != kCsvHeader) {
        fail("CSV header is '" + (lines.empty() ? std::string("(no file)") : lines[0]) + "'");
        return;
    }
    const size_t expected_rows = e.algorithms.size() * e.bytes.size();
    if (lines.size() - 1 != expected_rows) {
        fail("CSV has " + std::to_string(lines.size() - 1) + " rows, expected " + std::to_string(expected_rows));
        return;
    }
    const bool has_native = contains(e.algorithms, "native");
    size_t line = 1;
    for (const long bytes : e.bytes) {
        double native_median = 0;
        std::vector<CsvRow> size_rows;
        for (size_t a = 0; a < e.algorithms.size(); ++a) {
            const std::string& algorithm = e.algorithms[a];
            CsvRow row;
            row.field = split(lines[line], ',');
            const std::string where = "CSV line " + std::to_string(line + 1) + " (" + lines[line] + "): ";
            ++line;
            if (row.field.size() != kFields) {
                fail(where + "not " + std::to_string(kFields) + " fields");
                continue;
            }
            const auto& f = row.field;
            if (f[kAlgorithm] != algorithm) fail(where + "algorithm is not " + algorithm);
            if (f[kOp] != e.op) fail(where + "op is not " + e.op);
            if (f[kRanks] != std::to_string(ranks)) fail(where + "ranks is not " + std::to_string(ranks));
            if (f[kBytes] != std::to_string(bytes)) fail(where + "bytes is not " + std::to_string(bytes));
            const long per_count = e.collective == "reduce_scatter_block" ? e.element_bytes * ranks : e.element_bytes;
            if (f[kCount] != std::to_string(bytes / per_count)) {
                fail(where + "count is not bytes / element size" +
                     (e.collective == "reduce_scatter_block" ? " / ranks" : ""));
            }
            check_latency(f, e.iterations, where, row.median);
            check_after_last(e, f, where);
            const bool planned = algorithm != "native" && ranks > 1;  // one rank: libredux passes to PMPI_Reduce
            check_plan_fields(e, f, a, planned, where);
            if (algorithm == "native") native_median = row.median;
            size_rows.push_back(row);
            rows.push_back(row);
        }
        check_speedups(has_native, native_median, size_rows);
    }
}

void check_costs_csv(const Expectations& e, int ranks, const std::string& path) {
    const std::vector<std::string> lines = read_lines(path);
    if (lines.empty() || lines[0] != kCostsHeader) {
        fail("costs CSV header is '" + (lines.empty() ? std::string("(no file)") : lines[0]) + "'");
        return;
    }
    // One rank plans nothing, so with --costs library there is nothing to report.
    const size_t expected = ranks == 1 && e.costs_source == "library" ? 0 : e.bytes.size();
    if (lines.size() - 1 != expected) {
        fail("costs CSV has " + std::to_string(lines.size() - 1) + " rows, expected " + std::to_string(expected));
        return;
    }
    for (size_t i = 0; i < expected; ++i) {
        const auto f = split(lines[i + 1], ',');
        double transfer = -1, compute = -1;
        if (f.size() != 7 || f[0] != e.op || f[1] != std::to_string(ranks) || f[2] != std::to_string(e.bytes[i]) ||
            !parse_number(f[4], transfer) || !parse_number(f[5], compute) || transfer < 0 || compute < 0 ||
            f[6] != e.costs_source || (ranks == 1 && transfer != 0)) {
            fail("costs CSV line " + std::to_string(i + 2) + ": " + lines[i + 1]);
        }
    }
}

// "8 B", "4 KiB", "64 MiB": how the verdict lines name sizes.
std::string size_words(long bytes) {
    if (bytes >= (1L << 20) && bytes % (1L << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
    if (bytes >= (1L << 10) && bytes % (1L << 10) == 0) return std::to_string(bytes >> 10) + " KiB";
    return std::to_string(bytes) + " B";
}

// MPI_Reduce with late ranks has the floor column, d + c, after c(us).
bool shows_floor(const Expectations& e) { return e.collective == "reduce" && e.arrival != "together"; }

// One row of the table against the CSV rows of its size: per algorithm "MEDIAN ±S%" with the CSV's median,
// or "=NAME" where the CSV says same_plan_as NAME (strategies only); the speedup native / auto; d and c (and the
// floor, d + c); the plans, one word per plan, naming every planned algorithm once.
void check_table_row(const Expectations& e, const std::string& line, const CsvRow* size_rows) {
    const auto cells = words(line);
    size_t at = 1;
    bool ok = !cells.empty() && cells[0] == std::to_string(std::atol(size_rows[0].field[kBytes].c_str()));
    double native = 0, automatic = 0;
    for (size_t a = 0; ok && a < e.algorithms.size(); ++a) {
        const CsvRow& row = size_rows[a];
        const bool merged = e.algorithms[a] != "auto" && !row.field[kSamePlanAs].empty();
        if (at >= cells.size()) {
            ok = false;
        } else if (merged) {
            ok = cells[at++] == "=" + row.field[kSamePlanAs];
        } else {
            double value = 0;
            ok = at + 1 < cells.size() && parse_number(cells[at], value) && std::fabs(value - row.median) <= 0.0051 &&
                 cells[at + 1].rfind("\u00b1", 0) == 0 && cells[at + 1].back() == '%';
            at += 2;
        }
        if (ok && e.arrival != "together") {  // NAME:last, the median time after the last arrival
            double value = 0;
            ok = at < cells.size() &&
                 (merged ? cells[at] == "-"
                         : parse_number(cells[at], value) &&
                               std::fabs(value - std::atof(row.field[kAfterLastMedian].c_str())) <= 0.0051);
            ++at;
        }
        if (e.algorithms[a] == "native") native = row.median;
        if (e.algorithms[a] == "auto") automatic = row.median;
    }
    if (ok && at + 3 <= cells.size()) {
        double speedup = 0;
        if (native > 0 && automatic > 0) {
            ok = cells[at].back() == 'x' && parse_number(cells[at].substr(0, cells[at].size() - 1), speedup) &&
                 std::fabs(speedup - native / automatic) <= 0.006 + 0.01 * speedup;
        } else {
            ok = cells[at] == "-";
        }
        double transfer = 0, compute = 0;
        const bool costs = cells[at + 1] != "-";
        ok = ok && (costs ? parse_number(cells[at + 1], transfer) && parse_number(cells[at + 2], compute)
                          : cells[at + 2] == "-");
        at += 3;
        if (ok && shows_floor(e)) {  // d + c, or "-" without costs
            double floor = 0;
            ok = at < cells.size() &&
                 (costs ? parse_number(cells[at], floor) && std::fabs(floor - transfer - compute) <= 0.011
                        : cells[at] == "-");
            ++at;
        }
    } else {
        ok = false;
    }
    // The plans: words "a=b=c[N]" (N segments) and "native=auto"; every algorithm that ran a plan named once.
    std::vector<std::string> named;
    for (; ok && at < cells.size(); ++at) {
        std::string plan = cells[at];
        const auto bracket = plan.find('[');
        if (plan != "native=auto" && plan != "-") {
            ok = bracket != std::string::npos && plan.back() == ']';
            plan = plan.substr(0, bracket);
        }
        for (const std::string& name : split(plan, '=')) {
            if (name != "native" && name != "-") named.push_back(name);
        }
    }
    for (size_t a = 0; ok && a < e.algorithms.size(); ++a) {
        const std::string& name = e.algorithms[a];
        const bool ran_plan = name != "native" && size_rows[a].field[kRan] != "native";
        const auto times = std::count(named.begin(), named.end(), name);
        ok = times == (ran_plan || name == "auto" ? 1 : 0);  // auto: in its plan, or in native=auto
    }
    if (!ok) fail("table row '" + line + "' does not match the CSV");
}

// After the rows, when native and auto ran: the verdict lines, their ranges covering the sizes in order.
void check_verdict(const Expectations& e, const std::vector<std::string>& lines, size_t from) {
    std::vector<std::string> verdicts;
    bool header = false;
    for (size_t i = from; i < lines.size(); ++i) {
        if (lines[i].rfind("# verdict", 0) == 0) header = true;
        if (header && lines[i].rfind("#   ", 0) == 0) verdicts.push_back(lines[i].substr(4));
    }
    const bool expected = contains(e.algorithms, "native") && contains(e.algorithms, "auto");
    if (!expected) {
        if (header) fail("a verdict without native and auto");
        return;
    }
    if (verdicts.empty()) {
        fail("no verdict lines");
        return;
    }
    const std::string first = size_words(e.bytes.front()), last = size_words(e.bytes.back());
    const std::string& end = verdicts.back();
    if (verdicts.front().rfind(first + ":", 0) != 0 && verdicts.front().rfind(first + "-", 0) != 0) {
        fail("the first verdict does not start at " + first + ": " + verdicts.front());
    }
    if (end.find(last + ": auto ") == std::string::npos) fail("the last verdict does not end at " + last + ": " + end);
    for (const std::string& verdict : verdicts) {
        if (verdict.find("x native (") == std::string::npos || verdict.find("; auto ran ") == std::string::npos) {
            fail("verdict line '" + verdict + "'");
        }
    }
}

const char* collective_function(const std::string& collective) {
    if (collective == "allreduce") return "MPI_Allreduce";
    if (collective == "reduce_scatter_block") return "MPI_Reduce_scatter_block";
    return "MPI_Reduce";
}

// The table: a first line naming the collective, a "# Size" line naming the algorithms, one line per size
// matching the CSV, then the verdict.
void check_table(const Expectations& e, const std::string& out_path, const std::vector<CsvRow>& rows) {
    const std::vector<std::string> lines = read_lines(out_path);
    const std::string first = std::string("# mpi_bench: ") + collective_function(e.collective) + " latency";
    if (lines.empty() || lines[0].rfind(first, 0) != 0) {
        fail("the table's first line does not start with '" + first + "'");
    }
    size_t at = 0;
    while (at < lines.size() && lines[at].rfind("# Size", 0) != 0) ++at;
    if (at == lines.size()) {
        fail("no '# Size' line on stdout");
        return;
    }
    std::vector<std::string> expected_columns = {"#", "Size"};
    for (const auto& a : e.algorithms) {
        expected_columns.push_back(a);
        if (e.arrival != "together") expected_columns.push_back(a + ":last");
    }
    expected_columns.insert(expected_columns.end(), {"speedup", "d(us)", "c(us)"});
    if (shows_floor(e)) expected_columns.push_back("floor(us)");
    expected_columns.push_back("plans[segments]");
    if (words(lines[at]) != expected_columns) fail("table header is '" + lines[at] + "'");
    size_t row_lines = 0;
    while (at + 1 + row_lines < lines.size() && lines[at + 1 + row_lines].rfind("#", 0) != 0) ++row_lines;
    if (row_lines != e.bytes.size()) {
        fail("table has " + std::to_string(row_lines) + " rows, expected " + std::to_string(e.bytes.size()));
        return;
    }
    if (rows.size() != e.bytes.size() * e.algorithms.size()) return;  // the CSV's failure says why
    for (size_t s = 0; s < e.bytes.size(); ++s) check_table_row(e, lines[at + 1 + s], &rows[s * e.algorithms.size()]);
    check_verdict(e, lines, at + 1 + row_lines);
}

}  // namespace

// "{last-rank}" in `text` replaced by the number of the last rank.
std::string with_last_rank(std::string text, int ranks) {
    const std::string placeholder = "{last-rank}";
    for (auto at = text.find(placeholder); at != std::string::npos; at = text.find(placeholder)) {
        text.replace(at, placeholder.size(), std::to_string(ranks - 1));
    }
    return text;
}

int main(int argc, char** argv) {
    Expectations e = parse(argc, argv);
    g_rank = env_int("OMPI_COMM_WORLD_RANK", "PMI_RANK");
    const int ranks = env_int("OMPI_COMM_WORLD_SIZE", "PMI_SIZE");
    if (g_rank < 0 || ranks < 1) {
        std::cerr << "bench_rank_driver: not started by mpiexec (no rank in the environment)\n";
        return 1;
    }
    for (std::string& message : e.messages) message = with_last_rank(message, ranks);
    if (e.collective == "reduce_scatter_block") {  // whole elements per rank; smaller sizes have no rows
        const long multiple = e.element_bytes * ranks;
        std::vector<long> sizes;
        for (const long bytes : e.bytes) {
            if (bytes >= multiple) sizes.push_back(bytes / multiple * multiple);
        }
        e.bytes = sizes;
    }
    const std::string base = e.out_dir + "/" + e.name + ".np" + std::to_string(ranks);
    const std::string csv_path = base + ".csv", costs_path = base + ".costs.csv";
    const std::string out_path = base + ".rank" + std::to_string(g_rank) + ".out";
    const std::string err_path = base + ".rank" + std::to_string(g_rank) + ".err";
    const bool root = g_rank == e.root;
    std::vector<std::string> args = e.bench_args;
    if (e.mode == "run") {
        if (root) {
            std::remove(csv_path.c_str());
            std::remove(costs_path.c_str());
        }
        args.insert(args.end(), {"--csv", csv_path, "--costs-csv", costs_path});
    }

    const int status = run_bench(e.bench, args, out_path, err_path);
    const std::string err = read_file(err_path);
    const int expected_status = e.mode == "run" ? 0 : e.mode == "usage-error" ? 2 : 1;
    if (status != expected_status) {
        fail("mpi_bench exited with " + std::to_string(status) + ", expected " + std::to_string(expected_status));
    }
    if (e.mode == "run" && root) {
        std::vector<CsvRow> rows;
        check_csv(e, ranks, csv_path, rows);
        check_costs_csv(e, ranks, costs_path);
        check_table(e, out_path, rows);
    } else if (e.mode == "usage-error") {
        const bool printed = err.find("mpi_bench: error:") != std::string::npos;
        if (g_rank == 0 && (!printed || err.find("usage: mpirun -np N mpi_bench") == std::string::npos)) {
            fail("stderr lacks the error and the usage");
        }
        for (const std::string& message : e.messages) {
            if (g_rank == 0 && err.find(message) == std::string::npos) fail("stderr lacks '" + message + "'");
        }
        if (g_rank != 0 && printed) fail("a rank other than 0 printed the error too");
    } else if (e.mode == "wrong-result" && root) {
        for (const std::string& message : e.messages) {
            if (err.find(message) == std::string::npos) fail("stderr lacks '" + message + "'");
        }
    } else if (e.mode == "wrong-result" && err.find("verification FAILED") != std::string::npos) {
        fail("a rank other than the root printed the verification's failure");
    } else if (e.mode != "run" && e.mode != "usage-error" && e.mode != "wrong-result") {
        fail("unknown mode " + e.mode);
    }
    if (g_failures > 0) {
        std::cerr << "[rank " << g_rank << "] mpi_bench's stdout:\n"
                  << read_file(out_path) << "[rank " << g_rank << "] mpi_bench's stderr:\n"
                  << err;
        return 1;
    }
    return 0;
}
