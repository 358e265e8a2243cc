#!/usr/bin/python3
"""Turns mpi_bench's CSV files into PNG plots (Debian's python3-matplotlib).

    /usr/bin/python3 mpi_bench/plot.py RESULTS.csv [MORE.csv ...] [--costs COSTS.csv ...] [--out DIR]

For every (op, ranks) in the results, latency-<op>-np<ranks>.png: the median latency against the message
size, one line per algorithm with its interquartile range shaded, and the planner's prediction for optimal
dashed. With --costs (the files of
mpi_bench --costs-csv), speedup-vs-cd.png: each planned algorithm's speedup over native against c/d, the
ratio of the measured op cost to the measured transfer cost of the same (op, ranks, size); commutative ops
on the left, ops registered non-commutative on the right. Written to --out (default: the directory
of the first CSV). CSV files of earlier versions (avg_us, which held the median, and no quartiles) are read too.
"""
import argparse
import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HEADER = ["algorithm", "op", "ranks", "bytes", "count", "iterations", "median_us", "mean_us", "q1_us", "q3_us",
          "min_us", "max_us", "predicted_us", "segments", "ran", "same_plan_as", "speedup_vs_native"]
OLD_HEADER = ["algorithm", "op", "ranks", "bytes", "count", "avg_us", "min_us", "max_us", "predicted_us",
              "speedup_vs_native"]
COSTS_HEADER = ["op", "ranks", "bytes", "count", "transfer_us", "compute_us", "source"]
ALGORITHM_ORDER = ["native", "optimal", "fibonacci", "binomial", "chain", "binary", "ksss", "snf",
                   "hetero-greedy", "two-level", "auto"]
STYLE = {"native": ("k", "o"), "optimal": ("tab:blue", "s"), "fibonacci": ("tab:green", "^"),
         "binomial": ("tab:orange", "v"), "chain": ("tab:brown", "<"), "binary": ("tab:olive", ">"),
         "ksss": ("tab:red", "h"),
         "snf": ("tab:cyan", "D"), "hetero-greedy": ("tab:pink", "P"), "two-level": ("tab:gray", "*"),
         "auto": ("tab:purple", "x")}


def algorithm_order(name):
    return (ALGORITHM_ORDER.index(name) if name in ALGORITHM_ORDER else len(ALGORITHM_ORDER), name)


def read_csv(path, header, old_header=None):
    with open(path, newline="") as f:
        reader = csv.reader(f)
        first = next(reader, None)
        if first == old_header:  # avg_us held the median
            return [{**dict(zip(old_header, row)), "median_us": row[5]} for row in reader if row]
        if first is None or first[:len(header)] != header:  # later versions add columns at the end
            sys.exit(f"plot.py: {path}: the header does not start with {','.join(header)}")
        return [dict(zip(first, row)) for row in reader if row]


def file_name(text):
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)


def plot_latency(rows, out_dir):
    groups = defaultdict(list)
    for row in rows:
        groups[(row["op"], int(row["ranks"]))].append(row)
    written = []
    for (op, ranks), group in sorted(groups.items()):
        if len({r["bytes"] for r in group}) < 2:
            continue  # one size: nothing to draw against size
        fig, ax = plt.subplots(figsize=(7, 4.5))
        algorithms = sorted({r["algorithm"] for r in group}, key=algorithm_order)
        for algorithm in algorithms:
            rows_of = sorted((r for r in group if r["algorithm"] == algorithm), key=lambda r: int(r["bytes"]))
            points = [(int(r["bytes"]), float(r["median_us"]), r["predicted_us"]) for r in rows_of]
            color, marker = STYLE.get(algorithm, (None, "."))
            lines = ax.plot([p[0] for p in points], [p[1] for p in points], marker=marker, color=color,
                            label=algorithm)
            if all(r.get("q1_us") and r.get("q3_us") for r in rows_of):
                ax.fill_between([p[0] for p in points], [float(r["q1_us"]) for r in rows_of],
                                [float(r["q3_us"]) for r in rows_of], color=lines[0].get_color(), alpha=0.15,
                                linewidth=0)
            if algorithm == "optimal" and all(p[2] for p in points):
                ax.plot([p[0] for p in points], [float(p[2]) for p in points], linestyle="--", color=color,
                        alpha=0.6, label="optimal, predicted")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("message size (bytes)")
        ax.set_ylabel("latency (us), median and interquartile range")
        ax.set_title(f"MPI_Reduce, op {op}, {ranks} ranks")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        path = os.path.join(out_dir, f"latency-{file_name(op)}-np{ranks}.png")
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def plot_speedup(rows, costs, out_dir):
    ratio = {}
    for c in costs:
        transfer, compute = float(c["transfer_us"]), float(c["compute_us"])
        if transfer > 0:
            ratio[(c["op"], c["ranks"], c["bytes"])] = compute / transfer
    def usable(r):
        return r["algorithm"] != "native" and r["speedup_vs_native"] and (r["op"], r["ranks"], r["bytes"]) in ratio

    kinds = [nc for nc in (False, True) if any(usable(r) and r["op"].endswith("/noncommutative") == nc for r in rows)]
    if not kinds:
        return []
    fig, axes = plt.subplots(1, len(kinds), figsize=(5.5 * len(kinds) + 0.5, 4.5), sharey=True, squeeze=False)
    axes = axes[0]
    plotted = False
    for ax, noncommutative in zip(axes, kinds):
        for algorithm in sorted({r["algorithm"] for r in rows if r["algorithm"] != "native"}, key=algorithm_order):
            points = sorted((ratio[(r["op"], r["ranks"], r["bytes"])], float(r["speedup_vs_native"])) for r in rows
                            if r["algorithm"] == algorithm and usable(r)
                            and r["op"].endswith("/noncommutative") == noncommutative)
            if not points:
                continue
            color, marker = STYLE.get(algorithm, (None, "."))
            ax.scatter([p[0] for p in points], [p[1] for p in points], color=color, marker=marker, label=algorithm,
                       alpha=0.8)
            plotted = True
        ax.axhline(1.0, color="k", linewidth=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("c / d (measured op cost / measured transfer cost)")
        ax.set_title("non-commutative ops" if noncommutative else "commutative ops")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="small")
    axes[0].set_ylabel("speedup over the MPI library's MPI_Reduce")
    if not plotted:
        plt.close(fig)
        return []
    path = os.path.join(out_dir, "speedup-vs-cd.png")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return [path]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="+", help="mpi_bench --csv files")
    parser.add_argument("--costs", nargs="*", default=[], help="mpi_bench --costs-csv files")
    parser.add_argument("--out", help="directory for the PNG files (default: that of the first CSV)")
    args = parser.parse_args()
    out_dir = args.out or os.path.dirname(os.path.abspath(args.results[0]))
    os.makedirs(out_dir, exist_ok=True)
    rows = [row for path in args.results for row in read_csv(path, HEADER, OLD_HEADER)]
    costs = [row for path in args.costs for row in read_csv(path, COSTS_HEADER)]
    written = plot_latency(rows, out_dir)
    if costs:
        written += plot_speedup(rows, costs, out_dir)
    for path in written:
        print(path)


if __name__ == "__main__":
    main()
