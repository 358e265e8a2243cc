#!/usr/bin/env bash
# Makes every file in this folder: the CSVs from redux-study, then the PNGs from plot_study.py.
#   bash docs/results/hetero-study/make.sh [BUILD_DIR]      (BUILD_DIR defaults to build)
# Needs python3-matplotlib (Debian's; cmake/setup-debian.sh installs it). About a minute on one core.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="${1:-build}"
study="${build}/libredux/study/redux-study"
"${study}" dispersion --ranks 64 --runs 4000 --seed 1 > "${here}/dispersion.csv"
"${study}" overlap --ranks 64 --runs 1000 --seed 1 > "${here}/overlap.csv"
"${study}" clairvoyant --ranks 64 --runs 200 --seed 1 > "${here}/clairvoyant.csv"
/usr/bin/python3 "${here}/plot_study.py" "${here}"
