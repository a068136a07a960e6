#!/usr/bin/env bash
# The main job on a bundled example: run the CFD interpolation kernel
# (examples/cfd_interpolation.tl) on random data with tl-run and compare the
# result with numpy.einsum. Usage: bash examples/run.sh [BUILD_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

/usr/bin/python3 - "$work" <<'PY'
import sys, numpy as np
rng = np.random.default_rng(0)
np.save(sys.argv[1] + "/u.npy", rng.random((400, 11, 11, 11)))
np.save(sys.argv[1] + "/A.npy", rng.random((11, 11)))
PY

echo "tl-run $here/cfd_interpolation.tl --in u=u.npy --in A=A.npy --out v=v.npy"
time "$build/bin/tl-run" "$here/cfd_interpolation.tl" \
  --in u="$work/u.npy" --in A="$work/A.npy" --out v="$work/v.npy"

/usr/bin/python3 - "$work" <<'PY'
import sys, numpy as np
d = sys.argv[1]
u, A, v = np.load(d + "/u.npy"), np.load(d + "/A.npy"), np.load(d + "/v.npy")
expected = np.einsum("eijk,ai,bj,ck->eabc", u, A, A, A)
error = np.abs(v - expected).max() / np.abs(expected).max()
print("v has shape %s; largest relative difference from numpy.einsum: %.2e"
      % (v.shape, error))
sys.exit(0 if error < 1e-12 else 1)
PY
