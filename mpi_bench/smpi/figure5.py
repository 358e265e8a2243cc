#!/usr/bin/env python3
"""Benoit, Canon & Marchal's Figure 5 (mean makespan of Fibonacci-stat over Tree-dyn, 64 ranks, over the
coefficient of variation of the op's cost and mu_c / mu_d) with libredux's real code on simulated ranks, next to
libredux's simulation of the same study.

  figure5.py BENCH RUN_SH PLATFORM_PY STUDY OUT.csv [--iterations N] [--warmup N] [--cvs 0.1,1] [--ratios 0.1,1]
                                                    [--algorithms fibonacci,tree-dyn,auto]

BENCH: mpi_bench built with smpicxx; RUN_SH: mpi_bench/smpi/run.sh; PLATFORM_PY: mpi_bench/smpi/platform.py;
STUDY: redux-study (any build). Each grid point runs mpi_bench on 64 simulated ranks of one switch (1 us and
10 Gbit/s per node link: a transfer of 8 B takes d = 2 us), one double per rank, a commutative op costing
delay:NS per application with NS = mu_c / mu_d x 2 us, drawn afresh per application from a gamma law of that
coefficient of variation (--op-cost-cv), and REDUX_C set to the mean cost, so that the Fibonacci tree is planned
with the means (the paper's "stat"). Every algorithm meets the same draws in each iteration; the ratios are of
mean latencies over the iterations: fibonacci's over each other algorithm's (> 1: that one is faster on average).
With auto in the list, give it --warmup calls to decide first (about 100). The simulated network is fixed: only
the op's cost varies. The simulation's
ratios are given twice: with the transfers fixed as here (redux-study overlap --transfer-cv 0) and with the
transfers drawn with the same CV (the paper's setting).
"""
import argparse
import csv
import os
import subprocess
import sys
import tempfile

D_S = 2e-6  # two links of 1 us; 8 B at 10 Gbit/s add 6.4 ns


def study_ratios(study, extra):
    out = subprocess.run([study, "overlap", "--ranks", "64", "--runs", "1000", "--seed", "1"] + extra,
                         capture_output=True, text=True, check=True).stdout
    rows = csv.DictReader(line for line in out.splitlines() if not line.startswith("#"))
    return {(float(r["cv"]), float(r["compute_ratio"])): float(r["fibonacci_stat"]) / float(r["tree_dyn"])
            for r in rows}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for name in ("bench", "run_sh", "platform_py", "study", "out"):
        parser.add_argument(name)
    parser.add_argument("--iterations", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--algorithms", default="fibonacci,tree-dyn")
    parser.add_argument("--cvs", default="0.1,0.5,1,2")
    parser.add_argument("--ratios", default="0.1,0.3,1,3")
    args = parser.parse_args()
    algorithms = args.algorithms.split(",")
    if algorithms[:2] != ["fibonacci", "tree-dyn"]:
        sys.exit("figure5: --algorithms must start with fibonacci,tree-dyn")
    fixed = study_ratios(args.study, ["--transfer-cv", "0"])
    paper = study_ratios(args.study, [])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "homo-64")
        subprocess.run([sys.executable, args.platform_py, "homo", "64", "1us", "10Gbps", prefix], check=True,
                       capture_output=True)
        for cv in [float(x) for x in args.cvs.split(",")]:
            for ratio in [float(x) for x in args.ratios.split(",")]:
                c_s = ratio * D_S
                out = os.path.join(tmp, "point.csv")
                command = [args.run_sh, prefix, "64", "--", args.bench, "--sizes", "8", "--iterations",
                           str(args.iterations), "--warmup", str(args.warmup), "--sync", "window", "--op",
                           "delay:%d" % round(c_s * 1e9), "--op-cost-cv", "%g" % cv, "--algorithms",
                           args.algorithms, "--csv", out]
                done = subprocess.run(command, capture_output=True, text=True, timeout=1200,
                                      env=dict(os.environ, REDUX_C="%g" % c_s))
                if done.returncode != 0:
                    print(done.stdout[-3000:], done.stderr[-3000:], sep="\n")
                    sys.exit("figure5: mpi_bench exited %d: %s" % (done.returncode, " ".join(command)))
                with open(out) as f:
                    found = list(csv.DictReader(f))
                mean = {r["algorithm"]: float(r["mean_us"]) for r in found}
                ran = {r["algorithm"]: r["ran"] for r in found}
                row = {"cv": cv, "compute_ratio": ratio}
                for name in algorithms:
                    row[name.replace("-", "_") + "_mean_us"] = mean[name]
                row["ratio"] = mean["fibonacci"] / mean["tree-dyn"]
                for name in algorithms[2:]:
                    row["fibonacci_over_" + name.replace("-", "_")] = mean["fibonacci"] / mean[name]
                if "auto" in ran:
                    row["auto_ran"] = ran["auto"]
                row["simulated_ratio_fixed_transfers"] = fixed.get((cv, ratio), float("nan"))
                row["simulated_ratio_paper"] = paper.get((cv, ratio), float("nan"))
                rows.append(row)
                others = "".join("  %s %8.2f us" % (name, mean[name]) for name in algorithms[2:])
                print("cv %-4g c/d %-4g  fibonacci %8.2f us  tree-dyn %8.2f us%s  ratio %.3f  simulated %.3f "
                      "(transfers drawn too: %.3f)%s" % (cv, ratio, mean["fibonacci"], mean["tree-dyn"], others,
                                                        row["ratio"], row["simulated_ratio_fixed_transfers"],
                                                        row["simulated_ratio_paper"],
                                                        "  auto ran " + ran["auto"] if "auto" in ran else ""),
                      flush=True)
    with open(args.out, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    main()
