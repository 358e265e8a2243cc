#!/usr/bin/env python3
"""redux-info and the REDUX_VERBOSE=1 start-up line, end to end.

  redux_info_test.py info    VERSION VENDOR MPIEXEC REDUX_INFO DRIVER
  redux_info_test.py verbose VERSION VENDOR MPIEXEC DRIVER

info: redux-info --json as one process, with REDUX_* variables valid, invalid and empty, and a calibration
file that is missing, not JSON, foreign JSON, and valid (written by DRIVER, a small program reducing through
libredux, run under MPIEXEC at 2 ranks); every field checked against what was set. Then the text output,
--version/--help/a bad option, and redux-info under MPIEXEC at 2 ranks with REDUX_D set differently on rank 1
(one document, from rank 0, naming rank 1 and REDUX_D).

verbose: DRIVER under MPIEXEC at 2 ranks with REDUX_VERBOSE=1 prints the start-up line exactly once, with the
version, the MPI built for and loaded, the settings that differ from their defaults and the calibration file;
without REDUX_VERBOSE it prints none.

VENDOR is OpenMPI or MPICH (the launcher's flags). Exit status 0 when every check passes.
"""
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

failures = []
# The cache folder every run here sees (XDG_CACHE_HOME), so that the default wisdom file and the calibration file
# beside it are the test's, never the user's.
CACHE = tempfile.mkdtemp(prefix="redux-info-cache.")
atexit.register(shutil.rmtree, CACHE, True)
DEFAULT_WISDOM = os.path.join(CACHE, "libredux", "wisdom.json")


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL: " + what)


def clean_env(**variables):
    """The test's environment without any REDUX_* variable, the cache folder CACHE, plus `variables`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REDUX_")}
    env["XDG_CACHE_HOME"] = CACHE
    env.update(variables)
    return env


def run(args, env, timeout=60):
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=timeout)


class Launcher:
    def __init__(self, vendor, mpiexec):
        self.vendor, self.mpiexec = vendor, mpiexec
        self.flags = ["--oversubscribe", "--bind-to", "none"] if vendor == "OpenMPI" else []
        self.env = {}
        if vendor == "OpenMPI":
            self.env = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                        "OMPI_MCA_mpi_yield_when_idle": "1"}

    def command(self, ranks, program, args=()):
        return [self.mpiexec, "-n", str(ranks)] + self.flags + [program] + list(args)

    def mpmd(self, parts):
        """parts: [(ranks, {NAME: VALUE}, [program, args...]), ...] -- each part with its own variables."""
        command = [self.mpiexec] + self.flags
        for i, (ranks, variables, program) in enumerate(parts):
            if i:
                command.append(":")
            command += ["-n", str(ranks)]
            for name, value in variables.items():
                command += ["-x", f"{name}={value}"] if self.vendor == "OpenMPI" else ["-env", name, value]
            command += program
        return command


def info_json(redux_info, **variables):
    result = run([redux_info, "--json"], clean_env(**variables))
    check(result.returncode == 0, f"redux-info --json with {variables}: exit {result.returncode}: {result.stderr}")
    try:
        return json.loads(result.stdout)
    except json.JSONDecodeError as e:
        check(False, f"redux-info --json with {variables}: not JSON ({e}): {result.stdout[:300]}")
        return None


def alpha_beta(links):
    """What redux-info shows of a calibration file's links: alpha and beta (the file also holds their points)."""
    return {k: {"alpha_s": v["alpha_s"], "beta_s_per_byte": v["beta_s_per_byte"]} for k, v in links.items()}


def test_info(version, launcher, redux_info, driver):
    names = ["REDUX_ALGORITHM", "REDUX_D", "REDUX_C", "REDUX_VERBOSE", "REDUX_DEBUG", "REDUX_REPORT",
             "REDUX_TIMELINE", "REDUX_CALIBRATION_FILE", "REDUX_CALIBRATION_MAX_AGE", "REDUX_RECV_WINDOW", "REDUX_CHUNK_BYTES",
             "REDUX_SEGMENT_BYTES", "REDUX_WISDOM"]

    # Nothing set: every variable at its default, libredux plans, no calibration file.
    doc = info_json(redux_info)
    if doc:
        check(doc["version"] == version, f"version {doc['version']} != {version}")
        check(doc["mpi"]["ranks"] == 1, f"ranks: {doc['mpi']['ranks']}")
        built_for = doc["mpi"]["built_for"]
        check(built_for.startswith("Open MPI " if launcher.vendor == "OpenMPI" else "MPICH "),
              f"built_for {built_for} is not {launcher.vendor}'s")
        check(built_for.split()[-1] in doc["mpi"]["loaded"],
              f"loaded {doc['mpi']['loaded']!r} is not the version built for ({built_for})")
        check(sorted(doc["settings"]) == sorted(names), f"settings listed: {sorted(doc['settings'])}")
        for name, s in doc["settings"].items():
            check(s["source"] == "default" and not s["set"] and s["valid"] and s["value"] == s["default"]
                  and not s["differs_from_default"], f"{name} with nothing set: {s}")
        check(doc["settings"]["REDUX_ALGORITHM"]["value"] == "auto", "default algorithm is not auto")
        check(doc["settings"]["REDUX_CHUNK_BYTES"]["value"] == "65536", "default chunk bytes")
        check(doc["problem"] is None and doc["reduce"] == "libredux", f"nothing set: {doc['problem']}")
        check(doc["settings"]["REDUX_WISDOM"]["value"] == DEFAULT_WISDOM,
              f"default wisdom file: {doc['settings']['REDUX_WISDOM']}")
        check(doc["calibration_file"] is not None and doc["calibration_file"]["path"] == DEFAULT_WISDOM + ".links",
              f"no calibration file set: not the one beside the default wisdom file: {doc['calibration_file']}")
    doc = info_json(redux_info, REDUX_WISDOM="off")
    if doc:
        check(doc["settings"]["REDUX_WISDOM"]["value"] == "off" and doc["settings"]["REDUX_WISDOM"]["differs_from_default"]
              and doc["calibration_file"] is None, f"REDUX_WISDOM=off: {doc['settings']['REDUX_WISDOM']}, "
              f"calibration file {doc['calibration_file']}")

    # Valid values: taken from the environment, shown as parsed; an empty value is the default.
    doc = info_json(redux_info, REDUX_ALGORITHM="binomial", REDUX_D="2.5e-6", REDUX_CHUNK_BYTES="4096",
                    REDUX_VERBOSE="0", REDUX_C="")
    if doc:
        s = doc["settings"]
        for name, value in [("REDUX_ALGORITHM", "binomial"), ("REDUX_D", "2.5e-06"), ("REDUX_CHUNK_BYTES", "4096")]:
            check(s[name]["value"] == value and s[name]["source"] == "environment" and s[name]["valid"]
                  and s[name]["differs_from_default"], f"{name}: {s[name]}")
        check(s["REDUX_VERBOSE"]["source"] == "environment" and s["REDUX_VERBOSE"]["value"] == "0"
              and not s["REDUX_VERBOSE"]["differs_from_default"], f"REDUX_VERBOSE=0: {s['REDUX_VERBOSE']}")
        check(s["REDUX_C"]["set"] and s["REDUX_C"]["raw"] == "" and s["REDUX_C"]["source"] == "default"
              and s["REDUX_C"]["value"] == "measured", f"REDUX_C empty: {s['REDUX_C']}")
        check(s["REDUX_RECV_WINDOW"]["source"] == "default", "REDUX_RECV_WINDOW not set")
        check(doc["problem"] is None and doc["reduce"] == "libredux", f"valid values: {doc['problem']}")

    # Invalid values: each shown with its problem and the default in effect; the first one (in the table's
    # order, which is the library's) makes every reduce native.
    doc = info_json(redux_info, REDUX_RECV_WINDOW="0", REDUX_C="fast", REDUX_D="1e-6")
    if doc:
        s = doc["settings"]
        check(not s["REDUX_RECV_WINDOW"]["valid"] and "REDUX_RECV_WINDOW=0" in s["REDUX_RECV_WINDOW"]["problem"]
              and s["REDUX_RECV_WINDOW"]["value"] == "2" and s["REDUX_RECV_WINDOW"]["raw"] == "0"
              and s["REDUX_RECV_WINDOW"]["source"] == "environment", f"REDUX_RECV_WINDOW=0: {s['REDUX_RECV_WINDOW']}")
        check(not s["REDUX_C"]["valid"] and "REDUX_C=fast" in s["REDUX_C"]["problem"]
              and s["REDUX_C"]["value"] == "measured", f"REDUX_C=fast: {s['REDUX_C']}")
        check(s["REDUX_D"]["valid"] and s["REDUX_D"]["value"] == "1e-06", f"REDUX_D=1e-6: {s['REDUX_D']}")
        check(doc["problem"] is not None and "REDUX_C=fast" in doc["problem"], f"problem: {doc['problem']}")
        check(doc["reduce"] == "native", f"reduce with an invalid value: {doc['reduce']}")
        algorithm = s["REDUX_ALGORITHM"]
        check(algorithm["value"] == "native" and algorithm["source"] == "default" and algorithm["overridden"]
              and "REDUX_C=fast" in algorithm["overridden"], f"REDUX_ALGORITHM with an invalid value: {algorithm}")

    with tempfile.TemporaryDirectory(prefix="redux-info-test.") as tmp:
        path = os.path.join(tmp, "calibration.json")

        # A missing file.
        doc = info_json(redux_info, REDUX_CALIBRATION_FILE=path)
        if doc:
            c = doc["calibration_file"]
            check(doc["settings"]["REDUX_CALIBRATION_FILE"]["value"] == path, "calibration file setting")
            check(c is not None and c["path"] == path and c["exists"] is False and c["status"] == "missing"
                  and c["libredux_format"] is False and c["entries"] == [], f"missing file: {c}")
        check(not os.path.exists(path), "redux-info created the calibration file")

        # Not JSON (a C source): exists, not libredux's, left as it was.
        source = "#include <stdio.h>\nint main(void) { return 0; }\n"
        with open(path, "w") as f:
            f.write(source)
        doc = info_json(redux_info, REDUX_CALIBRATION_FILE=path)
        if doc:
            c = doc["calibration_file"]
            check(c["exists"] is True and c["status"] == "corrupt" and c["libredux_format"] is False
                  and "JSON" in (c["reason"] or "") and c["entries"] == [], f"non-JSON file: {c}")
        check(open(path).read() == source, "redux-info changed a non-JSON file")

        # JSON that is not libredux's.
        with open(path, "w") as f:
            f.write('{"tool": "something else", "entries": []}\n')
        doc = info_json(redux_info, REDUX_CALIBRATION_FILE=path)
        if doc:
            c = doc["calibration_file"]
            check(c["status"] == "foreign" and c["libredux_format"] is False, f"foreign JSON file: {c}")

        # A valid file, written by libredux itself: a job of 2 ranks calibrating its links.
        os.remove(path)
        env = clean_env(REDUX_CALIBRATION_FILE=path, **launcher.env)
        start = int(time.time())
        job = run(launcher.command(2, driver), env, timeout=120)
        check(job.returncode == 0, f"calibration job failed: {job.stderr[-500:]}")
        written = json.load(open(path)) if os.path.exists(path) else None
        check(written is not None, "the calibration job wrote no file")
        doc = info_json(redux_info, REDUX_CALIBRATION_FILE=path)
        if doc and written:
            c = doc["calibration_file"]
            check(c["exists"] and c["status"] == "found" and c["libredux_format"] and c["format_version"] == 2
                  and c["reason"] is None and c["max_age_s"] == 604800, f"valid file: {c}")
            check(len(c["entries"]) == 1 == len(written["entries"]), f"entries: {c['entries']}")
            if len(c["entries"]) == 1:
                e, w = c["entries"][0], written["entries"][0]
                check(e["signature"] == w["signature"] and e["signature"].startswith("2-") and e["ranks"] == 2,
                      f"signature {e['signature']} (file: {w['signature']})")
                check(e["created_unix"] == w["created_unix"] and start - 5 <= e["created_unix"] <= time.time() + 5,
                      f"created_unix {e['created_unix']} (job started at {start})")
                check(0 <= e["age_s"] <= 120 and e["fresh"] and e["reason"] is None, f"fresh entry: {e}")
                shown = alpha_beta(w["links"])
                check(e["links"] == shown and "same_package" in e["links"], f"links {e['links']} != {shown}")
                for fit in e["links"].values():
                    check(fit["alpha_s"] >= 0 and fit["beta_s_per_byte"] >= 0, f"fit {fit}")

            # The same entry made 100 s older, under a maximum age of 10 s: listed, not used, links still shown.
            written["entries"][0]["created_unix"] -= 100
            old = os.path.join(tmp, "old.json")
            json.dump(written, open(old, "w"))
            doc = info_json(redux_info, REDUX_CALIBRATION_FILE=old, REDUX_CALIBRATION_MAX_AGE="10")
            if doc:
                c = doc["calibration_file"]
                e = c["entries"][0] if c["entries"] else {}
                check(c["status"] == "found" and c["max_age_s"] == 10 and e.get("fresh") is False
                      and "older than" in (e.get("reason") or "") and e.get("age_s", 0) >= 100
                      and e.get("links") == alpha_beta(written["entries"][0]["links"]), f"stale entry: {c}")

        # The text output says the same things.
        text = run([redux_info], clean_env(REDUX_CALIBRATION_FILE=path, REDUX_D="2.5e-6", REDUX_RECV_WINDOW="0"))
        check(text.returncode == 0, f"redux-info: exit {text.returncode}")
        out = text.stdout
        for wanted in [f"libredux {version}", "MPI built for:", "MPI loaded:", "REDUX_D", "2.5e-06",
                       "INVALID: REDUX_RECV_WINDOW=0", path, "libredux calibration file, version 2", "same_package",
                       "fresh"]:
            check(wanted in out, f"text output lacks {wanted!r}:\n{out}")

    # --version, --help, a bad option.
    result = run([redux_info, "--version"], clean_env())
    check(result.returncode == 0 and result.stdout.splitlines()[0] == f"redux-info (libredux) {version}",
          f"--version: {result.stdout!r}")
    result = run([redux_info, "--help"], clean_env())
    check(result.returncode == 0 and "--json" in result.stdout, f"--help: {result.stdout!r}")
    result = run([redux_info, "--no-such-option"], clean_env())
    check(result.returncode == 2 and "--no-such-option" in result.stderr, f"bad option: {result.returncode}")

    # Under the launcher at 2 ranks, REDUX_D set differently on rank 1: one document, from rank 0.
    env = clean_env(**launcher.env)
    result = run(launcher.mpmd([(1, {"REDUX_D": "1e-6"}, [redux_info, "--json"]),
                                (1, {"REDUX_D": "2e-6"}, [redux_info, "--json"])]), env, timeout=120)
    check(result.returncode == 0, f"redux-info at 2 ranks: exit {result.returncode}: {result.stderr[-500:]}")
    try:
        doc = json.loads(result.stdout)
        check(doc["mpi"]["ranks"] == 2, f"ranks at 2 ranks: {doc['mpi']['ranks']}")
        check(doc["settings"]["REDUX_D"]["value"] == "1e-06", "rank 0's REDUX_D is not the one shown")
        check(doc["ranks_with_other_settings"] == {"ranks": [1], "settings": ["REDUX_D"]},
              f"ranks_with_other_settings: {doc['ranks_with_other_settings']}")
    except json.JSONDecodeError:
        check(False, f"redux-info at 2 ranks did not print one JSON document:\n{result.stdout[:1000]}")


def test_verbose(version, launcher, driver):
    variables = dict(REDUX_VERBOSE="1", REDUX_D="1e-6", REDUX_C="1e-7", REDUX_ALGORITHM="binomial",
                     REDUX_RECV_WINDOW="2")
    result = run(launcher.command(2, driver), clean_env(**variables, **launcher.env), timeout=120)
    check(result.returncode == 0, f"driver with REDUX_VERBOSE=1: exit {result.returncode}: {result.stderr[-500:]}")
    lines = [line for line in result.stderr.splitlines() if " started; MPI: " in line]
    check(len(lines) == 1, f"expected one start-up line from 2 ranks and 16 calls, got {len(lines)}:\n{result.stderr}")
    if lines:
        line = lines[0]
        check(line.startswith(f"libredux: {version} started; MPI: built for "), f"start-up line: {line}")
        check(", loaded " in line, f"start-up line without the MPI loaded: {line}")
        settings = line.split("; settings: ")[1].split("; calibration file: ")[0].split() if "; settings: " in line else []
        check(sorted(settings) == sorted(["REDUX_VERBOSE=1", "REDUX_D=1e-06", "REDUX_C=1e-07",
                                          "REDUX_ALGORITHM=binomial"]),
              f"settings that differ from their defaults: {settings} (REDUX_RECV_WINDOW=2 is the default)")
        check(line.endswith(f"; calibration file: {DEFAULT_WISDOM}.links"),
              f"start-up line without a calibration file set: not the default one: {line}")

    # With a calibration file: its path is on the line.
    with tempfile.TemporaryDirectory(prefix="redux-verbose-test.") as tmp:
        path = os.path.join(tmp, "calibration.json")
        result = run(launcher.command(2, driver),
                     clean_env(REDUX_VERBOSE="1", REDUX_CALIBRATION_FILE=path, **launcher.env), timeout=120)
        lines = [line for line in result.stderr.splitlines() if " started; MPI: " in line]
        check(result.returncode == 0 and len(lines) == 1 and lines[0].endswith(f"; calibration file: {path}"),
              f"start-up line with a calibration file: {lines}")

    # Without REDUX_VERBOSE: no start-up line.
    result = run(launcher.command(2, driver), clean_env(REDUX_D="1e-6", REDUX_C="1e-7", **launcher.env), timeout=120)
    check(result.returncode == 0 and " started; MPI: " not in result.stderr,
          f"driver without REDUX_VERBOSE: exit {result.returncode}, stderr:\n{result.stderr}")


def main():
    mode = sys.argv[1]
    if mode == "info":
        version, vendor, mpiexec, redux_info, driver = sys.argv[2:7]
        test_info(version, Launcher(vendor, mpiexec), redux_info, driver)
    elif mode == "verbose":
        version, vendor, mpiexec, driver = sys.argv[2:6]
        test_verbose(version, Launcher(vendor, mpiexec), driver)
    else:
        sys.exit(f"unknown mode {mode}")
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)
    print(f"all {mode} checks passed")


if __name__ == "__main__":
    main()
