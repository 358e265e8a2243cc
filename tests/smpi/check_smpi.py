#!/usr/bin/env python3
"""libredux on 64 simulated ranks (SimGrid SMPI, CM02): every strategy gives the right result, and its measured
time is its predicted time.

  check_smpi.py BENCH RUN_SH PLATFORM_PY

Runs mpi_bench (built with smpicxx) under mpi_bench/smpi/run.sh on a 64-node platform (one switch, 10 Gbit/s and
1 us per node link) written by mpi_bench/smpi/platform.py: MPI_SUM on doubles (commutative, c = 0) at 8 B (latency-bound:
receives posted together arrive together) and 64 KiB, spin:201 (c/d 0.1) at 8 B, and spin:7 not
commutative (c about d) at 64 KiB; and MPI_SUM at 4 MiB on 16 nodes of the same platform (at 64 ranks the pipelines'
hundreds of segments take half an hour to simulate on a 2-core machine, at 16 four minutes; the model's gaps are
the same there: two-tree 1.037 at 64 ranks, 1.035 at 16);
every strategy, and auto but at 4 MiB (its trials there take minutes to simulate); one timed iteration after a
warm-up, from an agreed start. mpi_bench checks every algorithm's result against its own sequential reduction
before and after timing and exits 1 on a wrong one.

Time under CM02 is deterministic: a strategy's measured time must be its prediction within 2 %. Where the model
is known not to describe what the simulation does, the case is listed in KNOWN_GAPS with the reason, and held to
that looser bound instead (so that it still fails if it gets worse); a known gap that closes fails too, so the
list stays true. Tree-dyn chooses its pairs while it runs: its prediction (the model's best tree, plus the
matchmaker's messages) is a lower bound, and it is held to that alone (LOWER_BOUND_ONLY).
"""
import os
import subprocess
import sys
import tempfile

from bench_job import run_bench

TOLERANCE = 0.02
# (strategy, bytes, op or None for both) -> (lowest, highest) measured / predicted, and why it is not within 2 %.
KNOWN_GAPS = {
    ("two-tree", 4194304, "sum"): (1.02, 1.12, "in a hundred segments and more the sharing of a rank's link by its "
                                   "sends in the two trees does not settle (the model takes its last pass)"),
    ("reduce-scatter", 8, "sum"): (1.02, 1.08, "Rabenseifner's reduce of one element on 64 ranks: its last step, every "
                                   "active rank's block to the root at once (all empty but one), takes 0.8 us more "
                                   "than the one message the model counts; why is not measured yet"),
}
WIDE_TREE = ("c/d 0.1 at 8 B: the root of a wide tree folds children that arrive together; the simulation takes "
             "about one fold more than the model")
KNOWN_GAPS[("optimal", 8, "spin")] = (1.02, 1.06, WIDE_TREE)
KNOWN_GAPS[("ksss", 8, "spin")] = (1.02, 1.06, WIDE_TREE)
LOWER_BOUND_ONLY = {"tree-dyn"}


def run(bench, run_sh, prefix, ranks, sizes, op_args, csv_path):
    command = [run_sh, prefix, ranks, "--", bench, "--sizes", sizes, "--iterations", "1", "--warmup", "1",
               "--sync", "window"] + op_args
    return run_bench(command, csv_path, 1200)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    bench, run_sh, platform_py = sys.argv[1:]
    failures, checked = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        prefixes = {}
        for ranks in ("64", "16"):
            prefixes[ranks] = os.path.join(tmp, "homo-" + ranks)
            subprocess.run([sys.executable, platform_py, "homo", ranks, "1us", "10Gbps", prefixes[ranks]], check=True,
                           capture_output=True)
        strategies = "optimal,fibonacci,binomial,chain,binary,ksss,two-tree"
        jobs = (("64", "sum", "8", ["--op", "sum"]),
                ("64", "spin", "8", ["--op", "spin:201"]),
                ("64", "sum", "65536", ["--op", "sum"]),
                ("16", "sum", "4194304", ["--op", "sum", "--algorithms", strategies]),
                ("64", "spin", "65536", ["--op", "spin:7", "--noncommutative"]))
        for number, (ranks, op, sizes, op_args) in enumerate(jobs):
            rows = run(bench, run_sh, prefixes[ranks], ranks, sizes, op_args, os.path.join(tmp, "%d.csv" % number))
            predicted = {r["algorithm"] for r in rows if r["predicted_us"]}
            if not set(strategies.split(",")) <= predicted:
                failures.append("%s %s: only %s have a prediction" % (op, sizes, sorted(predicted)))
            for r in rows:
                # auto's prediction is that of the plan the model ranks first; it runs the one its trials found
                # fastest, checked in that strategy's own row
                if not r["predicted_us"] or r["algorithm"] == "auto":
                    continue
                ratio = float(r["median_us"]) / float(r["predicted_us"])
                key = (r["algorithm"], int(r["bytes"]))
                low, high, why = KNOWN_GAPS.get(key + (op,), KNOWN_GAPS.get(key + (None,), (
                    1 - TOLERANCE, 1 + TOLERANCE, "")))
                if r["algorithm"] in LOWER_BOUND_ONLY:
                    low, high, why = 1 - TOLERANCE, float("inf"), "pairs chosen at run time: a lower bound"
                line = "%-9s %-10s %8s B %-4s measured %10.2f us predicted %10.2f us ratio %.3f %s" % (
                    r["algorithm"], "(" + r["ran"] + ")", r["bytes"], op, float(r["median_us"]),
                    float(r["predicted_us"]), ratio, "[known gap: %s]" % why if why else "")
                print(line)
                checked += 1
                if not low <= ratio <= high:
                    failures.append(line + " outside [%.2f, %.2f]" % (low, high))
                elif why and high != float("inf") and abs(ratio - 1) <= TOLERANCE:
                    failures.append(line + " is within 2 %%: the gap closed, take it off KNOWN_GAPS")
    if checked == 0:
        failures.append("no row with a prediction")
    for f in failures:
        print("FAIL: " + f)
    if failures:
        sys.exit(1)
    print("PASS: %d predictions checked" % checked)


if __name__ == "__main__":
    main()
