#!/usr/bin/python3
"""Throughput of a series of reductions against the vector's size: measured algorithms and the steady state's bound.

    /usr/bin/python3 mpi_bench/throughput_plot.py RUN.csv STEADY.json|forecast OUT_PREFIX

RUN.csv: mpi_bench --csv rows (one run, several sizes). STEADY.json: `redux-plan --steady-state --element-bytes B
--format json` for the platform (its bytes_per_second is the linear program's throughput TP, the most any
schedule of segments over any trees reduces per second, up to the costs it was given). `forecast` instead: the
bound at each size is the multi-tree row's own prediction (predicted_us: the steady state of the library's
calibrated costs with shared links, fill + (m - 1) / TP), for platforms without a cost file. Writes OUT_PREFIX.png
(bytes reduced per second against the size, log-log: native, the best single tree of the run, multi-tree, auto,
and TP as a line) and OUT_PREFIX.md (the same as a table, with each algorithm's share of TP and auto / native).
"Best single tree" is the fastest libredux algorithm of the run at that size that runs one tree per segment
(every strategy but multi-tree and two-tree), named in the table.
"""
import csv
import json
import sys
from collections import defaultdict

SEVERAL_TREES = {"multi-tree", "two-tree"}
NOT_TREES = {"native", "auto"}


def load(path):
    rows = defaultdict(dict)  # bytes -> algorithm -> median seconds
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            rows[int(row["bytes"])][row["algorithm"]] = float(row["median_us"]) * 1e-6
    return rows


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    rows = load(sys.argv[1])
    forecast = sys.argv[2] == "forecast"
    tp_of = {}  # bytes -> the bound in bytes per second
    if forecast:
        with open(sys.argv[1], newline="") as f:
            for row in csv.DictReader(f):
                if row["algorithm"] == "multi-tree" and row["predicted_us"]:
                    tp_of[int(row["bytes"])] = int(row["bytes"]) / (float(row["predicted_us"]) * 1e-6)
    else:
        with open(sys.argv[2]) as f:
            tp = float(json.load(f)["bytes_per_second"])
        tp_of = {size: tp for size in rows}
    table = ["| bytes | native B/s | best single tree B/s | multi-tree B/s | auto B/s | TP B/s "
             "| auto / TP | auto / native |", "|---|---|---|---|---|---|---|---|"]
    series = defaultdict(list)  # name -> [(bytes, bytes per second)]
    for size in sorted(rows):
        times = rows[size]
        singles = {a: t for a, t in times.items() if a not in SEVERAL_TREES | NOT_TREES}
        best = min(singles, key=singles.get) if singles else None
        cells = {"native": times.get("native"), "best": singles.get(best), "multi-tree": times.get("multi-tree"),
                 "auto": times.get("auto")}
        for name, t in cells.items():
            if t:
                series[name].append((size, size / t))
        rate = {name: (f"{size / t:.4g}" if t else "-") for name, t in cells.items()}
        tp = tp_of.get(size)
        auto_tp = f"{size / cells['auto'] / tp:.3f}" if cells["auto"] and tp else "-"
        auto_native = f"{cells['native'] / cells['auto']:.2f}x" if cells["auto"] and cells["native"] else "-"
        table.append(f"| {size} | {rate['native']} | {rate['best']} ({best}) | {rate['multi-tree']} | {rate['auto']} "
                     f"| {f'{tp:.4g}' if tp else '-'} | {auto_tp} | {auto_native} |")
    with open(sys.argv[3] + ".md", "w") as f:
        f.write("\n".join(table) + "\n")
    print("\n".join(table))

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5))
    labels = {"native": "native (MPI library)", "best": "best single tree", "multi-tree": "multi-tree",
              "auto": "auto"}
    for name, label in labels.items():
        if series[name]:
            x, y = zip(*series[name])
            ax.plot(x, y, marker="o", label=label)
    bound = sorted(tp_of.items())
    if bound:
        label = "multi-tree forecast (steady state)" if forecast else "steady state TP (LP)"
        ax.plot([b for b, _ in bound], [r for _, r in bound], linestyle="--", color="black", label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("vector size (bytes)")
    ax.set_ylabel("bytes reduced per second")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(sys.argv[3] + ".png", dpi=120)


if __name__ == "__main__":
    main()
