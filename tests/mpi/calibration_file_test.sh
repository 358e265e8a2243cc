#!/usr/bin/env bash
# REDUX_CALIBRATION_FILE end to end, under mpiexec at 3 ranks: a missing, truncated, garbage, foreign or stale
# file, or a path that is a directory, gives one warning (from rank 0) and the job measures its links and
# runs correctly; a good file is reused without a warning; what the job writes is a valid calibration file.
# Where d came from is read from REDUX_REPORT (costs_source).
#   calibration_file_test.sh VENDOR MPIEXEC DRIVER      VENDOR: OpenMPI or MPICH
set -u
vendor=$1 mpiexec=$2 driver=$3
dir=$(mktemp -d /tmp/redux-calibration-file-test.XXXXXX)
trap 'rm -rf "$dir"' EXIT
file=$dir/calibration.json
flags=(-n 3)
if [ "$vendor" = OpenMPI ]; then
    flags+=(--oversubscribe --bind-to none)
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
fi
export REDUX_CALIBRATION_FILE=$file REDUX_REPORT=$dir/report.jsonl
unset REDUX_D REDUX_C REDUX_ALGORITHM
failures=0
fail() { echo "FAIL ($step): $*"; failures=$((failures + 1)); }

# run STEP EXPECTED_WARNING EXPECTED_SOURCE [VAR=VALUE...]: one job, then its checks.
run() {
    step=$1 warning=$2 source=$3
    shift 3
    rm -f "$dir/report.jsonl"
    if ! env "$@" "$mpiexec" "${flags[@]}" "$driver" >"$dir/stdout" 2>"$dir/stderr"; then
        fail "the job failed: $(tail -5 "$dir/stderr")"
        return
    fi
    local warnings
    warnings=$(grep -c "libredux: calibration file" "$dir/stderr")
    if [ -z "$warning" ]; then
        [ "$warnings" = 0 ] || fail "unexpected warning: $(grep 'calibration file' "$dir/stderr")"
    else
        [ "$warnings" = 1 ] || fail "expected one warning, got $warnings: $(cat "$dir/stderr")"
        grep -q "libredux: calibration file .*$warning" "$dir/stderr" || fail "warning without '$warning'"
    fi
    local got
    got=$(python3 -c 'import json, sys; print(json.loads(open(sys.argv[1]).readline())["costs_source"])' \
        "$dir/report.jsonl" 2>&1)
    [ "$got" = "$source" ] || fail "costs_source: expected $source, got $got"
    echo "ok: $step"
}

# valid FILE: the file is a libredux calibration file with an entry for a 3-rank layout
valid() {
    python3 - "$1" <<'PY' || fail "the file is not a valid calibration file: $(head -c 300 "$1")"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["format"] == "libredux-calibration" and doc["version"] == 1, doc
entry = [e for e in doc["entries"] if e["signature"].startswith("3-")][0]
assert entry["links"], entry
for fit in entry["links"].values():
    assert fit["alpha_s"] >= 0 and fit["beta_s_per_byte"] >= 0, fit
PY
}

run missing "does not exist" measured
valid "$file"
run reused "" file
good=$(cat "$file")
head -c $(( ${#good} / 2 )) <<<"$good" >"$file"
run truncated "not valid JSON" measured
valid "$file"
head -c 200 /dev/urandom >"$file"
run garbage "not valid JSON" measured
valid "$file"
echo '{"tool": "something else", "entries": []}' >"$file"
run foreign "not a libredux calibration file" measured
valid "$file"
sleep 2
run stale "older than" measured REDUX_CALIBRATION_MAX_AGE=1
valid "$file"
rm -f "$file" && mkdir "$file"
run directory "not valid JSON" measured
rmdir "$file"

[ "$failures" = 0 ] && echo "all calibration file checks passed"
exit $((failures > 0))
