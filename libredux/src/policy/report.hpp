// The decision log: what libredux planned and chose for a key, as a JSON line (REDUX_REPORT) or in words
// (REDUX_VERBOSE). Written by rank 0 of the communicator. See report.cpp.
#pragma once

#include "policy/auto_select.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace redux {

struct PlanReport {
    std::string collective = "reduce";  // reduce, allreduce, reduce_scatter_block
    int comm_size = 0;
    int root = 0;
    int count = 0;
    long long bytes = 0;
    bool commutative = true;
    std::string requested;  // the algorithm asked for: auto, or a strategy's name
    double d_s = 0, c_s = 0;
    double c_call_s = 0;       // the part of c paid by every application of the op (model/costs.hpp)
    double flight_s = 0;       // the part of d in flight (model/costs.hpp)
    double call_s = 0;         // a call's own cost, in predicted_s (model/costs.hpp)
    std::string costs_source;  // where d came from: call, environment, process, file, measured
    std::string strategy;      // the one chosen: a strategy's or family algorithm's name, or native
    // Of the planned tree: its makespan (or shared_cores_floor_s, if larger) plus call_s.
    double predicted_s = 0;
    // Where ranks share cores, the least time of the tree there (plan/predict/shared_cores.hpp); 0 elsewhere.
    double shared_cores_floor_s = 0;
    int segments = 1;  // the vector is pipelined in this many segments
    // The model's prediction for every strategy evaluated (plan/select.hpp), in the order weighed; strategies
    // that were not candidates are not listed.
    std::vector<std::pair<std::string, double>> predicted_by_strategy_s;
    std::string why;                            // plan selection's reason
    std::vector<std::string> tried;             // under auto: the trees its trials measure, the model's first
    std::optional<double> native_s, planned_s;  // medians measured by auto
    std::vector<double> trial_medians_s;        // under auto, after its trials: the median of each tree in `tried`
    int trial_calls = 0;                        // the trial calls auto's decision took
    // Under auto, after its trials: the contenders that left them, in the order they left (policy/auto_select.hpp).
    struct Dropped {
        std::string strategy;  // a tree's name, or native
        std::string reason;    // drop_reason_name()
        double first_s = 0;    // its first trial call's agreed time (0: not reached)
        double best_s = 0;     // the best agreed trial call when it left
    };
    std::vector<Dropped> dropped;
    std::string trials_end;          // why the trials ended: "one left", "last round", "extra time", "no tree faster"
    double trial_extra_s = 0;        // the trees' trial calls' agreed time beyond native's median, summed
    double trial_extra_bound_s = 0;  // where the trials end: a native call's worth
    // Where the trials chose a tree: its median and the incumbent's (native, or in a second look the tree kept
    // before) over the calls that confirmed it or not, timed in place.
    std::optional<double> confirm_planned_s, confirm_incumbent_s;
    std::string confirm_incumbent;  // "native" or the tree's name, with confirm_incumbent_s
    // Where auto may run tree-dyn: the median spread of the ranks' arrivals at the trials' starts; where that made
    // auto weigh it or the arrival tree (`dynamic`, its name), the medians and means in place of the choice before it
    // and of the one weighed (policy/auto_select.hpp).
    std::optional<double> arrival_spread_s, dynamic_choice_s, dynamic_s, dynamic_choice_mean_s, dynamic_mean_s;
    std::string dynamic;
    int dynamic_calls = 0;  // with dynamic_s: the calls of each side
    // Where the trials' arrivals repeated: by rank, how late each came after the first (the medians the arrival tree
    // is made for); empty otherwise. Where auto learns arrivals, how many trial starts told them and how many of those
    // held the prediction (policy/arrival_pattern.hpp).
    std::vector<double> arrival_lateness_s;
    int arrival_starts = 0, arrival_held = 0;
    std::string native_excluded;  // why auto does not try the MPI library's reduce (policy/native_failures.hpp)
    // Under REDUX_WISDOM (api/wisdom.hpp): "started from" (the key starts from an earlier job's decision, `strategy`
    // there), "re-checked" (its first calls agreed: recheck_s), "no longer holds" (they did not: the trials start),
    // "names no plan" (the decision names none of the key's trees); empty otherwise.
    std::string wisdom;
    std::optional<double> recheck_s;  // the re-check's agreed median call
    // Under auto, once its nonblocking calls are decided (policy/nonblocking_trials.hpp): what they run (a tree's name,
    // or native), the fastest tree weighed, the agreed medians of that tree and of native, and the calls weighed.
    std::string nonblocking, nonblocking_fastest;
    std::optional<double> nonblocking_native_s, nonblocking_planned_s;
    int nonblocking_calls = 0;
    double calibration_s = 0;  // spent measuring for this key (links and c)
    double planning_s = 0;     // spent planning this key once its costs were known (trees, segments, programs)
    // d of this message between every two nodes, [from][to] by node in rank order of their lowest rank, where
    // calibration measured the node pairs (3 or more nodes); empty otherwise.
    std::vector<std::vector<double>> node_pair_d_s;
    std::string node_pairs_source;  // where those came from: process, file, measured; empty without them
};

// One line, no newline; "event" is `what` ("new plan": a key's plan was made; "auto decision": auto chose
// between the plan and the MPI library's reduce by measurement).
std::string report_json(const PlanReport& report, const char* what);
// One line, no newline, starting "libredux: <what> for ..." (what: "new plan", "auto decision").
std::string report_words(const PlanReport& report, const char* what);

// Appends line + '\n' to `path` with one write(2) on an O_APPEND descriptor, so lines of concurrent writers
// do not interleave. Returns false if the file cannot be written.
bool append_line(const std::string& path, const std::string& line);

// AutoSelect's reasons in the decision log's words: "first call over 2x the best", "clearly slower", "not reached",
// "not needed"; "one left", "last round", "extra time", "no tree faster".
const char* drop_reason_name(AutoSelect::DropReason reason);
const char* trials_end_name(AutoSelect::TrialsEnd end);

}  // namespace redux
