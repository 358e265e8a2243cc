#!/usr/bin/env bash
# 64 MiB on the emulated homogeneous cluster (8 nodes x 1 rank, 1 ms and 1 Gbit/s per node): what plain MPI
# reaches from this host (links_at_once.c, chain_forward.c: no libredux), then libredux's chain and two-tree
# against Open MPI's reduce. Run as root from the repository root, with CLUSTER_TOOLS set as for the sweeps
# (mpi_bench/sweep-lib.sh):   bash docs/results/long-vectors/cluster-64mib/run.sh > OUTPUT
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source mpi_bench/sweep-lib.sh
cluster_check
work="$(mktemp -d)"
mpicc -O2 -o "${work}/chain_forward" "${here}/chain_forward.c"
mpicc -O2 -o "${work}/links_at_once" "${here}/links_at_once.c"
cluster_up 1ms:1gbit 1ms:1gbit 1ms:1gbit 1ms:1gbit 1ms:1gbit 1ms:1gbit 1ms:1gbit 1ms:1gbit > /dev/null
run() { cluster_mpirun -np 8 "$@" 2>&1; }
echo "## links_at_once 64 MiB, one message per link"; run "${work}/links_at_once" 67108864 67108864
echo "## links_at_once 64 MiB, 512 KiB messages"; run "${work}/links_at_once" 67108864 524288
echo "## chain_forward 64 MiB, 512 KiB segments, W 16, no fold"; run "${work}/chain_forward" 67108864 524288 16 0
echo "## chain_forward 64 MiB, 512 KiB segments, W 16, fold"; run "${work}/chain_forward" 67108864 524288 16 1
echo "## chain_forward 64 MiB, 2 MiB segments, W 16, fold"; run "${work}/chain_forward" 67108864 2097152 16 1
for sb in auto 512K 2M; do
    echo "## mpi_bench --segment-bytes ${sb}"
    run build/mpi_bench/mpi_bench --algorithms native,auto,chain,two-tree --sizes 64M --iterations 5 --warmup 1 \
        --sync window --segment-bytes "${sb}" -q
done
