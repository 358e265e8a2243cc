#include "runner.hpp"

#include "yielding.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>

namespace redux_bench {
namespace {

// Timed repetitions for each cost measurement: as many as the iterations, 10 to 50.
int cost_samples(int iterations) { return std::clamp(iterations, 10, 50); }

PlanReport plan_report(const redux_call_info& info) {
    return {info.planned != 0, info.transfer_s, info.compute_s, info.predicted_s, info.segments};
}

// Remembers the latest planned call's report and what the latest call ran: for auto, the tree it settled on
// (after its trials it may run a runner-up, another plan than its first calls').
void record_call(const redux_call_info& info, AlgorithmResult& out) {
    if (info.planned != 0) out.plan = plan_report(info);
    out.ran = info.planned != 0 ? algorithm_name(info.algorithm) : "native";
}

}  // namespace

Runner::Runner(const BenchOptions& options, const BenchOp& op, MPI_Comm comm)
    : options_(options), op_(op), comm_(comm) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    // Only the root's results are read (and compared per algorithm); the others' receive buffers are not
    // significant (MPI_Reduce), so they share one, which keeps long vectors affordable on every rank.
    recv_.resize(rank_ == options.root ? options.algorithms.size() : 1);
}

void Runner::check_call(int rc, size_t algorithm) const {
    if (rc == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    MPI_Error_string(rc, text, &length);
    std::fprintf(stderr, "mpi_bench: rank %d: MPI_Reduce (%s) failed: %s\n", rank_,
                 options_.algorithms[algorithm].name.c_str(), text);
    MPI_Abort(comm_, 1);
}

// In place, the root's buffer holds its input before every call (outside the timed region).
void Runner::prepare(size_t algorithm) {
    if (options_.in_place && rank_ == options_.root) std::memcpy(recv_[algorithm].data(), send_.data(), send_.size());
}

int Runner::call(size_t algorithm, int count, redux_call_info* info) {
    const AlgorithmChoice& choice = options_.algorithms[algorithm];
    redux_options call_options = REDUX_OPTIONS_INIT;
    call_options.algorithm = choice.algorithm;
    if (choice.planned() && options_.measured_costs) {
        call_options.transfer_s = costs_.transfer_s;
        call_options.compute_s = costs_.compute_s;
    }
    if (choice.planned()) call_options.segment_bytes = options_.segment_bytes;
    void* recv = recv_[std::min(algorithm, recv_.size() - 1)].data();
    const bool in_place = options_.in_place && rank_ == options_.root;
    const void* send = in_place ? MPI_IN_PLACE : static_cast<const void*>(send_.data());
    return redux_reduce_ex(send, recv, count, op_.datatype(), op_.op(), options_.root, comm_, &call_options, info);
}

// Compares every algorithm's last result with the expected one; the root says what went wrong.
bool Runner::verify(int count, const char* when, bool corrupt) {
    bool ok = true;
    if (rank_ == options_.root) {
        for (size_t a = 0; a < options_.algorithms.size() && ok; ++a) {
            if (corrupt && options_.algorithms[a].name == options_.corrupt_algorithm) op_.corrupt(recv_[a].data());
            std::string what;
            if (op_.first_mismatch(recv_[a].data(), expected_.data(), count, what) >= 0) {
                std::fprintf(stderr,
                             "mpi_bench: verification FAILED %s timing: algorithm %s, op %s, datatype %s, %ld bytes "
                             "(count %d), %d ranks, root %d%s: %s\n",
                             when, options_.algorithms[a].name.c_str(), op_label(options_.op).c_str(),
                             datatype_name(options_.op.type).c_str(), static_cast<long>(count) * op_.element_bytes(),
                             count, size_, options_.root, options_.in_place ? ", in place" : "", what.c_str());
                ok = false;
            }
        }
    }
    return all_of_yielding(ok, comm_);
}

// --size-seconds: as many iterations as fit in about size_seconds at the verification round's pace (at least
// 3, at most the configured count); the warm-up no longer than that, and at least 1 (auto's trials have their own
// calls, run_size).
// The root decides and broadcasts, so every rank runs the same rounds.
void Runner::limit_rounds(double round_s, int& iterations, int& warmup) const {
    int rounds[2] = {iterations, warmup};
    if (rank_ == options_.root && round_s > 0) {
        const double fit = options_.size_seconds / round_s;
        rounds[0] = fit < iterations ? std::max(3, static_cast<int>(fit)) : iterations;
        rounds[1] = std::min(warmup, std::max(1, rounds[0]));
    }
    MPI_Bcast(rounds, 2, MPI_INT, options_.root, comm_);
    iterations = rounds[0];
    warmup = rounds[1];
}

double Runner::start_call() {
    if (start_clock_) return start_clock_->next_start();
    barrier_yielding(comm_);
    return MPI_Wtime();
}

bool Runner::run_size(int count, SizeResult& result) {
    const size_t bytes = static_cast<size_t>(count) * static_cast<size_t>(op_.element_bytes());
    const long size_bytes = static_cast<long>(bytes);
    int iterations = options_.iterations_for(size_bytes);
    int warmup = options_.warmup_for(size_bytes);
    const size_t algorithms = options_.algorithms.size();

    send_.assign(bytes, 0);
    op_.fill(rank_, count, send_.data());
    for (auto& buffer : recv_) buffer.assign(bytes, 0);
    if (rank_ == options_.root) {
        expected_.assign(bytes, 0);
        op_.expected(size_, count, expected_.data());
    }

    result = SizeResult{};
    result.bytes = size_bytes;
    result.count = count;
    result.costs_measured = options_.measured_costs;
    costs_ = options_.measured_costs ? measure_costs(op_, count, options_.root, cost_samples(iterations), comm_)
                                     : MeasuredCosts{};
    result.costs = costs_;

    // Verification: one call per algorithm, which also makes and caches the plan.
    result.algorithms.assign(algorithms, AlgorithmResult{});
    double round_s = 0;  // the root's time in the calls of this round
    for (size_t a = 0; a < algorithms; ++a) {
        redux_call_info info{};
        prepare(a);
        barrier_yielding(comm_);
        const double t0 = MPI_Wtime();
        check_call(call(a, count, &info), a);
        round_s += MPI_Wtime() - t0;
        record_call(info, result.algorithms[a]);
    }
    if (!verify(count, "before", true)) return false;
    if (options_.size_seconds > 0) limit_rounds(round_s, iterations, warmup);
    if (options_.window_sync && !start_clock_) start_clock_ = std::make_unique<StartClock>(options_.root, comm_);
    // auto's trials and confirmation, untimed here (kAutoTrialCalls), started as the timed calls are: started
    // otherwise (a barrier before each, where the timed calls start from an agreed time) they would time other
    // calls than the benchmark's, and on a slow network can pick the algorithm that loses in the timed ones.
    for (size_t a = 0; a < algorithms; ++a) {
        if (options_.algorithms[a].algorithm != REDUX_ALGORITHM_AUTO) continue;
        for (int trial = 1; trial < kAutoTrialCalls; ++trial) {
            redux_call_info info{};
            prepare(a);
            start_call();
            check_call(call(a, count, &info), a);
            record_call(info, result.algorithms[a]);
        }
    }
    if (start_clock_) start_clock_->take_late_count();  // late starts count in the timed iterations only

    std::vector<std::vector<double>> samples_s(algorithms);
    for (auto& samples : samples_s) samples.reserve(static_cast<size_t>(iterations));
    // Each iteration runs the algorithms in a new random order, the same on every rank (one seed, one sequence
    // of draws): in a rotation each algorithm always followed the same one and inherited whatever that one left
    // behind (the ranks' scheduling, the network's queues); a random order spreads that over all of them.
    std::vector<size_t> order(algorithms);
    for (size_t k = 0; k < algorithms; ++k) order[k] = k;
    std::mt19937 shuffler(static_cast<std::mt19937::result_type>(count));
    for (int it = -warmup; it < iterations; ++it) {
        std::shuffle(order.begin(), order.end(), shuffler);
        for (size_t a : order) {
            prepare(a);
            const double t0 = start_call();
            redux_call_info info{};
            const int rc = call(a, count, &info);
            const double elapsed_s = MPI_Wtime() - t0;
            check_call(rc, a);
            record_call(info, result.algorithms[a]);
            if (it >= 0 && rank_ == options_.root) samples_s[a].push_back(elapsed_s);
        }
    }
    if (start_clock_) {
        result.late_starts = start_clock_->take_late_count();
        result.start_margin_s = start_clock_->margin_s();
    }
    if (!verify(count, "after", false)) return false;

    for (size_t a = 0; a < algorithms; ++a) result.algorithms[a].latency = summarize(samples_s[a]);
    return true;
}

}  // namespace redux_bench
