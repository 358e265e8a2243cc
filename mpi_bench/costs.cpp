#include "costs.hpp"

#include "stats.hpp"
#include "yielding.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

namespace redux_bench {
namespace {

constexpr int kPingTag = 7001;

// One round trip between `root` and `partner` (this rank is one of them); the root's time, halved.
double ping_pong(void* buffer, int count, MPI_Datatype type, int root, int partner, int rank, MPI_Comm comm) {
    MPI_Request request = MPI_REQUEST_NULL;
    if (rank == root) {
        const double t0 = MPI_Wtime();
        PMPI_Isend(buffer, count, type, partner, kPingTag, comm, &request);
        wait_all_yielding(1, &request);
        PMPI_Irecv(buffer, count, type, partner, kPingTag, comm, &request);
        wait_all_yielding(1, &request);
        return (MPI_Wtime() - t0) / 2;
    }
    PMPI_Irecv(buffer, count, type, root, kPingTag, comm, &request);
    wait_all_yielding(1, &request);
    PMPI_Isend(buffer, count, type, root, kPingTag, comm, &request);
    wait_all_yielding(1, &request);
    return 0;
}

}  // namespace

MeasuredCosts measure_costs(const BenchOp& op, int count, int root, int samples, MPI_Comm comm) {
    int rank = 0, size = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const size_t bytes = static_cast<size_t>(count) * static_cast<size_t>(op.element_bytes());
    std::vector<unsigned char> a(bytes), b(bytes);
    op.fill(rank, count, a.data());

    double costs[2] = {0, 0};  // d, c
    for (int partner = 0; partner < size; ++partner) {
        if (partner == root || (rank != root && rank != partner)) continue;
        std::vector<double> one_way_s;
        for (int s = -1; s < samples; ++s) {
            const double t = ping_pong(a.data(), count, op.datatype(), root, partner, rank, comm);
            if (s >= 0) one_way_s.push_back(t);
        }
        if (rank == root) costs[0] = std::max(costs[0], median(one_way_s));
    }
    if (rank == root) {
        op.fill(root, count, a.data());
        std::vector<unsigned char> fresh(bytes);
        op.fill((root + 1) % size, count, fresh.data());
        std::vector<double> fold_s;
        for (int s = -1; s < samples; ++s) {
            std::memcpy(b.data(), fresh.data(), bytes);
            const double t0 = MPI_Wtime();
            MPI_Reduce_local(a.data(), b.data(), count, op.datatype(), op.op());
            if (s >= 0) fold_s.push_back(MPI_Wtime() - t0);
        }
        costs[1] = median(fold_s);
    }
    bcast_yielding(costs, 2, MPI_DOUBLE, root, comm);
    return {costs[0], costs[1]};
}

}  // namespace redux_bench
