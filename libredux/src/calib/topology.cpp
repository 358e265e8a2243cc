// Topology: which ranks share a node, and a package.
//
// A node is what MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) groups (ranks that can share memory); it is named
// by the lowest rank on it, which every rank of the node learns with one MPI_Allreduce on the node
// communicator. The package comes from hwloc: the packages the rank's CPU binding intersects; exactly one
// gives its logical index, otherwise -1 (an unbound rank may run anywhere, so its pairs on the node fall in
// the "same node" class). The node's hardware threads: those any of its ranks may use (each rank's cgroup,
// from hwloc, or-ed on the node communicator; a rank's binding does not count). One MPI_Allgather then gives
// every rank the (node, package, host hash, threads) of all. The calibration file's signature is of the packages
// and hosts only.
#include "calib/topology.hpp"

#include "mpi/mpi_check.hpp"
#include "mpi/yielding.hpp"
#include "util/fnv1a.hpp"

#include <hwloc.h>

#include <array>
#include <bitset>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>

namespace redux {
namespace {

constexpr int kCpuWords = 16;  // hardware threads 0 .. 1023 by OS index (a host with more: those only)

struct HostPlace {
    int32_t package = -1;                    // the package this process is bound to, or -1
    std::array<uint64_t, kCpuWords> cpus{};  // the hardware threads of the host it may run on (none: unknown)
};

// hwloc's topology is loaded once per process.
HostPlace host_place() {
    // Simulated ranks (SMPI) run on simulated hosts of one core: this machine's packages are not theirs, and
    // loading hwloc once per rank (tens of ms each) would dominate a simulation of thousands.
    if constexpr (kSimulatedRanks) return {};
    static HostPlace place;
    static std::once_flag once;
    std::call_once(once, [] {
        hwloc_topology_t topo = nullptr;
        if (hwloc_topology_init(&topo) != 0) return;
        if (hwloc_topology_load(topo) == 0) {
            // What the process is allowed to use (its cgroup), not what it is bound to.
            int pu = 0;
            hwloc_bitmap_foreach_begin(pu, hwloc_topology_get_allowed_cpuset(topo)) {
                if (pu < 64 * kCpuWords) place.cpus[static_cast<size_t>(pu / 64)] |= uint64_t{1} << (pu % 64);
            }
            hwloc_bitmap_foreach_end();
            hwloc_bitmap_t set = hwloc_bitmap_alloc();
            if (set != nullptr && hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0) {
                hwloc_obj_t first = hwloc_get_next_obj_covering_cpuset_by_type(topo, set, HWLOC_OBJ_PACKAGE, nullptr);
                if (first != nullptr &&
                    hwloc_get_next_obj_covering_cpuset_by_type(topo, set, HWLOC_OBJ_PACKAGE, first) == nullptr) {
                    place.package = static_cast<int32_t>(first->logical_index);
                }
            }
            hwloc_bitmap_free(set);
        }
        hwloc_topology_destroy(topo);
    });
    return place;
}

}  // namespace

// Linear in the ranks: a pair of a class exists iff one exists with the first rank of the node (same node
// classes) or with rank 0 (other node): if ranks x, y of a node are in class "same node", one of them is in that
// class with the node's first rank f too (else both share f's known package, hence each other's).
bool Topology::first_pair(LinkClass c, int& a, int& b) const {
    const int n = static_cast<int>(place.size());
    std::map<std::pair<int32_t, int32_t>, int> first_on_package;
    for (b = 0; b < n; ++b) {
        a = place[b].node;  // the node is named by its first rank
        switch (c) {
            case LinkClass::other_node:
                if (place[b].node != place[0].node) {
                    a = 0;
                    return true;
                }
                break;
            case LinkClass::same_node:
                if (a != b && link(a, b) == LinkClass::same_node) return true;
                break;
            case LinkClass::same_package: {
                if (place[b].package < 0) break;
                const auto [it, fresh] = first_on_package.try_emplace({place[b].node, place[b].package}, b);
                if (!fresh) {
                    a = it->second;
                    return true;
                }
                break;
            }
        }
    }
    return false;
}

int Topology::nodes() const {
    int count = 0;
    for (size_t r = 0; r < place.size(); ++r) count += place[r].node == static_cast<int32_t>(r);
    return count;
}

int gather_topology(MPI_Comm comm, Topology& topology) {
    int rank = 0, size = 0;
    REDUX_MPI(MPI_Comm_rank(comm, &rank));
    REDUX_MPI(MPI_Comm_size(comm, &size));
    MPI_Comm node_comm = MPI_COMM_NULL;
    REDUX_MPI(barrier_yielding(comm));  // MPI_Comm_split_type has no nonblocking form: arrive together
    REDUX_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node_comm));
    int node = rank;
    const HostPlace here = host_place();
    std::array<uint64_t, kCpuWords> node_set{};  // the threads any rank of the node may run on
    int rc = allreduce_yielding(&rank, &node, 1, MPI_INT, MPI_MIN, node_comm);
    if (rc == MPI_SUCCESS) {
        rc = allreduce_yielding(here.cpus.data(), node_set.data(), kCpuWords, MPI_UINT64_T, MPI_BOR, node_comm);
    }
    MPI_Comm_free(&node_comm);
    REDUX_MPI(rc);
    long long node_cpus = 0;
    for (uint64_t word : node_set) node_cpus += std::bitset<64>(word).count();

    char host[MPI_MAX_PROCESSOR_NAME] = {};
    int host_length = 0;
    REDUX_MPI(MPI_Get_processor_name(host, &host_length));
    const long long mine[4] = {node, here.package, static_cast<long long>(fnv1a(host, host_length) >> 1), node_cpus};
    std::vector<long long> all(static_cast<size_t>(4) * size);
    REDUX_MPI(allgather_yielding(mine, 4, MPI_LONG_LONG, all.data(), 4, MPI_LONG_LONG, comm));

    topology.place.assign(static_cast<size_t>(size), {});
    uint64_t signature = fnv1a(reinterpret_cast<const char*>(&size), sizeof size);
    for (int r = 0; r < size; ++r) {
        topology.place[r] = {static_cast<int32_t>(all[4 * r]), static_cast<int32_t>(all[4 * r + 1]),
                             static_cast<int32_t>(all[4 * r + 3])};
        signature = fnv1a(reinterpret_cast<const char*>(&all[4 * r + 1]), 2 * sizeof(long long), signature);
    }
    char text[40];
    std::snprintf(text, sizeof text, "%d-%016llx", size, static_cast<unsigned long long>(signature));
    topology.signature = text;
    topology.present.fill(false);
    for (int c = 0; c < kLinkClasses; ++c) {
        int a = 0, b = 0;
        topology.present[c] = topology.first_pair(static_cast<LinkClass>(c), a, b);
    }
    return MPI_SUCCESS;
}

}  // namespace redux
