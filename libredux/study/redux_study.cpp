// redux-study: reproduces the simulation study of Benoit, Canon & Marchal (RR-8315, Section 6, Figures 4 to 6)
// with libredux's simulator, and adds the clairvoyant heterogeneous trees (SNF, hetero-greedy) on fixed
// heterogeneous platforms. Writes CSV on standard output; docs/results/hetero-study/plot_study.py draws it.
//
//   redux-study dispersion  [--ranks 64] [--runs 2000] [--seed 1]   Figure 4: mu_d = 1, mu_c = 0, CV 0.01..10
//   redux-study overlap     [--ranks 64] [--runs 1000] [--seed 1]   Figures 5 and 6: CV x mu_c / mu_d grid
//                           [--transfer-cv X]  transfers drawn with CV X instead of the grid's (0: fixed, as on a
//                                              simulated network where only the op's cost varies)
//   redux-study clairvoyant [--ranks 64] [--runs 200]  [--seed 1]   fixed platforms drawn once, costs known
//
// Noise (dispersion, overlap): every transfer and every fold is drawn afresh from a gamma law (GammaNoise) around
// the homogeneous means, with the same CV for both; run r uses seed + r for every method, so the k-th transfer
// any method starts costs the same (their "same seed for each method"). The static trees are the planner's
// binomial and Fibonacci strategies planned with the means (what libredux would run); the dynamic ones are
// Tree-dyn and Non-Commut-Tree-dyn, run in the simulator.
//
// Clairvoyant: each run draws one platform (draw_platform: per-rank, per-pair or two-level "nodes" transfer
// costs; c_i of mean mu_c; gamma laws with the given CV) and every planner sees its exact costs: hetero-greedy
// and SNF on the per-rank/per-link costs, the homogeneous optimal and binomial trees on their means; Tree-dyn
// needs no knowledge. All are replayed under those fixed costs (overlap model).
#include "plan/planner.hpp"
#include "plan/predict/simulator.hpp"
#include "plan/trees/hetero_greedy.hpp"
#include "plan/trees/snf.hpp"
#include "redux/version.h"
#include "study/gamma_noise.hpp"
#include "study/tree_dyn.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace {

using redux::CostSampler;
using redux::HeteroCosts;
using redux::Simulation;
using redux::TransferModel;

const std::vector<double> kCvs{0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 1, 2, 3, 5, 10};
const std::vector<double> kComputeRatios{0.1, 0.2, 0.3, 0.5, 0.7, 1, 1.5, 2, 3, 5, 10};

struct Options {
    int32_t ranks = 64;
    int runs = 0;  // 0: the command's default
    uint64_t seed = 1;
    double transfer_cv = -1;  // < 0: the same CV as the computations
};

// A method: a makespan under the costs a sampler hands out.
struct Method {
    std::string name;
    std::function<double(CostSampler&)> run;
};

std::vector<int32_t> strategy_tree(int32_t n, const redux::Costs& means, redux::Strategy strategy) {
    redux::PlanRequest request;
    request.ranks = n;
    request.costs = means;
    request.strategy = strategy;
    return redux::make_plan(request).parent;
}

// Binomial-stat, Fibonacci-stat, Tree-dyn and Non-Commut-Tree-dyn for n ranks whose mean costs are `means`.
std::vector<Method> noise_methods(int32_t n, const redux::Costs& means) {
    const auto binomial = strategy_tree(n, means, redux::Strategy::binomial);
    const auto fibonacci = strategy_tree(n, means, redux::Strategy::fibonacci);
    return {
        {"binomial-stat",
         [=](CostSampler& c) { return redux::simulate(binomial, c, TransferModel::overlap).makespan_s; }},
        {"fibonacci-stat",
         [=](CostSampler& c) { return redux::simulate(fibonacci, c, TransferModel::overlap).makespan_s; }},
        {"tree-dyn", [=](CostSampler& c) { return redux::simulate_tree_dyn(n, c).makespan_s; }},
        {"non-commut-tree-dyn", [=](CostSampler& c) { return redux::simulate_non_commut_tree_dyn(n, c).makespan_s; }},
    };
}

struct Summary {
    double mean = 0, q10 = 0, q50 = 0, q90 = 0;
};

Summary summarise(std::vector<double> xs) {
    std::sort(xs.begin(), xs.end());
    Summary s;
    for (const double x : xs) s.mean += x;
    s.mean /= static_cast<double>(xs.size());
    auto quantile = [&](double q) { return xs[static_cast<size_t>(q * static_cast<double>(xs.size() - 1) + 0.5)]; };
    s.q10 = quantile(0.1);
    s.q50 = quantile(0.5);
    s.q90 = quantile(0.9);
    return s;
}

// Every method's makespans over `runs` noisy runs around `means` with coefficient of variation `cv`.
std::vector<Summary> noisy_runs(const Options& o, int runs, const redux::Costs& means, double cv) {
    const std::vector<Method> methods = noise_methods(o.ranks, means);
    const HeteroCosts base = HeteroCosts::uniform(o.ranks, means);
    std::vector<std::vector<double>> makespans(methods.size());
    for (int r = 0; r < runs; ++r) {
        for (size_t m = 0; m < methods.size(); ++m) {
            redux::GammaNoise noise(base, o.transfer_cv < 0 ? cv : o.transfer_cv, cv,
                                    o.seed + static_cast<uint64_t>(r));
            makespans[m].push_back(methods[m].run(noise));
        }
    }
    std::vector<Summary> out;
    for (auto& xs : makespans) out.push_back(summarise(std::move(xs)));
    return out;
}

void dispersion(const Options& o) {
    const int runs = o.runs > 0 ? o.runs : 2000;
    const auto names = noise_methods(2, {1, 0});
    std::cout << "# redux-study dispersion --ranks " << o.ranks << " --runs " << runs << " --seed " << o.seed
              << "\ncv,method,mean,q10,q50,q90\n";
    for (const double cv : kCvs) {
        const std::vector<Summary> s = noisy_runs(o, runs, {1.0, 0.0}, cv);
        for (size_t m = 0; m < s.size(); ++m) {
            std::cout << cv << ',' << names[m].name << ',' << s[m].mean << ',' << s[m].q10 << ',' << s[m].q50 << ','
                      << s[m].q90 << '\n';
        }
    }
}

void overlap(const Options& o) {
    const int runs = o.runs > 0 ? o.runs : 1000;
    std::cout << "# redux-study overlap --ranks " << o.ranks << " --runs " << runs << " --seed " << o.seed
              << (o.transfer_cv < 0 ? std::string() : " --transfer-cv " + std::to_string(o.transfer_cv))
              << "\ncv,compute_ratio,binomial_stat,fibonacci_stat,tree_dyn,non_commut_tree_dyn\n";
    for (const double cv : kCvs) {
        for (const double ratio : kComputeRatios) {
            const std::vector<Summary> s = noisy_runs(o, runs, {1.0, ratio}, cv);
            std::cout << cv << ',' << ratio;
            for (const Summary& x : s) std::cout << ',' << x.mean;
            std::cout << '\n';
        }
    }
}

// One platform of n ranks, drawn from `seed`: c_i from a gamma law of mean mu_c, transfers as `kind` says.
//   per-rank:  d_ij = t_i, t_i of mean 1 (Liu & Wang's model: a rank is slow or fast whoever it sends to);
//   per-pair:  every d_ij of mean 1 on its own;
//   nodes:     ranks in nodes of 8; d_ij of mean 0.1 inside a node and 1 between nodes, each pair on its own.
HeteroCosts draw_platform(const std::string& kind, int32_t n, double cv, double mu_c, uint64_t seed) {
    if (kind == "per-pair") return redux::draw_gamma_costs(n, {1.0, cv}, {mu_c, cv}, seed);
    std::mt19937_64 engine(seed);
    const auto count = static_cast<size_t>(n);
    std::vector<double> c(count), d(count * count, 0.0), send(count);
    for (double& c_i : c) c_i = redux::draw_gamma({mu_c, cv}, engine);
    for (double& t : send) t = redux::draw_gamma({1.0, cv}, engine);
    for (size_t i = 0; i < count; ++i) {
        for (size_t j = 0; j < count; ++j) {
            if (i == j) continue;
            d[i * count + j] =
                kind == "per-rank" ? send[i] : redux::draw_gamma({i / 8 == j / 8 ? 0.1 : 1.0, cv}, engine);
        }
    }
    return {std::move(c), std::move(d)};
}

void clairvoyant(const Options& o) {
    const int runs = o.runs > 0 ? o.runs : 200;
    const int32_t n = o.ranks;
    std::cout << "# redux-study clairvoyant --ranks " << n << " --runs " << runs << " --seed " << o.seed
              << "\nplatform,cv,compute_ratio,hetero_greedy,snf,optimal_on_means,binomial,tree_dyn\n";
    for (const std::string platform : {"per-rank", "per-pair", "nodes"}) {
        for (const double cv : {0.1, 0.3, 0.5, 1.0, 2.0}) {
            for (const double ratio : {0.0, 0.5, 1.0, 2.0}) {
                std::vector<double> sums(5, 0.0);
                for (int r = 0; r < runs; ++r) {
                    const HeteroCosts costs = draw_platform(platform, n, cv, ratio, o.seed + static_cast<uint64_t>(r));
                    const redux::Costs means = costs.mean_costs();
                    auto replay = [&](const std::vector<int32_t>& parent) {
                        return redux::simulate(parent, costs).makespan_s;
                    };
                    redux::FixedCosts fixed(costs);
                    sums[0] += replay(redux::hetero_greedy_tree(costs, 0).parent);
                    sums[1] += replay(redux::snf_tree(costs, 0).parent);
                    sums[2] += replay(strategy_tree(n, means, redux::Strategy::optimal));
                    sums[3] += replay(strategy_tree(n, means, redux::Strategy::binomial));
                    sums[4] += redux::simulate_tree_dyn(n, fixed).makespan_s;
                }
                std::cout << platform << ',' << cv << ',' << ratio;
                for (const double sum : sums) std::cout << ',' << sum / runs;
                std::cout << '\n';
            }
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Monte Carlo study of static and dynamic reduction trees under random costs (Benoit et al. Sec. 6)",
                 "redux-study"};
    Options o;
    app.require_subcommand(1);
    app.set_version_flag("--version", "redux-study (libredux) " REDUX_VERSION_STRING);
    for (const auto& [name, help] :
         {std::pair{"dispersion", "Figure 4: makespan against the CV of transfer costs, no computation"},
          std::pair{"overlap", "Figures 5 and 6: mean makespans over a grid of CV and mu_c / mu_d"},
          std::pair{"clairvoyant", "fixed heterogeneous platforms known to the planners: SNF and hetero-greedy"}}) {
        CLI::App* sub = app.add_subcommand(name, help);
        sub->add_option("--ranks", o.ranks, "number of ranks (default 64)")->check(CLI::Range(2, 1 << 16));
        sub->add_option("--runs", o.runs, "Monte Carlo runs per point")->check(CLI::Range(1, 100000000));
        sub->add_option("--seed", o.seed, "first seed (run r uses seed + r)");
        if (std::string(name) == "overlap") {
            sub->add_option("--transfer-cv", o.transfer_cv, "CV of the transfers (default: the grid's CV; 0: fixed)")
                ->check(CLI::Range(0.0, 100.0));
        }
    }
    CLI11_PARSE(app, argc, argv);
    std::cout.precision(6);
    if (app.got_subcommand("dispersion")) dispersion(o);
    if (app.got_subcommand("overlap")) overlap(o);
    if (app.got_subcommand("clairvoyant")) clairvoyant(o);
    return 0;
}
