// A call's own cost on a link (LinkFit::call_s): the MPI library's reduce of 8 B between two ranks, timed. See
// call_timing.cpp.
#pragma once

#include <mpi.h>

namespace redux {

// LinkFit::call_s on `pair` (a is its rank 0, b its rank 1; `first`: this rank is a): one call less d(8 B) (`d8_s`),
// at least 0, on a's side (0 on b's). thread_each: a and b share a node with a hardware thread each.
int time_call(MPI_Comm pair, bool first, bool thread_each, double d8_s, double& call_s);

}  // namespace redux
