// The steady-state linear program for a series of reductions: Legrand, Marchal & Robert, "Optimizing the
// steady-state throughput of scatter and reduce operations on heterogeneous platforms" (RR-2003-33 / IPDPS
// 2004), Section 2 (platform graph, one-port model with full overlap of sends, receives and folds) and Section 4
// (series of reduces).
//
// Many reductions run one after the other, pipelined; instead of the length of one we maximise TP, the number
// completed per time unit once the pipeline is full. Participant i holds a value v_i of every reduction; the
// partial result v[k,m] is v_k + ... + v_m, and task T[k,l,m] folds v[k,l] with v[l+1,m] into v[k,m] (adjacent
// intervals only, left before right: right for operators that are not commutative). In one time unit, on
// average:
//     send[e, v]   = send(P_i -> P_j, v[k,m]): how many v[k,m] travel over the edge e = (i, j)   (x columns)
//     cons[n, T]   = cons(P_n, T[k,l,m]):      how many tasks T[k,l,m] participant n runs        (y columns)
//     TP           reductions completed at the target
// subject to
//     one-port:     sum over e out of i of send[e, *] * transfer_s(e) <= 1   (s(P_i -> *), equation 2)
//                   sum over e into j of send[e, *] * transfer_s(e)   <= 1   (s(* -> P_j), equation 3)
//     compute:      sum over T of cons[n, T] * fold_s(n)              <= 1   (full overlap: folds run alongside)
//     conservation: for every participant n and partial result v[k,m], what arrives or is made equals what
//                   leaves or is consumed:
//                       sum_j send[(j,n), v[k,m]] + sum_l cons[n, T[k,l,m]]
//                     = sum_j send[(n,j), v[k,m]] + sum_{q>m} cons[n, T[k,m,q]] + sum_{q<k} cons[n, T[q,k-1,m]]
//                   except v[n,n] at n (a source: every reduction brings one) and v[0,p-1] at the target, where
//                   the left side equals TP (the target never ships the final result, no task consumes it).
// maximise TP. The sources need no rate of their own: a fold keeps, among its operands and its result, exactly
// one partial result containing v_i for every i it covers, so the values of participant i flow, conserved, from
// i to the target, and i hands out exactly TP of them. Two columns that can only waste are left out: v[j,j]
// sent to j, and v[0,p-1] sent by the target.
//
// Solving. GLPK's primal simplex with its presolver, times scaled so the largest finite cost is 1 (rates are
// scaled back). Several flows reach the optimum, some with useless work in them (a partial result sent round a
// cycle where the ports have room); with options.least_busy a second pass fixes TP at the optimum and minimises
// the total busy time, sum send * transfer_s + sum cons * fold_s, warm-started from the first pass's basis.
// The solution keeps the non-zero columns. Size and times: steady_state.hpp.
#include "plan/steady_state/steady_state.hpp"

#include "plan/steady_state/glpk_problem.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace redux {
namespace {

// The program in GLPK's form: columns (TP, then send[e, v], then cons[n, T]) and their rows.
struct Program {
    std::vector<ResultTransfer> transfer_of;  // by transfer column - first_transfer_column
    std::vector<ResultFold> fold_of;          // by fold column - first_fold_column
    int first_transfer_column = 2;
    int first_fold_column = 0;
    std::vector<double> busy_cost;  // by column (1-based): the busy time one unit of it costs, scaled
    int64_t nonzeros = 0;
};

// Writes the program into a GLPK problem; every time divided by unit_s.
class ProgramBuilder {
public:
    ProgramBuilder(const SteadyStatePlatform& platform, double unit_s, glp_prob* lp)
        : platform_(platform), unit_s_(unit_s), lp_(lp), p_(platform.size()), results_(partial_result_count(p_)) {}

    Program build() {
        add_rows();
        // TP: what the target makes of v[0,p-1] (the left side of its conservation row) equals TP.
        const int tp_column = add_column(0.0);
        glp_set_obj_coef(lp_, tp_column, 1.0);
        put(conservation(platform_.target(), {0, p_ - 1}), tp_column, -1.0);
        add_transfer_columns();
        program_.first_fold_column = glp_get_num_cols(lp_) + 1;
        add_fold_columns();
        glp_load_matrix(lp_, static_cast<int>(ia_.size()) - 1, ia_.data(), ja_.data(), ar_.data());
        program_.nonzeros = static_cast<int64_t>(ia_.size()) - 1;
        return std::move(program_);
    }

private:
    int add_row(int type) {
        const int row = glp_add_rows(lp_, 1);
        glp_set_row_bnds(lp_, row, type, 0.0, type == GLP_UP ? 1.0 : 0.0);
        return row;
    }

    // The ports and the compute bound where they can bind (<= 1), then conservation of every (node, result)
    // but the sources (= 0).
    void add_rows() {
        send_row_.assign(static_cast<size_t>(p_), 0);
        receive_row_.assign(static_cast<size_t>(p_), 0);
        compute_row_.assign(static_cast<size_t>(p_), 0);
        for (int32_t n = 0; n < p_; ++n) {
            bool sends = false, receives = false;
            for (int32_t j = 0; j < p_; ++j) {
                sends = sends || (platform_.has_edge(n, j) && platform_.transfer_s(n, j) > 0);
                receives = receives || (platform_.has_edge(j, n) && platform_.transfer_s(j, n) > 0);
            }
            if (sends) send_row_[static_cast<size_t>(n)] = add_row(GLP_UP);
            if (receives) receive_row_[static_cast<size_t>(n)] = add_row(GLP_UP);
            if (platform_.fold_s(n) > 0) compute_row_[static_cast<size_t>(n)] = add_row(GLP_UP);
        }
        conservation_row_.assign(static_cast<size_t>(p_) * static_cast<size_t>(results_), 0);
        for (int32_t n = 0; n < p_; ++n) {
            for (int32_t k = 0; k < p_; ++k) {
                for (int32_t m = k; m < p_; ++m) {
                    if (k != n || m != n) conservation_row_[slot(n, {k, m})] = add_row(GLP_FX);
                }
            }
        }
    }

    // send[e, v]: one port each side, out of the sender's balance, into the receiver's. v[j,j] is never sent to
    // j, nor v[0,p-1] by the target.
    void add_transfer_columns() {
        const PartialResult full{0, p_ - 1};
        for (int32_t i = 0; i < p_; ++i) {
            for (int32_t j = 0; j < p_; ++j) {
                if (!platform_.has_edge(i, j)) continue;
                const double cost = platform_.transfer_s(i, j) / unit_s_;
                for (int32_t k = 0; k < p_; ++k) {
                    for (int32_t m = k; m < p_; ++m) {
                        const PartialResult v{k, m};
                        if ((k == m && k == j) || (i == platform_.target() && v == full)) continue;
                        const int column = add_column(2 * cost);  // busy on both ports
                        put(send_row_[static_cast<size_t>(i)], column, cost);
                        put(receive_row_[static_cast<size_t>(j)], column, cost);
                        put(conservation(i, v), column, -1.0);
                        put(conservation(j, v), column, 1.0);
                        program_.transfer_of.push_back({v, i, j});
                    }
                }
            }
        }
    }

    // cons[n, T[k,l,m]]: the node's compute time; makes v[k,m], consumes v[k,l] and v[l+1,m].
    void add_fold_columns() {
        for (int32_t n = 0; n < p_; ++n) {
            const double cost = platform_.fold_s(n) / unit_s_;
            for (int32_t k = 0; k < p_; ++k) {
                for (int32_t m = k + 1; m < p_; ++m) {
                    for (int32_t l = k; l < m; ++l) {
                        const int column = add_column(cost);
                        put(compute_row_[static_cast<size_t>(n)], column, cost);
                        put(conservation(n, {k, m}), column, 1.0);
                        put(conservation(n, {k, l}), column, -1.0);
                        put(conservation(n, {l + 1, m}), column, -1.0);
                        program_.fold_of.push_back({n, {k, l}, {l + 1, m}});
                    }
                }
            }
        }
    }

    int add_column(double busy_cost) {
        const int column = glp_add_cols(lp_, 1);
        glp_set_col_bnds(lp_, column, GLP_LO, 0.0, 0.0);
        if (program_.busy_cost.empty()) program_.busy_cost.push_back(0.0);  // GLPK counts from 1
        program_.busy_cost.push_back(busy_cost);
        return column;
    }

    size_t slot(int32_t n, PartialResult v) const {
        return static_cast<size_t>(n) * static_cast<size_t>(results_) +
               static_cast<size_t>(partial_result_index(v, p_));
    }
    int conservation(int32_t n, PartialResult v) const { return conservation_row_[slot(n, v)]; }

    // One coefficient; none for a row that is not there (0: a source's balance, a port that costs nothing).
    void put(int row, int column, double value) {
        if (row == 0 || value == 0) return;
        ia_.push_back(row);
        ja_.push_back(column);
        ar_.push_back(value);
    }

    const SteadyStatePlatform& platform_;
    double unit_s_;
    glp_prob* lp_;
    int32_t p_;
    int32_t results_;
    std::vector<int> send_row_, receive_row_, compute_row_;  // by node; 0 where there is none
    std::vector<int> conservation_row_;                      // by (node, result); 0 for the sources
    std::vector<int> ia_{0}, ja_{0};                         // GLPK's arrays count from 1
    std::vector<double> ar_{0};
    Program program_;
};

// The second pass: TP fixed at its optimum, the total busy time minimised from the first pass's basis.
// Returns GLPK's code (0 on success).
int least_busy_pass(glp_prob* lp, const Program& program, double tp, const glp_smcp& first) {
    glp_set_col_bnds(lp, 1, GLP_FX, tp, tp);
    for (int column = 1; column <= glp_get_num_cols(lp); ++column) {
        glp_set_obj_coef(lp, column, program.busy_cost[static_cast<size_t>(column)]);
    }
    glp_set_obj_dir(lp, GLP_MIN);
    glp_smcp parm = first;
    parm.presolve = GLP_OFF;  // start from the optimal basis of the first pass
    return glp_simplex(lp, &parm);
}

std::optional<SteadyStateSolution> failed(std::string* error, const std::string& message) {
    if (error) *error = "solve_steady_state: " + message;
    return std::nullopt;
}

}  // namespace

std::string steady_state_refusal(const SteadyStatePlatform& platform, int32_t max_participants) {
    if (std::string bad = platform.validate(); !bad.empty()) return bad;
    if (platform.size() < 2) return "needs at least two participants";
    if (platform.size() > max_participants) {
        return std::to_string(platform.size()) + " participants, above the limit of " +
               std::to_string(max_participants);
    }
    if (platform.largest_time_s() <= 0) return "every cost is zero: the throughput is unbounded";
    return "";
}

std::optional<SteadyStateSolution> solve_steady_state(const SteadyStatePlatform& platform,
                                                      const SteadyStateOptions& options, std::string* error) {
    const int32_t p = platform.size();
    if (const std::string refusal = steady_state_refusal(platform, options.max_participants); !refusal.empty()) {
        return failed(error, refusal);
    }
    const double unit_s = platform.largest_time_s();

    const auto start = std::chrono::steady_clock::now();
    const QuietGlpk quiet;
    const GlpkProblem problem;
    glp_prob* lp = problem.get();
    glp_set_obj_dir(lp, GLP_MAX);
    const Program program = ProgramBuilder(platform, unit_s, lp).build();

    const glp_smcp parm = simplex_parameters(true, options.time_limit_s);
    if (const int rc = glp_simplex(lp, &parm); rc != 0) return failed(error, simplex_error(rc));
    if (glp_get_status(lp) == GLP_UNBND) return failed(error, simplex_error(GLP_ENODFS));
    if (glp_get_status(lp) != GLP_OPT) return failed(error, "no optimal solution");
    const double tp = glp_get_col_prim(lp, 1);
    if (options.least_busy && tp > 0) {
        if (const int rc = least_busy_pass(lp, program, tp, parm); rc != 0 || glp_get_status(lp) != GLP_OPT) {
            return failed(error, "least-busy pass: " + (rc != 0 ? simplex_error(rc) : "no optimal solution"));
        }
    }

    SteadyStateSolution solution;
    solution.participants = p;
    solution.target = platform.target();
    solution.throughput_per_s = glp_get_col_prim(lp, 1) / unit_s;
    // Simplex values below this are round-off, not flow.
    const double zero = 1e-11 * std::max(1.0, glp_get_col_prim(lp, 1));
    for (size_t c = 0; c < program.transfer_of.size(); ++c) {
        const double x = glp_get_col_prim(lp, program.first_transfer_column + static_cast<int>(c));
        if (x > zero) solution.transfers.push_back({program.transfer_of[c], x / unit_s});
    }
    for (size_t c = 0; c < program.fold_of.size(); ++c) {
        const double y = glp_get_col_prim(lp, program.first_fold_column + static_cast<int>(c));
        if (y > zero) solution.folds.push_back({program.fold_of[c], y / unit_s});
    }
    solution.busy = busy_fractions(platform, solution.transfers, solution.folds);
    solution.lp_rows = glp_get_num_rows(lp);
    solution.lp_columns = glp_get_num_cols(lp);
    solution.lp_nonzeros = program.nonzeros;
    solution.solve_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return solution;
}

std::string steady_state_violation(const SteadyStatePlatform& platform, const SteadyStateSolution& solution,
                                   double tolerance) {
    const int32_t p = platform.size();
    if (solution.participants != p || solution.target != platform.target()) return "another platform's solution";
    auto in_range = [p](PartialResult v) { return 0 <= v.first && v.first <= v.last && v.last < p; };
    double scale = std::max(1.0, solution.throughput_per_s);
    for (const auto& rate : solution.transfers) scale = std::max(scale, rate.per_s);
    for (const auto& rate : solution.folds) scale = std::max(scale, rate.per_s);
    const double slack = tolerance * scale;

    // balance[n][v]: what arrives at or is made on n, minus what leaves or is consumed there.
    const int32_t results = partial_result_count(p);
    std::vector<double> balance(static_cast<size_t>(p) * static_cast<size_t>(results), 0.0);
    auto at = [&](int32_t n, PartialResult v) -> double& {
        return balance[static_cast<size_t>(n) * static_cast<size_t>(results) +
                       static_cast<size_t>(partial_result_index(v, p))];
    };
    for (const auto& rate : solution.transfers) {
        const auto& t = rate.transfer;
        if (t.from < 0 || t.from >= p || t.to < 0 || t.to >= p || !platform.has_edge(t.from, t.to)) {
            return "a transfer on a missing edge " + std::to_string(t.from) + " -> " + std::to_string(t.to);
        }
        if (!in_range(t.value)) return "a transfer of a partial result out of range";
        if (rate.per_s < -slack) return "a negative transfer rate";
        at(t.from, t.value) -= rate.per_s;
        at(t.to, t.value) += rate.per_s;
    }
    for (const auto& rate : solution.folds) {
        const auto& f = rate.fold;
        if (f.node < 0 || f.node >= p || !in_range(f.left) || !in_range(f.right)) return "a fold out of range";
        if (f.left.last + 1 != f.right.first) return "a fold of " + to_string(f.left) + " and " + to_string(f.right);
        if (rate.per_s < -slack) return "a negative fold rate";
        at(f.node, f.result()) += rate.per_s;
        at(f.node, f.left) -= rate.per_s;
        at(f.node, f.right) -= rate.per_s;
    }
    const BusyFractions busy = busy_fractions(platform, solution.transfers, solution.folds);
    for (int32_t n = 0; n < p; ++n) {
        const auto i = static_cast<size_t>(n);
        if (busy.send[i] > 1 + tolerance) return "participant " + std::to_string(n) + " sends more than it can";
        if (busy.receive[i] > 1 + tolerance) return "participant " + std::to_string(n) + " receives more than it can";
        if (busy.compute[i] > 1 + tolerance) return "participant " + std::to_string(n) + " folds more than it can";
    }
    for (int32_t n = 0; n < p; ++n) {
        for (int32_t k = 0; k < p; ++k) {
            for (int32_t m = k; m < p; ++m) {
                if (k == m && k == n) continue;  // a source
                const bool sink = n == platform.target() && k == 0 && m == p - 1;
                const double expected = sink ? solution.throughput_per_s : 0.0;
                if (std::abs(at(n, {k, m}) - expected) > slack) {
                    return to_string(PartialResult{k, m}) + " is not conserved at " + std::to_string(n) + " (balance " +
                           std::to_string(at(n, {k, m})) + ", expected " + std::to_string(expected) + ")";
                }
            }
        }
    }
    return "";
}

}  // namespace redux
