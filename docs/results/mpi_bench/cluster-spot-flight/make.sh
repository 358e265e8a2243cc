set -euo pipefail
rm -f /tmp/pm/cl-*.json /tmp/pm/cal-*.json
cd /work/main
source mpi_bench/sweep-lib.sh
cluster_check
out=${1:-docs/results/mpi_bench/cluster-spot-flight}  # the output folder (run2: a second run)
cluster_up 1ms:1gbit 1ms:1gbit 1ms:1gbit 1ms:1gbit 1ms:1gbit 1ms:1gbit 1ms:1gbit 1ms:1gbit
cluster_mpirun -np 8 -x REDUX_REPORT=/tmp/pm/cl-homo.json -x REDUX_CALIBRATION_FILE=/tmp/pm/cal-homo.json build/mpi_bench/mpi_bench --algorithms native,optimal,fibonacci,binomial,auto --sizes 8:8K --iterations 15 --sync window --csv $out/homogeneous-sum.csv > $out/homogeneous-sum.txt
cluster_down
cluster_up 0.1ms:10gbit 0.1ms:10gbit 1ms:1gbit 1ms:1gbit 2ms:500mbit 2ms:500mbit 5ms:100mbit 5ms:100mbit
cluster_mpirun -np 8 -x REDUX_REPORT=/tmp/pm/cl-hetero.json -x REDUX_CALIBRATION_FILE=/tmp/pm/cal-hetero.json build/mpi_bench/mpi_bench --algorithms native,optimal,fibonacci,hetero-greedy,two-level,auto --sizes 8,512,4K,8K --iterations 15 --sync window --csv $out/heterogeneous-sum.csv > $out/heterogeneous-sum.txt
cluster_down
