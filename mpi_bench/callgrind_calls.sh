#!/usr/bin/env bash
# Instructions per repeated planned call, per rank, at 2 ranks under Open MPI, counted by callgrind: a
# before/after check of a change to libredux's call path (the executor, routing, the plan cache).
#
#   mpi_bench/callgrind_calls.sh BUILD_DIR [OUT.txt]       (the table on stdout, and in OUT.txt if given)
#   e.g.  mpi_bench/callgrind_calls.sh /tmp/base/build /tmp/callgrind-base.txt
#         mpi_bench/callgrind_calls.sh build /tmp/callgrind-new.txt; diff /tmp/callgrind-base.txt /tmp/callgrind-new.txt
#
# BUILD_DIR: an Open MPI build with mpi_bench (cmake/setup-debian.sh's ./build: Release, -DREDUX_BUILD_BENCH=ON).
# Needs valgrind and mpirun (Open MPI). Environment: CASES (a regex of the case names to run, default all), WORK
# (where the callgrind files go, default a fresh mktemp -d; each case's files are deleted once read unless
# KEEP=1), ITERATIONS (timed iterations per case, default 200).
#
# How: each case is one mpirun of mpi_bench on 2 ranks forcing one planned algorithm, run twice: once with rank 0
# under valgrind --tool=callgrind and rank 1 native, once the other way round (a rank that waits polls, each idle
# poll adds instructions, and a native peer answers within a poll or two where a peer under valgrind takes
# hundreds). Callgrind dumps at the entry and at the return of the collective's public entry (redux_reduce_ex,
# redux_allreduce_ex, redux_reduce_scatter_block_ex, which mpi_bench calls: --dump-before/--dump-after), so each
# call's profile holds exactly the instructions executed between its entry and its return on that rank, in every
# library it reached. The first SKIP (10) calls (the planning call, verification, the start of the warm-up) are
# left out; the rest are repeated planned calls. Per rank:
#   calls    the calls counted
#   tests    the fewest MPI_Test/Testsome/Testany/Testall/Wait*/sched_yield calls libredux made in one call: the
#            path that never waits idle (each idle poll adds one; a change that adds a necessary test shows here)
#   n@tests  how many calls took that path (only one or a few: that path was luck, compare with care or run again)
#   instr    the fewest instructions of a call on that path, every library included; Open MPI's share moves
#            between runs (up to 20 % at 8 B: whether a message was there before its receive was posted)
#   redux    the fewest executed in libredux.so's own code on that path (not the MPI library, libc, the op): the
#            number to compare. Two runs of one build gave the same redux on every row whose tests were the same,
#            and on the others differed by redux/test x the difference in tests
#   mpi      the fewest executed in Open MPI's libraries (libmpi, libopen-pal, libopen-rte, mca_*.so) on that path
#   median   the median instructions over all calls, idle polls included: it moves with the machine's load, and is
#            comparable only where n@tests is most of the calls
#   redux/test  libredux.so's own instructions per extra test (per idle poll of the loop the rank waits in; the
#            median slope between calls with different numbers of tests; "-": every call made as many): to hold
#            a row whose fewest tests were t1 against one whose were t2, add redux/test x (t2 - t1) to the first
#   segs     the plan's segments (mpi_bench's CSV)
# The costs are fixed (REDUX_D=1e-6, REDUX_C=1e-8) so that nothing is calibrated under valgrind and every run plans
# the same trees (unsegmented unless --segment-bytes). The 11 cases take about 3 minutes on 2 shared cores (Open
# MPI's start under valgrind dominates).
set -euo pipefail

if (($# < 1 || $# > 2)); then
    sed -n '5,6p' "$0" >&2
    exit 2
fi
build="$(cd "$1" && pwd)"
bench="${build}/mpi_bench/mpi_bench"
out="${2:-}"
if [[ ! -x "${bench}" ]]; then
    echo "callgrind_calls.sh: ${bench} not found (build mpi_bench against Open MPI first)" >&2
    exit 1
fi
for tool in valgrind mpirun python3; do
    command -v "${tool}" >/dev/null || { echo "callgrind_calls.sh: ${tool} not found" >&2; exit 1; }
done
work="${WORK:-$(mktemp -d /tmp/callgrind-calls.XXXXXX)}"
mkdir -p "${work}"
iterations="${ITERATIONS:-200}"
cases_re="${CASES:-.}"
launcher=(mpirun --bind-to none)
[[ ${EUID} != 0 ]] || launcher+=(--allow-run-as-root)
launcher+=(--oversubscribe -x REDUX_D=1e-6 -x REDUX_C=1e-8)

# NAME COLLECTIVE ALGORITHM SIZE [mpi_bench options...]
cases() {
    cat <<'EOF'
reduce-optimal-8B reduce optimal 8
reduce-optimal-8B-noncomm reduce optimal 8 --op spin:0 --noncommutative
reduce-optimal-64K reduce optimal 64K
reduce-optimal-64K-8seg reduce optimal 64K --segment-bytes 8K
reduce-chain-64K-8seg-noncomm reduce chain 64K --segment-bytes 8K --op spin:0 --noncommutative
reduce-tree-dyn-8B reduce tree-dyn 8
reduce-reduce-scatter-64K reduce reduce-scatter 64K
allreduce-recursive-doubling-8B allreduce recursive-doubling 8
allreduce-optimal-8B allreduce optimal 8
allreduce-reduce-scatter-64K allreduce reduce-scatter 64K
reduce_scatter_block-optimal-64K reduce_scatter_block optimal 64K
EOF
}

# One rank's callgrind dumps -> one row of the table.
cat >"${work}/per_rank.py" <<'EOF'
import collections, csv, glob, os, re, statistics, sys

SKIP = 10
directory, name, rank = sys.argv[1], sys.argv[2], int(sys.argv[3])
TESTS = re.compile(r"^P?MPI_(Test|Testsome|Testany|Testall|Wait|Waitany|Waitsome|Waitall)$|^sched_yield$")


def is_mpi(ob):
    return ob.startswith(("libmpi.", "libopen-pal", "libopen-rte", "mca_", "libpmix", "libevent", "libhwloc"))


def parse(path):
    """(trigger, total Ir, libredux.so's own Ir, Open MPI's own Ir, tests libredux called) of one callgrind dump,
    written with --compress-strings=no: cost lines after fn= are that function's own, the one after calls= the
    call's inclusive cost."""
    trigger, total, own, ob, fn_ob, callee, pending, tests = None, 0, collections.Counter(), "", "", "", None, 0
    with open(path) as f:
        for line in f:
            if line.startswith("desc: Trigger:"):
                trigger = line.split(":", 2)[2].strip()
            elif line.startswith("ob="):
                ob = os.path.basename(line[3:].strip())
            elif line.startswith("fn="):
                fn_ob = ob
            elif line.startswith("cfn="):
                callee = re.sub(r"'\d+$", "", line[4:].strip())
            elif line.startswith("calls="):
                pending = int(line[6:].split()[0])
            elif line[:1].isdigit() or line[:1] in "+-*":
                if pending is not None:
                    if fn_ob == "libredux.so" and TESTS.match(callee):
                        tests += pending
                    pending = None
                    continue
                parts = line.split()
                if len(parts) >= 2:
                    own[fn_ob] += int(parts[1])
            elif line.startswith("totals:"):
                total = int(line.split()[1])
    mpi = sum(v for k, v in own.items() if is_mpi(k))
    return trigger, total, own.get("libredux.so", 0), mpi, tests


segments = ""
with open(os.path.join(directory, "bench.csv")) as f:
    for row in csv.DictReader(f):
        segments = row["segments"]
files = glob.glob(os.path.join(directory, "cg.*.*"))
files.sort(key=lambda p: int(p.rsplit(".", 1)[1]))
calls = []
for path in files:
    trigger, total, redux, mpi, tests = parse(path)
    if trigger and trigger.startswith("--dump-after"):
        calls.append((total, redux, mpi, tests))
calls = calls[SKIP:]
if not calls:
    print("%-34s %4d no calls counted" % (name, rank))
    sys.exit(0)
fewest = min(c[3] for c in calls)
path = [c for c in calls if c[3] == fewest]
# libredux's own instructions per extra test (an idle poll of the loop the rank waits in): the median of the slopes
# between calls with different numbers of tests (Theil-Sen); "-" when every call made the same number.
slopes = [(b[1] - a[1]) / (b[3] - a[3]) for i, a in enumerate(calls) for b in calls[i + 1:] if b[3] != a[3]]
per_test = "%.0f" % statistics.median(slopes) if slopes else "-"
print("%-34s %4d %5d %4s %5d %7d %8d %8d %8d %8d %9s" % (
    name, rank, len(calls), segments, fewest, len(path), min(c[0] for c in path), min(c[1] for c in path),
    min(c[2] for c in path), statistics.median_low([c[0] for c in calls]), per_test))
EOF

table="${work}/table.txt"
printf '%-34s %4s %5s %4s %5s %7s %8s %8s %8s %8s %9s\n' case rank calls segs tests n@tests instr redux mpi median \
    redux/test >"${table}"
start=${SECONDS}
while read -r name collective algorithm size options; do
    [[ ${name} =~ ${cases_re} ]] || continue
    case "${collective}" in
        reduce) entry=redux_reduce_ex ;;
        allreduce) entry=redux_allreduce_ex ;;
        *) entry=redux_reduce_scatter_block_ex ;;
    esac
    # shellcheck disable=SC2206  # options: several words
    args=("${bench}" --collective "${collective}" --algorithms "${algorithm}" --sizes "${size}"
        --iterations "${iterations}" --warmup 10 --quiet ${options})
    for rank in 0 1; do
        dir="${work}/${name}/rank${rank}"
        rm -rf "${dir}"
        mkdir -p "${dir}"
        grind=(valgrind --tool=callgrind --dump-instr=no --compress-strings=no --compress-pos=no
            --dump-before="${entry}" --dump-after="${entry}" --callgrind-out-file="${dir}/cg.%p")
        if ((rank == 0)); then
            contexts=(-np 1 "${grind[@]}" "${args[@]}" --csv "${dir}/bench.csv" : -np 1 "${args[@]}")
        else
            contexts=(-np 1 "${args[@]}" --csv "${dir}/bench.csv" : -np 1 "${grind[@]}" "${args[@]}")
        fi
        if ! "${launcher[@]}" "${contexts[@]}" >"${dir}/log.txt" 2>&1 </dev/null; then
            echo "callgrind_calls.sh: ${name}, rank ${rank} under valgrind: failed, see ${dir}/log.txt" >&2
            printf '%-34s %4s FAILED\n' "${name}" "${rank}" >>"${table}"
            continue
        fi
        python3 "${work}/per_rank.py" "${dir}" "${name}" "${rank}" >>"${table}"
        [[ ${KEEP:-0} == 1 ]] || rm -f "${dir}"/cg.*
    done
    echo "callgrind_calls.sh: ${name} done ($((SECONDS - start)) s)" >&2
done < <(cases)
cat "${table}"
[[ -z ${out} ]] || cp "${table}" "${out}"
