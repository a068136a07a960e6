#!/usr/bin/python3
"""The whole TCCG suite (springer13/tccg @4ce1be9, benchmark/benchmark.py
with its full benchmark: 48 contractions) against numpy.einsum
(optimize=True, OpenBLAS) in the same run, one thread, f64.

The extents follow TCCG's own rule for 8-byte elements: the largest tensor
holds about 200 MiB (--max-mib); an index that is the first (stride-1)
index of a tensor, in TCCG's column-major spec, is a multiple of 24, the
others the nearest multiple of 4; `j` of the intensli cases is 24. As in
shared/peers/README.md, every index string is reversed for our row-major
arrays (the same memory layout). --odd-sizes makes every extent one smaller
(71 instead of 72): sizes that divide nothing.

Prints, per case, the two medians, tensorlang's GFLOP/s and the ratio
numpy / tensorlang (above 1: tensorlang faster), then the geometric mean,
the count of wins and the worst five. Results are checked against NumPy.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/tccg.py
        [--odd-sizes] [--only abc-bda-dc,3,...] [--max-mib 16] [--reps 3]
        [--timeout 600] [--build build]
"""

import argparse
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from run import cpu_name

HERE = os.path.dirname(os.path.abspath(__file__))

# benchmark.py's test cases with _fullbenchmark = 1, in its order.
INTENSLI = ["abj-bka-kj", "ajb-kba-jk", "abjc-cbka-kj", "ajbc-ckba-jk",
            "abjc-kbac-jk", "abjcd-dkbac-jk", "adbjc-cbdka-kj",
            "ajbdc-ckbad-jk"]
AO2MO = ["aqrs-pa-pqrs", "abrs-qb-aqrs", "abcs-rc-abrs"]
CCSD = ["ij-ik-kj", "ij-ikl-ljk", "ij-kil-lkj", "ijk-ikl-lj", "ijk-il-jlk",
        "ijk-ilk-jl", "ijk-ilk-lj", "ijk-ilmk-mjl", "ijkl-imjn-lnkm",
        "ijkl-imjn-nlmk", "ijkl-imkn-jnlm", "ijkl-imkn-njml",
        "ijkl-imln-jnkm", "ijkl-imln-njmk", "ijkl-imnj-nlkm",
        "ijkl-imnk-njml", "ijkl-minj-nlmk", "ijkl-mink-jnlm",
        "ijkl-minl-njmk"]
CCSD_T = ["abcijk-ijma-mkbc", "abcijk-ijmb-mkac", "abcijk-ijmc-mkab",
          "abcijk-ikma-mjbc", "abcijk-ikmb-mjac", "abcijk-ikmc-mjab",
          "abcijk-jkma-mibc", "abcijk-jkmb-miac", "abcijk-jkmc-miab",
          "abcijk-eiab-jkec", "abcijk-eiac-jkeb", "abcijk-eibc-jkea",
          "abcijk-ejab-ikec", "abcijk-ejac-ikeb", "abcijk-ejbc-ikea",
          "abcijk-ekab-ijec", "abcijk-ekac-ijeb", "abcijk-ekbc-ijea"]


def normalize(tc):
    """benchmark.py's renaming: C's indices a, b, ..., then the contracted
    ones in A's order."""
    c, a, b = tc.split("-")
    names = {}
    for index in c + a:
        if index not in names:
            names[index] = chr(ord("a") + len(names))
    rename = lambda s: "".join(names[i] for i in s)
    return "%s-%s-%s" % (rename(c), rename(a), rename(b)), names


def suite():
    """[(name, {index: extent})] for the 48 cases, TCCG's rule."""
    cases = []
    for group, fixed in [(INTENSLI, {"j": 24}), (AO2MO, {}), (CCSD, {}),
                         (CCSD_T, {})]:
        for test in group:
            name, names = normalize(test)
            tensors = name.split("-")
            sizes = {names[i]: v for i, v in fixed.items() if i in names}
            rank = max(len(t) for t in tensors)
            average = (200.0 * 2 ** 20 / 8) ** (1.0 / rank)
            for index in sorted(set(name) - {"-"}):
                if index in sizes:
                    continue
                if any(t[0] == index for t in tensors):
                    sizes[index] = int((average + 23) / 24) * 24
                else:
                    up = int((average + 3) / 4) * 4
                    down = max(4, int(average / 4) * 4)
                    sizes[index] = up if abs(average - up) < abs(average - down) else down
            cases.append((name, sizes))
    return cases


def scale(sizes, name, max_bytes):
    """The extents shrunk (by one factor, rounded, at least 1) until the
    largest tensor holds at most `max_bytes`."""
    def largest(s):
        return max(8 * math.prod(s[i] for i in t) for t in name.split("-"))
    if largest(sizes) <= max_bytes:
        return sizes
    rank = max(len(t) for t in name.split("-"))
    factor = (max_bytes / largest(sizes)) ** (1.0 / rank)
    return {i: max(1, int(round(v * factor))) for i, v in sizes.items()}


def transposition_pairs(order):
    """1-based swaps that turn dimensions in order `order` (a permutation of
    range(n), order[k] = the dimension wanted at position k) into place."""
    current = list(range(len(order)))
    pairs = []
    for k, wanted in enumerate(order):
        j = current.index(wanted)
        if j != k:
            pairs.append((k + 1, j + 1))
            current[k], current[j] = current[j], current[k]
    return pairs


def program(name, sizes):
    """The case in the language, row-major: every index string reversed."""
    c, a, b = (s[::-1] for s in name.split("-"))
    extents = lambda s: " ".join(str(sizes[i]) for i in s)
    product = a + b
    pairs = [(product.index(i) + 1, len(a) + b.index(i) + 1)
             for i in a if i in b]
    free = [i for i in product if product.count(i) == 1]
    statement = "C = A # B . [%s]" % " ".join("[%d %d]" % p for p in pairs)
    swaps = transposition_pairs([free.index(i) for i in c])
    if swaps:
        statement += " ^ [%s]" % " ".join("[%d %d]" % p for p in swaps)
    return ("var input A : [%s]\nvar input B : [%s]\nvar output C : [%s]\n%s\n"
            % (extents(a), extents(b), extents(c), statement),
            "%s,%s->%s" % (a, b, c))


def median_time(function, reps):
    times = []
    for _ in range(reps + 1):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times[1:]), result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    parser.add_argument("--odd-sizes", action="store_true",
                        help="every extent one smaller")
    parser.add_argument("--suite-sizes", action="store_true",
                        help="TCCG's extents (the default)")
    parser.add_argument("--only", default="",
                        help="cases by name (abc-bda-dc) or number (1-48)")
    parser.add_argument("--max-mib", type=float, default=None,
                        help="shrink every case's extents until its largest "
                             "tensor holds at most this many MiB (a quick "
                             "run; the suite's own extents by default)")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--timeout", type=int, default=600)
    args = parser.parse_args()
    tl_run = os.path.join(args.build, "bin", "tl-run")
    cases = list(enumerate(suite(), 1))
    if args.only:
        wanted = set(args.only.split(","))
        cases = [(n, c) for n, c in cases if str(n) in wanted or c[0] in wanted]
    rng = np.random.default_rng(0)
    print("CPU: %s; one thread; f64; %s sizes%s"
          % (cpu_name(), "odd (TCCG's - 1)" if args.odd_sizes else "TCCG's",
             ", shrunk to at most %g MiB a tensor" % args.max_mib
             if args.max_mib else ""))
    print("%3s %-18s %-44s %10s %10s %8s %7s" % (
        "#", "case", "extents", "numpy s", "tl s", "GFLOP/s", "ratio"))
    ratios = []
    with tempfile.TemporaryDirectory() as directory:
        for number, (name, sizes) in cases:
            if args.max_mib:
                sizes = scale(sizes, name, args.max_mib * 2 ** 20)
            if args.odd_sizes:
                sizes = {i: max(1, v - 1) for i, v in sizes.items()}
            source, spec = program(name, sizes)
            a_spec, b_spec = spec.split("->")[0].split(",")
            A = rng.standard_normal([sizes[i] for i in a_spec])
            B = rng.standard_normal([sizes[i] for i in b_spec])
            numpy_time, expected = median_time(
                lambda: np.einsum(spec, A, B, optimize=True), args.reps)
            paths = {n: os.path.join(directory, n + ".npy") for n in "ABC"}
            np.save(paths["A"], A)
            np.save(paths["B"], B)
            with open(os.path.join(directory, "p.tl"), "w") as f:
                f.write(source)
            extents = ",".join("%s=%d" % kv for kv in sorted(sizes.items()))
            try:
                result = subprocess.run(
                    [tl_run, os.path.join(directory, "p.tl"),
                     "--repeat=%d" % args.reps, "--in", "A=" + paths["A"],
                     "--in", "B=" + paths["B"], "--out", "C=" + paths["C"]],
                    capture_output=True, text=True, timeout=args.timeout)
            except subprocess.TimeoutExpired:
                print("%3d %-18s %-44s %10.4f %10s" % (
                    number, name, extents, numpy_time, "timeout"))
                ratios.append((0.0, number, name))
                continue
            if result.returncode != 0:
                sys.exit("tl-run failed on %s:\n%s" % (name, result.stderr))
            tl_time = float(re.search(r"kernel median: (\S+) s",
                                      result.stderr).group(1))
            output = np.load(paths["C"])
            scale_ = max(float(np.max(np.abs(expected))), 1e-300)
            if float(np.max(np.abs(output - expected))) / scale_ > 1e-10:
                sys.exit("%s: tensorlang and NumPy disagree" % name)
            flops = 2.0 * math.prod(sizes.values())
            ratio = numpy_time / tl_time
            ratios.append((ratio, number, name))
            print("%3d %-18s %-44s %10.4f %10.4f %8.1f %7.2f" % (
                number, name, extents, numpy_time, tl_time, flops / tl_time / 1e9,
                ratio))
            sys.stdout.flush()
    measured = [r for r, _, _ in ratios if r > 0]
    if measured:
        print("geometric mean numpy / tensorlang: %.2f; tensorlang faster on %d of %d"
              % (math.exp(sum(map(math.log, measured)) / len(measured)),
                 sum(r > 1 for r in measured), len(ratios)))
        print("worst five: " + ", ".join(
            "#%d %s %.2f" % (n, c, r) for r, n, c in sorted(ratios)[:5]))


if __name__ == "__main__":
    main()
