#!/usr/bin/env python3
"""Compares two CSVs of mpi_bench/smpi/grid.sh (before and after a change): prints every row whose simulated
median time differs by more than the threshold, every row found in one file only, every row whose plan (segments,
what ran, the plan it shared) changed, and a summary (rows compared, the largest |difference|).

  python3 mpi_bench/smpi/compare_grid.py BEFORE.csv AFTER.csv [--threshold PCT] [--common]
  e.g.  python3 mpi_bench/smpi/compare_grid.py /tmp/grid-base.csv /tmp/grid-new.csv

A row is keyed by (platform, collective, ranks, bytes, c, commutative, algorithm, late). --threshold: in percent
of BEFORE's median (default 0.5). --common: say nothing of rows found in one file only (to hold a partial run,
grid.sh with ONLY=..., against a whole one). Exit status 0 when nothing differs beyond the threshold and no row is
missing, 1 otherwise, 2 for a bad command line. after_last_median_us (with late ranks: the time after the last
arrival) is held to the same threshold.
"""
import argparse
import csv
import sys

KEY = ("platform", "collective", "ranks", "bytes", "c", "commutative", "algorithm", "late")
PLAN = ("segments", "ran", "same_plan_as")


def read(path):
    with open(path, newline="") as f:
        return {tuple(r[k] for k in KEY): r for r in csv.DictReader(f)}


def relative(before, after):
    b, a = float(before), float(after)
    if b == 0:
        return 0.0 if a == 0 else float("inf")
    return (a - b) / b * 100


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--threshold", type=float, default=0.5, help="percent (default 0.5)")
    parser.add_argument("--common", action="store_true", help="ignore rows found in one file only")
    args = parser.parse_args()
    before, after = read(args.before), read(args.after)

    def name(key):
        return " ".join("%s=%s" % (k, v) for k, v in zip(KEY, key))

    differing, plans, largest, largest_key, compared = [], [], 0.0, None, 0
    for key in sorted(set(before) & set(after)):
        b, a = before[key], after[key]
        compared += 1
        for column in ("median_us", "after_last_median_us"):
            if not b.get(column) or not a.get(column):
                continue
            diff = relative(b[column], a[column])
            if column == "median_us" and abs(diff) > abs(largest):
                largest, largest_key = diff, key
            if abs(diff) > args.threshold:
                differing.append("%s: %s %s -> %s us (%+.2f %%)" % (name(key), column, b[column], a[column], diff))
        changed = [c for c in PLAN if b.get(c, "") != a.get(c, "")]
        if changed:
            plans.append("%s: %s" % (name(key), ", ".join("%s %s -> %s" % (c, b.get(c), a.get(c)) for c in changed)))
    only_before = sorted(set(before) - set(after))
    only_after = sorted(set(after) - set(before))

    for line in differing:
        print("DIFF  " + line)
    for line in plans:
        print("PLAN  " + line)
    if not args.common:
        for key in only_before:
            print("ONLY IN %s: %s" % (args.before, name(key)))
        for key in only_after:
            print("ONLY IN %s: %s" % (args.after, name(key)))
    print("summary: %d rows compared, %d differ by more than %g %% (median or after-last), %d changed plan, "
          "max |diff| of the median %.4f %%%s; %d rows only in %s, %d only in %s"
          % (compared, len(differing), args.threshold, len(plans), abs(largest),
             " (%s)" % name(largest_key) if largest_key and largest else "",
             len(only_before), args.before, len(only_after), args.after))
    missing = (only_before or only_after) and not args.common
    return 1 if differing or missing or compared == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
