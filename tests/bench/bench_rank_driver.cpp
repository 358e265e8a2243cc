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
//     --root R                the rank that reports (default 0)
//     --algorithms LIST       the CSV's algorithms, in order
//     --bytes LIST            the sizes that must have rows, in order
//     --element-bytes E       count = bytes / E
//     --op LABEL              the CSV's op column
//     --costs-source SOURCE   measured (default) or library
//     --message TEXT          usage-error, wrong-result: text the root's stderr must contain
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

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

const char* const kCsvHeader = "algorithm,op,ranks,bytes,count,avg_us,min_us,max_us,predicted_us,speedup_vs_native";
const char* const kCostsHeader = "op,ranks,bytes,count,transfer_us,compute_us,source";

struct Expectations {
    std::string mode, bench, out_dir, name;
    int root = 0;
    std::vector<std::string> algorithms;
    std::vector<long> bytes;
    long element_bytes = 8;
    std::string op = "sum";
    std::string costs_source = "measured";
    std::string message;
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
            e.message = value;
        else {
            std::cerr << "bench_rank_driver: unknown option " << key << "\n";
            std::exit(2);
        }
    }
    for (++i; i < argc; ++i) e.bench_args.emplace_back(argv[i]);
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

struct CsvRow {
    std::vector<std::string> field;
    double avg = 0;
};

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
    bool has_native = false;
    for (const auto& a : e.algorithms) has_native = has_native || a == "native";
    size_t line = 1;
    for (const long bytes : e.bytes) {
        double native_avg = 0;
        std::vector<CsvRow> size_rows;
        for (const std::string& algorithm : e.algorithms) {
            CsvRow row;
            row.field = split(lines[line], ',');
            const std::string where = "CSV line " + std::to_string(line + 1) + " (" + lines[line] + "): ";
            ++line;
            if (row.field.size() != 10) {
                fail(where + "not 10 fields");
                continue;
            }
            const auto& f = row.field;
            if (f[0] != algorithm) fail(where + "algorithm is not " + algorithm);
            if (f[1] != e.op) fail(where + "op is not " + e.op);
            if (f[2] != std::to_string(ranks)) fail(where + "ranks is not " + std::to_string(ranks));
            if (f[3] != std::to_string(bytes)) fail(where + "bytes is not " + std::to_string(bytes));
            if (f[4] != std::to_string(bytes / e.element_bytes)) fail(where + "count is not bytes / element size");
            double avg = 0, min = 0, max = 0;
            if (!parse_number(f[5], avg) || !parse_number(f[6], min) || !parse_number(f[7], max) || !(min > 0) ||
                !(min <= avg) || !(avg <= max)) {
                fail(where + "not 0 < min_us <= avg_us <= max_us");
            }
            row.avg = avg;
            const bool planned = algorithm != "native" && ranks > 1;  // one rank: libredux passes to PMPI_Reduce
            double predicted = 0;
            if (planned && (!parse_number(f[8], predicted) || !(predicted > 0))) fail(where + "no predicted_us");
            if (!planned && !f[8].empty()) fail(where + "predicted_us should be empty");
            if (algorithm == "native") native_avg = avg;
            size_rows.push_back(row);
            rows.push_back(row);
        }
        for (const CsvRow& row : size_rows) {
            const std::string& speedup_text = row.field.size() == 10 ? row.field[9] : "";
            if (!has_native) {
                if (!speedup_text.empty()) fail("speedup_vs_native without native: " + speedup_text);
                continue;
            }
            double speedup = 0;
            if (!parse_number(speedup_text, speedup)) {
                fail("speedup_vs_native '" + speedup_text + "' is not a number");
                continue;
            }
            // avg_us is printed to 0.001 us and the speedup to 0.0001: allow for both roundings.
            const double ratio = native_avg / row.avg;
            const double tolerance = 1e-4 + ratio * (0.001 / row.avg + 0.001 / native_avg);
            if (std::fabs(speedup - ratio) > tolerance) {
                fail("speedup_vs_native " + speedup_text + " is not native avg / avg = " + std::to_string(ratio) +
                     " (" + row.field[0] + ", " + row.field[3] + " B)");
            }
            if (row.field[0] == "native" && speedup_text != "1.0000") fail("native's speedup is " + speedup_text);
        }
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

// The table: a "# Size" line naming the algorithms, then one line per size whose latencies are the CSV's.
void check_table(const Expectations& e, const std::string& out_path, const std::vector<CsvRow>& rows) {
    const std::vector<std::string> lines = read_lines(out_path);
    size_t at = 0;
    while (at < lines.size() && lines[at].rfind("# Size", 0) != 0) ++at;
    if (at == lines.size()) {
        fail("no '# Size' line on stdout");
        return;
    }
    std::vector<std::string> expected_columns = {"#", "Size"};
    for (const auto& a : e.algorithms) expected_columns.push_back(a);
    expected_columns.insert(expected_columns.end(), {"d(us)", "c(us)"});
    if (words(lines[at]) != expected_columns) fail("table header is '" + lines[at] + "'");
    if (lines.size() - at - 1 != e.bytes.size()) {
        fail("table has " + std::to_string(lines.size() - at - 1) + " rows, expected " +
             std::to_string(e.bytes.size()));
        return;
    }
    for (size_t s = 0; s < e.bytes.size(); ++s) {
        const auto cells = words(lines[at + 1 + s]);
        if (cells.size() != e.algorithms.size() + 3 || cells[0] != std::to_string(e.bytes[s])) {
            fail("table row '" + lines[at + 1 + s] + "'");
            continue;
        }
        for (size_t a = 0; a < e.algorithms.size(); ++a) {
            double value = 0;
            const size_t row = s * e.algorithms.size() + a;
            if (row >= rows.size() || !parse_number(cells[a + 1], value) || std::fabs(value - rows[row].avg) > 0.0051) {
                fail("table latency " + cells[a + 1] + " is not the CSV's avg_us (" + lines[at + 1 + s] + ")");
            }
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    const Expectations e = parse(argc, argv);
    g_rank = env_int("OMPI_COMM_WORLD_RANK", "PMI_RANK");
    const int ranks = env_int("OMPI_COMM_WORLD_SIZE", "PMI_SIZE");
    if (g_rank < 0 || ranks < 1) {
        std::cerr << "bench_rank_driver: not started by mpiexec (no rank in the environment)\n";
        return 1;
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
        if (g_rank == 0 && (!printed || err.find("usage: mpirun -np N mpi_bench") == std::string::npos ||
                            err.find(e.message) == std::string::npos)) {
            fail("stderr lacks the error ('" + e.message + "') and the usage");
        }
        if (g_rank != 0 && printed) fail("a rank other than 0 printed the error too");
    } else if (e.mode == "wrong-result" && root && err.find(e.message) == std::string::npos) {
        fail("stderr lacks '" + e.message + "'");
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
