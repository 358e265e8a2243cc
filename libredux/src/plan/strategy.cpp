// The strategy table: one StrategyInfo per line of REDUX_STRATEGIES (redux/algorithms.h).
#include "plan/strategy.hpp"

#include <algorithm>

namespace redux {

const std::vector<StrategyInfo>& strategies() {
    static const std::vector<StrategyInfo> table = {
#define REDUX_STRATEGY_INFO_(ENUM, name, text, value, needs) {Strategy::name, text, Needs::needs},
        REDUX_STRATEGIES(REDUX_STRATEGY_INFO_)
#undef REDUX_STRATEGY_INFO_
    };
    return table;
}

namespace {

// The entry whose value is `value`, or null: the one lookup by value behind the functions below.
const StrategyInfo* find_info(int value) {
    for (const StrategyInfo& info : strategies()) {
        if (static_cast<int>(info.strategy) == value) return &info;
    }
    return nullptr;
}

}  // namespace

const StrategyInfo& strategy_info(Strategy s) {
    const StrategyInfo* info = find_info(static_cast<int>(s));
    return info != nullptr ? *info : strategies().front();  // unreachable for a Strategy made from the table
}

std::string_view strategy_name(Strategy s) {
    const StrategyInfo* info = find_info(static_cast<int>(s));
    return info != nullptr ? info->name : "unknown";
}

std::optional<Strategy> parse_strategy(std::string_view name) {
    std::string spelled(name);
    std::replace(spelled.begin(), spelled.end(), '_', '-');
    for (const StrategyInfo& info : strategies()) {
        if (info.name == spelled) return info.strategy;
    }
    return std::nullopt;
}

std::string strategy_names(std::string_view separator, bool (*keep)(const StrategyInfo&)) {
    std::string names;
    for (const StrategyInfo& info : strategies()) {
        if (!keep(info)) continue;
        if (!names.empty()) names += separator;
        names += info.name;
    }
    return names;
}

bool strategy_needs_limit(Strategy s) { return strategy_info(s).needs == Needs::limit; }

bool strategy_needs_hetero_costs(Strategy s) {
    const Needs needs = strategy_info(s).needs;
    return needs == Needs::link_costs || needs == Needs::nodes;
}

std::optional<Strategy> strategy_from_value(int value) {
    const StrategyInfo* info = find_info(value);
    return info != nullptr ? std::optional<Strategy>(info->strategy) : std::nullopt;
}

std::optional<Strategy> strategy_of(redux_algorithm algorithm) { return strategy_from_value(algorithm); }

}  // namespace redux
