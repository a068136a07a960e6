#!/usr/bin/env python3
"""Runs the GPU check bundle (make_bundle.py) on a machine with an NVIDIA
GPU: each case's driver, its outputs against the reference interpreter's
(relative 1e-12 in f64, 1e-5 in f32; NaN where the reference has NaN).
Needs Python 3 and NumPy only. Exits 1 if any case fails."""

import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def compare(actual, expected, rtol):
    nan = np.isnan(expected)
    if not np.array_equal(nan, np.isnan(actual)):
        return False, float("inf")
    scale = np.maximum(np.abs(expected[~nan]), 1.0)
    error = np.abs(actual[~nan] - expected[~nan]) / scale if scale.size \
        else np.zeros(0)
    worst = float(error.max()) if error.size else 0.0
    return worst <= rtol, worst


def main():
    manifest = json.load(open(os.path.join(HERE, "manifest.json")))
    failed = []
    start = time.time()
    for case in manifest:
        work = os.path.join(HERE, "cases", case["name"])
        ran = subprocess.run(["./driver"], cwd=work, capture_output=True,
                             text=True, timeout=120)
        if ran.returncode != 0:
            print("FAIL %s: exit %d: %s" % (case["name"], ran.returncode,
                                            ran.stderr.strip()))
            failed.append(case["name"])
            continue
        dtype = np.dtype(case["dtype"])
        rtol = 1e-12 if dtype == np.float64 else 1e-5
        worst_case = 0.0
        ok = True
        for name in case["outputs"]:
            expected = np.load(os.path.join(work, "expected_%s.npy" % name))
            actual = np.fromfile(os.path.join(work, name + ".out"),
                                 dtype=dtype).reshape(expected.shape)
            good, worst = compare(actual, expected, rtol)
            worst_case = max(worst_case, worst)
            ok &= good
        print("%s %s: max relative error %.2e" % (
            "PASS" if ok else "FAIL", case["name"], worst_case))
        if not ok:
            failed.append(case["name"])
    print("%d of %d cases passed in %.1f s%s" % (
        len(manifest) - len(failed), len(manifest), time.time() - start,
        "" if not failed else "; failed: " + " ".join(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
