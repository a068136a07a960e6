#!/usr/bin/python3
"""TensorLang's benchmark harness (first version): each kernel compiled by
tl-run's JIT, run by the reference interpreter, and computed by NumPy, on the
same inputs, in the same run. Prints a table of medians and ratios to the
JIT time. Times are kernel-only (tl-run --repeat; time.perf_counter around
the NumPy call).

    /usr/bin/python3 bench/run.py [--build build] [--reps 5] [--small] [--odd]
                                  [--kernels K1,K2,...] [--no-reference]
                                  [--pad M]

--pad M adds the JIT with --pad=M (the report's padded implementation) and
its memory overhead; --odd uses extents that are not multiples of the
vector width (n = 1000, a 5-d transposition of odd extents), where padding
matters.

Run it with OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 for one-thread figures.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np


def rnd(shape, seed):
    return np.random.default_rng(seed).random(shape) - 0.5


def kernels(small, odd):
    """(id, description, source, inputs, output, numpy function, work, unit)."""
    n1 = 256 if small else 1024
    n2 = 512 if small else 2048
    u3 = (8, 12, 16, 20, 24) if small else (16, 24, 32, 40, 48)
    n4 = 512 if small else 4096
    if odd:
        n1, n2, n4 = n1 - 23 if small else 1001, n2 - 1, n4 - 1
        u3 = tuple(d - 1 for d in u3)
    e5 = 200 if small else 4000
    p = 11
    out = []

    A, B = rnd((n1, n1), 1), rnd((n1, n1), 2)
    out.append(("K1", "matrix product n=%d" % n1,
                "var input A : [{0} {0}]\nvar input B : [{0} {0}]\nvar output C : [{0} {0}]\n"
                "C = A # B . [2 3]\n".format(n1),
                {"A": A, "B": B}, "C", lambda: A @ B, 2.0 * n1 ** 3, "GFLOP/s"))

    A2, B2 = rnd((n2, n2), 1), rnd((n2, n2), 2)
    out.append(("K2", "trace of a product n=%d" % n2,
                "var input A : [{0} {0}]\nvar input B : [{0} {0}]\nvar output s : []\n"
                "s = A # B . [2 3] . [1 2]\n".format(n2),
                {"A": A2, "B": B2}, "s", lambda: np.einsum("ij,ji->", A2, B2, optimize=True),
                2.0 * n2 * n2, "GFLOP/s"))

    u = rnd(u3, 3)
    v3 = (u3[0], u3[3], u3[2], u3[1], u3[4])
    out.append(("K3", "5-d transposition %s" % "x".join(map(str, u3)),
                "var input u : [%s]\nvar output v : [%s]\nv = u ^ [2 4]\n" % (
                    " ".join(map(str, u3)), " ".join(map(str, v3))),
                {"u": u}, "v", lambda: np.ascontiguousarray(u.transpose(0, 3, 2, 1, 4)),
                2.0 * u.nbytes, "GB/s"))

    a, b, c, d = (rnd((n4, n4), s) for s in (1, 2, 3, 4))
    e = rnd((n4, n4), 5) + 2.0
    out.append(("K4", "element-wise ((a + b) * c) - d / e, %d^2" % n4,
                "type m : [{0} {0}]\nvar input a : m\nvar input b : m\nvar input c : m\n"
                "var input d : m\nvar input e : m\nvar output z : m\n"
                "z = (a + b) * c - d / e\n".format(n4),
                {"a": a, "b": b, "c": c, "d": d, "e": e}, "z",
                lambda: ((a + b) * c) - (d / e), 6.0 * a.nbytes, "GB/s"))

    A5, u5 = rnd((p, p), 7), rnd((e5, p, p, p), 8)
    out.append(("K5", "CFD interpolation E=%d p=%d" % (e5, p),
                "var input u : [{0} {1} {1} {1}]\nvar input A : [{1} {1}]\n"
                "var output v : [{0} {1} {1} {1}]\n"
                "v = u # A # A # A . [[2 6] [3 8] [4 10]]\n".format(e5, p),
                {"u": u5, "A": A5}, "v",
                lambda: np.einsum("elmn,il,jm,kn->eijk", u5, A5, A5, A5, optimize=True),
                6.0 * e5 * p ** 4, "GFLOP/s"))
    # Inverse Helmholtz (CFDlang's kernel) on E elements: into the
    # eigenbasis, scale, back.
    S6, D6, u6 = rnd((p, p), 9), rnd((e5, p, p, p), 10), rnd((e5, p, p, p), 11)

    def helmholtz():
        t = np.einsum("eabc,ai,bj,ck->eijk", u6, S6, S6, S6, optimize=True)
        return np.einsum("eabc,ia,jb,kc->eijk", D6 * t, S6, S6, S6, optimize=True)
    out.append(("K5H", "inverse Helmholtz E=%d p=%d" % (e5, p),
                "type f : [{0} {1} {1} {1}]\nvar input S : [{1} {1}]\n"
                "var input D : f\nvar input u : f\nvar output v : f\nvar t : f\n"
                "t = u # S # S # S . [[2 5] [3 7] [4 9]]\n"
                "v = (D * t) # S # S # S . [[2 6] [3 8] [4 10]]\n".format(e5, p),
                {"S": S6, "D": D6, "u": u6}, "v", helmholtz,
                12.0 * e5 * p ** 4 + e5 * p ** 3, "GFLOP/s"))

    # A chain of matrix products with very unequal extents: (A B) C is
    # 2 n m^2 + 2 m^2 n flops, A (B C) 2 m n^2 + 2 n^2 m.
    n7, m7 = (512, 16) if small else (2048, 64)
    A7, B7, C7 = rnd((m7, n7), 12), rnd((n7, m7), 13), rnd((m7, n7), 14)
    out.append(("C3", "matrix chain %dx%d %dx%d %dx%d" % (m7, n7, n7, m7, m7, n7),
                "var input A : [{0} {1}]\nvar input B : [{1} {0}]\n"
                "var input C : [{0} {1}]\nvar output D : [{0} {1}]\n"
                "D = A # B # C . [[2 3] [4 5]]\n".format(m7, n7),
                {"A": A7, "B": B7, "C": C7}, "D",
                lambda: np.linalg.multi_dot([A7, B7, C7]),
                4.0 * m7 * m7 * n7, "GFLOP/s"))
    return out


def padded_bytes(inputs, m):
    """Bytes of the padded inputs over bytes of the real ones."""
    real = sum(v.size for v in inputs.values())
    padded = sum(int(np.prod([-(-d // m) * m for d in v.shape])) for v in inputs.values())
    return padded / real


def time_numpy(fn, reps):
    result = fn()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times)), result


def time_tl_run(tl_run, workdir, kernel, engine, reps, timeout, extra=()):
    ident, _, source, inputs, output = kernel[:5]
    prog = os.path.join(workdir, ident + ".tl")
    with open(prog, "w") as f:
        f.write(source)
    args = [tl_run, prog, "--engine=" + engine, "--repeat=%d" % reps]
    for name, value in inputs.items():
        path = os.path.join(workdir, "%s_%s.npy" % (ident, name))
        if not os.path.exists(path):
            np.save(path, value)
        args += ["--in", "%s=%s" % (name, path)]
    out_path = os.path.join(workdir, "%s_%s_%s.npy" % (ident, output, engine))
    args += ["--out", "%s=%s" % (output, out_path)] + list(extra)
    try:
        result = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, None, "timeout"
    if result.returncode != 0:
        errors = [l for l in result.stderr.splitlines() if "error:" in l]
        return None, None, (errors or ["failed"])[0].split("error: ", 1)[-1]
    match = re.search(r"kernel median: (\S+) s", result.stderr)
    return float(match.group(1)), np.load(out_path), None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(os.path.dirname(__file__), "..", "build"))
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--small", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--kernels", default="K1,K2,K3,K4,K5,K5H,C3")
    parser.add_argument("--no-reference", action="store_true")
    parser.add_argument("--odd", action="store_true",
                        help="extents that are not multiples of the vector width")
    parser.add_argument("--pad", type=int, default=0,
                        help="also time the JIT with --pad=M")
    parser.add_argument("--threads", type=int, default=0,
                        help="also time the JIT with --threads=N (OpenMP)")
    parser.add_argument("--unoptimized", action="store_true",
                        help="also time the JIT with --no-optimize (the "
                             "program as written: contraction order etc.)")
    args = parser.parse_args()
    tl_run = os.path.join(args.build, "bin", "tl-run")
    wanted = args.kernels.split(",")

    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for kernel in kernels(args.small, args.odd):
            ident, description = kernel[0], kernel[1]
            if ident not in wanted:
                continue
            work, unit = kernel[6], kernel[7]
            np_time, expected = time_numpy(kernel[5], args.reps)
            jit_time, jit_out, jit_error = time_tl_run(tl_run, workdir, kernel, "jit", args.reps, 1800)
            ref_time, ref_error = None, "skipped"
            if not args.no_reference:
                ref_time, _, ref_error = time_tl_run(tl_run, workdir, kernel, "reference", 1, 600)
            threaded_time = None
            if args.threads:
                threaded_time, threaded_out, _ = time_tl_run(
                    tl_run, workdir, kernel, "jit", args.reps, 1800,
                    ["--threads=%d" % args.threads])
                if threaded_out is not None:
                    assert np.allclose(threaded_out, expected, rtol=1e-9, atol=1e-9)
            raw_time = None
            if args.unoptimized:
                raw_time, _, _ = time_tl_run(tl_run, workdir, kernel, "jit",
                                             min(args.reps, 2), 1800,
                                             ["--no-optimize"])
            pad_time = None
            if args.pad:
                pad_time, pad_out, pad_error = time_tl_run(
                    tl_run, workdir, kernel, "jit", args.reps, 1800,
                    ["--pad=%d" % args.pad])
                if pad_out is not None:
                    assert np.allclose(pad_out, expected, rtol=1e-9, atol=1e-9)
            memory = padded_bytes(kernel[3], args.pad) if args.pad else None
            check = "-"
            if jit_out is not None:
                error = np.max(np.abs(jit_out - expected)) / max(np.max(np.abs(expected)), 1e-300)
                check = "%.1e" % error
            rows.append((ident, description, jit_time, ref_time, np_time, work, unit, check,
                         jit_error or "", ref_error or "", pad_time, memory, raw_time,
                         threaded_time))
            print("done %s" % ident, file=sys.stderr, flush=True)

    def fmt(t):
        return "%.4g" % t if t is not None else "-"

    pad_header = (" JIT --pad=%d (s) | padded / unpadded | padded memory |" % args.pad
                  if args.pad else "")
    if args.unoptimized:
        pad_header += " JIT --no-optimize (s) | as written / optimized |"
    if args.threads:
        pad_header += " JIT %d threads (s) | speed-up |" % args.threads
    print("| kernel | size | tensorlang JIT (s) | rate | reference (s) | ref / JIT | "
          "NumPy (s) | NumPy / JIT | max rel. diff |" + pad_header)
    print("|---|---|---|---|---|---|---|---|---|" + ("---|---|---|" if args.pad else "")
          + ("---|---|" if args.unoptimized else "") + ("---|---|" if args.threads else ""))
    for (ident, description, jit, ref, npt, work, unit, check, jerr, rerr,
         padt, memory, raw, threaded) in rows:
        rate = "%.2f %s" % (work / jit * 1e-9, unit) if jit else "-"
        line = "| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            ident, description, fmt(jit), rate,
            fmt(ref) if ref else "refused" if "handles" in rerr else (rerr[:40] or "-"),
            fmt(ref / jit) if ref and jit else "-", fmt(npt),
            fmt(npt / jit) if jit else "-", check)
        if args.pad:
            line += " %s | %s | %.3fx |" % (fmt(padt), fmt(padt / jit) if padt and jit else "-",
                                           memory)
        if args.unoptimized:
            line += " %s | %s |" % (fmt(raw), fmt(raw / jit) if raw and jit else "-")
        if args.threads:
            line += " %s | %s |" % (fmt(threaded), fmt(jit / threaded) if threaded and jit else "-")
        print(line)
    for ident, _, _, _, _, _, _, _, jerr, _, _, _, _, _ in rows:
        if jerr:
            print("%s JIT error: %s" % (ident, jerr))


if __name__ == "__main__":
    main()
