// The strategies, as the planner and everything above it see them: one enum and one table, both made from
// REDUX_STRATEGIES in redux/algorithms.h, so that a strategy is declared in exactly one place. Names for
// people, configuration values, reports, redux-plan and mpi_bench options all come from here.
#pragma once

#include "redux/algorithms.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace redux {

// A strategy's value is its redux_algorithm value: converting is a cast, never a table.
enum class Strategy : int {
#define REDUX_STRATEGY_ENUMERATOR_(ENUM, name, text, value, needs) name = value,
    REDUX_STRATEGIES(REDUX_STRATEGY_ENUMERATOR_)
#undef REDUX_STRATEGY_ENUMERATOR_
};

// When a strategy applies (redux/algorithms.h says what each means).
enum class Needs { always, link_costs, nodes, limit };

struct StrategyInfo {
    Strategy strategy;
    std::string_view name;  // for people: "hetero-greedy"
    Needs needs;
};

// Every strategy, in the order of redux/algorithms.h (auto weighs its candidates and breaks ties in this order).
const std::vector<StrategyInfo>& strategies();
const StrategyInfo& strategy_info(Strategy s);

std::string_view strategy_name(Strategy s);
// By name; '_' is accepted for '-' ("hetero_greedy").
std::optional<Strategy> parse_strategy(std::string_view name);
// The names of the strategies `keep` accepts, joined by `separator`.
std::string strategy_names(std::string_view separator, bool (*keep)(const StrategyInfo&));

bool strategy_needs_limit(Strategy s);
// Built from per-rank and per-link costs over the ranks themselves (no relabelling): snf, hetero-greedy,
// two-level need PlanRequest::hetero_costs and a commutative operator.
bool strategy_needs_hetero_costs(Strategy s);
// Accepted by REDUX_ALGORITHM and weighed by auto: every strategy that needs no limit (multi-tree too, since its
// executor keeps a pipeline per tree: on simulated platforms it measures 1.00-1.22x its forecast).
inline bool library_strategy(const StrategyInfo& info) { return info.needs != Needs::limit; }
inline bool any_strategy(const StrategyInfo&) { return true; }
inline redux_algorithm public_algorithm(Strategy s) { return static_cast<redux_algorithm>(s); }
// The strategy of a public value; nullopt for CONFIGURED, AUTO, NATIVE and unknown values.
std::optional<Strategy> strategy_of(redux_algorithm algorithm);
// The same from a plain number (what a C caller may have put in a redux_algorithm).
std::optional<Strategy> strategy_from_value(int value);

}  // namespace redux
