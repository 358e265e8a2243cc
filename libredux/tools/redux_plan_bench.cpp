// Planning speed (Google Benchmark). Planning sits on the critical path of the first MPI_Reduce for every new
// (communicator, size, op), so the targets are: Algorithm 1 for 4,096 ranks under 1 ms, for 1,000,000 ranks
// under 1 s, memory linear in n. Run: build/libredux/tools/redux-plan-bench [--benchmark_repetitions=5 ...]
//
// BM_Algorithm1 times the tree builder alone; BM_MakePlan the whole plan (tree, Proposition 3 times, layout,
// simulation). The bytes_per_rank counter is what the returned plan holds per rank.
#include "plan/planner.hpp"
#include "plan/trees/greedy.hpp"
#include "plan/trees/transfers_limited.hpp"
#include "redux/version.h"

#include <benchmark/benchmark.h>

#include <iostream>
#include <string_view>

namespace {

const redux::Costs kCosts{2e-6, 1e-6};

template <class V>
size_t bytes_of(const V& v) {
    return v.capacity() * sizeof(typename V::value_type);
}

void BM_Algorithm1(benchmark::State& state) {
    const auto n = static_cast<int32_t>(state.range(0));
    for (auto _ : state) benchmark::DoNotOptimize(redux::optimal_tree(n, kCosts));
    state.SetComplexityN(n);
}

void BM_FibonacciStrategy(benchmark::State& state) {
    const auto n = static_cast<int32_t>(state.range(0));
    for (auto _ : state) benchmark::DoNotOptimize(redux::fibonacci_strategy_tree(n, kCosts));
    state.SetComplexityN(n);
}

void BM_Algorithm2(benchmark::State& state) {
    const auto n = static_cast<int32_t>(state.range(0));
    for (auto _ : state) benchmark::DoNotOptimize(redux::transfers_limited_tree(n, kCosts, 8));
    state.SetComplexityN(n);
}

void BM_MakePlan(benchmark::State& state) {
    const auto n = static_cast<int32_t>(state.range(0));
    const bool commutative = state.range(1) != 0;
    size_t bytes = 0;
    for (auto _ : state) {
        const redux::Plan plan = redux::make_plan({n, kCosts, redux::Strategy::optimal, 0, n / 3, commutative});
        bytes = bytes_of(plan.parent) + bytes_of(plan.child_offset) + bytes_of(plan.child_rank) +
                bytes_of(plan.child_joins_left) + bytes_of(plan.ready_s) + bytes_of(plan.send_start_s);
        benchmark::DoNotOptimize(plan.makespan_s);
    }
    state.counters["bytes_per_rank"] = static_cast<double>(bytes) / n;
    state.SetComplexityN(n);
}

}  // namespace

BENCHMARK(BM_Algorithm1)
    ->RangeMultiplier(16)
    ->Range(16, 1 << 20)
    ->Arg(4096)
    ->Arg(1000000)
    ->Unit(benchmark::kMicrosecond)
    ->Complexity(benchmark::oNLogN);
BENCHMARK(BM_FibonacciStrategy)->Arg(4096)->Arg(1000000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Algorithm2)->Arg(4096)->Arg(1000000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MakePlan)->ArgsProduct({{4096, 1000000}, {1, 0}})->Unit(benchmark::kMicrosecond);

// BENCHMARK_MAIN(), with --version first (Google Benchmark takes only its own --benchmark_* flags).
int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        if (std::string_view(argv[i]) == "--version") {
            std::cout << "redux-plan-bench (libredux) " REDUX_VERSION_STRING "\n";
            return 0;
        }
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
