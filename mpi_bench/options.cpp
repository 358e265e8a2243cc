#include "options.hpp"

#include <CLI/CLI.hpp>

#include <climits>
#include <cstdlib>
#include <sstream>

namespace redux_bench {
namespace {

constexpr const char* kUsage =
    "usage: mpirun -np N mpi_bench [--algorithms LIST] [--sizes SIZES] [--iterations N] [--warmup N]\n"
    "                              [--root R] [--in-place] [--datatype TYPE] [--op OP] [--noncommutative]\n"
    "                              [--costs measured|library] [--sync barrier|window] [--csv FILE]\n"
    "                              [--costs-csv FILE] [--full]\n"
    "                              [--quiet] [--help]\n";

constexpr const char* kDescription =
    "Times MPI_Reduce with the MPI library's own algorithm (native, through PMPI_Reduce) and libredux's\n"
    "planned trees, side by side in one run: for every size, iterations alternate between the algorithms.\n"
    "Each algorithm's result is verified against an independent computation before and after timing.\n"
    "Latency = time from a barrier to the root's completion, median over iterations (the CSV's avg_us);\n"
    "with --sync window, from a start time all ranks agreed on (for networks with ms latencies).\n"
    "\n"
    "Costs (--costs measured, the default): for every size, before timing, d = the slowest of the median\n"
    "one-way times of a ping-pong of this many bytes between the root and each other rank, and c = the\n"
    "median time of MPI_Reduce_local of `count` elements with the op on the root; the planned algorithms\n"
    "(and auto) are planned with these d and c. --costs library lets libredux choose (REDUX_D/REDUX_C or\n"
    "its own calibration). auto is libredux's choice between its best planned tree and the library's own\n"
    "reduce, measured during its first calls (within the warm-up).\n";

constexpr const char* kFooter =
    "Output: an OSU-style table on stdout (# Size, then the median latency in us per algorithm, then the d\n"
    "and c used); --csv FILE: one row per (algorithm, op, size) with the header\n"
    "  algorithm,op,ranks,bytes,count,avg_us,min_us,max_us,predicted_us,speedup_vs_native\n"
    "(avg_us = median; min/max over iterations; predicted_us = the planner's predicted makespan, empty for\n"
    "native; speedup_vs_native = native avg_us / this avg_us from the same run, empty without native);\n"
    "--costs-csv FILE: op,ranks,bytes,count,transfer_us,compute_us,source per size (the d and c planned with).\n"
    "Sizes smaller than one element of the datatype are skipped.\n"
    "Exit status: 0 on success, 1 when a result is wrong (or an MPI error), 2 for a bad command line.";

const std::vector<std::pair<std::string, redux_algorithm>> kAlgorithms = {{"native", REDUX_ALGORITHM_NATIVE},
                                                                          {"optimal", REDUX_ALGORITHM_OPTIMAL},
                                                                          {"fibonacci", REDUX_ALGORITHM_FIBONACCI},
                                                                          {"binomial", REDUX_ALGORITHM_BINOMIAL},
                                                                          {"auto", REDUX_ALGORITHM_AUTO},
                                                                          {"snf", REDUX_ALGORITHM_SNF},
                                                                          {"hetero-greedy", REDUX_ALGORITHM_HETERO_GREEDY},
                                                                          {"two-level", REDUX_ALGORITHM_TWO_LEVEL}};

bool parse_one_size(const std::string& text, long& bytes) {
    if (text.empty()) return false;
    size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
    if (digits == 0 || digits > 12) return false;
    long value = std::strtol(text.substr(0, digits).c_str(), nullptr, 10);
    const std::string suffix = text.substr(digits);
    long scale = 1;
    if (suffix == "K" || suffix == "k" || suffix == "KiB") {
        scale = 1L << 10;
    } else if (suffix == "M" || suffix == "MiB") {
        scale = 1L << 20;
    } else if (suffix == "G" || suffix == "GiB") {
        scale = 1L << 30;
    } else if (!suffix.empty() && suffix != "B") {
        return false;
    }
    if (value < 1 || value > (1L << 40) / scale) return false;
    bytes = value * scale;
    return true;
}

std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> parts;
    std::stringstream stream(text);
    std::string part;
    while (std::getline(stream, part, separator)) parts.push_back(part);
    if (!text.empty() && text.back() == separator) parts.emplace_back();
    return parts;
}

bool parse_algorithms(const std::string& text, std::vector<AlgorithmChoice>& out, std::string& error) {
    out.clear();
    for (const std::string& name : split(text, ',')) {
        bool found = false;
        for (const auto& [known, algorithm] : kAlgorithms) {
            if (name == known) {
                found = true;
                for (const AlgorithmChoice& seen : out) {
                    if (seen.name == name) {
                        error = "--algorithms: '" + name + "' given twice";
                        return false;
                    }
                }
                out.push_back({known, algorithm});
            }
        }
        if (!found) {
            error = "--algorithms: unknown algorithm '" + name +
                    "' (native, optimal, fibonacci, binomial, auto, snf, hetero-greedy, two-level)";
            return false;
        }
    }
    if (out.empty()) {
        error = "--algorithms: no algorithm given";
        return false;
    }
    return true;
}

}  // namespace

const char* usage_text() { return kUsage; }

std::vector<long> parse_sizes(const std::string& text, std::string& error) {
    std::vector<long> sizes;
    for (const std::string& token : split(text, ',')) {
        const auto colon = token.find(':');
        long low = 0, high = 0;
        if (colon == std::string::npos) {
            if (!parse_one_size(token, low)) {
                error = "--sizes: '" + token + "' is not a size in bytes (an integer >= 1, optionally with K, M or G)";
                return {};
            }
            sizes.push_back(low);
            continue;
        }
        if (!parse_one_size(token.substr(0, colon), low) || !parse_one_size(token.substr(colon + 1), high) ||
            low > high) {
            error = "--sizes: '" + token + "' is not a range MIN:MAX of sizes with MIN <= MAX";
            return {};
        }
        for (long bytes = low; bytes <= high; bytes *= 2) sizes.push_back(bytes);
    }
    if (sizes.empty()) error = "--sizes: no size given";
    return sizes;
}

ParseOutcome parse_options(int argc, char** argv, int ranks, BenchOptions& options, std::string& message) {
    CLI::App app(std::string(kUsage) + "\n" + kDescription, "mpi_bench");
    app.footer(kFooter);
    app.get_formatter()->column_width(34);

    std::string algorithms_text = "native,optimal,fibonacci,binomial,auto";
    std::string sizes_text = "8:4M";
    std::string op_text = "sum";
    std::string datatype_text;
    std::string costs_text = "measured";
    std::string sync_text = "barrier";
    bool noncommutative = false;
    app.add_option("--algorithms", algorithms_text,
                   "comma-separated: native (the MPI library's MPI_Reduce, via PMPI_Reduce), optimal, fibonacci, "
                   "binomial, auto (default: these five); snf, hetero-greedy, two-level (trees from libredux's calibrated "
                   "per-link costs, with --costs library on several nodes; elsewhere they run the optimal tree)")
        ->type_name("LIST");
    app.add_option("--sizes", sizes_text,
                   "message sizes in bytes: a list (8,1K,1M) and/or ranges MIN:MAX, doubling "
                   "(default 8:4M)")
        ->type_name("SIZES");
    app.add_option("--iterations", options.iterations,
                   "timed iterations per algorithm and size (default 1000 up to 8 KiB, 100 above)")
        ->type_name("N")
        ->check(CLI::Range(1, INT_MAX));
    app.add_option("--warmup", options.warmup, "untimed iterations first (default 100 up to 8 KiB, 10 above)")
        ->type_name("N")
        ->check(CLI::Range(0, INT_MAX));
    app.add_option("--root", options.root, "the root rank (default 0)")->type_name("R");
    app.add_flag("--in-place", options.in_place, "the root passes MPI_IN_PLACE");
    app.add_option("--datatype", datatype_text,
                   "int, long, float or double (default double; int for matmul2, which takes int or long)")
        ->type_name("TYPE");
    app.add_option("--op", op_text, "sum, prod, max, minloc, matmul2, spin:NS or delay:NS (default sum)")
        ->type_name("OP");
    app.add_flag("--noncommutative", noncommutative, "create spin:NS and delay:NS as non-commutative ops");
    app.add_option("--costs", costs_text,
                   "measured (default): d and c measured per size and passed to the planner; library: libredux's "
                   "own")
        ->type_name("SOURCE");
    app.add_option("--sync", sync_text,
                   "barrier (default, as OSU): time from leaving a barrier; window: every rank starts at a time "
                   "agreed in advance (clock offsets measured), which removes the barrier's exit skew")
        ->type_name("HOW");
    app.add_option("--csv", options.csv_path, "write one CSV row per (algorithm, op, size) to FILE")->type_name("FILE");
    app.add_option("--costs-csv", options.costs_csv_path, "write the d and c of every size to FILE")->type_name("FILE");
    app.add_flag("-f,--full", options.min_max, "add min and max latency columns to the table");
    app.add_flag("-q,--quiet", options.quiet, "no progress lines on stderr");
    app.add_option("--corrupt-result", options.corrupt_algorithm,
                   "(for tests) damage ALGORITHM's result on the root before verification")
        ->group("");

    auto usage_error = [&](const std::string& error) {
        message = "mpi_bench: error: " + error + "\n" + kUsage + "Run 'mpi_bench --help' for the options.\n";
        return ParseOutcome::usage_error;
    };
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        message = app.help();
        return ParseOutcome::help;
    } catch (const CLI::ParseError& e) {
        return usage_error(e.what());
    }

    std::string error;
    if (!parse_algorithms(algorithms_text, options.algorithms, error)) return usage_error(error);
    options.sizes_bytes = parse_sizes(sizes_text, error);
    if (options.sizes_bytes.empty()) return usage_error(error);
    const auto op = parse_op(op_text, datatype_text, noncommutative, error);
    if (!op) return usage_error(error);
    options.op = *op;
    if (options.root < 0 || options.root >= ranks) {
        return usage_error("--root: " + std::to_string(options.root) + " is not a rank of the " +
                           std::to_string(ranks) + " ranks");
    }
    if (costs_text != "measured" && costs_text != "library") {
        return usage_error("--costs: '" + costs_text + "' is neither measured nor library");
    }
    options.measured_costs = costs_text == "measured";
    if (sync_text != "barrier" && sync_text != "window") {
        return usage_error("--sync: '" + sync_text + "' is neither barrier nor window");
    }
    options.window_sync = sync_text == "window";
    if (!options.corrupt_algorithm.empty()) {
        bool known = false;
        for (const AlgorithmChoice& choice : options.algorithms)
            known = known || choice.name == options.corrupt_algorithm;
        if (!known) return usage_error("--corrupt-result: '" + options.corrupt_algorithm + "' is not being run");
    }
    return ParseOutcome::run;
}

}  // namespace redux_bench
