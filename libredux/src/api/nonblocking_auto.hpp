// auto for nonblocking calls (MPI_Iallreduce, ...): which of the library's own call and the key's tree runs them,
// decided by their own times (policy/nonblocking_trials.hpp). A weighed call is an operation (operations.hpp) either
// way, so that its completion is seen and timed, whichever completion call the program makes; the times are agreed
// at the communicator's next blocking reduction (route.cpp), which every rank reaches after the same calls.
#pragma once

#include "api/comm_state.hpp"

#include <memory>

namespace redux {

struct Route;

// What a nonblocking call of `route`'s key runs under auto (route.plan->algorithm): the tree's index, or -1 for the
// library's own. `trials` and `trial` are set where the call is weighed (its operation gives it its time); the key's
// first call weighed since the last agreement lists it on the state for the next. Where the library's own call is
// known to fail on the key (AutoSelect::native_excluded), what the blocking calls decided, unweighed.
int nonblocking_tree(const Route& route, std::shared_ptr<NonblockingTrials>& trials, int& trial);

// Agrees on the times of the nonblocking calls weighed on `state` since the last agreement, and logs each key's
// decision. Called by route() at a blocking reduction or persistent init, on every rank at the same one, where
// `state.weighing` is not empty; collective over the communicator.
int agree_nonblocking(CommState& state);

}  // namespace redux
