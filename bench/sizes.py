#!/usr/bin/python3
"""Sizes known at run time against extents fixed in the program: the CFD
kernels K5 (interpolation), K5H (inverse Helmholtz) and K5L (K5 with the
element index last) written with `size E`
and with E a number, compiled by tl-run's JIT and timed in the same run,
interleaved, at E = 4000 and at E = 3999 (a multiple of no tile). Prints
the medians and the ratio fixed / sized (1 = as fast; the target is at
least 0.95), and checks that both give the same result.

With --tccg, the TCCG suite instead (bench/tccg.py's cases), every extent
a size, at TCCG's extents and at every extent one smaller, against the
same contraction with its extents fixed (targets: geometric mean at
least 0.95, no case below 0.85, at both sizes), and a matrix product of
1024 (target 0.95).

    OMP_NUM_THREADS=1 /usr/bin/python3 bench/sizes.py [--build build]
        [--reps 20] [--rounds 3] [--elements 4000,3999] [--threads N]
    OMP_NUM_THREADS=1 /usr/bin/python3 bench/sizes.py --tccg [--reps 5]
        [--rounds 1] [--only abc-bda-dc,ab-ac-cb] [--max-mib 50]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

from run import cpu_name
import tccg

HERE = os.path.dirname(os.path.abspath(__file__))

P = 11
# The sized programs; the fixed ones replace E by its value.
KERNELS = {
    "K5": ("size E\ntype f : [E {p} {p} {p}]\nvar input A : [{p} {p}]\n"
           "var input u : f\nvar output v : f\n"
           "v = u # A # A # A . [[2 6] [3 8] [4 10]]\n", ("A", "u"), "v"),
    "K5H": ("size E\ntype f : [E {p} {p} {p}]\nvar input S : [{p} {p}]\n"
            "var input D : f\nvar input u : f\nvar output v : f\nvar t : f\n"
            "t = u # S # S # S . [[2 5] [3 7] [4 9]]\n"
            "v = (D * t) # S # S # S . [[2 6] [3 8] [4 10]]\n",
            ("S", "D", "u"), "v"),
    # K5 with the element index last, as CFDlang's `elem ... last` stores it.
    "K5L": ("size E\ntype f : [{p} {p} {p} E]\nvar input A : [{p} {p}]\n"
            "var input u : f\nvar output v : f\n"
            "v = A # A # A # u . [[2 7] [4 8] [6 9]]\n", ("A", "u"), "v"),
}


def fixed(source, elements):
    """The program with the size E replaced by its value."""
    return re.sub(r"\bE\b", str(elements), source.split("\n", 1)[1])


def time_program(tl_run, path, inputs, output, reps, extra):
    args = [tl_run, path, "--repeat=%d" % reps, "--out", "%s=%s" % output] + extra
    for name, file in inputs:
        args += ["--in", "%s=%s" % (name, file)]
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("tl-run failed on %s:\n%s" % (path, result.stderr))
    return float(re.search(r"kernel median: (\S+) s", result.stderr).group(1))


def time_pair(tl_run, sources, inputs, reps, rounds, extra, work, ident):
    """The best median of `rounds` alternations of the fixed and the sized
    program (sources: {"fixed": text, "sized": text}); and the largest
    difference of their results."""
    outs, best = {}, {}
    for kind, source in sources.items():
        path = os.path.join(work, "%s-%s.tl" % (ident, kind))
        with open(path, "w") as f:
            f.write(source)
        outs[kind] = (path, ("C", os.path.join(work, "%s-%s.npy" % (ident, kind))))
        best[kind] = float("inf")
    for _ in range(rounds):
        for kind, (path, out) in outs.items():
            best[kind] = min(best[kind], time_program(
                tl_run, path, inputs, out, reps, extra))
    diff = np.max(np.abs(np.load(outs["fixed"][1][1]) - np.load(outs["sized"][1][1])),
                  initial=0.0)
    return best["fixed"], best["sized"], diff


def run_tccg(args, tl_run, extra):
    """The TCCG suite and a matrix product, sized against fixed."""
    only = set(filter(None, args.only.split(",")))
    cases = [(n, s) for n, s in tccg.suite() if not only or n in only]
    if not only or "ab-ac-cb-1024" in only:
        cases.append(("ab-ac-cb-1024", {"a": 1024, "b": 1024, "c": 1024}))
    print("| case | extents | fixed (s) | sized (s) | fixed / sized | max |diff| |")
    print("|---|---|---|---|---|---|")
    ratios = {"suite": [], "one smaller": []}
    product = None
    with tempfile.TemporaryDirectory() as work:
        for number, (ident, suite_sizes) in enumerate(cases):
            name = ident[:-5] if ident.endswith("-1024") else ident
            if args.max_mib:
                suite_sizes = tccg.scale(suite_sizes, name, args.max_mib * 2 ** 20)
            kinds = [("suite", suite_sizes)]
            if ident == name:
                kinds.append(("one smaller",
                              {i: max(1, v - 1) for i, v in suite_sizes.items()}))
            for kind, sizes in kinds:
                fixed_source, spec = tccg.program(name, sizes)
                sized_source, _ = tccg.sized_program(name, sizes)
                a, b = (t[::-1] for t in name.split("-")[1:])
                rng = np.random.default_rng(number)
                inputs = []
                for tensor, indices in (("A", a), ("B", b)):
                    file = os.path.join(work, "%s.npy" % tensor)
                    np.save(file, rng.random([sizes[i] for i in indices]) - 0.5)
                    inputs.append((tensor, file))
                fixed_time, sized_time, diff = time_pair(
                    tl_run, {"fixed": fixed_source, "sized": sized_source},
                    inputs, args.reps, args.rounds, extra, work, str(number))
                ratio = fixed_time / sized_time
                if ident != name:
                    product = ratio
                else:
                    ratios[kind].append(ratio)
                extents = "x".join(str(sizes[i]) for i in sorted(sizes))
                print("| %s | %s | %.4g | %.4g | %.3f | %.1e |"
                      % (ident, extents, fixed_time, sized_time, ratio, diff),
                      flush=True)
    for kind, values in ratios.items():
        if not values:
            continue
        mean = float(np.exp(np.mean(np.log(values))))
        print("%s sizes: geometric mean fixed / sized %.3f (target >= 0.95), "
              "worst %.3f (target >= 0.85): %s"
              % (kind, mean, min(values),
                 "met" if mean >= 0.95 and min(values) >= 0.85 else "MISSED"))
    if product is not None:
        print("1024 matrix product: fixed / sized %.3f (target >= 0.95): %s"
              % (product, "met" if product >= 0.95 else "MISSED"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3,
                        help="alternations of the two programs; the best "
                             "median of each counts")
    parser.add_argument("--elements", default="4000,3999")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--tccg", action="store_true",
                        help="the TCCG suite and a 1024 matrix product "
                             "instead of the CFD kernels")
    parser.add_argument("--only", default="",
                        help="with --tccg: cases by name (ab-ac-cb; "
                             "ab-ac-cb-1024 for the matrix product)")
    parser.add_argument("--max-mib", type=float, default=None,
                        help="with --tccg: shrink each case's extents until "
                             "its largest tensor holds at most this many MiB")
    args = parser.parse_args()
    tl_run = os.path.join(args.build, "bin", "tl-run")
    extra = ["--threads=%d" % args.threads] if args.threads > 1 else []
    print("CPU: %s; %d thread(s); tl-run --repeat=%d, best of %d rounds"
          % (cpu_name(), args.threads, args.reps, args.rounds))
    if args.tccg:
        run_tccg(args, tl_run, extra)
        return
    print("| kernel | E | fixed (s) | sized (s) | fixed / sized | max |diff| |")
    print("|---|---|---|---|---|---|")
    worst = float("inf")
    with tempfile.TemporaryDirectory() as work:
        for ident, (template, names, output) in KERNELS.items():
            sized_source = template.format(p=P)
            sized_path = os.path.join(work, ident + "-sized.tl")
            with open(sized_path, "w") as f:
                f.write(sized_source)
            for elements in (int(e) for e in args.elements.split(",")):
                rng = np.random.default_rng(elements)
                inputs = []
                for name in names:
                    shape = ((P, P) if name in ("A", "S") else
                             (P, P, P, elements) if ident == "K5L" else
                             (elements, P, P, P))
                    file = os.path.join(work, "%s-%d-%s.npy" % (ident, elements, name))
                    np.save(file, rng.random(shape) - 0.5)
                    inputs.append((name, file))
                fixed_path = os.path.join(work, "%s-%d.tl" % (ident, elements))
                with open(fixed_path, "w") as f:
                    f.write(fixed(sized_source, elements))
                outs = {kind: (output, os.path.join(work, "%s-%s.npy" % (ident, kind)))
                        for kind in ("fixed", "sized")}
                best = {"fixed": float("inf"), "sized": float("inf")}
                for _ in range(args.rounds):
                    for kind, path in (("fixed", fixed_path), ("sized", sized_path)):
                        best[kind] = min(best[kind], time_program(
                            tl_run, path, inputs, outs[kind], args.reps, extra))
                diff = np.max(np.abs(np.load(outs["fixed"][1]) - np.load(outs["sized"][1])))
                ratio = best["fixed"] / best["sized"]
                worst = min(worst, ratio)
                print("| %s | %d | %.4g | %.4g | %.3f | %.1e |"
                      % (ident, elements, best["fixed"], best["sized"], ratio, diff))
    print("worst fixed / sized: %.3f (target >= 0.95): %s"
          % (worst, "met" if worst >= 0.95 else "MISSED"))


if __name__ == "__main__":
    main()
