#!/usr/bin/env python3
"""REDUX_TIMELINE end to end: mpi_bench's allreduce under recursive halving, recursive doubling and a tree with
its spread, at RANKS ranks, each process writing its timeline; then the files checked against each other.

  timeline_test.py VENDOR MPIEXEC MPI_BENCH TIMELINE_PY RANKS

Checked: one file per process; every rank ran the same executions (same count, same algorithm, collective and
count at each start), each started and ended; every send and receive posted was seen complete once, after its
post; each fold chunk ended after it began; between every two ranks, the k-th message one posted to the other
and the k-th receive the other posted from it have the same elements, and the receive completed after the send
was posted (one host: one clock); mpi_bench/timeline.py prints the last execution. At 1 rank nothing is planned,
and no file is written.
"""
import os
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from redux_info_test import Launcher, check, failures  # noqa: E402


def main():
    vendor, mpiexec, bench, timeline_py, ranks = sys.argv[1:6]
    ranks = int(ranks)
    sys.path.insert(0, os.path.dirname(os.path.abspath(timeline_py)))
    import timeline  # mpi_bench/timeline.py: its reader is what users run

    work = tempfile.mkdtemp(prefix="redux-timeline.")
    try:
        launcher = Launcher(vendor, mpiexec)
        prefix = os.path.join(work, "t")
        env = dict(os.environ, REDUX_TIMELINE=prefix, REDUX_WISDOM="off", REDUX_CHUNK_BYTES="4096",
                   **launcher.env)
        args = ["--collective", "allreduce", "--sizes", "8,64K", "--algorithms",
                "reduce-scatter,recursive-doubling,optimal", "--iterations", "2", "--warmup", "0", "--quiet"]
        result = subprocess.run(launcher.command(ranks, bench, args), env=env, capture_output=True, text=True,
                                timeout=240)
        check(result.returncode == 0, f"mpi_bench: exit {result.returncode}: {result.stderr[-2000:]}")
        files = [f for f in os.listdir(work) if f.startswith("t.") and f.endswith(".csv")]
        if ranks == 1:  # libredux leaves one rank's calls to the library before reading its settings
            check(not files, f"nothing planned on one rank: {files}")
            return
        check(len(files) == ranks, f"one file per process: {files}")
        runs, sizes = timeline.read(prefix)
        executions = sorted({n for n, _ in runs})
        check(len(executions) >= 6, f"the three algorithms at two sizes, twice or more: {len(executions)}")
        check(timeline.complete_executions(runs, sizes) == executions, "every rank ended every execution")
        for n in executions:
            starts = set()
            for r in range(ranks):
                events = runs.get((n, r), [])
                check(events and events[0]["event"] == "start" and events[-1]["event"] == "end",
                      f"execution {n} rank {r}: starts and ends")
                starts.update(e["detail"] for e in events if e["event"] == "start")
                check_rank(n, r, events)
            check(len(starts) == 1, f"execution {n}: the same call on every rank: {starts}")
            check_pairs(n, ranks, runs)
        shown = subprocess.run([sys.executable, timeline_py, prefix], capture_output=True, text=True, timeout=60)
        check(shown.returncode == 0 and shown.stdout.startswith(f"execution {executions[-1]} "),
              f"timeline.py: exit {shown.returncode}: {shown.stdout[:200]} {shown.stderr[-500:]}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)


def check_rank(n, r, events):
    """Each post seen complete once, after it; each fold chunk ends after it begins."""
    posted = {}
    completed = defaultdict(int)
    chunk = None
    for e in events:
        if e["event"] in ("post_send", "post_receive"):
            check(e["step"] not in posted, f"execution {n} rank {r}: step {e['step']} posted twice")
            posted[e["step"]] = e
        elif e["event"] in ("sent", "received"):
            post = posted.get(e["step"])
            kind = "post_send" if e["event"] == "sent" else "post_receive"
            check(post is not None and post["event"] == kind and post["t"] <= e["t"],
                  f"execution {n} rank {r}: {e['event']} of step {e['step']} after its post")
            completed[e["step"]] += 1
        elif e["event"] in ("fold", "copy"):
            check(chunk is None, f"execution {n} rank {r}: a chunk begins inside another")
            chunk = e
        elif e["event"] in ("folded", "copied"):
            check(chunk is not None and chunk["t"] <= e["t"] and chunk["begin"] == e["begin"],
                  f"execution {n} rank {r}: a chunk ends after it began")
            chunk = None
    check(all(completed[s] == 1 for s in posted), f"execution {n} rank {r}: every post completed once")


def check_pairs(n, ranks, runs):
    """The k-th send from a to b and the k-th receive at b from a: the same elements, received after sent."""
    sends = defaultdict(list)
    receives = defaultdict(list)
    for r in range(ranks):
        done = {e["step"]: e["t"] for e in runs[(n, r)] if e["event"] in ("sent", "received")}
        for e in runs[(n, r)]:
            if e["event"] == "post_send":
                sends[(r, e["peer"])].append((e["end"] - e["begin"], e["t"]))
            elif e["event"] == "post_receive":
                receives[(e["peer"], r)].append((e["end"] - e["begin"], done.get(e["step"])))
    check(set(sends) == set(receives), f"execution {n}: the same pairs send and receive")
    for pair, sent in sends.items():
        got = receives.get(pair, [])
        check(len(sent) == len(got), f"execution {n} {pair}: {len(sent)} sends, {len(got)} receives")
        for k, ((elements, posted), (expected, arrived)) in enumerate(zip(sent, got)):
            check(elements == expected, f"execution {n} {pair} message {k}: {elements} sent, {expected} received")
            check(arrived is not None and arrived >= posted,
                  f"execution {n} {pair} message {k}: received at {arrived}, sent from {posted}")


if __name__ == "__main__":
    main()
