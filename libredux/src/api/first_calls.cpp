// A key's first calls under auto: they go to the MPI library's own collective before the key is planned
// (native_before_planning), so that a key called once or twice costs no calibration and no plan, and the last of them
// plans the key while the library's collective runs; except where that collective is known to fail on the key
// (native_failures, from the table of policy/native_failures.cpp), which the planner also tells auto.
#include "api/first_calls.hpp"

#include "api/mpi_identity.h"
#include "api/planning_costs.hpp"

namespace redux {

KeyNativeFailures native_failures(const CommState& state, const PlanKey& key) {
    const MpiLibrary& library = loaded_mpi_library();
    const long long bytes = static_cast<long long>(key.type_size) * whole_count(state, key);
    KeyNativeFailures failures;
    switch (key.collective) {
        case Collective::reduce:
            failures.reduce.root_in_place =
                known_native_reduce_failure(library, {state.size, key.root, /*in_place=*/true, bytes, key.commutative});
            if (key.datatype == MPI_DATATYPE_NULL) {
                failures.reduce.root_recv_at_bottom = known_native_reduce_failure(
                    library, {state.size, key.root, false, bytes, key.commutative, /*recv_at_bottom=*/true});
            }
            break;
        case Collective::allreduce:
            break;
        case Collective::reduce_scatter_block:
            failures.every_call =
                known_native_reduce_scatter_block_failure(library, state.size, key.commutative, key.lower_bound_moved);
            break;
    }
    return failures;
}

FirstCall native_before_planning(CommState& state, const PlanKey& key) {
    constexpr size_t kMostKeys = 256;  // then counting starts again: every rank forgets alike
    if (key.algorithm != REDUX_ALGORITHM_AUTO || state.plans.count(key) != 0) return FirstCall::planned;
    if (native_failures(state, key).any()) return FirstCall::planned;
    if (state.calls_before_plan.size() >= kMostKeys) state.calls_before_plan.clear();
    int& calls = state.calls_before_plan[key];
    if (calls >= AutoSelect::kNativeFirstCalls) {
        state.calls_before_plan.erase(key);
        return FirstCall::planned;
    }
    ++calls;
    return calls == AutoSelect::kNativeFirstCalls ? FirstCall::native_and_plan : FirstCall::native;
}

}  // namespace redux
