# The whole homogeneous sweep (8 B .. 4 MiB, every algorithm) after the time in flight per size; from the
# repository root, as root. summary.md: summary.py with an empty delay CSV (no delay ops here).
set -euo pipefail
cd /work/main
source mpi_bench/sweep-lib.sh
cluster_check
out=${1:-docs/results/mpi_bench/cluster-auto/flight}  # the output folder
mkdir -p /tmp/pm $out
rm -f /tmp/pm/flight-report.jsonl
cluster_up 1ms:1gbit 1ms:1gbit 1ms:1gbit 1ms:1gbit 1ms:1gbit 1ms:1gbit 1ms:1gbit 1ms:1gbit
cluster_mpirun -np 8 -x REDUX_REPORT=/tmp/pm/flight-report.jsonl build/mpi_bench/mpi_bench --op sum --sizes 8:4M \
    --iterations 15 --warmup 10 --sync window --csv $out/sum.csv > $out/sum.txt
cluster_down
: > /tmp/pm/empty.csv
/usr/bin/python3 mpi_bench/summary.py --delay /tmp/pm/empty.csv --costs /tmp/pm/empty.csv --sum $out/sum.csv > $out/summary.md
