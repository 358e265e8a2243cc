#!/usr/bin/python3
"""The long-vector sweep (long-vector-sweep.sh) as a Markdown summary and plots (Debian's python3-matplotlib).

    /usr/bin/python3 mpi_bench/plot_long.py OUT_DIR/results.csv [--out DIR] [--no-plots]

results.csv: mpi_bench CSV rows prefixed by series (ompi-default, ompi-pipeline-64k, ..., libredux:auto,
libredux:optimal, ..., libredux-seg64k:auto), job and mca. For every op it writes
  latency-<op>.png   median latency against size, one line per series (Open MPI's in grey and black,
                     libredux's in colour), libredux auto's prediction dashed; below, each series' latency
                     over Open MPI's default, the same run's native
  segments-<op>.png  the segment count libredux's plans ran with against size, per libredux series
and summary.md: per op and size, Open MPI's default and its best configuration, libredux's auto (what it
ran, its segments, its prediction) and its best strategy, and auto's speedup over Open MPI's default.
"""
import argparse
import csv
import os
import sys
from collections import defaultdict

FIRST = ["series", "job", "mca", "algorithm", "op", "ranks", "bytes"]
COLORS = ["tab:blue", "tab:green", "tab:orange", "tab:brown", "tab:olive", "tab:cyan", "tab:pink", "tab:red",
          "tab:purple"]
OMPI_STYLES = [("k", "-"), ("0.45", "--"), ("0.45", ":"), ("0.7", "-."), ("0.7", "--")]


def size_text(n):
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20} MiB"
    if n >= 1 << 10 and n % (1 << 10) == 0:
        return f"{n >> 10} KiB"
    return f"{n} B"


def read_results(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames is None or reader.fieldnames[:len(FIRST)] != FIRST or "median_us" not in reader.fieldnames:
            sys.exit(f"plot_long.py: {path}: not a results.csv of long-vector-sweep.sh")
        return list(reader)


def by_op(rows):
    ops = defaultdict(list)
    for row in rows:
        ops[row["op"]].append(row)
    return ops


def series_order(name):
    """Open MPI's default, its other configurations, libredux's auto, its strategies, forced segments."""
    groups = [name == "ompi-default", name.startswith("ompi"), name == "libredux:auto",
              name.startswith("libredux:"), True]
    return (groups.index(True), name)


def points(rows, series, field):
    return sorted((int(r["bytes"]), float(r[field])) for r in rows if r["series"] == series and r[field])


def summary(ops):
    lines = ["# Long vectors: Open MPI against libredux", ""]
    for op, rows in sorted(ops.items()):
        ranks = sorted({r["ranks"] for r in rows})
        lines += [f"## {op}, {'/'.join(ranks)} ranks", "",
                  "| size | Open MPI default (us) | best Open MPI (us) | libredux auto (us) | auto ran | segments "
                  "| predicted (us) | best libredux (us) | auto speedup over default |",
                  "|---|---|---|---|---|---|---|---|---|"]
        sizes = defaultdict(dict)
        for r in rows:
            sizes[int(r["bytes"])][r["series"]] = r
        for size, series in sorted(sizes.items()):
            def best(prefix):
                found = [r for name, r in series.items() if name.startswith(prefix)]
                if not found:
                    return "-"
                r = min(found, key=lambda r: float(r["median_us"]))
                return f"{float(r['median_us']):.1f} ({r['series']})"

            default, auto = series.get("ompi-default"), series.get("libredux:auto")
            cells = [size_text(size), f"{float(default['median_us']):.1f}" if default else "-", best("ompi"),
                     f"{float(auto['median_us']):.1f}" if auto else "-", auto["ran"] if auto else "-",
                     auto["segments"] or "-" if auto else "-",
                     f"{float(auto['predicted_us']):.1f}" if auto and auto["predicted_us"] else "-", best("libredux"),
                     f"{float(default['median_us']) / float(auto['median_us']):.2f}" if default and auto else "-"]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def log_axes(ax, ylabel, title=None, ybase=10):
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=ybase)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)


def save(plt, fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_latency(plt, op, rows, path):
    names = sorted({r["series"] for r in rows}, key=series_order)
    default = dict(points(rows, "ompi-default", "median_us"))
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 8), sharex=True, gridspec_kw={"height_ratios": [3, 2]})
    ompi_styles, colors = iter(OMPI_STYLES * 4), iter(COLORS * 4)
    for name in names:
        line = points(rows, name, "median_us")
        if name.startswith("ompi"):
            color, style = next(ompi_styles)
            kwargs = dict(color=color, linestyle=style, marker=".")
        else:  # forced segments dashed
            kwargs = dict(color=next(colors), marker="o" if name == "libredux:auto" else ".",
                          linewidth=2.2 if name == "libredux:auto" else 1.2,
                          linestyle="-" if name.startswith("libredux:") else "--")
        top.plot([p[0] for p in line], [p[1] for p in line], label=name, **kwargs)
        ratio = [(s, v / default[s]) for s, v in line if s in default]
        bottom.plot([p[0] for p in ratio], [p[1] for p in ratio], **kwargs)
        if name == "libredux:auto":
            predicted = points(rows, name, "predicted_us")
            top.plot([p[0] for p in predicted], [p[1] for p in predicted], color=kwargs["color"], linestyle="--",
                     alpha=0.6, label="libredux:auto, predicted")
    ranks = "/".join(sorted({r["ranks"] for r in rows}))
    log_axes(top, "latency (us), median", f"MPI_Reduce of long vectors, op {op}, {ranks} ranks")
    top.legend(fontsize="small", ncol=2)
    bottom.axhline(1.0, color="k", linewidth=0.8)
    log_axes(bottom, "latency / Open MPI default")
    bottom.set_xlabel("message size (bytes)")
    return save(plt, fig, path)


def plot_segments(plt, op, rows, path):
    fig, ax = plt.subplots(figsize=(8, 4.5))
    colors = iter(COLORS * 4)
    for name in sorted({r["series"] for r in rows if not r["series"].startswith("ompi")}, key=series_order):
        line = points(rows, name, "segments")
        ax.plot([p[0] for p in line], [p[1] for p in line], marker="o" if name == "libredux:auto" else ".",
                color=next(colors), label=name)
    log_axes(ax, "segments of the plan", f"libredux: segment count chosen (or forced), op {op}", ybase=2)
    ax.set_xlabel("message size (bytes)")
    ax.legend(fontsize="small", ncol=2)
    return save(plt, fig, path)


def plot(ops, out_dir):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    for op, rows in sorted(ops.items()):
        written.append(plot_latency(plt, op, rows, os.path.join(out_dir, f"latency-{op}.png")))
        written.append(plot_segments(plt, op, rows, os.path.join(out_dir, f"segments-{op}.png")))
    return written


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", help="results.csv of long-vector-sweep.sh")
    parser.add_argument("--out", help="directory for summary.md and the PNG files (default: that of results.csv)")
    parser.add_argument("--no-plots", action="store_true", help="summary.md only")
    args = parser.parse_args()
    out_dir = args.out or os.path.dirname(os.path.abspath(args.results))
    os.makedirs(out_dir, exist_ok=True)
    ops = by_op(read_results(args.results))
    text = summary(ops)
    with open(os.path.join(out_dir, "summary.md"), "w") as f:
        f.write(text)
    print(text)
    if not args.no_plots:
        for path in plot(ops, out_dir):
            print(path)


if __name__ == "__main__":
    main()
