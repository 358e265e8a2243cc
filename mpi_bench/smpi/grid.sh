#!/usr/bin/env bash
# A fixed grid of exact simulated times (SimGrid SMPI) for a before/after check of a change to the executor: every
# algorithm mpi_bench can force, for reduce, allreduce and reduce_scatter_block, on 8 and 64 simulated ranks.
#
#   mpi_bench/smpi/grid.sh BUILD_SMPI_DIR [OUT.csv]        (OUT.csv: default stdout; progress on stderr)
#   e.g.  mpi_bench/smpi/grid.sh /tmp/base/build-smpi /tmp/grid-base.csv
#         mpi_bench/smpi/grid.sh build-smpi /tmp/grid-new.csv
#         python3 mpi_bench/smpi/compare_grid.py /tmp/grid-base.csv /tmp/grid-new.csv
#
# BUILD_SMPI_DIR is a build configured as cmake/setup-debian.sh --all configures build-smpi (smpicc/smpicxx,
# -DREDUX_SMPI=ON); its mpi_bench/mpi_bench is run through run.sh and platform.py of THIS script's directory, so
# one copy of the script gives both trees the same simulation settings (a copy in another tree runs unchanged).
# Environment: JOBS (simulations at once, default 2), WORK (where platforms, each job's CSV and log go; default a
# fresh mktemp -d, kept), ONLY (an extended regex: run only the jobs whose name matches, e.g. to run some rows
# again for a determinism check: ONLY='^homo-reduce-8-' ...), JOB_TIMEOUT (s per job, default 1200).
#
# The grid (one job = one smpirun of mpi_bench, every algorithm of the job in it, --iterations 1 --warmup 1
# --sync window unless said; simulated time is deterministic, so one timed iteration is the measurement):
#   homo platform (platform.py homo N 1us 10Gbps: d = 2 us + bytes / 1.25 GB/s), N = 8 and 64 ranks;
#   collectives reduce, allreduce, reduce_scatter_block; sizes 8 B, 64 KiB, 4 MiB (reduce_scatter_block: 8 B per
#   rank, 64 B and 512 B, instead of 8 B, which holds no element per rank; c = d: NS 256 and 38);
#   c = 0 (MPI_SUM; not commutative: spin:0 --noncommutative) and c = d (spin:NS, NS per element = d / count
#   rounded: 8 B 2006 ns, 64 KiB 7 ns (c = 1.05 d), 4 MiB 6 ns (c = 0.94 d)), commutative and not;
#   algorithms: native, optimal, fibonacci, binomial, chain, binary, ksss, two-tree, reduce-scatter, tree-dyn,
#   auto (+ recursive-doubling for allreduce, ring for allreduce and reduce_scatter_block: not commutative, it runs
#   reduce-scatter). tree-dyn is reduce's only: the other collectives plan the model's
#   tree for it. auto is left out at 4 MiB on 64 ranks (its trials take several minutes of simulation per job).
#   snf, hetero-greedy, two-level and multi-tree plan the optimal tree on a one-class platform, so they are run
#   on the racks platform instead: platform.py racks 8 4 (links of 4 kinds), c = 0 commutative, 8 B, 64 KiB,
#   4 MiB, with native and optimal beside them, each collective.
#   Late ranks (reduce only; tree-dyn, optimal, fibonacci, native): --arrival one-late:0.5 and exp:0.1, 5
#   timed iterations (every iteration its own pattern, the same in every run), 8 B and 64 KiB, c = 0 and d,
#   commutative and not, 8 and 64 ranks. (reduce_scatter_block's 8 B on racks holds no element: no row.)
# 90 jobs, 980 rows, about 11 CPU-minutes (SimGrid is single-threaded): 6-8 minutes on 2 free cores, 22 minutes
# on 2 cores shared with others' builds (load 9-12). The 12 jobs at 4 MiB on 64 ranks are 70 % of it (allreduce's
# about 2 CPU-minutes each); nothing had to be cut. Rows run again (473 of 980) were the same in every column.
#
# Output CSV, one row per (job, algorithm, size):
#   platform,collective,ranks,bytes,c,commutative,algorithm,late,median_us,op,iterations,predicted_us,segments,
#   ran,same_plan_as,after_last_median_us
# c is 0 or d (op: the op as mpi_bench names it), late the --arrival pattern (together: none), median_us the
# simulated median latency (us, ns resolution). The rows come sorted; a failed job is named on stderr, its rows
# are missing and the exit status is 1.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if (($# < 1 || $# > 2)); then
    sed -n '5,6p' "$0" >&2
    exit 2
fi
build="$(cd "$1" && pwd)"
bench="${build}/mpi_bench/mpi_bench"
out="${2:-}"
if [[ ! -x "${bench}" ]]; then
    echo "grid.sh: ${bench} not found (build the SMPI build first)" >&2
    exit 1
fi
work="${WORK:-$(mktemp -d /tmp/smpi-grid.XXXXXX)}"
mkdir -p "${work}/runs" "${work}/platforms"
jobs="${JOBS:-2}"
only="${ONLY:-}"

# spin:NS per element so that c ~ d on the homo platform: d = 2 us + bytes * 8 / 10 Gbit/s, NS = d / count.
ns_for() { python3 -c "b = $1; print(max(1, round((2e-6 + b * 8 / 10e9) * 1e9 / (b // 8))))"; }

algorithms_for() {  # COLLECTIVE: the homo grid's list
    local list="native,optimal,fibonacci,binomial,chain,binary,ksss,two-tree,reduce-scatter,tree-dyn"
    [[ $1 != allreduce ]] || list="${list},recursive-doubling"
    [[ $1 == reduce ]] || list="${list},ring"
    echo "${list}"
}

# One job a line: NAME PLATFORM COLLECTIVE RANKS SIZES C COMM ALGORITHMS ARRIVAL ITERATIONS WEIGHT
# (WEIGHT only orders the jobs, the longest first, so that no long job ends the grid alone.)
job_list() {
    local collective ranks comm bytes small list arrival weight
    for collective in reduce allreduce reduce_scatter_block; do
        for ranks in 8 64; do
            # reduce_scatter_block needs an element per rank: its smallest size is 8 B per rank
            small=$([[ ${collective} == reduce_scatter_block ]] && echo $((8 * ranks)) || echo 8)
            for comm in 1 0; do
                list="$(algorithms_for "${collective}")"
                echo "homo ${collective} ${ranks} ${small},65536 0 ${comm} ${list},auto together 1 $((ranks * 2))"
                weight=$((ranks * 40))
                if ((ranks == 64)); then
                    echo "homo ${collective} ${ranks} 4194304 0 ${comm} ${list} together 1 ${weight}"
                else
                    echo "homo ${collective} ${ranks} 4194304 0 ${comm} ${list},auto together 1 ${weight}"
                fi
                for bytes in "${small}" 65536 4194304; do
                    weight=$((ranks * (bytes == 4194304 ? 60 : bytes == 65536 ? 3 : 1)))
                    if ((ranks == 64 && bytes == 4194304)); then
                        echo "homo ${collective} ${ranks} ${bytes} d ${comm} ${list} together 1 ${weight}"
                    else
                        echo "homo ${collective} ${ranks} ${bytes} d ${comm} ${list},auto together 1 ${weight}"
                    fi
                done
            done
        done
        echo "racks ${collective} 8 8,65536 0 1 native,optimal,snf,hetero-greedy,two-level,multi-tree together 1 8"
        echo "racks ${collective} 8 4194304 0 1 native,optimal,snf,hetero-greedy,two-level,multi-tree together 1 200"
    done
    for ranks in 8 64; do
        for comm in 1 0; do
            for arrival in one-late:0.5 exp:0.1; do
                echo "homo reduce ${ranks} 8,65536 0 ${comm} native,optimal,fibonacci,tree-dyn ${arrival} 5 $((ranks * 2))"
                for bytes in 8 65536; do
                    echo "homo reduce ${ranks} ${bytes} d ${comm} native,optimal,fibonacci,tree-dyn ${arrival} 5 $((ranks * 3))"
                done
            done
        done
    done
}

run_job() {
    local platform="$1" collective="$2" ranks="$3" sizes="$4" c="$5" comm="$6" algorithms="$7" arrival="$8"
    local iterations="$9" name="${10}"
    local op=() status=0 start=${SECONDS}
    if [[ ${c} == 0 && ${comm} == 1 ]]; then
        op=(--op sum)
    else
        local ns=0
        [[ ${c} == 0 ]] || ns="$(ns_for "${sizes}")"
        op=(--op "spin:${ns}")
        [[ ${comm} == 1 ]] || op+=(--noncommutative)
    fi
    local arrival_args=()
    [[ ${arrival} == together ]] || arrival_args=(--arrival "${arrival}")
    timeout "${JOB_TIMEOUT:-1200}" "${here}/run.sh" "${work}/platforms/${platform}-${ranks}" "${ranks}" -- \
        "${bench}" --collective "${collective}" --algorithms "${algorithms}" --sizes "${sizes}" \
        --iterations "${iterations}" --warmup 1 --sync window "${op[@]}" "${arrival_args[@]}" --quiet \
        --csv "${work}/runs/${name}.csv" >"${work}/runs/${name}.log" 2>&1 || status=$?
    echo "${name} ${status} $((SECONDS - start))" >>"${work}/jobs.txt"
    echo "grid.sh: ${name}: exit ${status}, $((SECONDS - start)) s" >&2
}
export -f run_job ns_for
export here work bench

start=${SECONDS}
: >"${work}/jobs.txt"
: >"${work}/meta.txt"
python3 "${here}/platform.py" homo 8 1us 10Gbps "${work}/platforms/homo-8"
python3 "${here}/platform.py" homo 64 1us 10Gbps "${work}/platforms/homo-64"
python3 "${here}/platform.py" racks 8 4 "${work}/platforms/racks-8"
# name each job, keep its description for the collection below, and run the selected ones, the heaviest first
job_list | while read -r platform collective ranks sizes c comm algorithms arrival iterations weight; do
    name="${platform}-${collective}-${ranks}-${sizes//,/_}-c${c}-$([[ ${comm} == 1 ]] && echo comm || echo noncomm)-${arrival//:/}"
    [[ -z ${only} ]] || [[ ${name} =~ ${only} ]] || continue
    echo "${name} ${platform} ${collective} ${c} ${comm} ${arrival}" >>"${work}/meta.txt"
    echo "${weight} ${platform} ${collective} ${ranks} ${sizes} ${c} ${comm} ${algorithms} ${arrival} ${iterations} ${name}"
done | sort -k1,1nr | cut -d' ' -f2- | xargs -P "${jobs}" -L 1 bash -c 'run_job "$@"' _
echo "grid.sh: $(wc -l <"${work}/jobs.txt") jobs in $((SECONDS - start)) s, ${jobs} at once; logs in ${work}" >&2

python3 - "${work}" "${out}" <<'EOF'
import csv, os, sys
work, out = sys.argv[1], sys.argv[2]
columns = ["platform", "collective", "ranks", "bytes", "c", "commutative", "algorithm", "late", "median_us", "op",
           "iterations", "predicted_us", "segments", "ran", "same_plan_as", "after_last_median_us"]
rows, failed = [], []
status = {line.split()[0]: int(line.split()[1]) for line in open(os.path.join(work, "jobs.txt"))}
for line in open(os.path.join(work, "meta.txt")):
    name, platform, collective, c, comm, arrival = line.split()
    path = os.path.join(work, "runs", name + ".csv")
    if status.get(name) != 0 or not os.path.exists(path):
        failed.append("%s (exit %s)" % (name, status.get(name)))
        continue
    for r in csv.DictReader(open(path)):
        rows.append({"platform": platform, "collective": collective, "ranks": r["ranks"], "bytes": r["bytes"],
                     "c": c, "commutative": comm, "algorithm": r["algorithm"], "late": r["arrival"],
                     "median_us": r["median_us"], "op": r["op"], "iterations": r["iterations"],
                     "predicted_us": r["predicted_us"], "segments": r["segments"], "ran": r["ran"],
                     "same_plan_as": r["same_plan_as"], "after_last_median_us": r["after_last_median_us"]})
order = {"reduce": 0, "allreduce": 1, "reduce_scatter_block": 2}
rows.sort(key=lambda r: (r["platform"], order[r["collective"]], int(r["ranks"]), int(r["bytes"]), r["c"],
                         -int(r["commutative"]), r["late"], r["algorithm"]))
target = open(out, "w", newline="") if out else sys.stdout
writer = csv.DictWriter(target, columns, lineterminator="\n")
writer.writeheader()
writer.writerows(rows)
for name in failed:
    print("grid.sh: FAILED: " + name + ", see its log in " + os.path.join(work, "runs"), file=sys.stderr)
print("grid.sh: %d rows%s" % (len(rows), ", written to " + out if out else ""), file=sys.stderr)
sys.exit(1 if failed else 0)
EOF
