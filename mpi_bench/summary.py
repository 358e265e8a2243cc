#!/usr/bin/python3
"""The issue's targets, computed from mpi_bench CSV files (made by cluster-sweep.sh), as Markdown.

    /usr/bin/python3 mpi_bench/summary.py --delay delay.csv --costs delay.costs.csv [--sum sum.csv]

1. For every delay run (one op, one size): c/d, native and optimal latency, optimal's speedup over native
   (target at c ~ d: >= 1.2 commutative, >= 2 non-commutative) and optimal's latency against the planner's
   prediction (target: within 20%).
2. Where c << d (every size of the sum sweep, and delay runs with c/d <= 0.2): auto's latency against the
   best algorithm's (target: within 5%). Algorithms that ran the same plan (the CSV's same_plan_as; the table
   shows them once, "=NAME") count once, by the first of them: the best is the fastest distinct plan, and auto,
   when it ran that very plan, is at it (1.000, "same plan"): two measurements of one plan differ only by
   noise, and the fastest of several such samples is not a faster algorithm. The count of the old rule (every
   column on its own) is printed beside it.
"""
import argparse
import csv
from collections import defaultdict


def rows_of(path):
    """The rows of an mpi_bench CSV; files of earlier versions had the median under the name avg_us."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        if "median_us" not in row and "avg_us" in row:
            row["median_us"] = row["avg_us"]
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--delay", required=True)
    parser.add_argument("--costs", required=True)
    parser.add_argument("--sum")
    args = parser.parse_args()

    costs = {(c["op"], c["bytes"]): c for c in rows_of(args.costs)}
    runs = defaultdict(dict)
    for row in rows_of(args.delay):
        runs[(row["op"], row["bytes"])][row["algorithm"]] = row

    print("| op | bytes | d (us) | c (us) | c/d | native (us) | optimal (us) | speedup | predicted (us) "
          "| measured / predicted |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    ordered = sorted(runs.items(), key=lambda item: (item[0][0].endswith("/noncommutative"), int(item[0][1]),
                                                      float(costs[item[0]]["compute_us"])))
    for (op, size), algorithms in ordered:
        cost = costs[(op, size)]
        d, c = float(cost["transfer_us"]), float(cost["compute_us"])
        native, optimal = algorithms.get("native"), algorithms.get("optimal")
        if not native or not optimal:
            continue
        predicted = float(optimal["predicted_us"])
        print(f"| {op} | {size} | {d:.0f} | {c:.0f} | {c / d:.2f} | {float(native['median_us']):.0f} "
              f"| {float(optimal['median_us']):.0f} | {float(optimal['speedup_vs_native']):.2f} | {predicted:.0f} "
              f"| {float(optimal['median_us']) / predicted:.2f} |")

    print()
    print("c << d: auto against the best algorithm of the same run (target: within 5%)")
    print()
    print("| run | bytes | c/d | best | best (us) | auto (us) | auto / best |")
    print("|---|---|---|---|---|---|---|")
    cases = []
    if args.sum:
        by_size = defaultdict(dict)
        for row in rows_of(args.sum):
            by_size[row["bytes"]][row["algorithm"]] = row
        cases += [("sum", size, None, algorithms) for size, algorithms in sorted(by_size.items(), key=lambda x: int(x[0]))]
    for (op, size), algorithms in ordered:
        cost = costs[(op, size)]
        ratio = float(cost["compute_us"]) / float(cost["transfer_us"])
        if ratio <= 0.2:
            cases.append((op, size, ratio, algorithms))
    within = within_columns = 0
    for op, size, ratio, algorithms in cases:
        if "auto" not in algorithms:
            continue
        auto_row = algorithms["auto"]
        auto = float(auto_row["median_us"])
        plan_of = {name: (row.get("same_plan_as") or name) for name, row in algorithms.items()}
        distinct = [row for name, row in algorithms.items() if name != "auto" and plan_of[name] == name]
        best = min(distinct or algorithms.values(), key=lambda r: float(r["median_us"]))
        same_plan = plan_of["auto"] == best["algorithm"]
        factor = 1.0 if same_plan else auto / float(best["median_us"])
        within += factor <= 1.05
        within_columns += auto / min(float(r["median_us"]) for r in algorithms.values()) <= 1.05
        ratio_text = "~0" if ratio is None else f"{ratio:.2f}"
        print(f"| {op} | {size} | {ratio_text} | {best['algorithm']} | {float(best['median_us']):.0f} | {auto:.0f} "
              f"| {factor:.3f}{' (same plan)' if same_plan else ''} |")
    print()
    print(f"auto within 5% of the best distinct plan in {within} of {len(cases)} cases "
          f"(every column on its own, same plans measured apart: {within_columns} of {len(cases)})")


if __name__ == "__main__":
    main()
