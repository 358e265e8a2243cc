#!/usr/bin/env bash
# Installs what libredux needs from Debian 12's own packages, then configures and builds it into ./build.
# Idempotent: when every package is already installed it skips apt entirely (fast, and works offline).
# Run as root (or with sudo available) from anywhere; extra arguments go to the cmake configure step.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

cd "$(dirname "${BASH_SOURCE[0]}")/.."

packages=(
    build-essential cmake g++ git pkg-config
    openmpi-bin libopenmpi-dev libhwloc-dev
    libgtest-dev libgmock-dev libbenchmark-dev
    nlohmann-json3-dev libcli11-dev
    graphviz ca-certificates
)

missing=()
for package in "${packages[@]}"; do
    if [[ "$(dpkg-query -W -f='${db:Status-Status}' "${package}" 2>/dev/null)" != "installed" ]]; then
        missing+=("${package}")
    fi
done

if ((${#missing[@]} > 0)); then
    echo "setup-debian: installing ${missing[*]}"
    sudo=()
    if ((EUID != 0)); then
        sudo=(sudo)
    fi
    "${sudo[@]}" apt-get update
    "${sudo[@]}" apt-get install -y --no-install-recommends "${packages[@]}"
else
    echo "setup-debian: all packages already installed"
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build -j"$(nproc)"
