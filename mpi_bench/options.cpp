#include "options.hpp"
#include <cctype>

#include "mpi/mpi_version.hpp"
#include "redux/version.h"

// SimGrid's smpicxx force-includes smpi_helpers.h, whose exit(x) macro would rename CLI11's App::exit.
#ifdef SMPI_HELPERS_H
#undef exit
#endif
#include <CLI/CLI.hpp>

#include <climits>
#include <cstdlib>
#include <sstream>

namespace redux_bench {
namespace {

constexpr const char* kUsage =
    "usage: mpirun -np N mpi_bench [--collective C] [--algorithms LIST] [--sizes SIZES] [--iterations N]\n"
    "                              [--warmup N] [--root R] [--in-place] [--datatype TYPE] [--op OP]\n"
    "                              [--noncommutative] [--costs library|measured] [--sync barrier|window]\n"
    "                              [--arrival PATTERN] [--op-cost-cv CV]\n"
    "                              [--segment-bytes B] [--cold] [--csv FILE] [--costs-csv FILE] [--full]\n"
    "                              [--quiet] [--help] [--version]\n";

constexpr const char* kDescription =
    "Times MPI_Reduce with the MPI library's own algorithm (native, through PMPI_Reduce) and libredux's\n"
    "planned trees, side by side in one run: for every size, iterations alternate between the algorithms.\n"
    "Each algorithm's result is verified against an independent computation before and after timing.\n"
    "Latency = time from a barrier to the root's completion, median over iterations (the CSV's median_us;\n"
    "its mean, quartiles, min and max too); with --sync window, from a start time all ranks agreed on (for\n"
    "networks with ms latencies).\n"
    "\n"
    "Costs (--costs library, the default): libredux plans as it does for a drop-in user, with REDUX_D /\n"
    "REDUX_C or its own calibration (per link class, fitted lines). --costs measured: for every size, before\n"
    "timing, d = the slowest of the median one-way times of a ping-pong of this many bytes between the root\n"
    "and each other rank, and c = the median time of MPI_Reduce_local of `count` elements with the op on the\n"
    "root, passed to the planner (one d for every link). auto is libredux's choice between its best planned\n"
    "tree and the library's own reduce, measured during its first calls (within the warm-up).\n"
    "\n"
    "--collective ireduce, iallreduce, ireduce_scatter_block time the nonblocking calls (start, then MPI_Wait), and\n"
    "reduce_init, allreduce_init, reduce_scatter_block_init the persistent ones (a request made once per size and\n"
    "algorithm, then MPI_Start and MPI_Wait). A planned algorithm's nonblocking calls run the plan its first, "
    "blocking\n"
    "call makes; auto's trials are blocking calls, then its nonblocking calls are weighed by their own times (a\n"
    "blocking call every third call agrees on them), all within the warm-up. --overlap US\n"
    "does US microseconds of work between the start and the wait, in slices of 50 us with MPI_Test between them:\n"
    "the latency is then from the start to the wait's return, the work included.\n"
    "\n"
    "--collective allreduce or reduce_scatter_block times MPI_Allreduce or MPI_Reduce_scatter_block instead\n"
    "(native: the MPI library's own, through PMPI_Allreduce or PMPI_Reduce_scatter_block): every rank's result\n"
    "is verified, the latency of an iteration is the slowest rank's time, and there is no root. For\n"
    "reduce_scatter_block a size is each rank's whole input vector: recvcount = its elements / ranks (the CSV's\n"
    "count), the size rounded down to ranks x recvcount elements, and sizes under one element per rank skipped.\n"
    "\n"
    "Dynamic runs: --arrival delays every rank's entry into every call (warm-up and auto's first calls too) from\n"
    "the iteration's start (the barrier, or the agreed start) by a pattern drawn for each iteration from a fixed\n"
    "seed, the same in every algorithm's turn: one-late:MS, one rank picked at random (the root included) MS ms\n"
    "late; exp:MS, every rank late by an exponential draw of mean MS ms. Patterns that repeat every call:\n"
    "same-late:MS, rank (root + N/2) mod N MS ms late; root-late:MS, the root MS ms late; each-late:MS, every\n"
    "rank its own lateness, an exponential draw of mean MS ms made once, within 10% from call to call. Late\n"
    "ranks sleep, outside MPI. The\n"
    "latency is still timed from the start; the table adds NAME:last, the median time from the last rank's\n"
    "entry into the call to the same end (--full: also its 90th percentile and mean). Each rank counts its\n"
    "arrival from its own start: with --sync window that is one clock, with a barrier each rank's exit of it\n"
    "(off by the barrier's skew), so use --sync window with --arrival. --op-cost-cv CV makes each\n"
    "application of spin:NS or delay:NS cost a gamma draw of mean its nominal cost and coefficient of variation\n"
    "CV, the same draws in every algorithm's turn of an iteration.\n";

constexpr const char* kFooter =
    "Output: an OSU-style table on stdout: # Size, then per algorithm the median latency in us and \u00b1s%, half\n"
    "the interquartile range in % of the median (=NAME: the same plan as NAME, by libredux's report of the\n"
    "call: same costs, predicted makespan and segments); the speedup native / auto; the d and c used; the plans\n"
    "(algorithms with the same plan joined by '=', [segments]); at the end one verdict line per size range\n"
    "(auto against native: faster, slower, or noise when the interquartile ranges overlap).\n"
    "--csv FILE: one row per (algorithm, op, size) with the header\n"
    "  algorithm,op,ranks,bytes,count,iterations,median_us,mean_us,q1_us,q3_us,min_us,max_us,predicted_us,\n"
    "  segments,ran,same_plan_as,speedup_vs_native,arrival,op_cost_cv,after_last_median_us,after_last_p90_us,\n"
    "  after_last_mean_us\n"
    "(predicted_us, segments: libredux's plan of the last timed call (auto: the tree it settled on), empty for native; "
    "ran: what the last timed call ran, native\n"
    "or a strategy; same_plan_as: the algorithm shown in its place, as in the table; speedup_vs_native =\n"
    "native median_us / this median_us from the same run, empty without native; arrival, op_cost_cv: the\n"
    "--arrival and --op-cost-cv settings; after_last_*: over the iterations, the time from the last rank's entry\n"
    "into the call to the end the latency is timed to);\n"
    "--costs-csv FILE: op,ranks,bytes,count,transfer_us,compute_us,source per size (the d and c planned with).\n"
    "Sizes smaller than one element of the datatype (reduce_scatter_block: one per rank) are skipped.\n"
    "Exit status: 0 on success, 1 when a result is wrong (or an MPI error), 2 for a bad command line.";

// native, auto, every strategy of redux/algorithms.h that needs no limit (the limited ones need a K per call,
// which the benchmark has no option for) and the algorithms of allreduce and reduce-scatter-block.
struct KnownAlgorithm {
    std::string name;
    redux_algorithm algorithm;
    std::string needs;  // the strategy's `needs` column ("always", "link_costs", ...), "family" for the
                        // algorithms of REDUX_FAMILY_ALGORITHMS; empty for native and auto
};

const std::vector<KnownAlgorithm>& known_algorithms() {
    static const std::vector<KnownAlgorithm> known = [] {
        std::vector<KnownAlgorithm> all = {{"native", REDUX_ALGORITHM_NATIVE, ""}, {"auto", REDUX_ALGORITHM_AUTO, ""}};
#define REDUX_BENCH_ALGORITHM_(ENUM, name, text, value, needs) all.push_back({text, REDUX_ALGORITHM_##ENUM, #needs});
        REDUX_STRATEGIES(REDUX_BENCH_ALGORITHM_)
#undef REDUX_BENCH_ALGORITHM_
#define REDUX_BENCH_FAMILY_(ENUM, name, text, value) all.push_back({text, REDUX_ALGORITHM_##ENUM, "family"});
        REDUX_FAMILY_ALGORITHMS(REDUX_BENCH_FAMILY_)
#undef REDUX_BENCH_FAMILY_
        std::vector<KnownAlgorithm> usable;
        for (KnownAlgorithm& algorithm : all) {
            if (algorithm.needs != "limit") usable.push_back(std::move(algorithm));
        }
        return usable;
    }();
    return known;
}

// Where an algorithm of REDUX_FAMILY_ALGORITHMS applies, as redux/algorithms.h documents them: recursive doubling
// to allreduce, the ring, late-rank and allgather to allreduce and reduce_scatter_block, reduce-scatter (recursive
// halving) to every collective (for reduce: Rabenseifner's reduce).
bool not_reduce(redux_algorithm algorithm) {
    return algorithm == REDUX_ALGORITHM_RING || algorithm == REDUX_ALGORITHM_LATE_RANK ||
           algorithm == REDUX_ALGORITHM_ALLGATHER;
}

bool family_applies(redux_algorithm algorithm, Collective collective) {
    if (algorithm == REDUX_ALGORITHM_RECURSIVE_DOUBLING) return collective == Collective::allreduce;
    if (not_reduce(algorithm)) return collective != Collective::reduce;
    return true;
}

std::string family_collectives(redux_algorithm algorithm) {
    if (algorithm == REDUX_ALGORITHM_RECURSIVE_DOUBLING) return "--collective allreduce only";
    if (not_reduce(algorithm)) return "--collective allreduce and reduce_scatter_block only";
    return "every collective";
}

std::string known_names(bool (*keep)(const KnownAlgorithm&)) {
    std::string names;
    for (const KnownAlgorithm& algorithm : known_algorithms()) {
        if (!keep(algorithm)) continue;
        if (!names.empty()) names += ", ";
        names += algorithm.name;
    }
    return names;
}

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

// native, every strategy that always applies, the collective's own algorithms, auto: the default of
// --algorithms, and what "default" stands for.
std::string default_algorithms(Collective collective) {
    std::string names = "native";
    for (const KnownAlgorithm& known : known_algorithms()) {
        if (known.needs == "always" || (known.needs == "family" && family_applies(known.algorithm, collective))) {
            names += "," + known.name;
        }
    }
    return names + ",auto";
}

bool parse_algorithms(const std::string& text, Collective collective, std::vector<AlgorithmChoice>& out,
                      std::string& error) {
    out.clear();
    std::vector<std::string> names;
    for (const std::string& name : split(text, ',')) {
        if (name != "default") {
            names.push_back(name);
            continue;
        }
        for (const std::string& known : split(default_algorithms(collective), ',')) names.push_back(known);
    }
    for (const std::string& name : names) {
        bool found = false;
        for (const auto& [known, algorithm, needs] : known_algorithms()) {
            if (name != known) continue;
            found = true;
            if (needs == "family" && !family_applies(algorithm, collective)) {
                error = "--algorithms: " + name + " applies to " + family_collectives(algorithm) +
                        ", not to --collective " + collective_option(collective);
                return false;
            }
            for (const AlgorithmChoice& seen : out) {
                if (seen.name == name) {
                    error = "--algorithms: '" + name + "' given twice";
                    return false;
                }
            }
            out.push_back({known, algorithm});
        }
        if (!found) {
            error = "--algorithms: unknown algorithm '" + name + "' (" +
                    known_names([](const KnownAlgorithm&) { return true; }) + ")";
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

const char* collective_option(Collective collective) {
    switch (collective) {
        case Collective::allreduce:
            return "allreduce";
        case Collective::reduce_scatter_block:
            return "reduce_scatter_block";
        default:
            return "reduce";
    }
}

const char* collective_mpi_name(Collective collective) {
    switch (collective) {
        case Collective::allreduce:
            return "MPI_Allreduce";
        case Collective::reduce_scatter_block:
            return "MPI_Reduce_scatter_block";
        default:
            return "MPI_Reduce";
    }
}

std::string call_mpi_name(Collective collective, CallMode mode) {
    const std::string name = collective_mpi_name(collective);
    switch (mode) {
        case CallMode::nonblocking:
            return "MPI_I" + std::string(1, static_cast<char>(std::tolower(name[4]))) + name.substr(5);
        case CallMode::persistent:
            return name + "_init";
        case CallMode::blocking:
            break;
    }
    return name;
}

std::string algorithm_name(redux_algorithm algorithm) {
    if (algorithm == REDUX_ALGORITHM_NATIVE) return "native";
    if (algorithm == REDUX_ALGORITHM_AUTO) return "auto";
#define REDUX_BENCH_NAME_(ENUM, name, text, value, needs) \
    if (algorithm == REDUX_ALGORITHM_##ENUM) return text;
    REDUX_STRATEGIES(REDUX_BENCH_NAME_)
#undef REDUX_BENCH_NAME_
#define REDUX_BENCH_FAMILY_NAME_(ENUM, name, text, value) \
    if (algorithm == REDUX_ALGORITHM_##ENUM) return text;
    REDUX_FAMILY_ALGORITHMS(REDUX_BENCH_FAMILY_NAME_)
#undef REDUX_BENCH_FAMILY_NAME_
    return "algorithm-" + std::to_string(static_cast<int>(algorithm));
}

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

    std::string collective_text = "reduce";
    std::string algorithms_text = "default";
    std::string sizes_text = "8:4M";
    std::string op_text = "sum";
    std::string datatype_text;
    std::string costs_text = "library";
    std::string sync_text = "barrier";
    std::string segment_text = "auto";
    std::string arrival_text = "together";
    std::string cost_cv_text = "0";
    bool noncommutative = false;
    app.add_option("--collective", collective_text,
                   "reduce (default: MPI_Reduce), allreduce (MPI_Allreduce) or reduce_scatter_block "
                   "(MPI_Reduce_scatter_block); ireduce, iallreduce, ireduce_scatter_block (nonblocking); "
                   "reduce_init, allreduce_init, reduce_scatter_block_init (persistent)")
        ->type_name("C");
    double overlap_us = 0;
    app.add_option("--overlap", overlap_us,
                   "microseconds of work between a nonblocking or persistent call's start and its wait, in 50 us "
                   "slices with MPI_Test between (default 0)")
        ->type_name("US");
    app.add_option("--algorithms", algorithms_text,
                   "comma-separated: native (the MPI library's own collective, via PMPI_), auto, " +
                       known_names([](const KnownAlgorithm& a) { return a.needs == "always"; }) +
                       " (default: these and the collective's own below, also named by the word default); " +
                       known_names([](const KnownAlgorithm& a) {
                           return !a.needs.empty() && a.needs != "always" && a.needs != "family";
                       }) +
                       " (trees from libredux's calibrated per-link costs, on several nodes or packages; elsewhere "
                       "they run the optimal tree); recursive-doubling (allreduce), ring (allreduce, "
                       "reduce_scatter_block; commutative ops, else reduce-scatter runs), reduce-scatter (every "
                       "collective; for reduce, Rabenseifner's reduce)")
        ->type_name("LIST");
    app.add_option("--sizes", sizes_text,
                   "message sizes in bytes: a list (8,1K,1M) and/or ranges MIN:MAX, doubling "
                   "(default 8:4M)")
        ->type_name("SIZES");
    app.add_option("--iterations", options.iterations,
                   "timed iterations per algorithm and size (default 1000 up to 8 KiB, 100 up to 4 MiB, 20 above)")
        ->type_name("N")
        ->check(CLI::Range(1, INT_MAX));
    app.add_option("--warmup", options.warmup, "untimed iterations first (default 100 up to 8 KiB, 10 above)")
        ->type_name("N")
        ->check(CLI::Range(0, INT_MAX));
    app.add_option("--size-seconds", options.size_seconds,
                   "fewer iterations where one round of the algorithms is slow: about S seconds of timed "
                   "iterations per size (at least 3), judged from the verification calls; warm-up no longer than "
                   "the iterations; 0: no limit (default)")
        ->type_name("S")
        ->check(CLI::NonNegativeNumber);
    app.add_flag("--cold", options.cold,
                 "time every algorithm from its first call, as a job sees it: no warm-up, and auto's trials among "
                 "the timed calls (the verification call before is each algorithm's first)");
    app.add_option("--root", options.root, "the root rank of reduce (default 0)")->type_name("R");
    app.add_flag("--in-place", options.in_place,
                 "MPI_IN_PLACE: on the root (reduce), on every rank (allreduce, reduce_scatter_block)");
    app.add_option("--datatype", datatype_text,
                   "int, long, float or double (default double; int for matmul2, which takes int or long)")
        ->type_name("TYPE");
    app.add_option("--op", op_text,
                   "sum, prod, max, minloc, matmul2, spin:NS or delay:NS (NS per element; NS+CALL_NS adds CALL_NS "
                   "per call) (default sum)")
        ->type_name("OP");
    app.add_flag("--noncommutative", noncommutative, "create spin:NS and delay:NS as non-commutative ops");
    app.add_option("--costs", costs_text,
                   "library (default): libredux's own costs, as a drop-in user gets them; measured: d and c measured "
                   "per size by the benchmark and passed to the planner")
        ->type_name("SOURCE");
    app.add_option("--sync", sync_text,
                   "barrier (default, as OSU): time from leaving a barrier; window: every rank starts at a time "
                   "agreed in advance (clock offsets measured), which removes the barrier's exit skew")
        ->type_name("HOW");
    app.add_option("--arrival", arrival_text,
                   "together (default): every rank enters each call at the iteration's start; one-late:MS: one rank, "
                   "drawn at random each iteration, MS milliseconds later; exp:MS: every rank later by an "
                   "exponential draw of mean MS milliseconds; same-late:MS, root-late:MS: one rank (the same "
                   "non-root, or the root) MS milliseconds later every call; each-late:MS: every rank its own "
                   "lateness of mean MS, drawn once (the pattern of an iteration is the same for every "
                   "algorithm; best with --sync window)")
        ->type_name("PATTERN");
    app.add_option("--op-cost-cv", cost_cv_text,
                   "spin:NS and delay:NS: each application of the op costs a gamma draw of mean its nominal cost "
                   "and this coefficient of variation (default 0: the nominal cost)")
        ->type_name("CV");
    app.add_option("--segment-bytes", segment_text,
                   "segment size of libredux's pipelined trees: auto (default: the library's choice, "
                   "REDUX_SEGMENT_BYTES or its model's), 0 (never segmented) or bytes (K, M allowed)")
        ->type_name("B");
    app.add_option("--csv", options.csv_path, "write one CSV row per (algorithm, op, size) to FILE")->type_name("FILE");
    app.add_option("--costs-csv", options.costs_csv_path, "write the d and c of every size to FILE")->type_name("FILE");
    app.add_flag("-f,--full", options.min_max,
                 "add min and max latency columns to the table (with --arrival, also the 90th percentile and mean "
                 "of the time after the last arrival)");
    app.add_flag("-q,--quiet", options.quiet, "no progress lines on stderr");
    app.add_option("--corrupt-result", options.corrupt_algorithm,
                   "(for tests) damage ALGORITHM's result before verification, on the root (reduce) or on the "
                   "last rank (allreduce, reduce_scatter_block)")
        ->group("");

    auto usage_error = [&](const std::string& error) {
        message = "mpi_bench: error: " + error + "\n" + kUsage + "Run 'mpi_bench --help' for the options.\n";
        return ParseOutcome::usage_error;
    };
    app.set_version_flag(
        "--version", std::string("mpi_bench (libredux) " REDUX_VERSION_STRING "\nbuilt for ") + redux::mpi_built_for());
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForVersion& e) {
        message = std::string(e.what()) + "\n";
        return ParseOutcome::help;
    } catch (const CLI::CallForHelp&) {
        message = app.help();
        return ParseOutcome::help;
    } catch (const CLI::ParseError& e) {
        return usage_error(e.what());
    }

    std::string error;
    const auto ends_with = [&](const std::string& tail) {
        return collective_text.size() > tail.size() &&
               collective_text.compare(collective_text.size() - tail.size(), tail.size(), tail) == 0;
    };
    if (ends_with("_init")) {
        options.mode = CallMode::persistent;
        collective_text.resize(collective_text.size() - 5);
    } else if (collective_text.size() > 1 && collective_text[0] == 'i') {
        options.mode = CallMode::nonblocking;
        collective_text.erase(0, 1);
    }
    if (options.mode == CallMode::persistent && !kPersistentCalls) {
        return usage_error(
            "--collective: simulated ranks have no library's own persistent collectives to compare with");
    }
    if (overlap_us < 0 || (overlap_us > 0 && options.mode == CallMode::blocking)) {
        return usage_error("--overlap: a time >= 0 in microseconds, for a nonblocking or persistent --collective");
    }
    options.overlap_s = overlap_us * 1e-6;
    if (collective_text == "reduce") {
        options.collective = Collective::reduce;
    } else if (collective_text == "allreduce") {
        options.collective = Collective::allreduce;
    } else if (collective_text == "reduce_scatter_block") {
        options.collective = Collective::reduce_scatter_block;
    } else {
        return usage_error("--collective: '" + collective_text +
                           "' is not reduce, allreduce or reduce_scatter_block (or their i-, _init forms)");
    }
    if (!parse_algorithms(algorithms_text, options.collective, options.algorithms, error)) return usage_error(error);
    options.sizes_bytes = parse_sizes(sizes_text, error);
    if (options.sizes_bytes.empty()) return usage_error(error);
    const auto op = parse_op(op_text, datatype_text, noncommutative, error);
    if (!op) return usage_error(error);
    options.op = *op;
    const auto cost_cv = parse_cost_cv(cost_cv_text, error);
    if (!cost_cv) return usage_error(error);
    if (*cost_cv > 0 && op->kind != OpKind::spin && op->kind != OpKind::delay) {
        return usage_error("--op-cost-cv applies to spin:NS and delay:NS (the ops with a cost)");
    }
    options.op.cost_cv = *cost_cv;
    const auto arrival = parse_arrival(arrival_text, error);
    if (!arrival) return usage_error(error);
    options.arrival = *arrival;
    if (options.every_rank_results() && options.root != 0) {
        return usage_error(std::string("--root: ") + collective_option(options.collective) +
                           " has no root (--root applies to --collective reduce)");
    }
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
    long segment_bytes = 0;
    if (segment_text == "auto") {
        options.segment_bytes = -1;
    } else if (segment_text == "0") {
        options.segment_bytes = 0;
    } else if (parse_one_size(segment_text, segment_bytes)) {
        options.segment_bytes = segment_bytes;
    } else {
        return usage_error("--segment-bytes: '" + segment_text + "' is neither auto, 0 nor a size in bytes");
    }
    if (!options.corrupt_algorithm.empty()) {
        bool known = false;
        for (const AlgorithmChoice& choice : options.algorithms)
            known = known || choice.name == options.corrupt_algorithm;
        if (!known) return usage_error("--corrupt-result: '" + options.corrupt_algorithm + "' is not being run");
    }
    return ParseOutcome::run;
}

}  // namespace redux_bench
