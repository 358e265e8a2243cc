#include "runner.hpp"

#include "dynamic.hpp"
#include "yielding.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <random>

namespace redux_bench {
namespace {

// Timed repetitions for each cost measurement: as many as the iterations, 10 to 50.
int cost_samples(int iterations) { return std::clamp(iterations, 10, 50); }

// The tag of the description of a wrong result sent to the root (comm_ carries no other point-to-point traffic
// at that time; costs.cpp's ping-pong has its own tag).
constexpr int kWrongResultTag = 7002;

PlanReport plan_report(const redux_call_info& info) {
    return {info.planned != 0, info.transfer_s, info.compute_s, info.predicted_s, info.segments};
}

// Remembers the latest planned call's report and what the latest call ran: for auto, the tree it settled on
// (after its trials it may run a runner-up, another plan than its first calls').
void record_call(const redux_call_info& info, AlgorithmResult& out) {
    if (info.planned != 0) out.plan = plan_report(info);
    out.ran = info.planned != 0 ? algorithm_name(info.algorithm) : "native";
}

// Per timed iteration, the time from the last rank's entry into the call to the end the latency is timed to: both
// count from the iteration's start, so it is the latency less the latest arrival.
std::vector<double> after_last_arrival(const std::vector<double>& latency_s,
                                       const std::vector<double>& last_arrival_s) {
    std::vector<double> after_s(latency_s.size());
    for (size_t i = 0; i < after_s.size(); ++i) after_s[i] = latency_s[i] - last_arrival_s[i];
    return after_s;
}

// The calls on requests: the MPI_ names, which are libredux's where it is linked or preloaded. With simulated
// ranks those are SimGrid's, so libredux's are called by their own names (redux_request_test, ...). And --overlap's
// work: a spin on the clock, or with simulated ranks that time injected into the simulation.
#ifdef SMPI_H
int start_request(MPI_Request* request) { return redux_request_start(request); }
int test_request(MPI_Request* request, int* done) { return redux_request_test(request, done, MPI_STATUS_IGNORE); }
int wait_request(MPI_Request* request) { return redux_request_wait(request, MPI_STATUS_IGNORE); }
int free_request(MPI_Request* request) { return redux_request_free(request); }
void work(double seconds) { smpi_execute(seconds); }
#else
int start_request(MPI_Request* request) { return MPI_Start(request); }
int test_request(MPI_Request* request, int* done) { return MPI_Test(request, done, MPI_STATUS_IGNORE); }
int wait_request(MPI_Request* request) { return MPI_Wait(request, MPI_STATUS_IGNORE); }
int free_request(MPI_Request* request) { return MPI_Request_free(request); }
void work(double seconds) {
    const double until_s = MPI_Wtime() + seconds;
    while (MPI_Wtime() < until_s) {
    }
}
#endif

}  // namespace

Runner::Runner(const BenchOptions& options, const BenchOp& op, MPI_Comm comm)
    : options_(options), op_(op), comm_(comm) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    // Only the verified results are kept per algorithm: the root's of MPI_Reduce, every rank's of the others.
    // MPI_Reduce's other receive buffers are not significant, so they share one, which keeps long vectors
    // affordable on every rank.
    const bool verified = options.every_rank_results() || rank_ == options.root;
    recv_.resize(verified ? options.algorithms.size() : 1);
}

void Runner::check_call(int rc, size_t algorithm) const {
    if (rc == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    MPI_Error_string(rc, text, &length);
    std::fprintf(stderr, "mpi_bench: rank %d: %s (%s) failed: %s\n", rank_,
                 call_mpi_name(options_.collective, options_.mode).c_str(), options_.algorithms[algorithm].name.c_str(),
                 text);
    MPI_Abort(comm_, 1);
}

// In place, the buffer holds the input before every call (outside the timed region): the root's for MPI_Reduce,
// every rank's for the others (reduce_scatter_block's holds the whole vector, its block is then the first count).
void Runner::prepare(size_t algorithm) {
    if (options_.in_place && (options_.every_rank_results() || rank_ == options_.root)) {
        std::memcpy(recv_[algorithm].data(), send_.data(), send_.size());
    }
}

void* Runner::result_buffer(size_t algorithm) { return recv_[std::min(algorithm, recv_.size() - 1)].data(); }

const void* Runner::send_buffer() const {
    const bool in_place = options_.in_place && (options_.every_rank_results() || rank_ == options_.root);
    return in_place ? MPI_IN_PLACE : static_cast<const void*>(send_.data());
}

// One call as --collective says: blocking; or started, then the --overlap work and its wait. The verification's call
// of a nonblocking mode is blocking: it makes the plan the nonblocking calls of the same options run.
int Runner::call(size_t algorithm, int count, redux_call_info* info) {
    if (options_.mode == CallMode::blocking || (options_.mode == CallMode::nonblocking && first_call_)) {
        return blocking_call(algorithm, count, info);
    }
    MPI_Request request = MPI_REQUEST_NULL;
    const int rc = start(algorithm, count, info, request);
    return rc != MPI_SUCCESS ? rc : complete(request);
}

redux_options Runner::call_options(size_t algorithm) const {
    const AlgorithmChoice& choice = options_.algorithms[algorithm];
    redux_options call_options = REDUX_OPTIONS_INIT;
    call_options.algorithm = choice.algorithm;
    if (choice.planned() && options_.measured_costs) {
        call_options.transfer_s = costs_.transfer_s;
        call_options.compute_s = costs_.compute_s;
    }
    if (choice.planned()) call_options.segment_bytes = options_.segment_bytes;
    return call_options;
}

int Runner::blocking_call(size_t algorithm, int count, redux_call_info* info) {
    const redux_options call_options = this->call_options(algorithm);
    void* recv = result_buffer(algorithm);
    const void* send = send_buffer();
    switch (options_.collective) {
        case Collective::allreduce:
            return redux_allreduce_ex(send, recv, count, op_.datatype(), op_.op(), comm_, &call_options, info);
        case Collective::reduce_scatter_block:
            return redux_reduce_scatter_block_ex(send, recv, count, op_.datatype(), op_.op(), comm_, &call_options,
                                                 info);
        default:
            return redux_reduce_ex(send, recv, count, op_.datatype(), op_.op(), options_.root, comm_, &call_options,
                                   info);
    }
}

// auto's nonblocking calls, weighed by their own times until it has decided (untimed here, as the blocking trials):
// every third call is blocking, where the ranks agree on the times of the nonblocking calls before it, as a
// program's blocking reductions between its nonblocking ones do.
void Runner::weigh_nonblocking(size_t algorithm, int count, int warmup, AlgorithmResult& out) {
    bool deciding = true;
    for (int trial = 1; trial < kAutoTrialCalls && deciding; ++trial) {
        redux_call_info info{};
        prepare(algorithm);
        start_call(-static_cast<long>(warmup) - kAutoTrialCalls - trial);
        const bool agreement = trial % 3 == 0;
        first_call_ = agreement;
        check_call(call(algorithm, count, &info), algorithm);
        first_call_ = false;
        if (agreement) continue;
        record_call(info, out);
        deciding = info.deciding != 0;
    }
}

// A nonblocking call, or the start of the algorithm's persistent request (made at its first start).
int Runner::start(size_t algorithm, int count, redux_call_info* info, MPI_Request& request) {
    const redux_options o = call_options(algorithm);
    void* recv = result_buffer(algorithm);
    const void* send = send_buffer();
    const MPI_Datatype type = op_.datatype();
    if (options_.mode == CallMode::nonblocking) {
        int rc = MPI_SUCCESS;
        switch (options_.collective) {
            case Collective::allreduce:
                rc = redux_iallreduce_ex(send, recv, count, type, op_.op(), comm_, &o, &request);
                break;
            case Collective::reduce_scatter_block:
                rc = redux_ireduce_scatter_block_ex(send, recv, count, type, op_.op(), comm_, &o, &request);
                break;
            default:
                rc = redux_ireduce_ex(send, recv, count, type, op_.op(), options_.root, comm_, &o, &request);
                break;
        }
        redux_request_info(request, info);
        return rc;
    }
    if (persistent_.size() != options_.algorithms.size())
        persistent_.assign(options_.algorithms.size(), MPI_REQUEST_NULL);
    MPI_Request& made = persistent_[algorithm];
    if (made == MPI_REQUEST_NULL) {
        int rc = MPI_SUCCESS;
        switch (options_.collective) {
            case Collective::allreduce:
                rc = redux_allreduce_init_ex(send, recv, count, type, op_.op(), comm_, MPI_INFO_NULL, &o, &made);
                break;
            case Collective::reduce_scatter_block:
                rc = redux_reduce_scatter_block_init_ex(send, recv, count, type, op_.op(), comm_, MPI_INFO_NULL, &o,
                                                        &made);
                break;
            default:
                rc = redux_reduce_init_ex(send, recv, count, type, op_.op(), options_.root, comm_, MPI_INFO_NULL, &o,
                                          &made);
                break;
        }
        if (rc != MPI_SUCCESS) return rc;
    }
    redux_request_info(made, info);
    request = made;
    return start_request(&request);
}

// --overlap's work in 50 us slices, MPI_Test between them, then MPI_Wait.
int Runner::complete(MPI_Request& request) const {
    constexpr double kSlice_s = 50e-6;
    const double slices = std::ceil(options_.overlap_s / kSlice_s);
    for (double slice = 0; slice < slices; ++slice) {  // counted, not timed: a simulated clock may not pass 1e-12 s
        work(std::min(kSlice_s, options_.overlap_s - slice * kSlice_s));
        int done = 0;
        if (request != MPI_REQUEST_NULL) test_request(&request, &done);
    }
    return wait_request(&request);
}

void Runner::free_requests() {
    for (MPI_Request& request : persistent_) {
        if (request != MPI_REQUEST_NULL) free_request(&request);
    }
}

// Compares every algorithm's last result with the expected one, on every rank whose result is verified; the
// root says what went wrong. Collective; false on every rank when a result was wrong.
bool Runner::verify(int count, const char* when, bool corrupt) {
    const std::string wrong = first_wrong_result(count, corrupt);
    if (options_.every_rank_results()) return report_wrong_result(wrong, when);
    if (!wrong.empty()) std::fprintf(stderr, "mpi_bench: verification FAILED %s timing: %s\n", when, wrong.c_str());
    return all_of_yielding(wrong.empty(), comm_);
}

// The first algorithm whose result on this rank differs from the expected one, described; empty when none does or
// this rank's result is not verified. `corrupt` damages --corrupt-result's result first, on the rank that verifies
// (reduce: the root) or on the last rank, so the tests see that ranks other than the root are verified.
std::string Runner::first_wrong_result(int count, bool corrupt) {
    const bool every_rank = options_.every_rank_results();
    if (!every_rank && rank_ != options_.root) return "";
    const int corrupted_rank = every_rank ? size_ - 1 : options_.root;
    for (size_t a = 0; a < options_.algorithms.size(); ++a) {
        const std::string& name = options_.algorithms[a].name;
        if (corrupt && rank_ == corrupted_rank && name == options_.corrupt_algorithm) op_.corrupt(recv_[a].data());
        std::string what;
        if (op_.first_mismatch(recv_[a].data(), expected_.data(), count, what) < 0) continue;
        std::string where = ", root " + std::to_string(options_.root);
        if (every_rank) {
            where =
                (options_.collective == Collective::reduce_scatter_block ? ", block of rank " : ", result on rank ") +
                std::to_string(rank_);
        }
        return "algorithm " + name + ", " +
               (every_rank ? collective_mpi_name(options_.collective) + std::string(", ") : "") + "op " +
               op_label(options_.op) + ", datatype " + datatype_name(options_.op.type) + ", " +
               std::to_string(send_.size()) + " bytes (count " + std::to_string(count) + "), " + std::to_string(size_) +
               " ranks" + where + (options_.in_place ? ", in place" : "") + ": " + what;
    }
    return "";
}

// Every rank's verdict: the lowest rank with a wrong result sends its description to the root, which prints it and
// how many ranks had a wrong result. Collective; false on every rank when any had.
bool Runner::report_wrong_result(const std::string& wrong, const char* when) {
    const long wrong_ranks = sum_yielding(wrong.empty() ? 0 : 1, comm_);
    if (wrong_ranks == 0) return true;
    const int first = static_cast<int>(min_yielding(wrong.empty() ? size_ : rank_, comm_));
    std::string text = wrong;
    if (first != options_.root && (rank_ == first || rank_ == options_.root)) {
        int length = static_cast<int>(wrong.size());
        MPI_Request request = MPI_REQUEST_NULL;
        if (rank_ == first) {
            PMPI_Isend(&length, 1, MPI_INT, options_.root, kWrongResultTag, comm_, &request);
            wait_all_yielding(1, &request);
            PMPI_Isend(text.data(), length, MPI_CHAR, options_.root, kWrongResultTag, comm_, &request);
        } else {
            PMPI_Irecv(&length, 1, MPI_INT, first, kWrongResultTag, comm_, &request);
            wait_all_yielding(1, &request);
            text.assign(static_cast<size_t>(length), ' ');
            PMPI_Irecv(text.data(), length, MPI_CHAR, first, kWrongResultTag, comm_, &request);
        }
        wait_all_yielding(1, &request);
    }
    if (rank_ == options_.root) {
        std::fprintf(stderr, "mpi_bench: verification FAILED %s timing: %s", when, text.c_str());
        if (wrong_ranks > 1) std::fprintf(stderr, " (wrong on %ld of %d ranks)", wrong_ranks, size_);
        std::fputc('\n', stderr);
    }
    return false;
}

// Each timed iteration's largest value over the ranks (the slowest rank's time, the latest arrival) replaces the
// root's. Collective; every rank has one value per timed iteration.
void Runner::largest_over_ranks(std::vector<double>& values) const {
    std::vector<double> largest(values.size());
    max_to_root_yielding(values.data(), largest.data(), static_cast<int>(values.size()), options_.root, comm_);
    if (rank_ == options_.root) values = std::move(largest);
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

// Collective. A call of `iteration` (negative: the warm-up and auto's trials) starts with the op's cost draws
// restarted, a barrier or the next agreed start, then this rank's delay in the --arrival pattern, slept through.
Runner::CallStart Runner::start_call(long iteration) {
    seed_op_costs(rank_, iteration);
    const double delay_s = arrival_delay_s(options_.arrival, size_, iteration, rank_, options_.root);
    double start_s = 0;
    if (start_clock_) {
        start_s = start_clock_->next_start();
    } else {
        barrier_yielding(comm_);
        start_s = MPI_Wtime();
    }
    if (delay_s > 0) sleep_until(start_s + delay_s);
    return {start_s, MPI_Wtime() - start_s};
}

bool Runner::run_size(int count, SizeResult& result) {
    const bool scatter = options_.collective == Collective::reduce_scatter_block;
    const int vector_count = scatter ? count * size_ : count;  // this rank's input elements (main.cpp: <= INT_MAX)
    const size_t element_bytes = static_cast<size_t>(op_.element_bytes());
    const size_t bytes = static_cast<size_t>(vector_count) * element_bytes;
    const size_t block_bytes = static_cast<size_t>(count) * element_bytes;  // the result: count elements
    const long size_bytes = static_cast<long>(bytes);
    int iterations = options_.iterations_for(size_bytes);
    int warmup = options_.warmup_for(size_bytes);
    const size_t algorithms = options_.algorithms.size();

    send_.assign(bytes, 0);
    op_.fill(rank_, vector_count, send_.data());
    for (auto& buffer : recv_) buffer.assign(options_.in_place ? bytes : block_bytes, 0);
    if (options_.every_rank_results() || rank_ == options_.root) {
        std::vector<unsigned char> reduced(bytes, 0);
        op_.expected(size_, vector_count, reduced.data());
        const size_t block = scatter ? static_cast<size_t>(rank_) : 0;  // reduce_scatter_block: this rank's block
        const auto begin = reduced.begin() + static_cast<std::ptrdiff_t>(block * block_bytes);
        expected_.assign(begin, begin + static_cast<std::ptrdiff_t>(block_bytes));
    }

    result = SizeResult{};
    result.bytes = size_bytes;
    result.count = count;
    result.costs_measured = options_.measured_costs;
    costs_ = options_.measured_costs ? measure_costs(op_, vector_count, options_.root, cost_samples(iterations), comm_)
                                     : MeasuredCosts{};
    result.costs = costs_;

    // Verification: one call per algorithm, which also makes and caches the plan.
    result.algorithms.assign(algorithms, AlgorithmResult{});
    double round_s = 0;  // the root's time in the calls of this round
    free_requests();     // the last size's persistent requests
    persistent_.assign(algorithms, MPI_REQUEST_NULL);
    for (size_t a = 0; a < algorithms; ++a) {
        redux_call_info info{};
        prepare(a);
        barrier_yielding(comm_);
        const double t0 = MPI_Wtime();
        first_call_ = true;
        check_call(call(a, count, &info), a);
        first_call_ = false;
        round_s += MPI_Wtime() - t0;
        record_call(info, result.algorithms[a]);
    }
    if (!verify(count, "before", true)) return false;
    if (options_.size_seconds > 0) limit_rounds(round_s, iterations, warmup);
    if (options_.window_sync && !start_clock_) start_clock_ = std::make_unique<StartClock>(options_.root, comm_);
    // auto's trials and confirmation, untimed here (kAutoTrialCalls), started as the timed calls are: started
    // otherwise (a barrier before each, where the timed calls start from an agreed time) they would time other
    // calls than the benchmark's, and on a slow network can pick the algorithm that loses in the timed ones.
    // They end where libredux reports the size decided (the same on every rank: auto's steps are agreed).
    for (size_t a = 0; a < algorithms; ++a) {
        if (options_.algorithms[a].algorithm != REDUX_ALGORITHM_AUTO || options_.cold) continue;
        bool deciding = true;
        for (int trial = 1; trial < kAutoTrialCalls && deciding; ++trial) {
            redux_call_info info{};
            prepare(a);
            start_call(-static_cast<long>(warmup) - trial);
            first_call_ = options_.mode == CallMode::nonblocking;  // auto's trials: blocking calls
            check_call(call(a, count, &info), a);
            first_call_ = false;
            record_call(info, result.algorithms[a]);
            deciding = info.deciding != 0;
        }
        if (options_.mode == CallMode::nonblocking) weigh_nonblocking(a, count, warmup, result.algorithms[a]);
    }
    if (start_clock_) start_clock_->take_late_count();  // late starts count in the timed iterations only

    std::vector<std::vector<double>> samples_s(algorithms), arrivals_s(algorithms);  // per timed iteration
    for (auto& samples : samples_s) samples.reserve(static_cast<size_t>(iterations));
    for (auto& arrivals : arrivals_s) arrivals.reserve(static_cast<size_t>(iterations));
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
            const CallStart start = start_call(it);
            redux_call_info info{};
            const int rc = call(a, count, &info);
            const double elapsed_s = MPI_Wtime() - start.start_s;
            check_call(rc, a);
            record_call(info, result.algorithms[a]);
            if (it < 0) continue;
            arrivals_s[a].push_back(start.arrival_s);
            if (options_.every_rank_results() || rank_ == options_.root) samples_s[a].push_back(elapsed_s);
        }
    }
    if (start_clock_) {
        result.late_starts = start_clock_->take_late_count();
        result.start_margin_s = start_clock_->margin_s();
    }
    if (!verify(count, "after", false)) return false;

    for (size_t a = 0; a < algorithms; ++a) {
        if (options_.every_rank_results()) largest_over_ranks(samples_s[a]);
        largest_over_ranks(arrivals_s[a]);
        if (rank_ != options_.root) continue;
        result.algorithms[a].latency = summarize(samples_s[a]);
        result.algorithms[a].after_last = summarize(after_last_arrival(samples_s[a], arrivals_s[a]));
    }
    return true;
}

}  // namespace redux_bench
