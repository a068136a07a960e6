#!/usr/bin/env python3
"""Runs the GPU check bundle (make_bundle.py) on a machine with an NVIDIA
GPU: each case's driver, its outputs against the reference interpreter's
(relative 1e-12 in f64, 1e-5 in f32; NaN where the reference has NaN).
Needs Python 3 and NumPy only. Exits 1 if any case fails.

  python3 run.py [--tl-run PATH] [--load]

With --tl-run, each case also runs through that tl-run (--target=cuda,
its JIT), reading and writing .npy files (shared/tools/bundle-tools.sh packs
one that needs no LLVM installed). With --load, each case's kernel library
(and its padded one) also runs through tensorlang.load (OUT/python, no
compiler) on NumPy arrays, and on CuPy and PyTorch CUDA arrays where those
import: without copies, on each library's current stream."""

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


def device_libraries():
    """The array libraries with CUDA arrays here: (name, to_device,
    to_host, synchronize)."""
    found = []
    try:
        import cupy
        found.append(("cupy", cupy.asarray, cupy.asnumpy,
                      cupy.cuda.get_current_stream().synchronize))
    except ImportError:
        pass
    try:
        import torch
        if torch.cuda.is_available():
            found.append(("torch", lambda a: torch.from_numpy(a).cuda(),
                          lambda t: t.cpu().numpy(), torch.cuda.synchronize))
    except ImportError:
        pass
    return found


def run_loaded(case, work, library, how):
    """Runs a case's kernel library through tensorlang.load: on NumPy
    arrays (how is None) or on CUDA arrays of `how`. A padded library takes
    CUDA arrays with their padded shapes."""
    import tensorlang
    dtype = np.dtype(case["dtype"])
    kernel = tensorlang.load(os.path.join(work, library))
    # (The variables the optimized program still has: the library's.)
    names = {var["name"] for var in kernel.variables}
    values = {name: np.load(os.path.join(work, "in_%s.npy" % name))
              for name in case["variables"] if name in names}
    if how is None:
        return kernel(**values)
    _, to_device, to_host, synchronize = how
    shapes = {}
    known = {}
    for var in kernel.variables:
        value = values.get(var["name"])
        if value is None:
            continue
        for extent, declared in zip(value.shape, var["shape"]):
            if isinstance(declared, str):
                known[declared] = extent
    arrays = {}
    for var in kernel.variables:
        value = values.get(var["name"])
        if value is None:
            continue
        buffer = [known.get(e, e) if isinstance(e, str) else e
                  for e in var["buffer_shape"]]
        padded = np.zeros(buffer, dtype)
        padded[tuple(slice(0, e) for e in value.shape)] = value
        arrays[var["name"]] = to_device(padded)
        shapes[var["name"]] = value.shape
    results = kernel(**arrays)
    synchronize()
    return {name: to_host(value)[tuple(slice(0, e) for e in shapes.get(
        name, to_host(value).shape))] for name, value in results.items()}


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


def check(case, work, label, run):
    """Runs and compares one way of running a case; its name if it fails."""
    try:
        outputs = run()
    except Exception as error:  # (reported, and the run goes on)
        outputs = "%s: %s" % (type(error).__name__, error)
    if isinstance(outputs, str):
        print("FAIL %s: %s" % (label, outputs))
        return label
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
        "PASS" if ok else "FAIL", label, worst_case))
    return None if ok else label


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tl-run", default=None)
    parser.add_argument("--load", action="store_true")
    args = parser.parse_args()
    manifest = json.load(open(os.path.join(HERE, "manifest.json")))
    if args.load:
        sys.path.insert(0, os.path.join(HERE, "python"))
        hows = [None] + device_libraries()
        print("tensorlang.load on: numpy%s" % "".join(
            ", " + how[0] for how in hows[1:]))
    failed = []
    checked = 0
    start = time.time()
    for case in manifest:
        work = os.path.join(HERE, "cases", case["name"])
        runs = [(case["name"], lambda: run_case(case, work, args.tl_run))]
        if args.load:
            libraries = ["k.so"] + (["kpad.so"] if case.get("padded") else [])
            for library in libraries:
                for how in hows:
                    runs.append((
                        "%s %s %s" % (case["name"], library,
                                      "numpy" if how is None else how[0]),
                        lambda library=library, how=how: run_loaded(
                            case, work, library, how)))
        for label, run in runs:
            checked += 1
            result = check(case, work, label, run)
            if result:
                failed.append(result)
    print("%d of %d runs (%d cases) passed in %.1f s%s" % (
        checked - len(failed), checked, len(manifest), time.time() - start,
        "" if not failed else "; failed: " + ", ".join(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
