# MPI_SUM on the emulated homogeneous cluster (8 nodes of 1ms:1gbit, one rank each), 8 B .. 4 MiB, every
# algorithm; as root, with the cluster scripts in CLUSTER_TOOLS (mpi_bench/sweep-lib.sh):
#   CLUSTER_TOOLS=/path/to/cluster-scripts bash docs/results/cluster-sum/make.sh [OUT_DIR]
# summary.md: summary.py with an empty delay CSV (no delay ops here).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
source mpi_bench/sweep-lib.sh
cluster_check
out=${1:-build/cluster-sum}  # the output folder
mkdir -p /tmp/pm $out
rm -f /tmp/pm/flight-report.jsonl
cluster_up 1ms:1gbit 1ms:1gbit 1ms:1gbit 1ms:1gbit 1ms:1gbit 1ms:1gbit 1ms:1gbit 1ms:1gbit
cluster_mpirun -np 8 -x REDUX_REPORT=/tmp/pm/flight-report.jsonl build/mpi_bench/mpi_bench --op sum --sizes 8:4M \
    --iterations 15 --warmup 10 --sync window --csv $out/sum.csv > $out/sum.txt
cluster_down
: > /tmp/pm/empty.csv
/usr/bin/python3 mpi_bench/summary.py --delay /tmp/pm/empty.csv --costs /tmp/pm/empty.csv --sum $out/sum.csv > $out/summary.md
