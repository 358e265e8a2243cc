#!/usr/bin/env bash
# REDUX_CALIBRATION_FILE end to end, under mpiexec at 3 ranks: a missing, truncated, garbage, foreign,
# other-version (libredux's version 1 among them) or stale file, or a path that is a directory, gives one
# warning (from rank 0) and the job measures its links and runs correctly; a good file is reused without a
# warning; a missing file, and libredux's own (other version, stale entry), are (re)written as a valid
# calibration file (version 2: every link's measured points, 8 B to 4 MiB or more); any other file
# (truncated, garbage, foreign JSON, a C source at 2, 3 and 4 ranks) is left byte for byte as it was.
# Where d came from is read from REDUX_REPORT (costs_source).
#   calibration_file_test.sh VENDOR MPIEXEC DRIVER      VENDOR: OpenMPI or MPICH
set -u
vendor=$1 mpiexec=$2 driver=$3
dir=$(mktemp -d /tmp/redux-calibration-file-test.XXXXXX)
trap 'rm -rf "$dir"' EXIT
file=$dir/calibration.json
flags=()
if [ "$vendor" = OpenMPI ]; then
    flags+=(--oversubscribe --bind-to none)
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
fi
export REDUX_CALIBRATION_FILE=$file REDUX_REPORT=$dir/report.jsonl
unset REDUX_D REDUX_C REDUX_ALGORITHM
failures=0 step="" step_failures=0
fail() { echo "FAIL ($step): $*"; failures=$((failures + 1)); }
# ok: the step before (its job and the checks after it) passed
ok() { if [ -n "$step" ] && [ "$failures" = "$step_failures" ]; then echo "ok: $step"; fi; }

# run STEP EXPECTED_WARNING EXPECTED_SOURCE [VAR=VALUE...]: one job, then its checks. RANKS: 3 unless set.
run() {
    ok
    step=$1 warning=$2 source=$3 step_failures=$failures
    shift 3
    rm -f "$dir/report.jsonl"
    local ranks=(-n "${RANKS:-3}")
    if ! env "$@" "$mpiexec" "${ranks[@]}" "${flags[@]}" "$driver" >"$dir/stdout" 2>"$dir/stderr"; then
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
}

# valid FILE: the file is a libredux calibration file with an entry for a 3-rank layout
valid() {
    python3 - "$1" <<'PY' || fail "the file is not a valid calibration file: $(head -c 300 "$1")"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["format"] == "libredux-calibration" and doc["version"] == 2, doc
entry = [e for e in doc["entries"] if e["signature"].startswith("3-")][0]
assert entry["links"], entry
for fit in entry["links"].values():
    assert fit["alpha_s"] >= 0 and fit["beta_s_per_byte"] >= 0, fit
    sizes = [p[0] for p in fit["points"]]
    assert sizes[0] == 8 and sizes[-1] >= 4 << 20 and sizes == sorted(set(sizes)), fit
    assert fit["alpha_s"] == fit["points"][0][1], fit
    assert 0 <= fit["flight_s"] <= fit["points"][0][1], fit  # the time in flight: part of d at 8 B
PY
}

# unchanged FILE COPY: FILE still holds exactly what COPY holds, and no temporary file was left next to it
unchanged() {
    cmp -s "$1" "$2" || fail "the job changed $1: $(head -c 300 "$1")"
    ! ls "$1".tmp.* >/dev/null 2>&1 || fail "a temporary file was left: $(ls "$1".tmp.*)"
}

# not_written: rank 0's warning says the file is left as it is, and nothing says it could not be written
not_written() {
    grep -q "libredux: calibration file .*leaving the file as it is" "$dir/stderr" ||
        fail "the warning does not say the file is left as it is: $(cat "$dir/stderr")"
    ! grep -q "cannot write\|not writing" "$dir/stderr" || fail "a store was attempted: $(cat "$dir/stderr")"
}

run missing "does not exist" measured
valid "$file"
run reused "" file
good=$(cat "$file")
head -c $(( ${#good} / 2 )) <<<"$good" >"$file"
cp "$file" "$dir/copy"
run truncated "not valid JSON" measured
unchanged "$file" "$dir/copy"
not_written
head -c 200 /dev/urandom >"$file"
cp "$file" "$dir/copy"
run garbage "not valid JSON" measured
unchanged "$file" "$dir/copy"
not_written
echo '{"tool": "something else", "entries": []}' >"$file"
cp "$file" "$dir/copy"
run foreign "not a libredux calibration file" measured
unchanged "$file" "$dir/copy"
not_written
echo '{"format": "libredux-calibration", "version": 99, "entries": []}' >"$file"
run "other version" "another format version" measured
valid "$file"
# The file as libredux wrote it before version 2 (one line per link, for this very layout): not used, measured
# again and replaced.
python3 - "$file" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["version"] = 1
for entry in doc["entries"]:
    for fit in entry["links"].values():
        del fit["points"]
json.dump(doc, open(sys.argv[1], "w"))
PY
run "version 1" "another format version" measured
valid "$file"
sleep 2
run stale "older than" measured REDUX_CALIBRATION_MAX_AGE=1
valid "$file"
rm -f "$file" && mkdir "$file"
run directory "is a directory" measured
[ -d "$file" ] || fail "the directory was replaced"
not_written
rmdir "$file"

# REDUX_CALIBRATION_FILE naming a source file by mistake: it is not JSON, so the job measures, warns once and
# leaves every byte of it, at several rank counts.
victim=$dir/victim.c
cat >"$dir/victim.orig" <<'C'
#include <stdio.h>

/* REDUX_CALIBRATION_FILE must never overwrite this file. */
int main(void) {
    printf("hello\n");
    return 0;
}
C
for ranks in 2 3 4; do
    cp "$dir/victim.orig" "$victim"
    RANKS=$ranks run "victim.c at $ranks ranks" "not valid JSON" measured REDUX_CALIBRATION_FILE="$victim"
    unchanged "$victim" "$dir/victim.orig"
    not_written
done

ok
[ "$failures" = 0 ] && echo "all calibration file checks passed"
exit $((failures > 0))
