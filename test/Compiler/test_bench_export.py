"""bench/tccg.py's --export and --exported: the TCCG cases compiled by
tl-compile into shared libraries for another CPU, then timed through ctypes
and checked against NumPy, as on a machine without LLVM. Small extents
(--max-mib), prime ones, so that this checks the object files' code at sizes
that divide nothing, and that the check of the results can fail."""

import json
import os
import subprocess
import sys

from conftest import BIN_DIR

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
TCCG = os.path.join(ROOT, "bench", "tccg.py")
BUILD = os.path.join(BIN_DIR, "..")
# ab-ac-cb (a = c, as TCCG's rule makes them), and a ccsd_t case whose
# transposition tl-compile folds.
CASES = "12,33"


def tccg(*args):
    return subprocess.run([sys.executable, TCCG, "--build", BUILD] +
                          list(args), capture_output=True, text=True,
                          timeout=600)


def export(tmp_path):
    bundle = tmp_path / "bundle"
    result = tccg("--prime-sizes", "--max-mib", "0.05", "--only", CASES,
                  "--export", str(bundle), "--cpu=x86-64-v3",
                  "--l1-cache-bytes=32768", "--l2-cache-bytes=1048576")
    assert result.returncode == 0, result.stderr
    return bundle


def test_exported_kernels_agree_with_numpy(tmp_path):
    bundle = export(tmp_path)
    manifest = json.loads((bundle / "cases.json").read_text())
    assert manifest["cpu"] == "x86-64-v3"
    assert [case["number"] for case in manifest["cases"]] == [12, 33]
    for case in manifest["cases"]:
        assert (bundle / ("%d.so" % case["number"])).exists()
        assert all(v > 1 and all(v % d for d in range(2, v))
                   for v in case["sizes"].values()), case
    result = tccg("--exported", str(bundle), "--peers", "numpy", "--reps",
                  "1")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "compiled for --cpu=x86-64-v3, L1 32768 B, L2 1048576 B" in \
        result.stdout
    rows = [line.split()[:2] for line in result.stdout.splitlines()
            if line[:3].strip().isdigit()]
    assert rows == [["12", "ab-ac-cb"], ["33", "abcdef-degc-gfab"]]


def test_exported_kernel_of_another_contraction_is_caught(tmp_path):
    """The manifest says case 12 is ab-ca-cb (A transposed, same shapes):
    NumPy computes that, the library the product, and the run fails."""
    bundle = export(tmp_path)
    path = bundle / "cases.json"
    manifest = json.loads(path.read_text())
    manifest["cases"][0]["name"] = "ab-ca-cb"
    path.write_text(json.dumps(manifest))
    result = tccg("--exported", str(bundle), "--only", "12", "--peers",
                  "numpy", "--reps", "1")
    assert result.returncode != 0
    assert "ab-ca-cb: tensorlang and NumPy disagree" in result.stderr


def test_bundle_errors_are_clear(tmp_path):
    """No manifest, a file that is not one, a missing library: one line
    each, no traceback, a non-zero exit."""
    result = tccg("--exported", str(tmp_path / "none"))
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "cannot read" in result.stderr and "--export" in result.stderr
    (tmp_path / "cases.json").write_text('{"kind": "x"}')
    result = tccg("--exported", str(tmp_path))
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "is not a manifest of --export" in result.stderr
    bundle = export(tmp_path)
    (bundle / "12.so").unlink()
    result = tccg("--exported", str(bundle), "--only", "12", "--peers",
                  "numpy")
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "cannot load" in result.stderr
    result = tccg("--cpu=znver4", "--only", "12")
    assert result.returncode != 0
    assert "go with --export" in result.stderr
    result = tccg("--exported", str(bundle), "--odd-sizes")
    assert result.returncode != 0
    assert "give the size flags to --export" in result.stderr
