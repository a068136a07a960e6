#!/usr/bin/env bash
# Installs the benchmark peers that the test suite does not need (from
# Debian's registry, idempotently): PyTorch (einsum), BLIS and LIBXSMM
# column. .ci/install already installs NumPy, OpenBLAS, Eigen and MLIR's
# tools, which bench/run.py and bench/tccg.py use too.
set -euo pipefail
packages=(python3-torch libblis-dev libxsmm-dev)
missing=()
for package in "${packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
fi
echo "bench peers installed: ${packages[*]}"
