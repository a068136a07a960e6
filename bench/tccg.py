#!/usr/bin/python3
"""The whole TCCG suite (springer13/tccg @4ce1be9, benchmark/benchmark.py
with its full benchmark: 48 contractions) against numpy.einsum
(optimize=True, OpenBLAS), Eigen's Tensor contract + shuffle and PyTorch's
einsum in the same run, one thread, f64.

The extents follow TCCG's own rule for 8-byte elements: the largest tensor
holds about 200 MiB (--max-mib); an index that is the first (stride-1)
index of a tensor, in TCCG's column-major spec, is a multiple of 24, the
others the nearest multiple of 4; `j` of the intensli cases is 24. As in
shared/peers/README.md, every index string is reversed for our row-major
arrays (the same memory layout). --odd-sizes makes every extent one smaller
(71 instead of 72): sizes that divide nothing; --prime-sizes makes each the
largest prime at most TCCG's.

Prints, per case, the medians, tensorlang's GFLOP/s, the ratio numpy /
tensorlang and the ratio best peer / tensorlang (above 1: tensorlang
faster), then the geometric means, the counts of wins and the worst five.
Every result is checked against NumPy's. `bench/run.py --kernels TCCG`
runs this with the same flags.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/tccg.py
        [--suite-sizes | --odd-sizes | --prime-sizes] [--only abc-bda-dc,3,...]
        [--max-mib 16] [--peers numpy,eigen,torch] [--reps 3]
        [--threads 2] [--timeout 600] [--build build]

--threads N also times tl-run on N threads, alternated with one thread,
and prints the speed-up of each case and their geometric mean (the
peers and the other columns stay on one thread).

On a machine of another CPU that has NumPy but no LLVM (no tl-run),
--export compiles the cases here for that CPU into shared libraries, and
--exported DIR, run there, times them through ctypes in place of tl-run,
with the same table:

    bench/tccg.py --odd-sizes --export bundle --cpu=emeraldrapids \
        --l1-cache-bytes=49152 --l2-cache-bytes=2097152 \
        --l3-cache-bytes=5242880
    python3 bench/tccg.py --exported bundle --peers numpy,torch   # there
"""

import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from run import Peers, cpu_name, set_peer_environment

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


def sized_program(name, sizes, indices=None):
    """program(), with the extent of every index in `indices` (all where
    None) a size of its own (N<index>): one kernel for any such extents."""
    source, spec = program(name, sizes)
    c, a, b = (s[::-1] for s in name.split("-"))
    sized = set(sizes) if indices is None else set(indices)
    names = lambda s: " ".join("N" + i if i in sized else str(sizes[i])
                               for i in s)
    declarations = "".join("size N%s\n" % i for i in sorted(sized))
    lines = source.split("\n")
    lines[0:3] = ["var input A : [%s]" % names(a), "var input B : [%s]" % names(b),
                  "var output C : [%s]" % names(c)]
    return declarations + "\n".join(lines), spec


def select_cases(cases, only):
    """The (number, case) pairs that `only` names: comma-separated names,
    numbers and ranges of numbers (20-30). A name or number that matches
    no case is an error, not an empty run."""
    wanted = set()
    for token in filter(None, (t.strip() for t in only.split(","))):
        bounds = re.fullmatch(r"(\d+)-(\d+)", token)
        if bounds:
            first, last = int(bounds.group(1)), int(bounds.group(2))
            numbers = {str(n) for n, _ in cases if first <= n <= last}
        else:
            numbers = {str(n) for n, c in cases if token in (str(n), c[0])}
        if not numbers:
            sys.exit("tccg.py: --only: no case is %r (names, numbers 1-%d, "
                     "ranges such as 20-30)" % (token, len(cases)))
        wanted |= numbers
    return [(n, c) for n, c in cases if str(n) in wanted]


def compulsory_bytes(name, sizes, element_bytes=8):
    """Bytes any implementation moves: each operand read once and the
    result written once (the roofline's traffic; caches can only add)."""
    return element_bytes * sum(math.prod(sizes[i] for i in tensor)
                               for tensor in name.split("-"))


def roofline_seconds(flops, nbytes, peak_flops, bandwidth):
    """The roofline bound on the time: the FMAs at the peak rate or the
    compulsory traffic at the measured bandwidth, whichever takes longer;
    None where either rate is unknown."""
    if not peak_flops or not bandwidth:
        return None
    return max(flops / peak_flops, nbytes / bandwidth)


def measure_peak(peer_dir):
    """(FLOP/s of one core, bytes/s of a STREAM triad) by bench/run.py's C
    micro-benchmarks; (None, None) where they cannot be built."""
    flops, _, bandwidth = Peers(peer_dir, budget=60.0).peak(10)
    return flops, bandwidth


def median_time(function, reps):
    times = []
    for _ in range(reps + 1):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times[1:]), result


def largest_prime_at_most(n):
    def prime(k):
        return k > 1 and all(k % d for d in range(2, int(k ** 0.5) + 1))
    while n > 2 and not prime(n):
        n -= 1
    return max(n, 1)


def eigen_arguments(spec):
    """(rank A, rank B, pairs, "a0,b0;...", "s0,s1,...") for the Eigen peer:
    A.contract(B, pairs) gives A's free indices then B's; the shuffle puts
    them in the result's order."""
    a, rest = spec.split(",")
    b, c = rest.split("->")
    pairs = [(a.index(i), b.index(i)) for i in a if i in b]
    free = [i for i in a if i not in b] + [i for i in b if i not in a]
    return (len(a), len(b), len(pairs),
            ";".join("%d,%d" % p for p in pairs),
            ",".join(str(free.index(i)) for i in c))


def eigen_ranks():
    """X(rank A, rank B, pairs) for every case of the suite: what the Eigen
    peer instantiates (one build serves every size)."""
    combos = set()
    for name, _ in suite():
        c, a, b = name.split("-")
        combos.add((len(a), len(b), len(set(a) & set(b))))
    return " ".join("X(%d,%d,%d)" % combo for combo in sorted(combos))


class EigenPeer:
    """bench/peers/eigen_tccg.cpp, built once into the peer directory."""

    def __init__(self, peer_dir, budget):
        from run import CXX, EIGEN_HEADER, PEER_SRC, Peers
        self.runner = Peers(peer_dir, budget)
        self.path, self.why = None, None
        source = os.path.join(PEER_SRC, "eigen_tccg.cpp")
        if not os.path.exists(EIGEN_HEADER):
            self.why = "no Eigen headers (apt-get install libeigen3-dev)"
        elif not os.path.exists(CXX):
            self.why = "no " + CXX
        else:
            self.path, self.why = self.runner._cached_build(
                "eigen_tccg", [source, os.path.join(PEER_SRC, "peers.h")],
                [[CXX, "-O3", "-march=native", "-std=c++17", "-w",
                  "-I/usr/include/eigen3", "-DTCCG_RANKS=" + eigen_ranks(),
                  source, "-o", "{out}"]])

    def time(self, spec, paths, reps, expected, timeout):
        if not self.path:
            return None
        out = paths["C"] + ".eigen"
        ra, rb, k, pairs, shuffle = eigen_arguments(spec)
        try:
            result = subprocess.run(
                [self.path, str(ra), str(rb), str(k), pairs, shuffle,
                 str(reps), out, paths["A"], paths["B"]],
                capture_output=True, text=True, timeout=timeout,
                env=dict(os.environ, PEER_BUDGET_S=str(self.runner.budget)))
        except subprocess.TimeoutExpired:
            return None
        match = re.search(r"median_s=(\S+)", result.stdout)
        if result.returncode != 0 or not match:
            sys.exit("the Eigen peer failed on %s:\n%s" % (spec, result.stderr))
        check(np.fromfile(out).reshape(expected.shape), expected, "Eigen", spec)
        os.remove(out)
        return float(match.group(1))


def torch_einsum():
    """PyTorch's einsum on one thread, or None with why not."""
    try:
        import torch
    except ImportError:
        return None, "no PyTorch (apt-get install python3-torch)"
    torch.set_num_threads(1)
    return torch, None


def check(result, expected, who, what):
    scale_ = max(float(np.max(np.abs(expected))), 1e-300)
    if float(np.max(np.abs(result - expected))) / scale_ > 1e-10:
        sys.exit("%s: %s and NumPy disagree" % (what, who))


def geometric_mean(values):
    return math.exp(sum(map(math.log, values)) / len(values))


def case_sizes(name, sizes, args):
    """A case's extents as the flags make them."""
    if args.max_mib:
        sizes = scale(sizes, name, args.max_mib * 2 ** 20)
    if args.odd_sizes:
        sizes = {i: max(1, v - 1) for i, v in sizes.items()}
    if args.prime_sizes:
        sizes = {i: largest_prime_at_most(v) for i, v in sizes.items()}
    return sizes


def export_cases(cases, kind, args):
    """--export: each case compiled by tl-compile for --cpu and the cache
    sizes given, linked into DIR/<number>.so (its function `kernel_ws`, as
    the JIT runs it), with DIR/cases.json saying what they are. Another
    machine of that CPU, with NumPy but no LLVM, times them with
    --exported."""
    tl_compile = os.path.join(args.build, "bin", "tl-compile")
    compiler = shutil.which("clang-22") or shutil.which("cc")
    if not compiler:
        sys.exit("--export needs a C compiler (clang-22 or cc) to link")
    try:
        os.makedirs(args.export, exist_ok=True)
    except OSError as error:
        sys.exit("--export: cannot make %s: %s" % (args.export, error.strerror))
    manifest = {"kind": kind, "cpu": args.cpu,
                "l1_cache_bytes": args.l1_cache_bytes,
                "l2_cache_bytes": args.l2_cache_bytes,
                "l3_cache_bytes": args.l3_cache_bytes,
                "options": args.compile_option, "cases": []}
    for number, (name, sizes) in cases:
        source, _ = program(name, sizes)
        stem = os.path.join(args.export, str(number))
        with open(stem + ".tl", "w") as f:
            f.write(source)
        for command in (
                [tl_compile, stem + ".tl", "-o", stem + ".o", "--name=kernel",
                 "--cpu=" + args.cpu,
                 "--l1-cache-bytes=%d" % args.l1_cache_bytes,
                 "--l2-cache-bytes=%d" % args.l2_cache_bytes,
                 "--l3-cache-bytes=%d" % args.l3_cache_bytes]
                + args.compile_option,
                [compiler, "-shared", "-o", stem + ".so", stem + ".o"]):
            result = subprocess.run(command, capture_output=True, text=True)
            if result.returncode != 0:
                sys.exit("%s failed on %s:\n%s" % (command[0], name,
                                                    result.stderr))
        os.remove(stem + ".o")
        manifest["cases"].append({"number": number, "name": name,
                                  "sizes": sizes})
        print("exported #%d %s" % (number, name))
    with open(os.path.join(args.export, "cases.json"), "w") as f:
        json.dump(manifest, f, indent=1)


def aligned_like(array):
    """A C-ordered copy of `array` whose data are aligned to 64 bytes (the
    compiled kernels' streaming stores want that)."""
    raw = np.empty(array.size + 64 // array.itemsize, dtype=array.dtype)
    offset = (-raw.ctypes.data % 64) // array.itemsize
    copy = raw[offset:offset + array.size].reshape(array.shape)
    copy[...] = array
    return copy


class ExportedKernels:
    """The kernels of --export, timed through ctypes."""

    def __init__(self, directory):
        import ctypes
        self.ctypes, self.directory = ctypes, directory
        path = os.path.join(directory, "cases.json")
        try:
            with open(path) as f:
                manifest = json.load(f)
            self.kind = manifest["kind"]
            self.compiled_for = (
                "; compiled for --cpu=%s, L1 %d B, L2 %d B, L3 %d B a core%s"
                % (manifest["cpu"], manifest["l1_cache_bytes"],
                   manifest["l2_cache_bytes"],
                   manifest.get("l3_cache_bytes", 0),
                   "".join(" " + option
                           for option in manifest.get("options", []))))
            self.cases = [(int(case["number"]),
                           (case["name"], {index: int(extent) for index, extent
                                           in case["sizes"].items()}))
                          for case in manifest["cases"]]
        except OSError as error:
            sys.exit("--exported: cannot read %s: %s (write it with --export)"
                     % (path, error.strerror))
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            sys.exit("--exported: %s is not a manifest of --export (%s: %s)"
                     % (path, type(error).__name__, error))

    def time(self, number, A, B, shape, reps):
        """(median seconds of `reps` runs after a warm-up, the result)."""
        ctypes = self.ctypes
        path = os.path.join(self.directory, "%d.so" % number)
        try:
            library = ctypes.CDLL(path)
        except OSError as error:
            sys.exit("--exported: cannot load %s: %s" % (path, error))
        library.kernel_workspace_size.restype = ctypes.c_int64
        kernel = library.kernel_ws
        kernel.restype = None
        kernel.argtypes = [ctypes.c_void_p] * 4
        workspace = aligned_like(
            np.zeros(max(1, library.kernel_workspace_size()), np.uint8))
        A, B = aligned_like(A), aligned_like(B)
        C = aligned_like(np.zeros(shape))
        pointers = [x.ctypes.data for x in (A, B, C, workspace)]
        return median_time(lambda: kernel(*pointers) or C, reps)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    sizes_group = parser.add_mutually_exclusive_group()
    sizes_group.add_argument("--suite-sizes", action="store_true",
                             help="TCCG's extents (the default)")
    sizes_group.add_argument("--odd-sizes", action="store_true",
                             help="every extent one smaller")
    sizes_group.add_argument("--prime-sizes", action="store_true",
                             help="every extent the largest prime at most "
                                  "TCCG's (72 -> 71, 16 -> 13, 296 -> 293)")
    parser.add_argument("--only", default="",
                        help="cases by name (abc-bda-dc), number (1-48) or "
                        "range of numbers (20-30), comma-separated")
    parser.add_argument("--max-mib", type=float, default=None,
                        help="shrink every case's extents until its largest "
                             "tensor holds at most this many MiB (a quick "
                             "run; the suite's own extents by default)")
    parser.add_argument("--peers", default="numpy,eigen,torch",
                        help="numpy (always: the baseline and the oracle), "
                             "eigen, torch")
    parser.add_argument("--peer-dir", default=None,
                        help="where the Eigen peer is built (default "
                             "BUILD/bench-peers)")
    bundle_group = parser.add_mutually_exclusive_group()
    bundle_group.add_argument("--export", metavar="DIR", default=None,
                        help="compile each case with tl-compile (for --cpu "
                             "and the cache sizes given) into DIR/<number>.so "
                             "and stop, for --exported on a machine without "
                             "LLVM")
    parser.add_argument("--cpu", default="host",
                        help="with --export: the LLVM CPU to compile for")
    parser.add_argument("--l1-cache-bytes", type=int, default=0,
                        help="with --export: that CPU's L1 data cache")
    parser.add_argument("--l2-cache-bytes", type=int, default=0,
                        help="with --export: that CPU's L2 cache")
    parser.add_argument("--l3-cache-bytes", type=int, default=0,
                        help="with --export: one core's share of that CPU's "
                             "L3 cache (0 with the L1 or L2 given: none)")
    parser.add_argument("--compile-option", action="append", default=[],
                        help="with --export: another tl-compile option "
                             "(--compile-option=--vector-bits=256)")
    bundle_group.add_argument("--exported", metavar="DIR", default=None,
                        help="time the kernels --export wrote to DIR (its "
                             "cases and extents) instead of tl-run's")
    parser.add_argument("--no-roofline", action="store_true",
                        help="skip the peak FMA rate and STREAM bandwidth "
                             "micro-benchmarks (no roofline column)")
    parser.add_argument("--threads", type=int, default=1,
                        help="also time tl-run --threads=N, alternated with "
                             "one thread twice each (best median of each), "
                             "and print the speed-up (the peers stay on one "
                             "thread)")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--timeout", type=int, default=600)
    args = parser.parse_args(argv)
    if args.threads < 1:
        parser.error("--threads must be at least 1")
    if args.threads > 1 and (args.export or args.exported):
        parser.error("--threads times tl-run: not with --export or --exported")
    if not args.export and (args.cpu != "host" or args.l1_cache_bytes or
                            args.l2_cache_bytes or args.l3_cache_bytes or
                            args.compile_option):
        parser.error("--cpu, --l1-cache-bytes, --l2-cache-bytes, "
                     "--l3-cache-bytes and --compile-option go with --export")
    if args.exported and (args.odd_sizes or args.prime_sizes or
                          args.suite_sizes or args.max_mib):
        parser.error("--exported takes the cases' extents from its manifest: "
                     "give the size flags to --export")
    set_peer_environment("host", one_thread=True)
    tl_run = os.path.join(args.build, "bin", "tl-run")
    cases = [(n, (name, case_sizes(name, sizes, args)))
             for n, (name, sizes) in enumerate(suite(), 1)]
    kind = ("odd (TCCG's - 1)" if args.odd_sizes else
            "prime (at most TCCG's)" if args.prime_sizes else "TCCG's")
    kind += " sizes"
    if args.max_mib:
        kind += ", shrunk to at most %g MiB a tensor" % args.max_mib
    exported = None
    if args.exported:
        exported = ExportedKernels(args.exported)
        cases, kind = exported.cases, exported.kind
    if args.only:
        cases = select_cases(cases, args.only)
    if args.export:
        return export_cases(cases, kind, args)
    peers = args.peers.split(",")
    eigen = torch = None
    notes = []
    if "eigen" in peers:
        eigen = EigenPeer(args.peer_dir or os.path.join(args.build, "bench-peers"),
                          budget=60.0)
        if eigen.why:
            notes.append("Eigen: n/a, " + eigen.why)
    if "torch" in peers:
        torch, why = torch_einsum()
        if why:
            notes.append("PyTorch: n/a, " + why)
    print("CPU: %s; one thread; f64; %s%s"
          % (cpu_name(), kind, exported.compiled_for if exported else ""))
    peak_flops = bandwidth = None
    if not args.no_roofline:
        peak_flops, bandwidth = measure_peak(
            args.peer_dir or os.path.join(args.build, "bench-peers"))
        print("roofline: %s, %s" % (
            "peak %.1f GFLOP/s (one core, FMA micro-benchmark)"
            % (peak_flops * 1e-9) if peak_flops else "peak n/a",
            "STREAM triad %.1f GB/s" % (bandwidth * 1e-9)
            if bandwidth else "bandwidth n/a"))
    threads = args.threads
    print("%3s %-18s %-40s %9s %9s %9s %9s %7s %7s %7s %5s%s" % (
        "#", "case", "extents", "numpy s", "eigen s", "torch s", "tl s",
        "GFLOP/s", "numpy/", "best/", "roof",
        " %9s %6s" % ("tl %dt s" % threads, "x%d" % threads)
        if threads > 1 else ""))
    rng = np.random.default_rng(0)
    rows = []  # (ratio to numpy, ratio to the best peer, number, name)
    roofs = []  # (fraction of the roofline bound reached, number, name)
    speedups = []  # (one thread's time / N threads' time, number, name)

    def record(number, name, extents, cell, times, sizes, tl_time,
               threaded_time=None):
        flops = 2.0 * math.prod(sizes.values())
        numpy_time, best = times["numpy"], min(times.values())
        rows.append((numpy_time / tl_time, best / tl_time, number, name))
        bound = roofline_seconds(flops, compulsory_bytes(name, sizes),
                                 peak_flops, bandwidth)
        roof = "%5s" % "-"
        if bound is not None:
            roofs.append((bound / tl_time, number, name))
            roof = "%4.0f%%" % (100.0 * bound / tl_time)
        threaded = ""
        if threaded_time is not None:
            speedups.append((tl_time / threaded_time, number, name))
            threaded = " %9.4f %6.2f" % (threaded_time,
                                         tl_time / threaded_time)
        print("%3d %-18s %-40s %s %s %s %9.4f %7.1f %7.2f %7.2f %s%s" % (
            number, name, extents, cell("numpy"), cell("eigen"),
            cell("torch"), tl_time, flops / tl_time / 1e9,
            numpy_time / tl_time, best / tl_time, roof, threaded))
        sys.stdout.flush()

    with tempfile.TemporaryDirectory() as directory:
        for number, (name, sizes) in cases:
            source, spec = program(name, sizes)
            a_spec, b_spec = spec.split("->")[0].split(",")
            A = rng.standard_normal([sizes[i] for i in a_spec])
            B = rng.standard_normal([sizes[i] for i in b_spec])
            numpy_time, expected = median_time(
                lambda: np.einsum(spec, A, B, optimize=True), args.reps)
            paths = {n: os.path.join(directory, n + ".npy") for n in "ABC"}
            if eigen is not None or not exported:
                # The files that Eigen's peer and tl-run read.
                np.save(paths["A"], A)
                np.save(paths["B"], B)
            times = {"numpy": numpy_time}
            if torch is not None:
                At, Bt = torch.from_numpy(A), torch.from_numpy(B)
                times["torch"], result = median_time(
                    lambda: torch.einsum(spec, At, Bt), args.reps)
                check(result.numpy(), expected, "PyTorch", name)
            if eigen is not None:
                eigen_time = eigen.time(spec, paths, args.reps, expected,
                                        args.timeout)
                if eigen_time is not None:
                    times["eigen"] = eigen_time
            extents = ",".join("%s=%d" % kv for kv in sorted(sizes.items()))
            cell = lambda key: ("%9.4f" % times[key]) if key in times else "%9s" % "-"
            if exported:
                tl_time, result = exported.time(number, A, B, expected.shape,
                                                args.reps)
                check(result, expected, "tensorlang", name)
                record(number, name, extents, cell, times, sizes, tl_time)
                continue
            with open(os.path.join(directory, "p.tl"), "w") as f:
                f.write(source)

            def run_tl(thread_count):
                """tl-run's median on `thread_count` threads, its result
                checked; None on a timeout."""
                try:
                    result = subprocess.run(
                        [tl_run, os.path.join(directory, "p.tl"),
                         "--repeat=%d" % args.reps,
                         "--threads=%d" % thread_count,
                         "--in", "A=" + paths["A"], "--in", "B=" + paths["B"],
                         "--out", "C=" + paths["C"]],
                        capture_output=True, text=True, timeout=args.timeout)
                except subprocess.TimeoutExpired:
                    return None
                if result.returncode != 0:
                    sys.exit("tl-run failed on %s:\n%s" % (name, result.stderr))
                check(np.load(paths["C"]), expected, "tensorlang", name)
                return float(re.search(r"kernel median: (\S+) s",
                                       result.stderr).group(1))

            # One thread and `threads` alternated, twice each: the machine's
            # load moves between runs.
            counts = [1] if threads == 1 else [1, threads, 1, threads]
            medians = {count: [] for count in counts}
            for count in counts:
                medians[count].append(run_tl(count))
            if None in medians[1] + medians[threads]:
                print("%3d %-18s %-40s %s %s %s %9s" % (
                    number, name, extents, cell("numpy"), cell("eigen"),
                    cell("torch"), "timeout"))
                rows.append((0.0, 0.0, number, name))
                continue
            record(number, name, extents, cell, times, sizes,
                   min(medians[1]),
                   min(medians[threads]) if threads > 1 else None)
    for note in notes:
        print(note)
    measured = [row for row in rows if row[0] > 0]
    if measured:
        print("geometric mean numpy / tensorlang: %.2f; tensorlang faster on "
              "%d of %d" % (geometric_mean([r[0] for r in measured]),
                            sum(r[0] > 1 for r in measured), len(rows)))
        print("geometric mean best peer / tensorlang: %.2f; tensorlang "
              "faster than every peer on %d of %d"
              % (geometric_mean([r[1] for r in measured]),
                 sum(r[1] > 1 for r in measured), len(rows)))
        print("worst five against numpy: " + ", ".join(
            "#%d %s %.2f" % (n, c, r) for r, _, n, c in sorted(rows)[:5]))
    if speedups:
        print("%d threads against one: geometric mean %.2fx; %d of %d at "
              "%.1fx or more; lowest five: %s" % (
                  threads, geometric_mean([f for f, _, _ in speedups]),
                  sum(f >= 0.95 * threads for f, _, _ in speedups),
                  len(speedups), 0.95 * threads,
                  ", ".join("#%d %s %.2fx" % (n, c, f)
                            for f, n, c in sorted(speedups)[:5])))
    if roofs:
        print("roofline (max(FLOPs / peak, compulsory bytes / STREAM)): %d "
              "of %d cases at 80%% of the bound or more; lowest five: %s" % (
                  sum(f >= 0.8 for f, _, _ in roofs), len(roofs),
                  ", ".join("#%d %s %.0f%%" % (n, c, 100 * f)
                            for f, n, c in sorted(roofs)[:5])))


if __name__ == "__main__":
    main()
