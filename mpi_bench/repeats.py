#!/usr/bin/python3
"""auto against native over repeated mpi_bench runs (made by repeat-sweep.sh), as Markdown.

    /usr/bin/python3 mpi_bench/repeats.py RUN.csv [RUN.csv ...]

One run is too noisy on a shared machine to tell a few per cent: for every (ranks, size), the median over the
runs of native / auto (the speedup: < 1, auto slower) with its smallest and largest, the median of auto against
the fastest algorithm of the same run (1.00: auto was the fastest), and what auto ran in the runs. The fastest of
many noisy algorithms in one run is biased low, so also: auto's median over the runs against the algorithm (not
auto) with the smallest median over the runs, and which that is.
"""
import csv
import statistics
import sys
from collections import defaultdict


def main():
    speedup, to_best, ran = defaultdict(list), defaultdict(list), defaultdict(set)
    times = defaultdict(lambda: defaultdict(list))  # (ranks, bytes) -> algorithm -> median_us of each run
    for path in sys.argv[1:]:
        with open(path, newline="") as f:
            runs = defaultdict(dict)
            for row in csv.DictReader(f):
                runs[(int(row["ranks"]), int(row["bytes"]))][row["algorithm"]] = row
        for key, algorithms in runs.items():
            if "native" not in algorithms or "auto" not in algorithms:
                continue
            for name, row in algorithms.items():
                times[key][name].append(float(row["median_us"]))
            auto = float(algorithms["auto"]["median_us"])
            speedup[key].append(float(algorithms["native"]["median_us"]) / auto)
            to_best[key].append(auto / min(float(row["median_us"]) for row in algorithms.values()))
            ran[key].add(algorithms["auto"]["ran"] or "?")
    print("| ranks | bytes | runs | native / auto: median | min | max | auto / best: median "
          "| auto / best over the runs | auto ran |")
    print("|---|---|---|---|---|---|---|---|---|")
    for key in sorted(speedup):
        s = speedup[key]
        medians = {name: statistics.median(t) for name, t in times[key].items()}
        best = min((t, name) for name, t in medians.items() if name != "auto")
        print(f"| {key[0]} | {key[1]} | {len(s)} | {statistics.median(s):.3f} | {min(s):.3f} | {max(s):.3f} "
              f"| {statistics.median(to_best[key]):.3f} | {medians['auto'] / best[0]:.3f} ({best[1]}) "
              f"| {', '.join(sorted(ran[key]))} |")


if __name__ == "__main__":
    main()
