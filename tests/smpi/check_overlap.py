#!/usr/bin/env python3
"""libredux's nonblocking reductions on 8 simulated ranks (SimGrid SMPI, CM02): right results, and the transfers
hidden under the application's work.

  check_overlap.py BENCH RUN_SH PLATFORM_PY

Platform: 8 nodes on one switch, each on a link of 500 us and 1 Gbit/s (a message crosses two: 1 ms), as the
emulated cluster of docs/performance.md. mpi_bench (built with smpicxx) runs MPI_Iallreduce of 1 MiB of floats with
spin:150 (150 ns of op per element, injected into the simulation), not commutative, under the reduce-scatter
strategy (recursive halving), with 50 ms of work in 50 us slices and a test between slices, and the same call
blocking. mpi_bench checks every result against its own sequential reduction and exits 1 on a wrong one.

With simulated ranks the op's time and the work take the rank's one core in turn, and the transfers take none.
Recursive halving on 8 ranks folds 1/2 + 1/4 + 1/8 of the vector at every rank, so no rank can finish before

    bound = work + 7/8 x elements x 150 ns = 50 ms + 34.406 ms

and a run that overlaps nothing takes work + the blocking call's time (99.4 ms). The nonblocking call must come
within 1 % of the bound (time is exact under CM02: the transfers, 15 ms of the blocking call, are all hidden), and
its plan must be libredux's (mpi_bench's `ran` column), not the library's own.

A second job checks results only: MPI_Ireduce, MPI_Iallreduce and MPI_Ireduce_scatter_block at 8 B, 4 KiB and
256 KiB, MPI_SUM and a non-commutative op, every strategy of the list and auto, on 7 ranks.
"""
import os
import subprocess
import sys
import tempfile

from bench_job import run_bench

ELEMENTS = 1048576 // 4
OP_NS = 150
WORK_US = 50000
TOLERANCE = 0.01


def run(command, csv_path):
    return run_bench(command, csv_path, 600)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    bench, run_sh, platform_py = sys.argv[1:]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        cluster, seven = os.path.join(tmp, "cluster"), os.path.join(tmp, "seven")
        subprocess.run([sys.executable, platform_py, "homo", "8", "500us", "1Gbps", cluster], check=True,
                       capture_output=True)
        subprocess.run([sys.executable, platform_py, "homo", "7", "1us", "10Gbps", seven], check=True,
                       capture_output=True)
        common = ["--sizes", "1M", "--datatype", "float", "--op", "spin:%d" % OP_NS, "--noncommutative",
                  "--algorithms", "reduce-scatter", "--iterations", "1", "--warmup", "1", "--sync", "window"]
        launch = [run_sh, cluster, "8", "--", bench]
        blocking = run(launch + ["--collective", "allreduce"] + common, os.path.join(tmp, "blocking.csv"))
        overlapped = run(launch + ["--collective", "iallreduce", "--overlap", str(WORK_US)] + common,
                         os.path.join(tmp, "nonblocking.csv"))
        alone_us = float(blocking[0]["median_us"])
        row = overlapped[0]
        measured_us = float(row["median_us"])
        bound_us = WORK_US + 7 / 8 * ELEMENTS * OP_NS / 1000
        print("MPI_Iallreduce 1 MiB, 8 ranks, reduce-scatter (ran %s): %.2f us with %d us of work; bound %.2f us "
              "(ratio %.4f); blocking alone %.2f us, without overlap %.2f us"
              % (row["ran"], measured_us, WORK_US, bound_us, measured_us / bound_us, alone_us, alone_us + WORK_US))
        if row["ran"] != "reduce-scatter":
            failures.append("the nonblocking call ran %s, not libredux's reduce-scatter plan" % row["ran"])
        if not bound_us * (1 - TOLERANCE) <= measured_us <= bound_us * (1 + TOLERANCE):
            failures.append("%.2f us is not within 1 %% of the bound %.2f us" % (measured_us, bound_us))

        for collective in ("ireduce", "iallreduce", "ireduce_scatter_block"):
            for op in (["--op", "sum"], ["--op", "spin:20", "--noncommutative"]):
                command = [run_sh, seven, "7", "--", bench, "--collective", collective, "--algorithms",
                           "native,optimal,binomial,reduce-scatter,auto", "--sizes", "8,4K,256K", "--overlap", "200",
                           "--iterations", "2", "--warmup", "1"] + op
                rows = run(command, os.path.join(tmp, "seven.csv"))
                print("%s %s on 7 ranks: %d rows, results right" % (collective, " ".join(op), len(rows)))
    for f in failures:
        print("FAIL: " + f)
    if failures:
        sys.exit(1)
    print("PASS")


if __name__ == "__main__":
    main()
