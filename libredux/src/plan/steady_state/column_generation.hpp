// Column generation over trees for the steady-state program: the master program, the pricing loop with dual
// smoothing, shared by the two tree families (tree_packing.cpp: any reduction tree of the program; plain_trees.cpp:
// per-rank trees the executor runs). Included by those .cpp files only (GLPK is private to redux_core).
//
// The master program: for every resource r (the send port, receive port and folding of each participant, and
// any others a pricing adds, such as the links between participants)
//     sum_T x_T * busy_T(r) <= 1,   x_T >= 0,   maximise sum_T x_T,
// a row per resource (3p or more) and a column per tree found so far. Each round: solve the master (warm-started),
// price the trees at its duals, add the cheapest if its cost C < 1 (it improves the master), else the trees are
// optimal; prices / C is a feasible dual of the whole master, so sum(prices) / C bounds TP (tree_packing.cpp gives the
// derivation).
//
// A Pricing type provides
//     using Column = ...;                                         one tree
//     double find(const Prices& prices, Column& tree);            the cheapest tree at the prices, its cost
//                                                                 (infinite when there is none)
//     std::vector<double> busy(const Column& tree) const;         scaled busy time per resource, in row order
//     int32_t rows() const;                                       the resources (3p first, as Prices)
//     std::vector<int32_t> signature(const Column& tree) const;   equal for equal trees
#pragma once

#include "plan/steady_state/glpk_problem.hpp"
#include "plan/steady_state/steady_state.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace redux::column_generation {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The price of a unit of busy time of each resource, in the scaled time unit, in the master's row order: the send
// ports of participants 0..p-1, then their receive ports, then their folding, then any further resources.
using Prices = std::vector<double>;

// The master program.
class Master {
public:
    explicit Master(int32_t rows) {
        glp_set_obj_dir(lp(), GLP_MAX);
        glp_add_rows(lp(), rows);
        for (int row = 1; row <= rows; ++row) glp_set_row_bnds(lp(), row, GLP_UP, 0.0, 1.0);
        glp_std_basis(lp());
    }

    glp_prob* lp() const { return problem_.get(); }

    // Adds a column of these busy times (row order); false when it keeps no resource busy (TP unbounded).
    bool add(const std::vector<double>& busy) {
        std::vector<int> index{0};
        std::vector<double> value{0};
        for (size_t r = 0; r < busy.size(); ++r) {
            if (busy[r] > 0) index.push_back(static_cast<int>(r) + 1), value.push_back(busy[r]);
        }
        if (index.size() == 1) return false;
        const int column = glp_add_cols(lp(), 1);
        glp_set_col_bnds(lp(), column, GLP_LO, 0.0, 0.0);
        glp_set_obj_coef(lp(), column, 1.0);
        glp_set_mat_col(lp(), column, static_cast<int>(index.size()) - 1, index.data(), value.data());
        return true;
    }

    // The duals of the rows. Those of <= rows of a maximisation are >= 0: round-off is clamped so that the
    // pricing's costs stay >= 0.
    Prices prices() const {
        Prices prices(static_cast<size_t>(glp_get_num_rows(lp())));
        for (size_t r = 0; r < prices.size(); ++r) {
            prices[r] = std::max(0.0, glp_get_row_dual(lp(), static_cast<int>(r) + 1));
        }
        return prices;
    }

    double weight(size_t column) const { return glp_get_col_prim(lp(), static_cast<int>(column) + 1); }

private:
    GlpkProblem problem_;
};

// Steps 2 and 3 with dual smoothing (Wentges): the prices that proved the lowest bound so far are the centre;
// each round prices first at smoothing * centre + (1 - smoothing) * duals, which keeps the prices from swinging
// from one extreme of the master's dual to another (the usual slow tail of column generation). If the tree
// found there does not improve the master, it prices at the master's own duals, which either finds one that does
// or proves the trees optimal.
template <class Pricing>
class Pricer {
public:
    using Column = typename Pricing::Column;
    Pricer(Pricing& pricing, double smoothing, double relative_gap)
        : pricing_(pricing), smoothing_(smoothing), relative_gap_(relative_gap) {}

    // A tree that improves the master under `duals` into `tree`; false when the trees found are optimal.
    bool next(const Prices& duals, Column& tree) {
        if (!centre_.empty() && smoothing_ > 0) {
            Prices mixed(duals.size());
            for (size_t r = 0; r < duals.size(); ++r) mixed[r] = smoothing_ * centre_[r] + (1 - smoothing_) * duals[r];
            price(mixed, tree);
            const std::vector<double> busy = pricing_.busy(tree);
            if (1 - std::inner_product(busy.begin(), busy.end(), duals.begin(), 0.0) > relative_gap_) return true;
        }
        return price(duals, tree) < 1 - relative_gap_;
    }

    // The lowest bound on TP proved so far, scaled (infinite before any pricing at prices that cost something).
    double upper() const { return upper_; }

private:
    // The cheapest tree under `prices` into `tree` and its cost C; prices / C is a feasible dual of the whole
    // master, so sum(prices) / C bounds TP.
    double price(const Prices& prices, Column& tree) {
        const double cost = pricing_.find(prices, tree);
        const double bound = cost > 0 ? std::accumulate(prices.begin(), prices.end(), 0.0) / cost : kInfinity;
        if (bound < upper_) upper_ = bound, centre_ = prices;
        return cost;
    }

    Pricing& pricing_;
    double smoothing_;
    double relative_gap_;
    Prices centre_;
    double upper_ = kInfinity;
};

struct Settings {
    double time_limit_s = 60;
    double relative_gap = 1e-9;
    double smoothing = 0.9;
    int32_t max_rounds = 100'000;
};

template <class Column>
struct Result {
    std::vector<Column> trees;   // those with a non-zero weight
    std::vector<double> weight;  // scaled: reductions per time unit of the pricing's unit
    double tp = 0;               // scaled
    double upper = 0;            // scaled bound: no flow of these trees does better
    int32_t rounds = 0;
    int lp_columns = 0, lp_nonzeros = 0;
    double solve_s = 0;
};

// Column generation from the first tree of equal prices. nullopt with `error` set on a failure (time or round
// limit, GLPK); a result without trees when no tree reaches the target (TP = 0).
template <class Pricing>
std::optional<Result<typename Pricing::Column>> solve(Pricing& pricing, const Settings& settings, std::string& error) {
    using Column = typename Pricing::Column;
    const auto start = std::chrono::steady_clock::now();
    auto elapsed_s = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    const QuietGlpk quiet;
    Master master(pricing.rows());
    Pricer<Pricing> pricer(pricing, settings.smoothing, settings.relative_gap);
    Result<Column> result;
    std::vector<Column> columns;

    // The first tree: the least total busy time (every resource priced alike).
    Column tree;
    if (pricing.find(Prices(static_cast<size_t>(pricing.rows()), 1.0), tree) == kInfinity) return result;
    std::set<std::vector<int32_t>> known;
    double tp = 0;
    do {
        // A tree the master has already: its reduced cost is GLPK's round-off, the trees are optimal to that.
        if (!known.insert(pricing.signature(tree)).second) break;
        if (!master.add(pricing.busy(tree))) {
            error = "a tree that costs no time: the throughput is unbounded";
            return std::nullopt;
        }
        columns.push_back(tree);
        const double left_s = settings.time_limit_s - elapsed_s();
        if (left_s <= 0) return error = "time limit reached", std::nullopt;
        if (result.rounds++ >= settings.max_rounds) return error = "round limit reached", std::nullopt;
        const glp_smcp parm = simplex_parameters(false, left_s);
        if (const int rc = glp_simplex(master.lp(), &parm); rc != 0) return error = simplex_error(rc), std::nullopt;
        if (glp_get_status(master.lp()) == GLP_UNBND) return error = simplex_error(GLP_ENODFS), std::nullopt;
        if (glp_get_status(master.lp()) != GLP_OPT) return error = "no optimal solution", std::nullopt;
        tp = glp_get_obj_val(master.lp());
    } while (tp < pricer.upper() * (1 - settings.relative_gap) && pricer.next(master.prices(), tree));

    for (size_t c = 0; c < columns.size(); ++c) {
        const double x = master.weight(c);
        if (x <= 1e-12 * std::max(1.0, tp)) continue;
        result.trees.push_back(columns[c]);
        result.weight.push_back(x);
    }
    result.tp = tp;
    result.upper = std::max(pricer.upper(), tp);
    result.lp_columns = glp_get_num_cols(master.lp());
    result.lp_nonzeros = glp_get_num_nz(master.lp());
    result.solve_s = elapsed_s();
    return result;
}

}  // namespace redux::column_generation
