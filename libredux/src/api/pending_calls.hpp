// Keys that only nonblocking calls have used, planned at the communicator's next blocking reduction.
//
// A nonblocking call may not wait for other ranks, so it plans nothing (route_known, route.hpp): where the
// communicator holds no plan for its key, the call goes to the library's own, and note_pending() keeps it (its
// arguments and a copy of this rank's data) in the communicator's state. The communicator's next blocking
// reduction or persistent init is a point every rank reaches after the same nonblocking calls (collectives are
// ordered on a communicator), so there route() calls plan_pending(): every rank plans the same kept keys, in the
// same order, on the copies, as a persistent init plans its key (decide_on_copies); the key's later nonblocking
// calls then run what was planned.
#pragma once

#include "api/comm_state.hpp"

namespace redux {

struct ReduceCall;

// The most data a kept call copies (count x the datatype's size, the same on every rank): a longer vector's calls are
// not kept.
constexpr size_t kMostPendingBytes = size_t{64} << 20;

// Keeps `call` (key `key`, its datatype laid out as `layout`) for the next blocking reduction on `state`'s
// communicator to plan, unless a call of the same key is kept already, kMaxCachedPlans are kept, its data is over
// kMostPendingBytes, or its op is a user op that MPI_Op_create was not seen making (the op could not be told from a
// later one with the handle): what every rank decides alike. An entry whose copy could not be made here is kept
// unusable; where not even the entry could be made, `state.pending_lost`. No message, no exception.
void note_pending(CommState& state, const ReduceCall& call, const PlanKey& key, const ElementLayout& layout);

// Plans the calls kept on `state` (the state of `user_comm`), in the order they were kept: each as a persistent init
// plans its key (under auto, until auto has decided), sharing kInitTrialSeconds in all; what that leaves stays kept for
// the next blocking reduction. A kept call that is not usable on some rank (its copy not made, its user op gone) is
// dropped; where some rank lost one, none is planned. Called by route() on every rank at the same blocking call
// (has_pending); collective over the communicator.
int plan_pending(CommState& state, MPI_Comm user_comm);

// How long one blocking reduction or persistent init may spend deciding under auto, once a key is planned (the
// slowest rank's time, agreed after each call).
constexpr double kInitTrialSeconds = 1.0;

// The blocking calls of `call`'s key on copies of its buffers (its send buffer's data, or in place its receive
// buffer's; `input_is_copy`: the send buffer is a copy already, used as it is), until the communicator holds the
// key's plan and, under auto, auto has decided; or `budget_s` is spent after the plan was made, or
// AutoSelect::kMaxCallsToDecide calls are made. spent_s: the time spent after the plan was made (agreed).
// Collective.
int decide_on_copies(const ReduceCall& call, double budget_s, double& spent_s, bool input_is_copy = false);

}  // namespace redux
