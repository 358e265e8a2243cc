#!/usr/bin/env bash
set -u
out=$1; reps=$2; nps=${3:-"2"}
for rep in $(seq 1 $reps); do
for np in $nps; do
for b in old new; do
  mkdir -p $out/$b
  timeout 300 mpirun.openmpi --allow-run-as-root --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 -np $np \
    -x REDUX_REPORT=$out/$b/rep-np$np-window-$rep.json \
    /tmp/pm/mpi_bench_$b --algorithms native,optimal,fibonacci,binomial --sizes 8:4K --sync window \
    --csv $out/$b/np$np-window-$rep.csv --quiet > /dev/null 2>$out/$b/err-np$np-window-$rep.txt
done; done; done
