// A key's first calls under auto, before it is planned, and where the MPI library's own collective is known to
// fail on a key. See first_calls.cpp.
#pragma once

#include "api/comm_state.hpp"
#include "policy/native_failures.hpp"

namespace redux {

// Where the MPI library's own collective is known to fail on `key` (policy/native_failures.hpp): an MPI_Reduce when
// its root passes MPI_IN_PLACE, or receives at MPI_BOTTOM (which needs a datatype of absolute addresses: a derived
// one); an MPI_Reduce_scatter_block on every call (`every_call`).
struct KeyNativeFailures {
    KnownNativeFailures reduce;
    const char* every_call = nullptr;
    bool any() const { return reduce.root_in_place || reduce.root_recv_at_bottom || every_call; }
};

KeyNativeFailures native_failures(const CommState& state, const PlanKey& key);

// Where a call of `key` goes before the key is planned (native_before_planning).
enum class FirstCall {
    planned,          // the key is planned, or is not auto's: route it as usual
    native,           // one of the key's first calls: the library's own collective, nothing planned
    native_and_plan,  // the last of them: the library's own collective, and the key planned while it runs
};

// Under auto, whether this call of `key` goes to the MPI library's own collective, on the user's communicator,
// before the key is planned: its first AutoSelect::kNativeFirstCalls calls, where the library's collective is not
// known to fail on the key (policy/native_failures.hpp). The last of them plans the key while the library's
// collective runs (reduce.cpp, plan_beside_library), so that the key's first planned call pays no calibration and no
// planning. Not collective, and the same answer on every rank: it counts the key's calls, which every rank makes
// alike. Once the last has been answered, the next question about the key answers `planned`.
FirstCall native_before_planning(CommState& state, const PlanKey& key);

}  // namespace redux
