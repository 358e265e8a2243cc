#!/usr/bin/env bash
# auto against native, measured as the issue asks: the default sweep repeated, each repeat once with the
# algorithms in each order (they alternate within a run, and which goes first can matter on 2 cores), at
# each rank count; repeats.py summarises the CSVs as medians over the runs.
#
#   bash mpi_bench/repeat-sweep.sh [OUT_DIR]     (default build/repeat-sweep)
#
# Environment: RANKS (default "4 8"), REPEATS (default 5), ALGORITHMS (default native,auto; the reverse order
# is run too), SIZES (default 8:4M), BENCH (default build/mpi_bench/mpi_bench), LAUNCHER (default mpirun.openmpi
# with the flags an oversubscribed root run needs; for MPICH: LAUNCHER=mpiexec.mpich and BENCH from build-mpich),
# BENCH_ARGS (more mpi_bench options, e.g. --iterations 100 where a run would take too long).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

out="${1:-build/repeat-sweep}"
bench="${BENCH:-build/mpi_bench/mpi_bench}"
algorithms="${ALGORITHMS:-native,auto}"
reversed="$(tr ',' '\n' <<< "${algorithms}" | tac | paste -sd,)"
if [[ -n "${LAUNCHER:-}" ]]; then
    read -r -a launcher <<< "${LAUNCHER}"
else
    launcher=(mpirun.openmpi --oversubscribe --bind-to none --mca mpi_yield_when_idle 1)
    if ((EUID == 0)); then launcher+=(--allow-run-as-root); fi
fi
mkdir -p "${out}"
{
    echo "# Made by: bash mpi_bench/repeat-sweep.sh ${out}"
    echo "# with RANKS='${RANKS:-4 8}' REPEATS=${REPEATS:-5} ALGORITHMS=${algorithms} SIZES=${SIZES:-8:4M}"
    echo "#      LAUNCHER='${launcher[*]}' BENCH=${bench} BENCH_ARGS='${BENCH_ARGS:-}'"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ); commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "# host: $(nproc) cores; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "${out}/COMMAND.txt"
for ranks in ${RANKS:-4 8}; do
    for ((repeat = 1; repeat <= ${REPEATS:-5}; ++repeat)); do
        for order in "${algorithms}" "${reversed}"; do
            "${launcher[@]}" -np "${ranks}" "${bench}" --algorithms "${order}" --sizes "${SIZES:-8:4M}" --quiet ${BENCH_ARGS:-} \
                --csv "${out}/np${ranks}-${repeat}-${order//,/-}.csv" > /dev/null
        done
    done
done
/usr/bin/python3 mpi_bench/repeats.py "${out}"/np*.csv | tee "${out}/summary.md"
