#!/usr/bin/env bash
# MPI_Reduce with a Python operator (mpi_bench/python_op.py, mpi4py from Debian's python3-mpi4py) on 4 local
# ranks under Open MPI, libredux preloaded as a drop-in user would have it, against the library's own reduce in
# the same job. Options go to python_op.py (--sizes, --calls, --csv); RANKS=N, BUILD_DIR=dir, and REDUX_* as
# for any run (REDUX_ALGORITHM defaults to auto).
#
#   bash mpi_bench/run-python-op.sh                       1e3 .. 1e6 matrices, 100 calls a side
#   bash mpi_bench/run-python-op.sh --sizes 1000 --calls 20
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

ranks="${RANKS:-4}"
build="${BUILD_DIR:-build}"
lib="$(pwd)/${build}/libredux/libredux.so"
if [[ ! -f "${lib}" ]]; then
    echo "run-python-op: ${lib} not found: build it first (bash cmake/setup-debian.sh)" >&2
    exit 1
fi
if ! /usr/bin/python3 -c "import mpi4py, numpy" 2>/dev/null; then
    echo "run-python-op: needs python3-mpi4py and python3-numpy (apt-get install python3-mpi4py)" >&2
    exit 1
fi
launcher=(mpirun.openmpi -np "${ranks}" --oversubscribe --bind-to none --mca mpi_yield_when_idle 1)
if ((EUID == 0)); then
    launcher+=(--allow-run-as-root)
fi
"${launcher[@]}" -x LD_PRELOAD="${lib}" -x REDUX_ALGORITHM="${REDUX_ALGORITHM:-auto}" \
    /usr/bin/python3 mpi_bench/python_op.py "$@"
