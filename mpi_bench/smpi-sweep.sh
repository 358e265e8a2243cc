#!/usr/bin/env bash
# The scale sweep on simulated ranks (SimGrid SMPI, build-smpi): libredux's strategies and auto against the
# reduce algorithms SimGrid implements after the MPI libraries (the ompi, mpich and mvapich2 selectors and the
# plain binomial tree), on homogeneous and heterogeneous platforms.
#   mpi_bench/smpi-sweep.sh OUT_DIR
# Writes OUT_DIR/results.csv (platform,ranks,algorithm,bytes,c_over_d,commutative,measured_us,predicted_us),
# OUT_DIR/*.png (mpi_bench/smpi/plot.py), and every run's own CSV and log under OUT_DIR/runs/.
#
# One job = one smpirun of mpi_bench for one (platform, ranks, size, c/d, commutativity): either every libredux
# strategy and auto together, or one MPI library's algorithm (mpi_bench's "native" with --cfg=smpi/reduce:X;
# those rows are named mpi-ompi, mpi-mpich, mpi-mvapich2, mpi-binomial and have no prediction). SimGrid is
# single-threaded: JOBS (default: the cores) jobs run at once. Time is simulated and deterministic, so one timed
# iteration after one warm-up is the measurement, timed from a start all ranks agreed on (--sync window: a
# barrier lets the ranks go a latency apart, and on the racks platform that skew added up to 0.46 ms).
#
# COLLECTIVE=allreduce (or reduce_scatter_block) sweeps that collective instead, with GRID=allreduce: libredux's
# trees (then a broadcast), recursive doubling, recursive halving and the selectors' own (--cfg=smpi/allreduce:X;
# smpi/reduce_scatter:X for the other). Its rows have the same columns; keep them in their own file.
#
# Platforms (mpi_bench/smpi/platform.py): homo = one non-blocking switch, every node on a 10 Gbit/s link of 1 us;
# racks = 4 racks of 10 Gbit/s/1 us, 1 Gbit/s/10 us, 500 Mbit/s/50 us and 100 Mbit/s/100 us node links, ranks
# dealt round-robin over the racks. c/d: the op injects c = (c/d) x d per application to the whole vector,
# d being one transfer of the vector on the platform's slowest node link (spin:NS, NS rounded to whole
# nanoseconds per element, at least 1 when c/d > 0); c/d = 0 is MPI_SUM (the program's own CPU time is not
# simulated) or, not commutative, spin:0.
#
# The grid (GRID=full, the default; GRID=small: its 16 and 64 ranks; GRID=small256: its 8 B on 256 ranks;
# GRID=quick for a look in a minute; GRID=scale: the 4096-rank jobs and 64 KiB on 1024 ranks; GRID=file:PATH: the
# jobs PATH lists, to run some again) is cut where SimGrid's time grows too fast
# to fit 30 minutes of a 2-core machine: see the grid_* functions (every size, c/d and commutativity at 16 and 64
# ranks but c/d 10 from 64 KiB on 64 and at 4 MiB on 16; 8 B and 64 KiB at 256; 8 B only at 1024 and 4096). auto is
# at every point but at 4096 ranks and from 64 KiB on 1024 ranks, where its trials take over 12 minutes per job. Memory: 4 MiB runs stop at 64 ranks (every rank holds
# several copies of the vector).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if (($# != 1)); then
    sed -n '4,5p' "$0" >&2
    exit 2
fi
out="$(mkdir -p "$1" && cd "$1" && pwd)"
bench="${BENCH:-${root}/build-smpi/mpi_bench/mpi_bench}"
jobs="${JOBS:-$(nproc)}"
grid="${GRID:-full}"
collective="${COLLECTIVE:-reduce}"  # COLLECTIVE=allreduce|reduce_scatter_block: that collective (GRID=allreduce)
if [[ ! -x "${bench}" ]]; then
    echo "smpi-sweep: ${bench} not found: build it with bash cmake/setup-debian.sh --all (build-smpi)" >&2
    exit 1
fi
mkdir -p "${out}/runs" "${out}/platforms"

# config PLATFORM RANKS BYTES C_OVER_D COMMUTATIVE(1|0): one line per job of that configuration (SimGrid has no
# plain binomial allreduce: that row is reduce only).
config() {
    local kind kinds=(libredux mpi-ompi mpi-mpich mpi-mvapich2)
    [[ ${collective} != reduce ]] || kinds+=(mpi-binomial)
    for kind in "${kinds[@]}"; do
        echo "$1 $2 $3 $4 $5 ${kind}"
    done
}

grid_quick() {
    for ratio in 0 1; do config homo 16 8 "${ratio}" 1; config homo 16 65536 "${ratio}" 1; done
    config homo 64 65536 1 0
    config racks 16 8 1 1
}

grid_small() {  # 16 and 64 ranks, as in grid_full
    local ranks bytes ratio
    for ranks in 16 64; do
        for bytes in 8 65536 4194304; do
            for ratio in 0 0.1 1 10; do config homo "${ranks}" "${bytes}" "${ratio}" 1; done
            config homo "${ranks}" "${bytes}" 1 0
        done
        for bytes in 8 65536; do
            for ratio in 0 1; do config racks "${ranks}" "${bytes}" "${ratio}" 1; done
        done
    done
}

grid_small256() {  # 8 B on 256 ranks, as in grid_full
    local ratio
    for ratio in 0 1 10; do config homo 256 8 "${ratio}" 1; done
    config homo 256 8 1 0
    for ratio in 0 1; do config racks 256 8 "${ratio}" 1; done
}

grid_scale() {  # the largest jobs, run on their own: 4096 ranks at 8 B, and 64 KiB on 1024 ranks
    local kind
    for kind in libredux mpi-ompi; do echo "homo 4096 8 1 0 ${kind}"; echo "homo 1024 65536 1 0 ${kind}"; done
    for kind in libredux mpi-mpich mpi-mvapich2 mpi-binomial; do echo "homo 4096 8 1 1 ${kind}"; done
}

grid_allreduce() {  # COLLECTIVE=allreduce: 8 B to 1 MiB up to 256 ranks, 1 MiB with c = d at 1024
    local ranks bytes
    for ranks in 16 64 256; do
        for bytes in 8 65536 1048576; do
            config homo "${ranks}" "${bytes}" 0 1
            config homo "${ranks}" "${bytes}" 1 1
            config homo "${ranks}" "${bytes}" 1 0
        done
    done
    config homo 1024 1048576 1 1
    config homo 1024 1048576 1 0
}

grid_full() {
    local ranks bytes ratio kind
    for ranks in 16 64; do  # everything, but c/d 10 from 64 KiB on 64 ranks and at 4 MiB on 16 (over 5 minutes
        for bytes in 8 65536 4194304; do  # per job: libredux's trees in about 240 segments each)
            for ratio in 0 0.1 1 10; do
                ((ranks == 64 && bytes >= 65536 || bytes >= 4194304)) && [[ ${ratio} == 10 ]] && continue
                config homo "${ranks}" "${bytes}" "${ratio}" 1
            done
            config homo "${ranks}" "${bytes}" 1 0
        done
    done
    for ratio in 0 1 10; do config homo 256 8 "${ratio}" 1; done
    config homo 256 8 1 0
    # 64 KiB on 256 ranks: not c/d 10 (libredux's trees in over 230 segments each: over 10 minutes per job)
    for ratio in 0 1; do config homo 256 65536 "${ratio}" 1; done
    config homo 256 65536 1 0
    for ratio in 0 1; do config homo 1024 8 "${ratio}" 1; done
    config homo 1024 8 1 0
    # 4096 ranks: libredux's trees and SimGrid's ompi selector only (GRID=scale has the others)
    for kind in libredux mpi-ompi; do echo "homo 4096 8 1 1 ${kind}"; done
    for ranks in 16 64 256; do
        for bytes in 8 65536; do
            for ratio in 0 1; do
                # racks, 256 ranks, 64 KiB, c/d 1: over 5 minutes per job (auto's trials over 256 slow segments)
                ((ranks == 256 && bytes == 65536 && ratio == 1)) || config racks "${ranks}" "${bytes}" "${ratio}" 1
            done
        done
    done
    config racks 1024 8 1 1
}

# d of one vector of BYTES on PLATFORM's slowest node link, in seconds (the model of platform.py: latency at
# both ends plus the bytes over the bandwidth).
transfer_s() {
    case "$1" in
        homo) python3 -c "print(2 * 1e-6 + $2 * 8 / 10e9)" ;;
        racks) python3 -c "print(2 * 100e-6 + 5e-6 + $2 * 8 / 100e6)" ;;
    esac
}

platform_prefix() { echo "${out}/platforms/$1-$2"; }

write_platform() {  # PLATFORM RANKS, before any job runs (two jobs writing one file would race)
    case "$1" in
        homo) python3 "${root}/mpi_bench/smpi/platform.py" homo "$2" 1us 10Gbps "$(platform_prefix "$1" "$2")" ;;
        racks) python3 "${root}/mpi_bench/smpi/platform.py" racks "$2" 4 "$(platform_prefix "$1" "$2")" ;;
    esac
}

run_job() {
    local platform="$1" ranks="$2" bytes="$3" ratio="$4" commutative="$5" kind="$6"
    local name="${platform}-${ranks}-${bytes}-c${ratio}-$([[ ${commutative} == 1 ]] && echo comm || echo noncomm)-${kind}"
    local prefix d_s ns op=() algorithms settings=()
    prefix="$(platform_prefix "${platform}" "${ranks}")"
    d_s="$(transfer_s "${platform}" "${bytes}")"
    ns="$(python3 -c "r = ${ratio}; print(0 if r == 0 else max(1, round(r * ${d_s} * 1e9 / (${bytes} // 8))))")"
    if [[ ${commutative} == 1 && ${ns} == 0 ]]; then
        op=(--op sum)
    else
        op=(--op "spin:${ns}")
        [[ ${commutative} == 1 ]] || op+=(--noncommutative)
    fi
    if [[ ${kind} == libredux ]]; then
        algorithms="optimal,fibonacci,binomial,chain,binary,ksss,two-tree,reduce-scatter"
        [[ ${collective} == reduce ]] || algorithms="optimal,binomial,chain,two-tree,recursive-doubling,reduce-scatter"
        # auto at every point but from 64 KiB on 1024 ranks (GRID=scale: over 12 minutes for one job); its trials
        # take minutes of simulation per job at 4 MiB (510 s on 64 ranks) and at c/d 10 from 64 KiB
        ((ranks >= 1024 && bytes >= 65536)) || algorithms="${algorithms},auto"
        # 4096 ranks: the trees the scale targets compare (with chain, two-tree and auto one job ran over 24 minutes)
        ((ranks < 4096)) || algorithms="optimal,fibonacci,binomial,binary,ksss"
        [[ ${collective} == reduce ]] || ((ranks < 1024)) || algorithms="recursive-doubling,reduce-scatter"
        [[ ${platform} == racks ]] && algorithms="${algorithms},snf,hetero-greedy,two-level"
    else
        algorithms=native
        case "${collective}" in
            reduce) settings=(--cfg=smpi/reduce:"${kind#mpi-}") ;;
            allreduce) settings=(--cfg=smpi/allreduce:"${kind#mpi-}") ;;
            *) settings=(--cfg=smpi/reduce_scatter:"${kind#mpi-}") ;;
        esac
    fi
    local start=${SECONDS} status=0
    # REDUX_VERBOSE=1: the log keeps libredux's plan lines (costs, prediction, calibration time, auto's choice)
    REDUX_VERBOSE=1 timeout "${JOB_TIMEOUT:-900}" "${root}/mpi_bench/smpi/run.sh" "${prefix}" "${ranks}" "${settings[@]}" -- \
        "${bench}" --algorithms "${algorithms}" --sizes "${bytes}" --iterations 1 --warmup 1 --sync window "${op[@]}" --collective "${collective}" \
        --csv "${out}/runs/${name}.csv" >"${out}/runs/${name}.log" 2>&1 || status=$?
    echo "${name} ${status} $((SECONDS - start))" >>"${out}/runs/jobs.txt"
    echo "smpi-sweep: ${name}: exit ${status}, $((SECONDS - start)) s"
}
export -f run_job platform_prefix transfer_s
export root out bench collective

start=${SECONDS}
: >"${out}/runs/jobs.txt"
if [[ ${grid} == file:* ]]; then  # GRID=file:PATH: the jobs listed in PATH, one "PLATFORM RANKS BYTES C/D COMM KIND" a line
    job_list="$(grep -v '^#' "${grid#file:}")"
else
    job_list="$("grid_${grid}")"
fi
while read -r platform ranks; do write_platform "${platform}" "${ranks}" >/dev/null; done \
    < <(awk '{print $1, $2}' <<<"${job_list}" | sort -u)
# the largest first, so that the long jobs do not end the sweep alone
sort -k2,2nr -k3,3nr <<<"${job_list}" | xargs -P "${jobs}" -L 1 bash -c 'run_job "$@"' _
echo "smpi-sweep: $(wc -l <"${out}/runs/jobs.txt") jobs in $((SECONDS - start)) s on ${jobs} at once"
python3 "${root}/mpi_bench/smpi/collect.py" "${out}"
