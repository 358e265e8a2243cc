#!/usr/bin/python3
"""One planned call as every rank ran it, from the files REDUX_TIMELINE=PREFIX writes (one per process).

    /usr/bin/python3 mpi_bench/timeline.py PREFIX [--execution N] [--events] [--plot OUT.png]

The ranks' files are lined up by execution number (each process numbers its planned calls from 0 in the order
they start: the same call on every rank of a job that makes the same calls on one communicator) and by time (the
host's real-time clock: one clock on one host, as on the emulated cluster). Printed, for execution N (default: the
last one every rank ran), times in ms from the earliest rank's start:
  - per rank: start, end, the op's time (folds), and the time it waited for data with no fold to do;
  - per step of a schedule, per rank: what moved (send or receive, the peer, the elements), when it was posted,
    when the runner saw it complete, and the folds of the step (first chunk's start, last chunk's end);
  - with --events, every event.
--plot draws the same as bars: per rank, receives from post to completion, sends likewise, folds, on one time axis.
"""
import argparse
import csv
import glob
import sys
from collections import defaultdict


def read(prefix):
    """Events by (execution, rank): lists of dicts with t in seconds."""
    files = sorted(glob.glob(glob.escape(prefix) + ".*.csv"))
    if not files:
        sys.exit(f"timeline.py: no file {prefix}.*.csv")
    runs = defaultdict(list)
    sizes = {}
    for path in files:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                e = {
                    "t": float(row["t_s"]),
                    "event": row["event"],
                    "step": int(row["step"]),
                    "peer": int(row["peer"]),
                    "begin": int(row["begin"]),
                    "end": int(row["end"]),
                    "detail": row["detail"],
                }
                key = (int(row["execution"]), int(row["rank"]))
                runs[key].append(e)
                sizes[int(row["execution"])] = int(row["size"])
    return runs, sizes


def complete_executions(runs, sizes):
    """Executions every rank of the communicator started and ended, in order."""
    done = []
    for n, size in sorted(sizes.items()):
        if all(any(e["event"] == "end" for e in runs.get((n, r), [])) for r in range(size)):
            done.append(n)
    return done


def summary(events):
    """Start, end, fold time and the time waited with nothing to fold, of one rank's events."""
    start = next(e["t"] for e in events if e["event"] == "start")
    end = next(e["t"] for e in events if e["event"] == "end")
    fold = 0.0
    opened = None
    for e in events:
        if e["event"] in ("fold", "copy"):
            opened = e["t"]
        elif e["event"] in ("folded", "copied") and opened is not None:
            fold += e["t"] - opened
            opened = None
    return start, end, fold


def steps(events):
    """Per step: kind, peer, elements, posted, completed, first fold chunk's start, last one's end, fold time."""
    by_step = {}
    for e in events:
        s = e["step"]
        if s < 0:
            continue
        row = by_step.setdefault(s, {"kind": "", "peer": -1, "begin": None, "end": None, "posted": None,
                                     "completed": None, "fold_from": None, "fold_to": None, "fold_s": 0.0})
        row["begin"] = e["begin"] if row["begin"] is None else min(row["begin"], e["begin"])
        row["end"] = e["end"] if row["end"] is None else max(row["end"], e["end"])
        if e["event"] in ("post_send", "post_receive"):
            row.update(kind="send" if e["event"] == "post_send" else "receive", peer=e["peer"], posted=e["t"])
        elif e["event"] in ("sent", "received"):
            row["completed"] = e["t"]
        elif e["event"] in ("fold", "copy"):
            row["kind"] = e["event"]
            if row["fold_from"] is None:
                row["fold_from"] = e["t"]
            row["open"] = e["t"]
        elif e["event"] in ("folded", "copied"):
            row["fold_to"] = e["t"]
            row["fold_s"] += e["t"] - row.pop("open", e["t"])
    for row in by_step.values():
        row["elements"] = row["end"] - row["begin"]
    return by_step


def ms(t, t0):
    return "" if t is None else f"{(t - t0) * 1e3:.3f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("prefix")
    parser.add_argument("--execution", type=int, help="the execution to show (default: the last complete one)")
    parser.add_argument("--events", action="store_true", help="print every event too")
    parser.add_argument("--plot", help="draw the execution to this PNG")
    args = parser.parse_args()

    runs, sizes = read(args.prefix)
    done = complete_executions(runs, sizes)
    if not done:
        sys.exit("timeline.py: no execution that every rank ended")
    n = args.execution if args.execution is not None else done[-1]
    if n not in done:
        sys.exit(f"timeline.py: execution {n} is not complete on every rank (complete: {done[0]}..{done[-1]})")
    size = sizes[n]
    ranks = [sorted(runs[(n, r)], key=lambda e: e["t"]) for r in range(size)]
    t0 = min(ev[0]["t"] for ev in ranks)
    detail = next(e["detail"] for e in ranks[0] if e["event"] == "start")
    print(f"execution {n} of {len(done)} complete: {detail}, {size} ranks; ms from the first rank's start")
    print("rank,start,end,fold_ms,busy_share")
    for r, events in enumerate(ranks):
        start, end, fold = summary(events)
        print(f"{r},{ms(start, t0)},{ms(end, t0)},{fold * 1e3:.3f},{fold / max(end - start, 1e-12):.2f}")
    print("rank,step,kind,peer,elements,posted,completed,transfer_ms,fold_from,fold_to,fold_ms")
    for r, events in enumerate(ranks):
        for s, row in sorted(steps(events).items()):
            transfer = ("" if row["posted"] is None or row["completed"] is None
                        else f"{(row['completed'] - row['posted']) * 1e3:.3f}")
            print(f"{r},{s},{row['kind']},{row['peer']},{row['elements']},{ms(row['posted'], t0)},"
                  f"{ms(row['completed'], t0)},{transfer},{ms(row['fold_from'], t0)},{ms(row['fold_to'], t0)},"
                  f"{row['fold_s'] * 1e3:.3f}")
    if args.events:
        print("rank,t_ms,event,step,peer,begin,end")
        for r, events in enumerate(ranks):
            for e in events:
                print(f"{r},{ms(e['t'], t0)},{e['event']},{e['step']},{e['peer']},{e['begin']},{e['end']}")
    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(12, 0.5 + 0.6 * size))
        colours = {"receive": "tab:blue", "send": "tab:orange", "fold": "tab:green", "copy": "tab:gray"}
        for r, events in enumerate(ranks):
            for row in steps(events).values():
                if row["posted"] is not None and row["completed"] is not None:
                    y = r + (0.0 if row["kind"] == "receive" else 0.25)
                    ax.barh(y, (row["completed"] - row["posted"]) * 1e3, left=(row["posted"] - t0) * 1e3,
                            height=0.22, color=colours[row["kind"]])
            opened = None
            for e in events:
                if e["event"] in ("fold", "copy"):
                    opened = e
                elif e["event"] in ("folded", "copied") and opened is not None:
                    ax.barh(r - 0.25, (e["t"] - opened["t"]) * 1e3, left=(opened["t"] - t0) * 1e3, height=0.22,
                            color=colours[opened["event"]])
                    opened = None
        ax.set_yticks(range(size))
        ax.set_yticklabels([f"rank {r}" for r in range(size)])
        ax.invert_yaxis()
        ax.set_xlabel("ms from the first rank's start")
        ax.set_title(f"{detail}: receives (blue), sends (orange), folds (green), copies (gray)")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)


if __name__ == "__main__":
    main()
