#!/usr/bin/env bash
# Calibration on the emulated cluster (../shared/tools/cluster: network namespaces, shaped TCP links, real
# Open MPI): 3 nodes x 2 ranks, 1, 1 and 3 ms one-way latency per node (a path between two nodes takes the
# sum of theirs: 2 or 4 ms one way). Checks what libredux wrote to REDUX_CALIBRATION_FILE: ranks on different
# nodes are in the other_node class, with a latency within 25 % of 2 ms (its pair is ranks 0 and 2, nodes 1
# ms and 1 ms); ranks on one node in a same-node class, below it. The report's d between every two nodes (the
# node pairs, measured on 3 nodes or more) within 30 % of the path's latency: 2 ms between the first two
# nodes, 4 ms to the third (d of 8000 B, whose time on the wire adds 3 %). With several link classes, auto
# also weighs the heterogeneous trees (Slowest-Node-First, hetero-greedy) under per-link costs; the driver
# checks the results of every call. A duplicate of the communicator then plans with the links and node pairs the
# process holds (the report says "process" for both), not measured again.
# Skips (exit 77) without root or without the cluster tools; CLUSTER_TOOLS overrides where they are. The
# emulated latency comes from a user-space daemon: on a heavily loaded host the links themselves are slower
# than configured, and the timing checks can miss (seen at load average 6 on 2 cores, and once in CI): they get
# a second run (below). Wrong structure (classes, candidates, pair count) fails at once.
#   cluster_calibration_test.sh DRIVER [CLUSTER_TOOLS]
set -u
driver=$1
tools=${2:-${CLUSTER_TOOLS:-}}
if [ "$(id -u)" != 0 ] || [ ! -x "$tools/cluster-up.sh" ]; then
    echo "skipped: needs root and the cluster tools (got '$tools')"
    exit 77
fi
export CLUSTER_PREFIX=rdxcal
dir=$(mktemp -d /tmp/redux-cluster-calibration.XXXXXX)
trap '"$tools/cluster-down.sh" >/dev/null 2>&1; rm -rf "$dir"' EXIT
if ! SLOTS=2 "$tools/cluster-up.sh" 1ms:1gbit 1ms:1gbit 3ms:1gbit >"$dir/up.log" 2>&1; then
    # No network namespaces or netfilter queues here (a container without CAP_NET_ADMIN, say): nothing to test.
    tail -5 "$dir/up.log"
    echo "skipped: the emulated cluster cannot start on this machine"
    exit 77
fi
# attempt: one run of the driver (its result checks must pass) and the timing checks on what it wrote.
attempt() {
    rm -f "$dir/calibration.json" "$dir/report.jsonl"
    MPIT_TIMEOUT=120 "$tools/cluster-run.sh" -np 6 -x REDUX_CALIBRATION_FILE="$dir/calibration.json" \
        -x REDUX_REPORT="$dir/report.jsonl" "$driver" >"$dir/run.log" 2>&1 || { cat "$dir/run.log"; exit 1; }
python3 - "$dir/calibration.json" "$dir/report.jsonl" >"$dir/check.log" 2>&1 <<'PY'
import json, sys
links = json.load(open(sys.argv[1]))["entries"][0]["links"]
report = json.loads(open(sys.argv[2]).readline())
def structure(ok, message):  # not a matter of timing: exit 99, no second run
    if not ok:
        print(message)
        sys.exit(99)
print("links:", json.dumps(links))
print("calibration_s:", report["calibration_s"])
inter = links["other_node"]["alpha_s"]
assert abs(inter - 2e-3) <= 0.25 * 2e-3, f"other_node latency {inter} s is not within 25 % of 2 ms"
local = [v["alpha_s"] for k, v in links.items() if k != "other_node"]
structure(local, "no same-node class: ranks on one node were not told apart from ranks on another")
# Below, not far below: on a loaded 2-core host a shared-memory ping-pong can take most of a millisecond.
assert max(local) < inter, f"same-node latency {max(local)} s is not below the inter-node one"
predicted = report["predicted_by_strategy_s"]
print("predicted:", json.dumps(predicted), "chose:", report["strategy"])
structure("snf" in predicted and "hetero-greedy" in predicted, "the heterogeneous trees were not candidates")
pairs = report["node_pair_d_s"]
print("node pairs:", json.dumps(pairs))
path = [1e-3, 1e-3, 3e-3]
structure(len(pairs) == 3, f"{len(pairs)} nodes in node_pair_d_s, not 3")
for a in range(3):
    for b in range(3):
        if a != b:
            want = path[a] + path[b]
            assert abs(pairs[a][b] - want) <= 0.3 * want, f"d between nodes {a} and {b}: {pairs[a][b]} s, not {want} s"
# The duplicate's plan (the report's first plan on another communicator: the first line with another source of d)
# takes the pairs the process measured for MPI_COMM_WORLD, not a measurement of its own.
lines = [json.loads(l) for l in open(sys.argv[2])]
structure(report["node_pairs_source"] == "measured", f"the first plan's pairs: {report['node_pairs_source']}")
later = [l for l in lines if l.get("event") == "new plan" and l["costs_source"] == "process"]
structure(later, "no plan on the duplicate took the links this process knew")
structure(all(l["node_pairs_source"] == "process" for l in later),
          "the duplicate's pairs: " + ", ".join(l["node_pairs_source"] for l in later))
structure(later[0]["node_pair_d_s"] == report["node_pair_d_s"], "the duplicate planned with other pair times")
print("ok")
PY
    return $?
}
# The timing checks get a second run when the first misses them: the links' delay comes from a user-space daemon
# that a loaded host slows down (CI once measured 2.9 ms for a 2 ms path, the other pairs within 30 %). A wrong
# class or pair structure fails both runs; a failed driver (wrong results) fails at once.
for try in 1 2; do
    attempt
    status=$?
    [ "$status" = 0 ] && { cat "$dir/check.log"; exit 0; }
    cat "$dir/check.log"
    [ "$status" = 99 ] && exit 1
    echo "attempt $try: timing checks missed"
done
exit 1
