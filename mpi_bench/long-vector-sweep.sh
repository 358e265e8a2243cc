#!/usr/bin/env bash
# Long vectors: MPI_Reduce from 8 B to 64 MiB with Open MPI's own algorithms (its default, forced segmented
# pipeline and binary trees, the adapt and han components) against libredux (auto and every strategy, with
# its own segment choice and with segments forced to SEGMENT), all in one session, one mpirun per
# configuration (MCA parameters are per job), for MPI_SUM on doubles and the non-commutative matmul2.
#
#   bash mpi_bench/long-vector-sweep.sh [--quick] [--cluster] [--ranks N] OUT_DIR
#
#   --quick     a few sizes (QUICK_SIZES), few iterations: checks the whole chain in a minute or two
#   --cluster   on the emulated cluster (sweep-lib.sh; needs root): N nodes of CLUSTER_SPEC, one rank each
#   --ranks N   ranks (default 4)
#
# Writes OUT_DIR/results.csv: every job's mpi_bench CSV rows, prefixed by series (what a plot line is:
# ompi-default, ompi-pipeline-64k, ompi-binary-64k, ompi-adapt, ompi-han, libredux:ALGORITHM,
# libredux-seg64k:ALGORITHM), job and mca (the job's MCA options); the columns after them are mpi_bench's
# (median_us, the quartiles, predicted_us: libredux's prediction, segments: the segment count it ran with).
# Then OUT_DIR/summary.md and the plots of plot_long.py (latency against size per series, segment count
# against size), OUT_DIR/raw/ (each job's table and CSV), OUT_DIR/failures.txt (jobs that stopped: a wrong
# result, as Open MPI's forced tuned algorithms give for a non-commutative op) and OUT_DIR/COMMAND.txt.
#
# Environment: BENCH (the mpi_bench binary, built against Open MPI; default build/mpi_bench/mpi_bench), SIZES
# (default 8:64M), QUICK_SIZES (default 8,4K,256K,1M), OPS (default "sum matmul2"), SEGMENT (the forced
# segment size, default 64K, for Open MPI's tuned algorithms and libredux alike), SIZE_SECONDS (about this
# many seconds of timed iterations per size and job, mpi_bench --size-seconds; default 10, 1 with --quick),
# ITERATIONS (default: mpi_bench's, 5 with --quick), SEGMENTED_ALGORITHMS (libredux's algorithms with forced
# segments, default optimal,auto), SYNC (mpi_bench --sync: default barrier, window on the cluster, whose ms
# latencies make the barrier's exit skew part of every latency), CLUSTER_SPEC (default 1ms:1gbit) and those
# of sweep-lib.sh.
set -euo pipefail

usage() {
    echo "usage: bash mpi_bench/long-vector-sweep.sh [--quick] [--cluster] [--ranks N] OUT_DIR" >&2
    exit 2
}
quick=0 cluster=0 ranks=4 out=""
while (($#)); do
    case "$1" in
        --quick) quick=1 ;;
        --cluster) cluster=1 ;;
        --ranks) (($# >= 2)) || usage; ranks="$2"; shift ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        -*) usage ;;
        *) [[ -z "${out}" ]] || usage; out="$1" ;;
    esac
    shift
done
[[ -n "${out}" && "${ranks}" =~ ^[1-9][0-9]*$ ]] || usage
out="$(realpath -m "${out}")"  # OUT_DIR and BENCH from where the script was started, the rest from the repository
[[ -z "${BENCH:-}" ]] || BENCH="$(realpath -m "${BENCH}")"
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bench="$(readlink -f "${BENCH:-build/mpi_bench/mpi_bench}")"
[[ -x "${bench}" ]] || { echo "long-vector-sweep: no mpi_bench at ${bench} (set BENCH)" >&2; exit 1; }
segment="${SEGMENT:-64K}"
segment_bytes="$(echo "${segment}" | awk '/^[1-9][0-9]*[Kk]$/ { print $0 * 1024 } /^[1-9][0-9]*M$/ { print $0 * 1048576 }
    /^[1-9][0-9]*$/ { print }')"
[[ -n "${segment_bytes}" ]] || { echo "long-vector-sweep: SEGMENT=${segment} is not a size" >&2; exit 1; }
segment_label="$(echo "${segment}" | tr '[:upper:]' '[:lower:]')"
ops="${OPS:-sum matmul2}"
if ((quick)); then
    sizes="${QUICK_SIZES:-8,4K,256K,1M}" size_seconds="${SIZE_SECONDS:-1}" iterations="${ITERATIONS:-5}"
else
    sizes="${SIZES:-8:64M}" size_seconds="${SIZE_SECONDS:-10}" iterations="${ITERATIONS:-}"
fi
segmented_algorithms="${SEGMENTED_ALGORITHMS:-optimal,auto}"

source mpi_bench/sweep-lib.sh
if ((cluster)); then
    cluster_check
    launcher=(cluster_mpirun -np "${ranks}")
    # libredux's heterogeneous strategies apply across nodes
    libredux_algorithms=default,snf,hetero-greedy,two-level
    sync="${SYNC:-window}"
else
    launcher=(mpirun.openmpi -np "${ranks}" --oversubscribe --bind-to none --mca mpi_yield_when_idle 1)
    ((EUID != 0)) || launcher+=(--allow-run-as-root)
    libredux_algorithms=default
    sync="${SYNC:-barrier}"
fi

mkdir -p "${out}/raw"
rm -f "${out}/results.csv" "${out}/failures.txt" "${out}"/raw/*
flags="" where="${ranks} local ranks"
((quick)) && flags+="--quick "
((cluster)) && flags+="--cluster " where="emulated cluster, ${ranks} nodes of ${CLUSTER_SPEC:-1ms:1gbit}, 1 rank each"
describe=("Made by: bash mpi_bench/long-vector-sweep.sh ${flags}--ranks ${ranks} ${out}"
    "on ${where}; SIZES=${sizes} OPS='${ops}' SEGMENT=${segment} SIZE_SECONDS=${size_seconds} ITERATIONS=${iterations:-default} SYNC=${sync}"
    "BENCH=${bench}")
describe_run "${out}/COMMAND.txt" "${describe[@]}"
if ((cluster)); then
    specs=()
    for ((n = 0; n < ranks; n++)); do specs+=("${CLUSTER_SPEC:-1ms:1gbit}"); done
    cluster_up "${specs[@]}" > "${out}/cluster.txt"
fi

# job <op> <name> <native series> <libredux prefix> <mca options...> -- <mpi_bench options...>: one mpirun;
# its rows are appended to results.csv with the series (native's, or PREFIX:ALGORITHM for libredux's), the
# job and its MCA options.
job() {
    local op="$1" name="$2" native="$3" prefix="$4"
    shift 4
    local mca=()
    while [[ "$1" != "--" ]]; do mca+=("$1"); shift; done
    shift
    local base="${out}/raw/${op}-${name}"
    local extra=()
    [[ -z "${iterations}" ]] || extra=(--iterations "${iterations}")
    echo "long-vector-sweep: ${op}, ${name}: mpirun ${mca[*]} mpi_bench $*" >&2
    echo "mpirun -np ${ranks} ${mca[*]} mpi_bench --op ${op} --sizes ${sizes} $*" >> "${out}/runs.txt"
    local status=0
    "${launcher[@]}" "${mca[@]}" "${bench}" --quiet --op "${op}" --sizes "${sizes}" --sync "${sync}" \
        --size-seconds "${size_seconds}" "${extra[@]}" --csv "${base}.csv" "$@" > "${base}.txt" 2> "${base}.err" || status=$?
    sed -n '/^# Size/,$p' "${base}.txt" >&2
    if ((status != 0)); then
        echo "${op} ${name} (mpirun ${mca[*]}): mpi_bench exited with ${status}: $(grep -m1 'mpi_bench' "${base}.err" || tail -n 1 "${base}.err")" |
            tee -a "${out}/failures.txt" >&2
    fi
    [[ -s "${base}.csv" ]] || return 0
    [[ -s "${out}/results.csv" ]] || echo "series,job,mca,$(head -n 1 "${base}.csv")" > "${out}/results.csv"
    tail -n +2 "${base}.csv" | awk -F, -v OFS=, -v native="${native}" -v prefix="${prefix}" -v job="${name}" \
        -v mca="${mca[*]}" '{ series = ($1 == "native") ? native : prefix ":" $1; print series, job, mca, $0 }' \
        >> "${out}/results.csv"
}

tuned=(--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_reduce_algorithm_segmentsize "${segment_bytes}")
for op in ${ops}; do
    # Open MPI's default beside libredux's auto and strategies, in the same job (native is the libredux
    # table's reference: its speedup and verdict).
    job "${op}" libredux ompi-default libredux -- --algorithms "${libredux_algorithms}"
    job "${op}" "libredux-seg${segment_label}" - "libredux-seg${segment_label}" -- \
        --algorithms "${segmented_algorithms}" --segment-bytes "${segment_bytes}"
    for forced in "pipeline 3" "binary 4"; do
        job "${op}" "ompi-${forced% *}-${segment_label}" "ompi-${forced% *}-${segment_label}" - "${tuned[@]}" \
            --mca coll_tuned_reduce_algorithm "${forced#* }" -- --algorithms native
    done
    if [[ "${op}" != matmul2 ]]; then  # adapt and han: commutative ops only
        job "${op}" ompi-adapt ompi-adapt - --mca coll_adapt_priority 100 -- --algorithms native
        job "${op}" ompi-han ompi-han - --mca coll_han_priority 100 -- --algorithms native
    fi
done
if ((cluster)); then cluster_down; fi

[[ -s "${out}/results.csv" ]] || { echo "long-vector-sweep: no results" >&2; exit 1; }
if /usr/bin/python3 -c "import matplotlib" 2> /dev/null; then
    /usr/bin/python3 mpi_bench/plot_long.py "${out}/results.csv" --out "${out}"
else
    echo "long-vector-sweep: python3-matplotlib is not installed; no plots" >&2
    /usr/bin/python3 mpi_bench/plot_long.py "${out}/results.csv" --out "${out}" --no-plots
fi
[[ ! -s "${out}/failures.txt" ]] || { echo "long-vector-sweep: jobs that stopped:" >&2; cat "${out}/failures.txt" >&2; }
