#!/usr/bin/env bash
# The standard sweep of mpi_bench on the emulated cluster (sweep-lib.sh; needs root).
#
#   bash mpi_bench/cluster-sweep.sh [OUT_DIR]          (default build/cluster-sweep)
#
# For each topology (8 nodes x 1 rank):
#   homogeneous    every node 1 ms one-way latency, 1 Gbit/s (path i->j: 2 ms)
#   heterogeneous  two nodes each of 0.1ms:10gbit, 1ms:1gbit, 2ms:500mbit, 5ms:100mbit
# it runs
#   1. --op sum over 8 B .. 1 MiB: latency against size, and the d measured at every size;
#   2. --op delay:NS at the sizes in DELAY_SIZES, with NS chosen so that c/d is each of RATIOS (d taken from
#      step 1 at that size), once as a commutative op and once with --noncommutative;
# then plot.py, and summary.py for the issue's targets. Everything lands in OUT_DIR/<topology>/ (CSV, costs
# CSV, PNG, the mpi_bench output) with OUT_DIR/COMMAND.txt saying how and when it was made.
#
# Environment: BENCH (the mpi_bench binary, default build/mpi_bench/mpi_bench, built against Open MPI: the
# cluster runs Open MPI), CLUSTER_TOOLS, CLUSTER_PREFIX, CLUSTER_NET (sweep-lib.sh), TOPOLOGIES, RATIOS
# (default "0.1 0.3 1 3 10"), DELAY_SIZES (default "8 65536"), ITERATIONS (default 15), WARMUP (default 10;
# auto's trials and confirmation, up to 152 calls, run before the warm-up, untimed), SYNC (default window:
# the cluster's ms latencies make the barrier's exit skew a large part of every latency; see mpi_bench
# --help), SUM_SIZES (default 8:1M).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

out="${1:-build/cluster-sweep}"
bench="$(readlink -f "${BENCH:-build/mpi_bench/mpi_bench}")"
export SLOTS=1
source mpi_bench/sweep-lib.sh
topologies="${TOPOLOGIES:-homogeneous heterogeneous}"
ratios="${RATIOS:-0.1 0.3 1 3 10}"
delay_sizes="${DELAY_SIZES:-8 65536}"
iterations="${ITERATIONS:-15}"
warmup="${WARMUP:-10}"
sync="${SYNC:-window}"
sum_sizes="${SUM_SIZES:-8:1M}"

[[ -x "${bench}" ]] || { echo "cluster-sweep: no mpi_bench at ${bench} (set BENCH)" >&2; exit 1; }
cluster_check

specs_for() {
    case "$1" in
        homogeneous) echo "1ms:1gbit 1ms:1gbit 1ms:1gbit 1ms:1gbit 1ms:1gbit 1ms:1gbit 1ms:1gbit 1ms:1gbit" ;;
        heterogeneous) echo "0.1ms:10gbit 0.1ms:10gbit 1ms:1gbit 1ms:1gbit 2ms:500mbit 2ms:500mbit 5ms:100mbit 5ms:100mbit" ;;
        *) echo "cluster-sweep: unknown topology $1" >&2; exit 1 ;;
    esac
}

mkdir -p "${out}"
describe_run "${out}/COMMAND.txt" "Made by: bash mpi_bench/cluster-sweep.sh ${out}" \
    "with TOPOLOGIES='${topologies}' RATIOS='${ratios}' DELAY_SIZES='${delay_sizes}' ITERATIONS=${iterations} WARMUP=${warmup}" \
    "     SYNC=${sync} SUM_SIZES=${sum_sizes} BENCH=${bench}"

# run_bench <dir> <name> <mpi_bench args...>: one mpi_bench run on the cluster; table in <name>.txt.
run_bench() {
    local dir="$1" name="$2"
    shift 2
    echo "cluster-sweep: $(basename "${dir}")/${name}: mpi_bench $*" >&2
    echo "mpirun -np 8 mpi_bench $* --sync ${sync}" >> "${dir}/runs.txt"
    cluster_mpirun -np 8 "${bench}" --quiet --sync "${sync}" --csv "${dir}/${name}.csv" \
        --costs-csv "${dir}/${name}.costs.csv" "$@" > "${dir}/${name}.txt"
    cat "${dir}/${name}.txt"
}

# append <from.csv> <to.csv>: rows of one CSV added to another, the header once.
append() {
    if [[ -s "$2" ]]; then tail -n +2 "$1" >> "$2"; else cat "$1" > "$2"; fi
    rm -f "$1"
}

for topology in ${topologies}; do
    dir="${out}/${topology}"
    rm -rf "${dir}"
    mkdir -p "${dir}"
    # shellcheck disable=SC2046
    cluster_up $(specs_for "${topology}") > "${dir}/cluster.txt"
    cat "${dir}/cluster.txt"

    run_bench "${dir}" sum --op sum --sizes "${sum_sizes}" --iterations "${iterations}" --warmup "${warmup}"

    for bytes in ${delay_sizes}; do
        d_us="$(awk -F, -v b="${bytes}" '$3 == b { print $5 }' "${dir}/sum.costs.csv")"
        [[ -n "${d_us}" ]] || { echo "cluster-sweep: no d measured at ${bytes} B (SUM_SIZES)" >&2; exit 1; }
        count=$((bytes / 8))
        for ratio in ${ratios}; do
            ns="$(awk -v r="${ratio}" -v d="${d_us}" -v n="${count}" 'BEGIN { printf "%d", r * d * 1000 / n + 0.5 }')"
            for commutativity in commutative noncommutative; do
                flag=()
                [[ "${commutativity}" == noncommutative ]] && flag=(--noncommutative)
                run_bench "${dir}" run --op "delay:${ns}" "${flag[@]}" --sizes "${bytes}" \
                    --iterations "${iterations}" --warmup "${warmup}"
                append "${dir}/run.csv" "${dir}/delay.csv"
                append "${dir}/run.costs.csv" "${dir}/delay.costs.csv"
                echo "# c/d target ${ratio}, d ${d_us} us at ${bytes} B, ${commutativity}" >> "${dir}/delay.txt"
                cat "${dir}/run.txt" >> "${dir}/delay.txt"
                rm -f "${dir}/run.txt"
            done
        done
    done
    cluster_down

    /usr/bin/python3 mpi_bench/plot.py "${dir}/sum.csv" "${dir}/delay.csv" \
        --costs "${dir}/sum.costs.csv" "${dir}/delay.costs.csv" --out "${dir}"
    /usr/bin/python3 mpi_bench/summary.py --sum "${dir}/sum.csv" --delay "${dir}/delay.csv" \
        --costs "${dir}/delay.costs.csv" | tee "${dir}/summary.md"
done
