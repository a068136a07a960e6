#!/usr/bin/env python3
"""Runs the GPU check bundle (make_bundle.py) on a machine with an NVIDIA
GPU: each case's driver, its outputs against the reference interpreter's
(relative 1e-12 in f64, 1e-5 in f32; NaN where the reference has NaN).
Needs Python 3 and NumPy only. Exits 1 if any case fails.

  python3 run.py [--tl-run PATH]

With --tl-run, each case also runs through that tl-run (--target=cuda,
its JIT), reading and writing .npy files (shared/tools/bundle-tools.sh packs
one that needs no LLVM installed)."""

import argparse
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


def run_case(case, work, tl_run):
    """Runs one case, by its driver or by `tl_run`; returns each output's
    value, or an error message."""
    dtype = np.dtype(case["dtype"])
    if not tl_run:
        ran = subprocess.run(["./driver"], cwd=work, capture_output=True,
                             text=True, timeout=120)
        if ran.returncode != 0:
            return "exit %d: %s" % (ran.returncode, ran.stderr.strip())
        return {name: np.fromfile(os.path.join(work, name + ".out"),
                                  dtype=dtype) for name in case["outputs"]}
    command = [tl_run, "prog.tl", "--target=cuda"]
    if dtype == np.float32:
        command.append("--element-type=f32")
    for name in case["variables"]:
        command += ["--in", "%s=in_%s.npy" % (name, name)]
    for name in case["outputs"]:
        command += ["--out", "%s=tlrun_%s.npy" % (name, name)]
    ran = subprocess.run(command, cwd=work, capture_output=True, text=True,
                         timeout=300)
    if ran.returncode != 0:
        return "tl-run exit %d: %s" % (ran.returncode, ran.stderr.strip())
    return {name: np.load(os.path.join(work, "tlrun_%s.npy" % name))
            for name in case["outputs"]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tl-run", default=None)
    args = parser.parse_args()
    manifest = json.load(open(os.path.join(HERE, "manifest.json")))
    failed = []
    start = time.time()
    for case in manifest:
        work = os.path.join(HERE, "cases", case["name"])
        outputs = run_case(case, work, args.tl_run)
        if isinstance(outputs, str):
            print("FAIL %s: %s" % (case["name"], outputs))
            failed.append(case["name"])
            continue
        rtol = 1e-12 if np.dtype(case["dtype"]) == np.float64 else 1e-5
        worst_case = 0.0
        ok = True
        for name in case["outputs"]:
            expected = np.load(os.path.join(work, "expected_%s.npy" % name))
            actual = np.asarray(outputs[name]).reshape(expected.shape)
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
