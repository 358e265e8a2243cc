#!/usr/bin/env bash
# REDUX_WISDOM end to end (wisdom_driver.cpp runs the jobs; every result is checked there):
#   basic RANKS   a job decides its four keys and leaves their decisions in a new wisdom file, the static op's
#                 key (no symbol) excepted; a second job of the same shape starts each kept key at its first call
#                 with the decision (decision log: "started from", the file's strategy), runs it on every call of
#                 its re-check (no trial, no call of another contender), and ends the re-check as the rule says:
#                 "re-checked" (then one strategy on the first 10 calls, and the entry holds the time measured) within
#                 4x of the entry's time, else "no longer holds" (calls of microseconds on ranks sharing 2 cores move
#                 by more than 4x between jobs);
#   more          at 3 ranks: entries without a time in place are re-checked and take this job's time; an
#                 allreduce entry for late-rank with a lateness per rank starts the next job with late-rank, which
#                 keeps the lateness, and one with a lateness for fewer ranks names no plan; entries
#                 whose second look was to come keep the mark in a short job and lose it in one that takes it; an entry
#                 that no longer holds (its time made 1000 s) is re-checked, dropped ("no
#                 longer holds") and decided again, the new decision replacing it; a job of 4 ranks finds nothing
#                 for itself in a 3-rank file and adds its own; two jobs deciding at once into one file keep both
#                 jobs' entries; a file that is not libredux's (a C source) gives a warning, the jobs run, and the
#                 file is left byte for byte; redux-info --wisdom lists a file's entries, --clear-wisdom empties
#                 libredux's file and refuses (exit 1) any other; without REDUX_WISDOM the file is
#                 $XDG_CACHE_HOME/libredux/wisdom.json, else $HOME/.cache/libredux/wisdom.json (folders made, links
#                 beside it), and REDUX_WISDOM=off keeps none.
#   nonblocking   at 3 ranks: the decision of a key's nonblocking calls joins the key's entry, and the next job
#                 weighs that one decision alone against the library's own and keeps it.
#   wisdom_test.sh VENDOR MPIEXEC DRIVER basic RANKS | more REDUX_INFO | nonblocking      VENDOR: OpenMPI or MPICH
set -u
vendor=$1 mpiexec=$2 driver=$3 what=$4 ranks=${5:-3} redux_info=${5:-}
dir=$(mktemp -d /tmp/redux-wisdom-test.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$dir"' EXIT
flags=()
if [ "$vendor" = OpenMPI ]; then
    flags+=(--oversubscribe --bind-to none)
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
fi
unset REDUX_D REDUX_C REDUX_ALGORITHM REDUX_CALIBRATION_FILE REDUX_SEGMENT_BYTES
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# job_at NAME RANKS MODE SHIFT VAR=VALUE...: one job, REDUX_WISDOM and XDG_CACHE_HOME unset and then the given
# variables set, its log in $dir/NAME.report, its output in NAME.out.
job_at() {
    local name=$1 n=$2 mode=$3 shift_=$4
    shift 4
    if ! env -u REDUX_WISDOM -u XDG_CACHE_HOME "$@" REDUX_REPORT="$dir/$name.report" \
        "$mpiexec" -n "$n" "${flags[@]}" "$driver" "$mode" "$shift_" >"$dir/$name.out" 2>"$dir/$name.err"; then
        fail "job $name failed: $(tail -5 "$dir/$name.err")"
        return 1
    fi
}

# job NAME RANKS MODE [SHIFT]: one job on $dir/wisdom.json.
job() { job_at "$1" "$2" "$3" "${4:-0}" REDUX_WISDOM="$dir/wisdom.json"; }

# check SCRIPT ARGS...: python asserts over the files of $dir; its message on failure.
check() {
    local script=$1
    shift
    python3 - "$dir" "$@" <<<"$script" || fail "check failed (above)"
}

read -r -d '' COMMON <<'PY'
import json, os, sys
dir = sys.argv[1]
def entries():
    path = os.path.join(dir, "wisdom.json")
    if not os.path.exists(path):
        return []
    doc = json.load(open(path))
    assert doc["format"] == "libredux-wisdom" and doc["version"] == 1, doc
    return doc["entries"]
def report(name):
    path = os.path.join(dir, name + ".report")
    return [json.loads(line) for line in open(path)] if os.path.exists(path) else []
def ran(name):  # key -> what ran on its first 10 calls
    out = {}
    for line in open(os.path.join(dir, name + ".out")):
        key, calls = line.split()
        out[key] = [int(c) for c in calls.split(",")]
    return out
CALLS = {"K1": "reduce count=%d ", "K2": "allreduce count=%d ", "K3": "reduce count=%d ", "K4": "reduce count=%d "}
COUNTS = {"K1": 1000, "K2": 3000, "K3": 700, "K4": 600}
def kept(key, shift=0, ranks=None):  # the file's entries for a key
    call = CALLS[key] % (COUNTS[key] + shift)
    return [e for e in entries() if e["call"].startswith(call) and (ranks is None or ("ranks=%d " % ranks) in e["job"])]
PY

basic() {
    local n=$1
    job first "$n" decide || return
    check "$COMMON
n = int(sys.argv[2])
if n == 1:
    assert entries() == [], 'one rank: nothing is planned, nothing kept'
    sys.exit(0)
for key in ('K1', 'K2', 'K3'):
    assert len(kept(key)) == 1, (key, entries())
    e = kept(key)[0]
    assert e['chosen_s'] >= 0 and e['job'].startswith('ranks=%d ' % n), e
assert 'op=wisdom_named_sum@' in kept('K3')[0]['call'], kept('K3')
assert kept('K4') == [], ('an op without a symbol is not kept', kept('K4'))
decisions = [l for l in report('first') if l['event'] == 'auto decision']
assert len(decisions) >= 4, 'every key decided'
" "$n"
    cp "$dir/wisdom.json" "$dir/first.json" 2>/dev/null
    job second "$n" start || return
    check "$COMMON
n = int(sys.argv[2])
if n == 1:
    sys.exit(0)
log = report('second')
ran = ran('second')
before = {e['call']: e for e in json.load(open(os.path.join(dir, 'first.json')))['entries']}
factor = 4.0  # AutoSelect::kRecheckFactor
for key in ('K1', 'K2', 'K3'):
    count = COUNTS[key]
    e = [v for c, v in before.items() if c.startswith(CALLS[key] % count)][0]
    plans = [l for l in log if l['event'] == 'new plan' and l['count'] == count]
    assert len(plans) == 1 and plans[0]['wisdom'] == 'started from', (key, plans)
    assert plans[0]['strategy'] == e['strategy'], (key, plans[0]['strategy'], e['strategy'])
    calls = ran[key]
    assert len(set(calls[:8])) == 1, (key, 'the decision on every call of the re-check, no trials', calls)
    assert (calls[0] == -1) == (e['strategy'] == 'native'), (key, calls, e['strategy'])
    checked = [l for l in log if l['event'] == 'auto decision' and l['count'] == count and l['wisdom']]
    assert len(checked) == 1, (key, checked)
    now = checked[0]['recheck_s']
    holds = e['chosen_s'] == 0 or e['chosen_s'] / factor <= now <= e['chosen_s'] * factor
    assert checked[0]['wisdom'] == ('re-checked' if holds else 'no longer holds'), (key, e, checked[0])
    if holds:
        assert len(set(calls)) == 1, (key, 'one strategy on the first 10 calls', calls)
        assert now > 0 and kept(key)[0]['chosen_s'] == now, (key, 'kept with the time in place measured now')
        assert kept(key)[0]['strategy'] == e['strategy']
    else:
        print(key, 'no longer held after', e['chosen_s'], 's: re-checked at', now, 's')
assert [l for l in log if l['count'] == 600 and l['wisdom']] == [], 'K4 had nothing to start from'
assert ran['K4'][:2] == [-1, -1], ('K4: its first calls are the library own', ran['K4'])
" "$n"
}

more() {
    # Entries without a time in place: every re-check holds, and the entry takes the time this job measured.
    job first 3 decide || return
    python3 - "$dir/wisdom.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for e in doc["entries"]:
    e["chosen_s"] = 0.0
json.dump(doc, open(sys.argv[1], "w"))
PY
    job zero 3 start || return
    check "$COMMON
log = report('zero')
for key in ('K1', 'K2', 'K3'):
    checked = [l for l in log if l['event'] == 'auto decision' and l['count'] == COUNTS[key] and l['wisdom']]
    assert [l['wisdom'] for l in checked] == ['re-checked'], (key, checked)
    assert checked[0]['recheck_s'] > 0 and kept(key)[0]['chosen_s'] == checked[0]['recheck_s'], (key, kept(key))
"
    # An arrival contender's entry: the allreduce key decided for late-rank, made for rank 1 late by 30 ms. The next
    # job makes late-rank for those arrivals and runs it from its first call; a re-check that holds keeps the
    # lateness. With a lateness for 2 ranks on 3 the entry names no plan and is dropped (the job decides anew, or,
    # in 20 calls under MPICH, not yet). The file as it was before comes back for the cases below.
    cp "$dir/wisdom.json" "$dir/before_late.json"
    local late_rank='
import json, sys
doc = json.load(open(sys.argv[1]))
for e in doc["entries"]:
    if e["call"].startswith("allreduce count=3000 "):
        e.update(strategy="late-rank", chosen_s=0.0, lateness_s=json.loads(sys.argv[2]))
json.dump(doc, open(sys.argv[1], "w"))'
    python3 -c "$late_rank" "$dir/wisdom.json" "[0, 0.03, 0]"
    job late 3 start || return
    check "$COMMON
started = [l for l in report('late') if l['event'] == 'new plan' and l['count'] == 3000]
assert [(l['wisdom'], l['strategy']) for l in started] == [('started from', 'late-rank')], started
assert ran('late')['K2'][:8] == [21] * 8, ('late-rank (21) on every call of the re-check', ran('late')['K2'])
assert kept('K2')[0]['strategy'] == 'late-rank' and kept('K2')[0]['lateness_s'] == [0, 0.03, 0], kept('K2')
"
    python3 -c "$late_rank" "$dir/wisdom.json" "[0, 0.03]"
    job late_short 3 start || return
    check "$COMMON
started = [l for l in report('late_short') if l['event'] == 'new plan' and l['count'] == 3000]
assert [l['wisdom'] for l in started] == ['names no plan'], started
assert all(e.get('lateness_s') != [0, 0.03] for e in kept('K2')), ('dropped', kept('K2'))
"
    cp "$dir/before_late.json" "$dir/wisdom.json"
    # Entries whose second look was still to come (and no time in place, so that every re-check holds: jobs of
    # ranks sharing 2 cores move by more than its 4x): a job of 20 calls a key starts from them and keeps the mark
    # (its look comes 32 calls after the start); a job that calls each key until it is decided takes the look
    # (trials after the re-check) and the entries lose the mark. An arrival entry takes no look (every static tree
    # waits for the late ranks it was made for), and ranks sharing 2 cores can show arrivals that repeat: such an
    # entry becomes native's, which takes the look.
    local mark_all='
import json, sys
doc = json.load(open(sys.argv[1]))
for e in doc["entries"]:
    if e.pop("lateness_s", None) is not None:
        e["strategy"] = "native"
    e["second_look"] = True
    e["chosen_s"] = 0.0
json.dump(doc, open(sys.argv[1], "w"))'
    python3 -c "$late_rank" "$dir/wisdom.json" "[0, 0.00001, 0.000003]"
    python3 -c "$mark_all" "$dir/wisdom.json"
    job look_later 3 start || return
    check "$COMMON
for key in ('K1', 'K2', 'K3'):
    started = [l for l in report('look_later') if l['event'] == 'new plan' and l['count'] == COUNTS[key]]
    assert [l['wisdom'] for l in started] == ['started from'], (key, started)
    assert kept(key)[0].get('second_look') is True, (key, 'the look is still to come', kept(key))
"
    python3 -c "$late_rank" "$dir/wisdom.json" "[0, 0.00001, 0.000003]"
    python3 -c "$mark_all" "$dir/wisdom.json"
    job look 3 decide || return
    check "$COMMON
for key in ('K1', 'K2', 'K3'):
    decisions = [l for l in report('look') if l['event'] == 'auto decision' and l['count'] == COUNTS[key]]
    assert [l['wisdom'] for l in decisions][:1] == ['re-checked'], (key, decisions)
    assert any(l['trial_calls'] > 0 for l in decisions[1:]), (key, 'no trials after the re-check', decisions)
    assert 'second_look' not in kept(key)[0], (key, 'the look was taken', kept(key))
"
    # An entry that no longer holds: re-checked, dropped, decided again.
    python3 - "$dir/wisdom.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for e in doc["entries"]:
    if e["call"].startswith("reduce count=1000 "):
        e["chosen_s"] = 1000.0
json.dump(doc, open(sys.argv[1], "w"))
PY
    job stale 3 decide || return
    check "$COMMON
log = report('stale')
checked = [l['wisdom'] for l in log if l['event'] == 'auto decision' and l['count'] == 1000 and l['wisdom']]
assert checked == ['no longer holds'], checked
assert len(kept('K1')) == 1 and kept('K1')[0]['chosen_s'] < 1.0, ('decided again, replaced', kept('K1'))
"
    # Another rank count: nothing to start from; both jobs' entries kept.
    job four 4 start || return
    check "$COMMON
assert [l for l in report('four') if l['wisdom']] == [], 'a 4-rank job uses no 3-rank entry'
"
    job four_decide 4 decide || return
    check "$COMMON
assert len(kept('K1', ranks=3)) == 1 and len(kept('K1', ranks=4)) == 1, entries()
"
    # Two jobs at once, other keys: both keep theirs.
    rm -f "$dir/wisdom.json"
    job a 2 decide 1 &
    local a=$!
    job b 3 decide 2 || true
    wait "$a" || fail "job a failed"
    check "$COMMON
for shift, ranks in ((1, 2), (2, 3)):
    for key in ('K1', 'K2', 'K3'):
        assert len(kept(key, shift, ranks)) == 1, (key, shift, ranks, entries())
"
    # redux-info lists every job's entries, and clears the file.
    REDUX_WISDOM="$dir/wisdom.json" "$redux_info" --wisdom --json >"$dir/listed.json" || fail "redux-info --wisdom failed"
    check "$COMMON
listed = json.load(open(os.path.join(dir, 'listed.json')))
assert [(e['job'], e['call'], e['strategy']) for e in listed['entries']] == [
    (e['job'], e['call'], e['strategy']) for e in entries()], listed
assert len(listed['entries']) >= 6, listed
"
    REDUX_WISDOM="$dir/wisdom.json" "$redux_info" --clear-wisdom >/dev/null || fail "redux-info --clear-wisdom failed"
    check "$COMMON
assert entries() == [], entries()
"
    # No REDUX_WISDOM: the default file, $XDG_CACHE_HOME/libredux/wisdom.json, else $HOME/.cache/libredux/wisdom.json,
    # its folders made and the links kept beside it; the next job starts from it; REDUX_WISDOM=off reads and writes
    # none.
    job_at home 3 decide 0 HOME="$dir/home" || return
    local default="$dir/home/.cache/libredux/wisdom.json"
    [ -s "$default" ] && [ -s "$default.links" ] || fail "no default wisdom file, or no links beside it: $(ls -R "$dir/home")"
    cp "$default" "$dir/default.before" 2>/dev/null
    job_at off 3 start 0 HOME="$dir/home" REDUX_WISDOM=off || return
    cmp -s "$default" "$dir/default.before" || fail "a job with REDUX_WISDOM=off changed the default file"
    job_at cache 3 start 0 HOME="$dir/elsewhere" XDG_CACHE_HOME="$dir/home/.cache" || return
    check "$COMMON
assert [l for l in report('off') if l['wisdom']] == [], 'REDUX_WISDOM=off: nothing started from a file'
started = [l['count'] for l in report('cache') if l['event'] == 'new plan' and l['wisdom'] == 'started from']
assert sorted(started) == [700, 1000, 3000], report('cache')
"
    # A file that is not libredux's: a warning, correct jobs, the file untouched.
    printf 'int main(void) { return 0; }\n' >"$dir/wisdom.json"
    cp "$dir/wisdom.json" "$dir/original"
    job foreign 3 decide || return
    cmp -s "$dir/wisdom.json" "$dir/original" || fail "the foreign file was changed"
    grep -q "libredux: wisdom file .* not a libredux wisdom file" "$dir/foreign.err" ||
        fail "no warning: $(cat "$dir/foreign.err")"
    grep -q "not writing wisdom file" "$dir/foreign.err" || fail "no refusal to write: $(cat "$dir/foreign.err")"
    if REDUX_WISDOM="$dir/wisdom.json" "$redux_info" --clear-wisdom 2>/dev/null; then
        fail "redux-info cleared a file that is not libredux's"
    fi
    cmp -s "$dir/wisdom.json" "$dir/original" || fail "redux-info changed the foreign file"
}

nonblocking() {
    # The decision of the key's nonblocking calls joins its entry; a second job weighs that one decision alone
    # against the library's own (one tree at most beside it: 16 weighed calls at most, where the first job may
    # weigh six contenders), and keeps it in the entry.
    job nb_first 3 nonblocking || return
    job nb_second 3 nonblocking || return
    check "$COMMON
def decisions(name):
    return [l for l in report(name) if l['event'] == 'auto nonblocking decision' and l['count'] == 2000]
first, second = decisions('nb_first'), decisions('nb_second')
assert len(first) == 1 and len(second) == 1, (first, second)
entry = [e for e in entries() if e['call'].startswith('allreduce count=2000 ')]
assert len(entry) == 1 and entry[0].get('nonblocking') == second[0]['nonblocking'], (entry, second)
started = [l for l in report('nb_second') if l['event'] == 'new plan' and l['count'] == 2000]
assert [l['wisdom'] for l in started] == ['started from'], started
assert second[0]['nonblocking_calls'] <= 16, ('weighed alone against native', second[0])
print('nonblocking calls weighed: first job', first[0]['nonblocking_calls'], first[0]['nonblocking'],
      '; second', second[0]['nonblocking_calls'], second[0]['nonblocking'])
"
}

case $what in
    basic) basic "$ranks" ;;
    more) more ;;
    nonblocking) nonblocking ;;
    *) echo "unknown: $what" && exit 2 ;;
esac
[ "$failures" = 0 ] && echo "ok: wisdom $what" || exit 1
