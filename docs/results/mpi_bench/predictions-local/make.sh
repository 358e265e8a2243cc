#!/usr/bin/env bash
# Made these runs: bash make.sh runs 3 build "barrier window" (from the repository root: make.sh OUTDIR REPS BUILD [SYNCS]);
# summarize.py runs prints measured / predicted per ranks, sync and algorithm.
set -u
out=$1; reps=$2; build=$3; syncs=${4:-barrier}
mkdir -p $out
for rep in $(seq 1 $reps); do
for np in 2 4 8; do
for sync in $syncs; do
  timeout 300 mpirun.openmpi --allow-run-as-root --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 -np $np \
    -x REDUX_REPORT=$out/rep-np$np-$sync-$rep.json \
    $build/mpi_bench/mpi_bench --algorithms native,optimal,fibonacci,binomial --sizes 8:4K --sync $sync \
    --csv $out/np$np-$sync-$rep.csv --quiet > /dev/null 2>$out/err-np$np-$sync-$rep.txt
done; done; done
