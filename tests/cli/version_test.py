#!/usr/bin/env python3
"""Every program's --version: `NAME (libredux) VERSION` on its first line, VERSION being CMake's PROJECT_VERSION;
the MPI programs (run as one process) add `built for Open MPI x.y.z` or `built for MPICH x.y.z`.

  version_test.py VERSION PROGRAM... (a PROGRAM given as mpi:PATH is an MPI program)
"""
import os
import re
import subprocess
import sys

version, programs = sys.argv[1], sys.argv[2:]
env = {k: v for k, v in os.environ.items() if not k.startswith("REDUX_")}
failures = 0
for program in programs:
    mpi = program.startswith("mpi:")
    path = program[4:] if mpi else program
    name = os.path.basename(path)
    result = subprocess.run([path, "--version"], capture_output=True, text=True, env=env, timeout=60)
    lines = result.stdout.splitlines()
    problems = []
    if result.returncode != 0:
        problems.append(f"exit status {result.returncode}: {result.stderr.strip()}")
    if not lines or lines[0] != f"{name} (libredux) {version}":
        problems.append(f"first line {lines[0] if lines else None!r}, expected {name + ' (libredux) ' + version!r}")
    if mpi and not (len(lines) == 2 and re.fullmatch(r"built for (Open MPI|MPICH) \d+\.\d+(\.\d+)?\S*", lines[1])):
        problems.append(f"no 'built for <MPI> x.y.z' line: {lines}")
    if not mpi and len(lines) != 1:
        problems.append(f"more than one line: {lines}")
    if problems:
        failures += 1
        print(f"FAIL: {name} --version: " + "; ".join(problems))
    else:
        print(f"ok: {name} --version: {' / '.join(lines)}")
sys.exit(1 if failures else 0)
