#!/usr/bin/env bash
# The main job: mpi_bench on 4 local ranks under Open MPI (the build in ./build made by cmake/setup-debian.sh),
# the default sweep (8 B .. 4 MiB, sum of doubles, every algorithm), then the plots.
#
#   bash mpi_bench/run-example.sh [mpi_bench options...]      e.g. --op delay:200 --sizes 1K:1M
#
# Writes $BUILD_DIR/bench-example/ (default build/bench-example/:results.csv, costs.csv, *.png) and prints the table. Open MPI and MPICH are both
# installed, so the launcher is named (mpirun.openmpi); as root Open MPI needs --allow-run-as-root, and more
# ranks than cores needs --oversubscribe. RANKS=N changes the number of ranks, BUILD_DIR=dir the build used.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

ranks="${RANKS:-4}"
build="${BUILD_DIR:-build}"
out="${build}/bench-example"
mkdir -p "${out}"
launcher=(mpirun.openmpi -np "${ranks}" --oversubscribe --bind-to none --mca mpi_yield_when_idle 1)
if ((EUID == 0)); then
    launcher+=(--allow-run-as-root)
fi
"${launcher[@]}" "${build}/mpi_bench/mpi_bench" --csv "${out}/results.csv" --costs-csv "${out}/costs.csv" "$@"
if /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
    /usr/bin/python3 mpi_bench/plot.py "${out}/results.csv" --costs "${out}/costs.csv" --out "${out}"
else
    echo "run-example: python3-matplotlib is not installed; no plots (cmake/setup-debian.sh installs it)" >&2
fi
