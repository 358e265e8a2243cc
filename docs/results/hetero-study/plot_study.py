"""Plots redux-study's CSVs (see make.sh): the counterparts of Benoit, Canon & Marchal's Figures 4 to 6, and the
clairvoyant comparison. Usage: /usr/bin/python3 plot_study.py DIR (reads DIR/*.csv, writes DIR/*.png)."""
import csv
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import ListedColormap  # noqa: E402

COLORS = {"binomial-stat": "tab:blue", "fibonacci-stat": "tab:orange", "tree-dyn": "tab:green",
          "non-commut-tree-dyn": "tab:red"}


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def dispersion(d):
    by_method = defaultdict(list)
    for r in rows(d / "dispersion.csv"):
        by_method[r["method"]].append(r)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for method, rs in by_method.items():
        cv = [float(r["cv"]) for r in rs]
        ax.plot(cv, [float(r["mean"]) for r in rs], marker="o", ms=3, label=method, color=COLORS[method])
        ax.fill_between(cv, [float(r["q10"]) for r in rs], [float(r["q90"]) for r in rs], alpha=0.15,
                        color=COLORS[method])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("coefficient of variation of transfer costs")
    ax.set_ylabel("makespan (mu_d = 1)")
    ax.set_title("n = 64, mu_c = 0: mean, 10% and 90% quantiles (cf. Benoit et al. Fig. 4)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(d / "fig4_dispersion.png", dpi=120)


def grid(d, value):
    rs = rows(d / "overlap.csv")
    cvs = sorted({float(r["cv"]) for r in rs})
    ratios = sorted({float(r["compute_ratio"]) for r in rs})
    z = [[None] * len(cvs) for _ in ratios]
    for r in rs:
        z[ratios.index(float(r["compute_ratio"]))][cvs.index(float(r["cv"]))] = value(r)
    return cvs, ratios, z


def axes_grid(ax, cvs, ratios):
    ax.set_xticks(range(len(cvs)), [f"{c:g}" for c in cvs], rotation=45)
    ax.set_yticks(range(len(ratios)), [f"{c:g}" for c in ratios])
    ax.set_xlabel("coefficient of variation (transfers and folds)")
    ax.set_ylabel("mu_c / mu_d")


def fibonacci_over_tree_dyn(d):
    cvs, ratios, z = grid(d, lambda r: float(r["fibonacci_stat"]) / float(r["tree_dyn"]))
    fig, ax = plt.subplots(figsize=(7.5, 5))
    im = ax.imshow(z, origin="lower", cmap="RdBu_r", vmin=0.7, vmax=1.3, aspect="auto")
    ax.contour(z, levels=[1.0], colors="black", linewidths=1.5)
    for i, row in enumerate(z):
        for j, v in enumerate(row):
            ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=6)
    axes_grid(ax, cvs, ratios)
    fig.colorbar(im, label="mean Fibonacci-stat / mean Tree-dyn")
    ax.set_title("n = 64: below 1 (blue), Fibonacci-stat beats Tree-dyn (cf. Fig. 5)")
    fig.tight_layout()
    fig.savefig(d / "fig5_fibonacci_over_tree_dyn.png", dpi=120)


def best_non_commutative(d):
    names = ["binomial_stat", "fibonacci_stat", "non_commut_tree_dyn"]
    cvs, ratios, z = grid(d, lambda r: min(range(3), key=lambda k: float(r[names[k]])))
    fig, ax = plt.subplots(figsize=(7.5, 5))
    cmap = ListedColormap([COLORS["binomial-stat"], COLORS["fibonacci-stat"], COLORS["non-commut-tree-dyn"]])
    ax.imshow(z, origin="lower", cmap=cmap, vmin=-0.5, vmax=2.5, aspect="auto")
    axes_grid(ax, cvs, ratios)
    for k, name in enumerate(["Binomial-stat", "Fibonacci-stat", "Non-Commut-Tree-dyn"]):
        ax.plot([], [], "s", color=cmap(k), label=name)
    ax.legend(loc="upper left", fontsize=8)
    ax.set_title("n = 64: best mean makespan, non-commutative methods (cf. Fig. 6)")
    fig.tight_layout()
    fig.savefig(d / "fig6_best_non_commutative.png", dpi=120)


def clairvoyant(d):
    rs = rows(d / "clairvoyant.csv")
    methods = ["snf", "optimal_on_means", "binomial", "tree_dyn"]
    platforms = list(dict.fromkeys(r["platform"] for r in rs))
    ratios = sorted({float(r["compute_ratio"]) for r in rs})
    fig, axes = plt.subplots(len(platforms), len(ratios), figsize=(12, 3.2 * len(platforms)), sharey="row",
                             squeeze=False)
    for row, platform in enumerate(platforms):
        for ax, ratio in zip(axes[row], ratios):
            sel = [r for r in rs if r["platform"] == platform and float(r["compute_ratio"]) == ratio]
            cv = [float(r["cv"]) for r in sel]
            for m in methods:
                ax.plot(cv, [float(r[m]) / float(r["hetero_greedy"]) for r in sel], marker="o", ms=3, label=m)
            ax.axhline(1.0, color="black", lw=0.8)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_title(f"{platform}, mu_c / mu_d = {ratio:g}", fontsize=9)
        axes[row][0].set_ylabel("mean makespan / hetero-greedy's")
    for ax in axes[-1]:
        ax.set_xlabel("CV of the platform's costs")
    axes[0][-1].legend(fontsize=8)
    fig.suptitle("n = 64, costs drawn once per platform and known to the planners")
    fig.tight_layout()
    fig.savefig(d / "clairvoyant.png", dpi=120)


if __name__ == "__main__":
    out = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    dispersion(out)
    fibonacci_over_tree_dyn(out)
    best_non_commutative(out)
    clairvoyant(out)
