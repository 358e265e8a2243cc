#!/usr/bin/env python3
"""Gathers an SMPI sweep (mpi_bench/smpi-sweep.sh): OUT_DIR/runs/*.csv -> OUT_DIR/results.csv, a summary on
stdout (and OUT_DIR/summary.txt), and plots (OUT_DIR/time-vs-ranks.png, OUT_DIR/speedup-vs-c.png).

  collect.py OUT_DIR

summary.txt says, per strategy, how far measured time is from predicted (simulated time is deterministic under
CM02: the model should hold exactly where its assumptions do), the speedups that the scale targets are about,
the MPI libraries' algorithms against the model's prediction for the trees they run (redux-plan --library-tree;
REDUX_PLAN names the tool, default build/libredux/tools/redux-plan), and which jobs failed (a wrong result makes
mpi_bench exit 1).
"""
import csv
import os
import re
import statistics
import subprocess
import sys
from collections import defaultdict

HEADER = ["platform", "ranks", "algorithm", "bytes", "c_over_d", "commutative", "measured_us", "predicted_us"]
NAME = re.compile(r"^(homo|racks)-(\d+)-(\d+)-c([0-9.]+)-(comm|noncomm)-(.+)\.csv$")


def read_runs(runs):
    rows = []
    for name in sorted(os.listdir(runs)):
        m = NAME.match(name)
        if not m:
            continue
        platform, ranks, size, ratio, comm, kind = m.groups()
        with open(os.path.join(runs, name)) as f:
            for r in csv.DictReader(f):
                algorithm = r["algorithm"] if kind == "libredux" else kind
                rows.append({"platform": platform, "ranks": int(ranks), "algorithm": algorithm,
                             "bytes": int(size), "c_over_d": ratio, "commutative": int(comm == "comm"),
                             "measured_us": float(r["median_us"]),
                             "predicted_us": "" if kind != "libredux" else r["predicted_us"]})
    return rows


# The tree SimGrid 3.32 runs for an MPI library's selector on one 8 B vector (src/smpi/colls: reduce__ompi,
# reduce__mpich, reduce__mvapich2 with its Stampede tables), at 12 ranks or more: Open MPI binomial (commutative)
# or in-order binary (not); MPICH binomial; MVAPICH2 two-level with a 4-nomial tree between node leaders (one rank
# per node here: every rank) when commutative, binomial when not. Nothing for larger vectors, where they
# segment or reduce-scatter. MVAPICH2's k-nomial reduce posts the receives of all its children at once, so their
# messages fly together: its tree is predicted with the platform's latency (2 us) in flight; the others receive
# one child at a time.
def library_tree(algorithm, ranks, size, commutative):
    if size != 8 or ranks < 12:
        return None, 0
    if algorithm == "mpi-ompi":
        return ("binomial" if commutative else "in-order-binary"), 0
    if algorithm in ("mpi-mpich", "mpi-binomial"):
        return "binomial", 0
    if algorithm == "mpi-mvapich2":
        return ("knomial:4", 2e-6) if commutative else ("binomial", 0)
    return None, 0


# d and c as smpi-sweep.sh sets them on the homogeneous platform (1 us and 10 Gbit/s per node link).
def homo_costs(size, ratio):
    d = 2e-6 + size * 8 / 10e9
    ns = 0 if float(ratio) == 0 else max(1, round(float(ratio) * d * 1e9 / (size // 8)))
    return d, ns * 1e-9 * (size // 8)


def predict_tree(tree, flight, ranks, size, ratio, commutative):
    tool = os.environ.get("REDUX_PLAN", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                                     "build", "libredux", "tools", "redux-plan"))
    d, c = homo_costs(size, ratio)
    command = [tool, "--library-tree", tree, "--ranks", str(ranks), "--d", repr(d), "--c", repr(c),
               "--flight", repr(flight)]
    if not commutative:
        command.append("--noncommutative")
    try:
        out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        print("collect: %s: %s" % (" ".join(command), e), file=sys.stderr)
        return None
    return float(re.search(r'"predicted_s": ([0-9.e+-]+)', out).group(1)) * 1e6


# measured (optimal / the library) against predicted (optimal's prediction / the library's tree's prediction)
def library_lines(rows):
    optimal = {}
    for r in rows:
        if r["algorithm"] == "optimal" and r["predicted_us"] not in ("", None):
            optimal[(r["platform"], r["ranks"], r["bytes"], r["c_over_d"], r["commutative"])] = r
    lines = ["", "the MPI libraries' algorithms against the model's prediction for the trees they run (homo, 8 B): "
             "measured / predicted, and the speedup of libredux's optimal tree over them, measured and predicted"]
    worst = []
    for r in sorted(rows, key=lambda r: (r["ranks"], float(r["c_over_d"]), -r["commutative"], r["algorithm"])):
        tree, flight = library_tree(r["algorithm"], r["ranks"], r["bytes"], r["commutative"]) \
            if r["platform"] == "homo" else (None, 0)
        mine = optimal.get((r["platform"], r["ranks"], r["bytes"], r["c_over_d"], r["commutative"]))
        if tree is None or mine is None:
            continue
        predicted = predict_tree(tree, flight, r["ranks"], r["bytes"], r["c_over_d"], r["commutative"])
        if predicted is None:
            continue
        measured_speedup = r["measured_us"] / mine["measured_us"]
        predicted_speedup = predicted / float(mine["predicted_us"])
        off = measured_speedup / predicted_speedup - 1
        worst.append((abs(off), r))
        lines.append("  %5d ranks c/d %-4s %-7s %-13s %-15s measured %9.2f us, predicted %9.2f (%.3f); "
                     "optimal's speedup %.3fx measured, %.3fx predicted (%+.1f %%)" % (
                         r["ranks"], r["c_over_d"], "comm" if r["commutative"] else "noncomm", r["algorithm"], tree,
                         r["measured_us"], predicted, r["measured_us"] / predicted, measured_speedup,
                         predicted_speedup, 100 * off))
    within = sum(1 for off, _ in worst if off <= 0.05)
    lines.append("  %d of %d within 5 %%" % (within, len(worst)))
    return lines


def summary(rows, jobs_file):
    lines = []
    ratios = defaultdict(list)
    for r in rows:
        if r["predicted_us"] not in ("", None) and r["algorithm"] != "auto":
            ratios[(r["platform"], r["algorithm"])].append((r["measured_us"] / float(r["predicted_us"]), r))
    lines.append("measured / predicted per strategy (all sizes, ranks, c/d): median [min, max], share within 2 %")
    for (platform, algorithm), values in sorted(ratios.items()):
        v = [x for x, _ in values]
        within = sum(1 for x in v if abs(x - 1) <= 0.02)
        worst = max(values, key=lambda p: abs(p[0] - 1))[1]
        lines.append("  %-6s %-14s %.3f [%.3f, %.3f]  %d/%d within 2 %%  (worst: %d ranks, %d B, c/d %s, %s)" % (
            platform, algorithm, statistics.median(v), min(v), max(v), within, len(v), worst["ranks"],
            worst["bytes"], worst["c_over_d"], "comm" if worst["commutative"] else "noncomm"))
    by_config = defaultdict(dict)
    for r in rows:
        key = (r["platform"], r["ranks"], r["bytes"], r["c_over_d"], r["commutative"])
        by_config[key][r["algorithm"]] = r["measured_us"]
    lines.append("")
    lines.append("per configuration: auto, optimal, binomial (libredux's), best libredux, and the MPI libraries' "
                 "algorithms (us); speedups of auto over each")
    for key in sorted(by_config):
        t = by_config[key]
        mine = {a: v for a, v in t.items() if not a.startswith("mpi-")}
        theirs = {a: v for a, v in t.items() if a.startswith("mpi-")}
        if not mine:
            continue
        best = min(mine, key=mine.get)
        parts = ["%s %d ranks %8d B c/d %-4s %-7s" % (key[0], key[1], key[2], key[3],
                                                     "comm" if key[4] else "noncomm")]
        for a in ("auto", "optimal", "binomial"):
            if a in t:
                parts.append("%s %.1f" % (a, t[a]))
        parts.append("best %s %.1f" % (best, mine[best]))
        for a in sorted(theirs):
            speed = " (auto %.2fx)" % (theirs[a] / t["auto"]) if "auto" in t else ""
            parts.append("%s %.1f%s" % (a, theirs[a], speed))
        if "optimal" in t and "binomial" in t:
            parts.append("optimal/binomial speedup %.2fx" % (t["binomial"] / t["optimal"]))
        lines.append("  " + ", ".join(parts))
    lines += library_lines(rows)
    if os.path.exists(jobs_file):
        failed = [l.split() for l in open(jobs_file) if l.split() and l.split()[1] != "0"]
        total = sum(int(l.split()[2]) for l in open(jobs_file) if l.split())
        lines.append("")
        lines.append("jobs: %d failed%s; %d s of job time in all" % (
            len(failed), "".join("\n  %s exit %s" % (f[0], f[1]) for f in failed), total))
    return "\n".join(lines)


def plots(rows, out):
    here = os.path.dirname(os.path.abspath(__file__))  # its platform.py would hide the standard module
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("collect: matplotlib missing, no plots", file=sys.stderr)
        return
    # time against ranks, per algorithm: homo, 8 B, c/d 1, commutative
    for platform, size, ratio in (("homo", 8, "1"), ("homo", 65536, "1")):
        series = defaultdict(list)
        for r in rows:
            if (r["platform"], r["bytes"], r["c_over_d"], r["commutative"]) == (platform, size, ratio, 1):
                series[r["algorithm"]].append((r["ranks"], r["measured_us"]))
        if not series:
            continue
        fig, ax = plt.subplots(figsize=(8, 5))
        for algorithm, points in sorted(series.items()):
            points.sort()
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o",
                    linestyle="--" if algorithm.startswith("mpi-") else "-", label=algorithm)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("ranks (simulated)")
        ax.set_ylabel("MPI_Reduce time (us, simulated)")
        ax.set_title("%s platform, %d B, c/d = %s, commutative" % (platform, size, ratio))
        ax.legend(fontsize=7, ncol=2)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "time-vs-ranks-%s-%dB.png" % (platform, size)), dpi=110)
        plt.close(fig)
    # speedup of auto over each MPI library's algorithm against c/d (homo, commutative, 256 ranks)
    fig, axes = plt.subplots(1, 3, figsize=(13, 4), sharey=True)
    for ax, size in zip(axes, (8, 65536, 4194304)):
        table = defaultdict(dict)
        for r in rows:
            if (r["platform"], r["ranks"], r["bytes"], r["commutative"]) == ("homo", 256, size, 1):
                table[r["c_over_d"]][r["algorithm"]] = r["measured_us"]
        for selector in ("mpi-ompi", "mpi-mpich", "mpi-mvapich2", "mpi-binomial"):
            points = sorted((float(c), t[selector] / t["auto"]) for c, t in table.items()
                            if selector in t and "auto" in t)
            if points:
                ax.plot([max(p[0], 0.01) for p in points], [p[1] for p in points], marker="o", label=selector)
        ax.axhline(1, color="grey", linewidth=0.8)
        ax.set_xscale("log")
        ax.set_title("%d B, 256 ranks (c/d = 0 drawn at 0.01)" % size, fontsize=9)
        ax.set_xlabel("c / d")
    axes[0].set_ylabel("speedup of auto (their time / auto's)")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "speedup-vs-c.png"), dpi=110)
    plt.close(fig)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    rows = read_runs(os.path.join(out, "runs"))
    with open(os.path.join(out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=HEADER)
        w.writeheader()
        for r in sorted(rows, key=lambda r: (r["platform"], r["ranks"], r["bytes"], float(r["c_over_d"]),
                                              -r["commutative"], r["algorithm"])):
            w.writerow(r)
    text = summary(rows, os.path.join(out, "runs", "jobs.txt"))
    with open(os.path.join(out, "summary.txt"), "w") as f:
        f.write(text + "\n")
    print(text)
    plots(rows, out)


if __name__ == "__main__":
    main()
