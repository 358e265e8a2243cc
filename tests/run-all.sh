#!/usr/bin/env bash
# The project's one test command (CI runs it through .ci/run):
#   1. cmake/setup-debian.sh --all: installs the packages (skipped when present) and builds what the passes
#      below test, with every tool and test: ./build against Open MPI, ./build-mpich against MPICH and
#      ./build-smpi for SimGrid's SMPI;
#   2. every test in ./build (unit, cli, mpi) under Open MPI;
#   3. the `mpi`-labelled tests in ./build-mpich under MPICH's hydra. Only those: the unit and cli tests do not
#      touch MPI, so running them a second time would prove nothing and double the CI time;
#   4. the tests of ./build-smpi: libredux on simulated ranks (SimGrid SMPI): 64 of them, and nonblocking calls on 8.
# Every pass runs even when an earlier one fails; the exit status is non-zero when any failed. Extra arguments
# go to cmake/setup-debian.sh (and from there to the configure steps of ./build and ./build-mpich).
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

ctest_args=(--output-on-failure -j2 --timeout 900 --no-tests=error)

if ! bash cmake/setup-debian.sh --all "$@"; then
    echo "run-all: FAILED: cmake/setup-debian.sh (install or build) failed; no tests were run" >&2
    exit 1
fi

log="$(mktemp)"
trap 'rm -f "${log}"' EXIT

# run_pass <name> <ctest args...>: runs one ctest pass and sets pass_status (ctest's exit status) and
# pass_summary (ctest's "N% tests passed, ..." line, or what went wrong, and the wall-clock time).
run_pass() {
    local name="$1"
    shift
    echo
    echo "run-all: ${name}: ctest $*"
    local start=${SECONDS}
    ctest "$@" 2>&1 | tee "${log}"
    pass_status=${PIPESTATUS[0]}
    local counts
    counts="$(grep -E '^[0-9]+% tests passed' "${log}" | tail -n 1)"
    pass_summary="${counts:-no tests ran (ctest exit ${pass_status})}, $((SECONDS - start)) s"
}

run_pass "Open MPI, all tests" --test-dir build "${ctest_args[@]}"
openmpi_status=${pass_status} openmpi_summary=${pass_summary}

run_pass "MPICH, mpi tests" --test-dir build-mpich -L mpi "${ctest_args[@]}"
mpich_status=${pass_status} mpich_summary=${pass_summary}

run_pass "SimGrid SMPI, simulated ranks" --test-dir build-smpi "${ctest_args[@]}"
smpi_status=${pass_status} smpi_summary=${pass_summary}

verdict() { (($1 == 0)) && echo passed || echo "FAILED"; }
echo
echo "run-all: Open MPI (build, all tests): $(verdict "${openmpi_status}"): ${openmpi_summary}"
echo "run-all: MPICH (build-mpich, -L mpi): $(verdict "${mpich_status}"): ${mpich_summary}"
echo "run-all: SimGrid SMPI (build-smpi): $(verdict "${smpi_status}"): ${smpi_summary}"
if ((openmpi_status != 0 || mpich_status != 0 || smpi_status != 0)); then
    echo "run-all: FAILED"
    exit 1
fi
echo "run-all: all passed"
