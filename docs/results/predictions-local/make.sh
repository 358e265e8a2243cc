#!/usr/bin/env bash
# mpi_bench under Open MPI with native and three planned trees at 8 B .. 4 KiB, REPS runs per rank count and start,
# each with the library's decision log (REDUX_REPORT); summarize.py OUTDIR prints measured / predicted per size.
#   bash docs/results/predictions-local/make.sh OUTDIR REPS BUILD [SYNCS]      (from the repository root, as root)
# NPS (default "2 4 8"): the rank counts; BIND (default none): mpirun's --bind-to (core: a core per rank, for NPS=2).
# YIELD (default 1): Open MPI's mpi_yield_when_idle (0: polling, as Open MPI does by default with a core per rank).
set -u
out=$1; reps=$2; build=$3; syncs=${4:-barrier}; nps=${NPS:-2 4 8}; bind=${BIND:-none}; yield=${YIELD:-1}
mkdir -p $out
for rep in $(seq 1 $reps); do
for np in $nps; do
for sync in $syncs; do
  timeout 300 mpirun.openmpi --allow-run-as-root --oversubscribe --bind-to $bind --mca mpi_yield_when_idle $yield -np $np \
    -x REDUX_REPORT=$out/rep-np$np-$sync-$rep.json \
    $build/mpi_bench/mpi_bench --algorithms native,optimal,fibonacci,binomial --sizes 8:4K --sync $sync \
    --csv $out/np$np-$sync-$rep.csv --quiet > /dev/null 2>$out/err-np$np-$sync-$rep.txt
done; done; done
