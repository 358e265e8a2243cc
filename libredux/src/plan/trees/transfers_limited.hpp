// Algorithm 2 of Canon & Antoniu: the optimal tree when at most K transfers may run at once. See the .cpp.
#pragma once

#include "model/costs.hpp"
#include "plan/tree.hpp"

namespace redux {

// The tree carries release_s: the forward time at which each node starts its transfer (Algorithm 2 delays
// transfers to respect the limit, so Proposition 3's "as soon as ready" does not apply).
Tree transfers_limited_tree(int32_t n, const Costs& costs, int32_t transfer_limit);

}  // namespace redux
