"""One mpi_bench job on simulated ranks for the SMPI checks: runs it, fails the check when it fails (mpi_bench
exits 1 on a wrong result), and returns its CSV rows."""
import csv
import subprocess


def run_bench(command, csv_path, timeout_s):
    done = subprocess.run(command + ["--csv", csv_path], capture_output=True, text=True, timeout=timeout_s)
    if done.returncode != 0:
        print(done.stdout[-4000:], done.stderr[-4000:], sep="\n")
        raise SystemExit("FAIL: mpi_bench exited %d (1: a wrong result): %s" % (done.returncode, " ".join(command)))
    with open(csv_path) as f:
        return list(csv.DictReader(f))
