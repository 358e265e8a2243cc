# shellcheck shell=bash
# What the benchmark sweeps share (sourced by cluster-sweep.sh and long-vector-sweep.sh): the emulated cluster,
# network namespaces on this machine, one per node, joined by shaped links, with real Open MPI over TCP (its
# own scripts live outside this repository, in CLUSTER_TOOLS: cluster-up.sh, cluster-run.sh, cluster-down.sh;
# these functions only call them), and the description of a run.
#
#   cluster_check              exits with a message unless the tools are there and we are root
#   cluster_up SPEC...         one node per LAT:RATE spec (1ms:1gbit ...), SLOTS ranks per node; brought down
#                              again when the script exits
#   cluster_mpirun ARGS...     mpirun inside the cluster (mpirun's options, then the program and its arguments)
#   cluster_down
#   describe_run FILE TEXT...  FILE: the TEXT lines, then when, which commit, the host and its load, the MPI
#
# Environment: CLUSTER_TOOLS (where the cluster scripts are; by default where the project's test machines
# keep them, as REDUX_CLUSTER_TOOLS of tests/mpi), CLUSTER_PREFIX (default bench) and CLUSTER_NET (default
# 10.233.0), so that a sweep runs beside another cluster; SLOTS (ranks per node, default 1); MPIT_TIMEOUT
# (seconds mpirun may take, default 1800: the heterogeneous sum sweep to 4 MiB took longer than 900).

cluster_repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cluster_tools="$(readlink -f "${CLUSTER_TOOLS:-${cluster_repo}/../shared/tools/cluster}")"
export CLUSTER_PREFIX="${CLUSTER_PREFIX:-bench}" CLUSTER_NET="${CLUSTER_NET:-10.233.0}" SLOTS="${SLOTS:-1}"
export MPIT_TIMEOUT="${MPIT_TIMEOUT:-1800}"
cluster_is_up=0

cluster_check() {
    [[ -x "${cluster_tools}/cluster-up.sh" ]] || {
        echo "$(basename "$0"): no cluster tools at ${cluster_tools} (set CLUSTER_TOOLS)" >&2
        exit 1
    }
    ((EUID == 0)) || { echo "$(basename "$0"): the emulated cluster needs root" >&2; exit 1; }
}

cluster_down() {
    if ((cluster_is_up)); then
        "${cluster_tools}/cluster-down.sh" > /dev/null 2>&1 || true
        cluster_is_up=0
    fi
}

cluster_up() {
    trap cluster_down EXIT
    "${cluster_tools}/cluster-up.sh" "$@"
    cluster_is_up=1
}

# Open MPI's setpgid warnings from inside the namespaces are noise.
cluster_mpirun() {
    "${cluster_tools}/cluster-run.sh" "$@" 2> >(grep -v 'setpgid' >&2)
}

describe_run() {
    local file="$1"
    shift
    {
        printf '# %s\n' "$@"
        echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ); commit: $(git -C "${cluster_repo}" rev-parse --short HEAD 2>/dev/null || echo unknown)"
        echo "# host: $(nproc) cores, $(uname -r); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
        echo "# MPI: $("$(command -v mpirun.openmpi || echo mpirun)" --version 2>/dev/null | head -n 1)"
    } > "${file}"
}
