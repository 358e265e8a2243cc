#!/usr/bin/env bash
# Installs what libredux needs from Debian 12's own packages, then configures and builds it.
#
#   bash cmake/setup-debian.sh [cmake args...]         ./build against Open MPI: libredux.so and mpi_bench only,
#                                                       what the main job (mpi_bench/run-example.sh) runs
#   bash cmake/setup-debian.sh --all [cmake args...]   what tests/run-all.sh tests, three builds:
#     ./build        against Open MPI, with everything: the tools and every test (unit, cli, mpi);
#     ./build-mpich  against MPICH, with everything, so that the product is known to compile against MPICH's
#                    headers too; tests/run-all.sh runs only its `mpi`-labelled tests;
#     ./build-smpi   with SimGrid's SMPI wrappers: the library and mpi_bench on simulated ranks, and their test.
# ./build's options are passed on every run, so either command may follow the other: CMake keeps options in its
# cache, and a build configured by one mode is reconfigured by the other.
#
# Open MPI and MPICH are installed side by side. Debian's `mpi` and `mpirun` alternatives decide which one the
# plain mpicc, mpicxx and mpiexec are (Open MPI wins on priority, 50 to MPICH's 40, unless an administrator has
# set the alternatives by hand), so each build names its compiler wrappers and launcher explicitly
# (mpicc.openmpi, mpiexec.mpich, ...) and never depends on which alternative won.
#
# Idempotent: when every package is already installed it skips apt entirely (fast, and works offline).
# Run as root (or with sudo available) from anywhere; extra arguments go to the cmake configure steps of the
# real-MPI builds, after the options above, so they can override anything (for example -DCMAKE_BUILD_TYPE=Debug).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

cd "$(dirname "${BASH_SOURCE[0]}")/.."

all=0
if [[ "${1:-}" == "--all" ]]; then
    all=1
    shift
fi

packages=(
    build-essential cmake g++ git pkg-config
    openmpi-bin libopenmpi-dev mpich libmpich-dev libhwloc-dev
    libgtest-dev libgmock-dev libbenchmark-dev
    nlohmann-json3-dev libcli11-dev libglpk-dev libsimgrid-dev
    gfortran graphviz ca-certificates
    python3-matplotlib python3-mpi4py clang-format
    iproute2 iptables libnetfilter-queue-dev bc iputils-ping
)

missing=()
for package in "${packages[@]}"; do
    if [[ "$(dpkg-query -W -f='${db:Status-Status}' "${package}" 2>/dev/null)" != "installed" ]]; then
        missing+=("${package}")
    fi
done

if ((${#missing[@]} > 0)); then
    echo "setup-debian: installing ${missing[*]}"
    sudo=()
    if ((EUID != 0)); then
        sudo=(sudo)
    fi
    "${sudo[@]}" apt-get update
    "${sudo[@]}" apt-get install -y --no-install-recommends "${packages[@]}"
else
    echo "setup-debian: all packages already installed"
fi

# The absolute path of one of an MPI's own programs, or a clear error.
mpi_program() {
    local path
    if ! path="$(command -v "$1")"; then
        echo "setup-debian: $1 not found (is its package installed?)" >&2
        exit 1
    fi
    echo "${path}"
}

# configure_and_build <build dir> <mpicc> <mpicxx> <mpiexec> [cmake args...] [-- cmake --build args...]
# FindMPI caches what it learned from the wrappers and does not ask again when MPI_<LANG>_COMPILER changes, so
# a build tree first configured against another MPI (say, through the plain mpicxx alternative) has its MPI
# entries dropped and found afresh.
configure_and_build() {
    local build_dir="$1" mpicc="$2" mpicxx="$3" mpiexec="$4"
    shift 4
    local configure_args=() build_args=()
    while (($# > 0)); do
        if [[ "$1" == "--" ]]; then
            shift
            build_args=("$@")
            break
        fi
        configure_args+=("$1")
        shift
    done
    local reset=()
    local cached
    cached="$(sed -n 's/^MPI_CXX_COMPILER:[A-Z]*=//p' "${build_dir}/CMakeCache.txt" 2>/dev/null || true)"
    if [[ -n "${cached}" && "${cached}" != "${mpicxx}" ]]; then
        echo "setup-debian: ${build_dir} was configured with ${cached}; finding MPI again with ${mpicxx}"
        reset=(-U 'MPI_*' -U 'MPIEXEC_*')
    fi
    cmake -S . -B "${build_dir}" "${reset[@]}" -DCMAKE_BUILD_TYPE=Release \
        -DMPI_C_COMPILER="${mpicc}" -DMPI_CXX_COMPILER="${mpicxx}" -DMPIEXEC_EXECUTABLE="${mpiexec}" \
        "${configure_args[@]}"
    cmake --build "${build_dir}" -j"$(nproc)" "${build_args[@]}"
}

# Assigned first: a failure inside $(...) in a command's arguments would not stop the script.
openmpi_cc="$(mpi_program mpicc.openmpi)"
openmpi_cxx="$(mpi_program mpicxx.openmpi)"
openmpi_exec="$(mpi_program mpiexec.openmpi)"

if ((!all)); then
    # The main job's build: no tools, no tests (no GoogleTest needed), and of the targets only mpi_bench and
    # what it links (libredux.so). CMake leaves a build's test lists behind when its tests are switched off:
    # they go, so that ctest in ./build finds no tests rather than those of the earlier configuration.
    if grep -q '^REDUX_BUILD_TESTS:BOOL=ON' build/CMakeCache.txt 2>/dev/null; then
        find build -name CTestTestfile.cmake -delete
    fi
    configure_and_build build "${openmpi_cc}" "${openmpi_cxx}" "${openmpi_exec}" \
        -DREDUX_BUILD_BENCH=ON -DREDUX_BUILD_TOOLS=OFF -DREDUX_BUILD_TESTS=OFF "$@" -- --target mpi_bench
    exit 0
fi

everything=(-DREDUX_BUILD_BENCH=ON -DREDUX_BUILD_TOOLS=ON -DREDUX_BUILD_TESTS=ON)
mpich_cc="$(mpi_program mpicc.mpich)"
mpich_cxx="$(mpi_program mpicxx.mpich)"
mpich_exec="$(mpi_program mpiexec.mpich)"
smpicc="$(mpi_program smpicc)"
smpicxx="$(mpi_program smpicxx)"

configure_and_build build "${openmpi_cc}" "${openmpi_cxx}" "${openmpi_exec}" "${everything[@]}" "$@"
# build-mpich: only the tests run under the launcher (tests/run-all.sh runs no others there).
configure_and_build build-mpich "${mpich_cc}" "${mpich_cxx}" "${mpich_exec}" "${everything[@]}" -DREDUX_MPI_TESTS_ONLY=ON "$@"

# ./build-smpi: the library and mpi_bench built with SimGrid's smpicc/smpicxx for simulated ranks (REDUX_SMPI),
# with the tests of tests/smpi. CMake's compiler checks link and run test programs, which a program linked by
# smpicc cannot do outside smpirun: SMPI_PRETEND_CC=1 makes the wrappers plain compilers while CMake configures.
# The extra arguments are not passed: they are meant for the real-MPI builds (a sanitizer, say).
SMPI_PRETEND_CC=1 cmake -S . -B build-smpi -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="${smpicc}" \
    -DCMAKE_CXX_COMPILER="${smpicxx}" -DMPI_C_COMPILER="${smpicc}" -DMPI_CXX_COMPILER="${smpicxx}" -DREDUX_SMPI=ON
cmake --build build-smpi -j"$(nproc)"
