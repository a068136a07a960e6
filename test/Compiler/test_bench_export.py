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
                  "--l1-cache-bytes=32768", "--l2-cache-bytes=1048576",
                  "--l3-cache-bytes=4194304")
    assert result.returncode == 0, result.stderr
    return bundle


def test_exported_kernels_agree_with_numpy(tmp_path):
    bundle = export(tmp_path)
    manifest = json.loads((bundle / "cases.json").read_text())
    assert manifest["cpu"] == "x86-64-v3"
    assert manifest["l3_cache_bytes"] == 4194304
    assert [case["number"] for case in manifest["cases"]] == [12, 33]
    for case in manifest["cases"]:
        assert (bundle / ("%d.so" % case["number"])).exists()
        assert all(v > 1 and all(v % d for d in range(2, v))
                   for v in case["sizes"].values()), case
    result = tccg("--exported", str(bundle), "--peers", "numpy", "--reps",
                  "1")
    assert result.returncode == 0, result.stdout + result.stderr
    assert ("compiled for --cpu=x86-64-v3, L1 32768 B, L2 1048576 B, L3 "
            "4194304 B a core" in result.stdout), result.stdout
    rows = [line.split()[:2] for line in result.stdout.splitlines()
            if line[:3].strip().isdigit()]
    assert rows == [["12", "ab-ac-cb"], ["33", "abcdef-degc-gfab"]]
    # Each case's fraction of the roofline bound, and the summary.
    assert "roofline: peak " in result.stdout, result.stdout
    fractions = [line.split()[-1] for line in result.stdout.splitlines()
                 if line[:3].strip().isdigit()]
    assert all(f.endswith("%") and 0 < int(f[:-1]) for f in fractions), \
        fractions
    assert "cases at 80% of the bound or more" in result.stdout


def test_roofline_bound():
    """The compulsory traffic is each tensor once; the bound is the slower
    of the FMAs at the peak and that traffic at the bandwidth."""
    import importlib.util
    sys.path.insert(0, os.path.dirname(TCCG))
    spec = importlib.util.spec_from_file_location("tccg", TCCG)
    tccg_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tccg_module)
    sizes = {"a": 100, "b": 30, "c": 7}
    # ab-ac-cb: C[100x30], A[100x7], B[7x30] doubles.
    assert tccg_module.compulsory_bytes("ab-ac-cb", sizes) == \
        8 * (3000 + 700 + 210)
    flops = 2.0 * 100 * 30 * 7
    # Compute-bound at 1 GFLOP/s and 1 TB/s; memory-bound the other way.
    assert tccg_module.roofline_seconds(flops, 31280, 1e9, 1e12) == \
        flops / 1e9
    assert tccg_module.roofline_seconds(flops, 31280, 1e15, 1e6) == \
        31280 / 1e6
    assert tccg_module.roofline_seconds(flops, 31280, None, 1e6) is None


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


def test_peers_get_the_hosts_openblas_kernels_where_it_does_not_know_it(
        monkeypatch):
    """An OpenBLAS older than the CPU runs its SSE3 kernels ("Prescott"):
    the benchmarks hand it the kernels of the CPU's family instead, and
    leave a CPU it knows alone."""
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import run as bench_run

    class Completed:
        def __init__(self, stdout="", stderr=""):
            self.stdout, self.stderr = stdout, stderr

    def fake(corename, cpu):
        def run(command, **kwargs):
            if command[0] == bench_run.CC:
                return Completed(stderr='"-cc1" "-target-cpu" "%s" "-x"' % cpu)
            return Completed(stdout=corename + "\n")
        return run

    monkeypatch.setattr(bench_run.subprocess, "run",
                        fake("Prescott", "emeraldrapids"))
    assert bench_run.openblas_coretype_for_unknown_host() == "SapphireRapids"
    monkeypatch.setattr(bench_run.subprocess, "run",
                        fake("SkylakeX", "emeraldrapids"))
    assert bench_run.openblas_coretype_for_unknown_host() is None
    monkeypatch.setattr(bench_run.subprocess, "run",
                        fake("Prescott", "x86-64"))
    assert bench_run.openblas_coretype_for_unknown_host() is None


def test_only_takes_ranges_and_refuses_unknown_cases(tmp_path):
    """--only 20-21 is cases 20 and 21 (it was taken for a name, and the
    run was empty); a token that names no case stops the run."""
    bundle = tmp_path / "bundle"
    result = tccg("--max-mib", "0.05", "--only", "20-21,ab-ac-cb", "--export",
                  str(bundle), "--cpu=x86-64-v3")
    assert result.returncode == 0, result.stderr
    manifest = json.loads((bundle / "cases.json").read_text())
    assert [case["number"] for case in manifest["cases"]] == [12, 20, 21]
    for only in ["99", "20-30x", "ab-ac-cc"]:
        result = tccg("--only", only, "--export", str(tmp_path / only))
        assert result.returncode != 0, only
        assert "--only: no case is '%s'" % only in result.stderr, result.stderr
