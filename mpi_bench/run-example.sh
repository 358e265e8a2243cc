#!/usr/bin/env bash
# The main job: mpi_bench on 4 local ranks under Open MPI (the build in ./build that cmake/setup-debian.sh
# makes), libredux's trees against the MPI library's own MPI_Reduce, in two runs:
#   1. sum: MPI_SUM on doubles, 8 sizes from 8 B to 4 MiB, a cheap op whose cost is mostly the transfers;
#   2. delay: a user-defined, non-commutative op that costs about 66 us to 0.7 ms a call (delay:20, the sum
#      then a sleep of 20 ns per element: at least the kernel's ~60 us per sleep), 8 B .. 256 KiB. The MPI
#      library may not reorder a non-commutative op, so its own reduce folds the ranks' values in a row;
#      libredux's trees fold them in rank order too, with folds on different ranks at once. Vectors stay
#      whole (--segment-bytes 0), as in the main job's table in docs/performance.md: the trees themselves are
#      compared. (Calibration measures the sleep's cost per call, and the segment model charges it to every
#      segment: without the flag the model chooses its own count.)
# Then the verdict lines of both (auto against native: faster, slower, or noise when the interquartile
# ranges overlap) as a summary, and the plots.
#
#   bash mpi_bench/run-example.sh                  the main job (about 30 s on a 2-core machine)
#   bash mpi_bench/run-example.sh --full           the same two ops over the default sweep: every algorithm,
#                                                  8 B .. 4 MiB, doubling (a few minutes)
#   bash mpi_bench/run-example.sh OPTIONS...       one run of mpi_bench with these options
#                                                  (e.g. --op matmul2 --sizes 1K:1M)
#
# Writes $BUILD_DIR/bench-example/ (default build/bench-example/): per run a folder (sum/, delay/, or run/)
# with table.txt, results.csv, costs.csv and the plots. Open MPI and MPICH are both installed, so the launcher
# is named (mpirun.openmpi); as root Open MPI needs --allow-run-as-root, and more ranks than cores
# --oversubscribe. RANKS=N changes the number of ranks, BUILD_DIR=dir the build used.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

ranks="${RANKS:-4}"
build="${BUILD_DIR:-build}"
bench="${build}/mpi_bench/mpi_bench"
out="${build}/bench-example"
if [[ ! -x "${bench}" ]]; then
    echo "run-example: ${bench} not found: build it first (bash cmake/setup-debian.sh)" >&2
    exit 1
fi
launcher=(mpirun.openmpi -np "${ranks}" --oversubscribe --bind-to none --mca mpi_yield_when_idle 1)
if ((EUID == 0)); then
    launcher+=(--allow-run-as-root)
fi
have_matplotlib=0
if /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
    have_matplotlib=1
fi

# run <name> <mpi_bench options...>: one mpi_bench job into ${out}/<name>/, its table on stdout.
run() {
    local name="$1"
    shift
    local dir="${out}/${name}"
    mkdir -p "${dir}"
    echo
    echo "run-example: ${name}: mpi_bench $* (${ranks} ranks)"
    "${launcher[@]}" "${bench}" --quiet --csv "${dir}/results.csv" --costs-csv "${dir}/costs.csv" "$@" |
        tee "${dir}/table.txt"
}

# plots <name>: the plots of one run, after every table is printed.
plots() {
    local dir="${out}/$1"
    if ((have_matplotlib)); then
        /usr/bin/python3 mpi_bench/plot.py "${dir}/results.csv" --costs "${dir}/costs.csv" --out "${dir}" > /dev/null
    fi
}

if (($# > 0)) && [[ "$1" != "--full" ]]; then
    run run "$@"
    plots run
    echo "run-example: CSV, table and plots in ${out}/run/"
    exit 0
fi

delay_op=(--op delay:20 --noncommutative --segment-bytes 0)
if (($# > 0)); then  # --full
    run sum --op sum
    run delay "${delay_op[@]}" --size-seconds 2
else
    run sum --op sum --algorithms native,optimal,binomial,auto --sizes 8,64,512,4K,32K,256K,1M,4M
    run delay "${delay_op[@]}" --algorithms native,optimal,binomial,auto --sizes 8,64,512,4K,32K,256K \
        --size-seconds 2
fi

echo
echo "run-example: where libredux pays on this machine (${ranks} local ranks; auto against the MPI library's own"
echo "run-example: MPI_Reduce, medians; faster/slower: the interquartile ranges do not overlap, noise: they do):"
for name in sum delay; do
    if [[ "${name}" == sum ]]; then
        echo "  MPI_SUM on doubles:"
    else
        echo "  delay:20, a user-defined non-commutative op (c: the table's c(us) column):"
    fi
    sed -n '/^# verdict/,$ s/^#   /    /p' "${out}/${name}/table.txt"
done
plots sum
plots delay
if ((have_matplotlib)); then
    echo "run-example: tables, CSV and plots in ${out}/sum/ and ${out}/delay/"
else
    echo "run-example: tables and CSV in ${out}/sum/ and ${out}/delay/ (no plots: python3-matplotlib is not" \
        "installed; cmake/setup-debian.sh installs it)"
fi
