// Where the ranks of a communicator run, gathered so every rank knows the link class of every pair.
// See topology.cpp.
#pragma once

#include "model/link_costs.hpp"

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace redux {

struct Topology {
    std::vector<RankPlace> place;  // by rank of the communicator
    // Identifies the layout for the calibration file: the hosts and packages of every rank, in rank order.
    std::string signature;
    std::array<bool, kLinkClasses> present{};  // which classes occur among the pairs

    LinkClass link(int a, int b) const { return link_class(place[a], place[b]); }
    // A pair (a < b) of class `c`, the same on every rank; false if there is none.
    bool first_pair(LinkClass c, int& a, int& b) const;
    int nodes() const;
};

// Collective over comm: node identity from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), the package from hwloc
// (the package the rank is bound to; -1 when it is bound to several or none), the host name for the
// signature.
int gather_topology(MPI_Comm comm, Topology& topology);

}  // namespace redux
