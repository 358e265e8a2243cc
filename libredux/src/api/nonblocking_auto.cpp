// auto for nonblocking calls (nonblocking_auto.hpp).
#include "api/nonblocking_auto.hpp"

#include "api/planning.hpp"
#include "api/route.hpp"
#include "api/wisdom.hpp"
#include "mpi/mpi_check.hpp"
#include "mpi/yielding.hpp"

#include <algorithm>
#include <vector>

namespace redux {
namespace {

// The trees weighed against the library's own: where an earlier job's weighing settled on one of the key's trees
// (CachedPlan::wisdom_nonblocking), that tree alone, a re-check; where it settled on the library's own, the tree auto
// decided for by blocking calls alone, if any; else every tree auto's trials measure, the one it decided for first.
std::vector<int> contenders(const CachedPlan& cached, bool decided_tree) {
    const AutoSelect& select = cached.auto_select;
    if (cached.wisdom_nonblocking == "native")
        return decided_tree ? std::vector<int>{select.tree()} : std::vector<int>{};
    for (int k = 0; k < select.trees(); ++k) {
        if (cached.trees[static_cast<size_t>(k)].name() == cached.wisdom_nonblocking) return {k};
    }
    std::vector<int> trees;
    if (decided_tree) trees.push_back(select.tree());
    for (int k = 0; k < select.trees(); ++k) {
        if (!decided_tree || k != select.tree()) trees.push_back(k);
    }
    return trees;
}

}  // namespace

int nonblocking_tree(const Route& route, std::shared_ptr<NonblockingTrials>& trials, int& trial) {
    trial = -1;
    CachedPlan& cached = *route.plan->plan;
    const AutoSelect& select = cached.auto_select;
    const bool decided_tree = select.decided() && select.choice() == AutoSelect::Run::planned;
    if (select.native_excluded()) return decided_tree ? select.tree() : -1;
    if (cached.nonblocking == nullptr) {
        cached.nonblocking = std::make_shared<NonblockingTrials>(contenders(cached, decided_tree));
    }
    const int tree = cached.nonblocking->start(trial);
    if (trial < 0) return tree;
    trials = cached.nonblocking;
    CommState& state = *route.state;
    for (const std::shared_ptr<NonblockingTrials>& listed : state.weighing) {
        if (listed == trials) return tree;
    }
    state.weighing.push_back(trials);
    // Every rank's next blocking reduction on the communicator asks route(): no thread record or recent call made
    // before this one answers it.
    forget_lookups();
    return tree;
}

int agree_nonblocking(CommState& state) {
    std::vector<std::shared_ptr<NonblockingTrials>> weighing;
    weighing.swap(state.weighing);
    std::vector<double> times;
    std::vector<size_t> counts;  // each key's share of times
    for (const std::shared_ptr<NonblockingTrials>& trials : weighing) {
        const std::vector<double> mine = trials->local();
        times.insert(times.end(), mine.begin(), mine.end());
        counts.push_back(mine.size());
    }
    if (times.empty()) return MPI_SUCCESS;
    REDUX_MPI(allreduce_yielding(MPI_IN_PLACE, times.data(), static_cast<int>(times.size()), MPI_DOUBLE, MPI_MAX,
                                 state.comm));
    size_t next = 0;
    for (size_t k = 0; k < weighing.size(); ++k) {
        const std::shared_ptr<NonblockingTrials>& trials = weighing[k];
        NonblockingTrials& t = *trials;
        const size_t n = counts[k];
        const bool decided = t.agree(
            {times.begin() + static_cast<std::ptrdiff_t>(next), times.begin() + static_cast<std::ptrdiff_t>(next + n)});
        next += n;
        if (!decided) continue;
        const auto holder = std::find_if(state.plans.begin(), state.plans.end(),
                                         [&](const auto& entry) { return entry.second->nonblocking == trials; });
        if (holder == state.plans.end()) continue;  // evicted since
        CachedPlan& cached = *holder->second;
        PlanReport& report = cached.report;
        const std::string fastest = t.tree() >= 0 ? cached.trees[static_cast<size_t>(t.tree())].name() : "none";
        report.nonblocking = t.phase() == NonblockingTrials::Phase::tree ? fastest : std::string("native");
        report.nonblocking_fastest = fastest;
        report.nonblocking_native_s = t.native_s();
        report.nonblocking_planned_s = t.tree_s();
        report.nonblocking_calls = t.calls();
        log_plan(state, cached, "auto nonblocking decision", true);
        if (cached.auto_select.decided()) keep_decision(state, cached);  // the entry of the key's decisions, with it
    }
    return MPI_SUCCESS;
}

}  // namespace redux
