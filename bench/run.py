#!/usr/bin/python3
"""TensorLang's benchmark harness: every kernel compiled by tl-run's JIT and
computed by its peers (NumPy, plain C loops, memcpy / STREAM, OpenBLAS,
Eigen's Tensor module, upstream MLIR's plain lowering of the same kernel in
linalg) and run by the reference interpreter, on the same inputs, in the
same run. Prints the machine's peak (an FMA micro-benchmark, a STREAM triad)
and tables of medians, rates, fractions of peak and ratios to the
TensorLang time, and checks every result against NumPy's.

    /usr/bin/python3 bench/run.py [--build build] [--reps 5] [--small] [--odd]
                                  [--kernels K1,K2,...] [--peers numpy,c,...]
                                  [--no-reference] [--pad M] [--threads N]
                                  [--unoptimized] [--peer-dir DIR]

Times are kernel-only medians after a warm-up run: tl-run --repeat for
TensorLang, time.perf_counter around the call for NumPy, CLOCK_MONOTONIC in
the C/C++ peers (bench/peers/), which bench/run.py builds with clang-22 into
--peer-dir (default build/bench-peers/, rebuilt when a source changes).

--pad M adds the JIT with --pad=M (the report's padded implementation) and
its memory overhead; --odd uses extents that are not multiples of the
vector width; --threads N adds the JIT on N threads; --unoptimized adds the
JIT with --no-optimize (the program as written).

`--kernels TCCG` runs the whole TCCG suite instead (bench/tccg.py: 48
contractions against NumPy, Eigen and PyTorch, with --suite-sizes,
--odd-sizes, --prime-sizes and --only).

Run it with OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 for one-thread figures.
"""

import argparse
import hashlib
import os
import platform
import re
import shutil
import string
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PEER_SRC = os.path.join(HERE, "peers")

# --peers names, in table order, and their column titles.
PEERS = ["numpy", "torch", "c", "stream", "openblas", "blis", "libxsmm", "eigen",
         "mlir-plain", "mlir-tuned"]
TITLES = {"numpy": "NumPy", "torch": "PyTorch einsum", "c": "C loops",
          "stream": "memcpy / STREAM", "openblas": "OpenBLAS", "blis": "BLIS",
          "libxsmm": "LIBXSMM", "eigen": "Eigen Tensor", "mlir-plain": "MLIR plain",
          "mlir-tuned": "MLIR transform schedule"}
# OpenBLAS's kernels for an LLVM CPU name (--cpu): OPENBLAS_CORETYPE, so
# that the BLAS peers run the code they would run on that CPU.
OPENBLAS_CORETYPES = {
    "x86-64-v3": "Haswell", "haswell": "Haswell", "broadwell": "Haswell",
    "skylake": "Haswell", "alderlake": "Haswell", "znver1": "Zen", "znver2": "Zen",
    "znver3": "Zen", "x86-64-v4": "SkylakeX", "skylake-avx512": "SkylakeX",
    "cascadelake": "SkylakeX", "icelake-server": "SkylakeX",
    "sapphirerapids": "SapphireRapids", "emeraldrapids": "SapphireRapids",
    "graniterapids": "SapphireRapids", "znver4": "SkylakeX", "znver5": "SkylakeX",
    "x86-64-v2": "Nehalem", "nehalem": "Nehalem", "x86-64": "Prescott",
}
CC = "/usr/bin/clang-22"
CXX = "/usr/bin/clang++-22"
MLIR_OPT = "/usr/bin/mlir-opt-22"
MLIR_TRANSLATE = "/usr/bin/mlir-translate-22"
EIGEN_HEADER = "/usr/include/eigen3/unsupported/Eigen/CXX11/Tensor"


# The runtime-dispatching peers' own names for a class of CPU, by OpenBLAS
# core type: LIBXSMM_TARGET (LIBXSMM's JIT) and ATEN_CPU_CAPABILITY
# (PyTorch's kernels).
RUNTIME_TARGETS = {
    "Haswell": ("hsw", "avx2"), "Zen": ("hsw", "avx2"),
    "SkylakeX": ("skx", "avx512"), "SapphireRapids": ("cpx", "avx512"),
    "Nehalem": ("wsm", "default"), "Prescott": ("sse3", "default"),
}
PEER_TARGET_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "LIBXSMM_TARGET",
                         "ATEN_CPU_CAPABILITY")


def host_llvm_cpu():
    """LLVM's name for this machine's CPU (clang's -march=native), or None."""
    try:
        driver = subprocess.run([CC, "-march=native", "-###", "-x", "c", "-c",
                                 os.devnull], capture_output=True, text=True,
                                timeout=30).stderr
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r'"-target-cpu" "([^"]+)"', driver)
    return match.group(1) if match else None


def openblas_coretype_for_unknown_host():
    """The OPENBLAS_CORETYPE that this machine's CPU should get where the
    installed OpenBLAS does not know it, or None. A DYNAMIC_ARCH OpenBLAS
    runs its SSE3 kernels (core "Prescott") on a CPU newer than itself:
    Debian 12's 0.3.21 on Emerald Rapids runs DGEMM at 7.5 GFLOP/s, its
    SapphireRapids (Cooperlake) kernels at 48. A peer that slow is no
    yardstick, so the benchmarks give it the kernels of the CPU's family,
    and say so."""
    probe = ("import ctypes, ctypes.util\n"
             "lib = ctypes.CDLL(ctypes.util.find_library('openblas'))\n"
             "lib.openblas_get_corename.restype = ctypes.c_char_p\n"
             "print(lib.openblas_get_corename().decode())")
    env = dict(os.environ)
    for variable in PEER_TARGET_VARIABLES:
        env.pop(variable, None)
    try:
        corename = subprocess.run([sys.executable, "-c", probe], env=env,
                                  capture_output=True, text=True,
                                  timeout=60).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    if corename.lower() != "prescott":
        return None
    cpu = host_llvm_cpu()
    coretype = OPENBLAS_CORETYPES.get(cpu or "")
    if coretype is None or coretype == "Prescott":
        return None
    print("note: OpenBLAS does not know this CPU (%s) and would run its SSE3 "
          "kernels; the peers get OPENBLAS_CORETYPE=%s" % (cpu, coretype),
          file=sys.stderr)
    return coretype


def set_peer_environment(cpu, one_thread=False):
    """Makes the peers that choose their kernels when they run (OpenBLAS,
    NumPy's too; LIBXSMM; PyTorch) run those of `cpu`: their own choice on
    the host (but OpenBLAS's where it does not know the host's CPU), the
    variables of RUNTIME_TARGETS for another CPU. An
    environment that sets them (some machines here set OPENBLAS_CORETYPE=
    Haswell and OPENBLAS_L2_SIZE=512 for every process) would otherwise
    hand NumPy and OpenBLAS AVX2 kernels on an AVX-512 machine. NumPy has
    loaded OpenBLAS already, so a change starts this script again. With
    `one_thread`, the thread counts of OpenBLAS, OpenMP and MKL default to
    1 (a figure said to be of one thread is one, whatever the shell
    exports)."""
    env = dict(os.environ)
    if one_thread:
        for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                         "MKL_NUM_THREADS"):
            env.setdefault(variable, "1")
    for variable in PEER_TARGET_VARIABLES:
        env.pop(variable, None)
    if cpu == "host":
        coretype = openblas_coretype_for_unknown_host()
        if coretype:
            env["OPENBLAS_CORETYPE"] = coretype
    else:
        coretype = OPENBLAS_CORETYPES.get(cpu)
        if coretype is None:
            print("warning: no OpenBLAS core type known for --cpu=%s; OpenBLAS, NumPy, "
                  "LIBXSMM and PyTorch run this machine's kernels" % cpu, file=sys.stderr)
        else:
            env["OPENBLAS_CORETYPE"] = coretype
            env["LIBXSMM_TARGET"], env["ATEN_CPU_CAPABILITY"] = RUNTIME_TARGETS[coretype]
    if env != dict(os.environ):
        sys.stdout.flush()
        os.execve(sys.executable, [sys.executable] + sys.argv, env)


def rnd(shape, seed):
    return np.random.default_rng(seed).random(shape) - 0.5


def kernel(ident, description, source, inputs, output, numpy, unit, flops, nbytes,
           peers, max_reps=None, einsum=None, tl_flags=(), tolerance=1e-8):
    """A kernel: its tl program, inputs (in the order the peers take them),
    NumPy's computation (label, function), rate unit, flop and minimum byte
    counts (the roofline), and its peers: {peer: (binary, case, label)},
    binary "c", "blis", "libxsmm", "eigen", or ("mlir", template,
    substitutions). `einsum` is (spec, input names) for PyTorch's einsum;
    `tl_flags` are tl-run's extra flags (--element-type=f32); results
    further than `tolerance` (relative) from NumPy's are marked WRONG."""
    return dict(id=ident, description=description, source=source, inputs=inputs,
                output=output, numpy=numpy, unit=unit, flops=float(flops),
                bytes=float(nbytes), peers=peers, max_reps=max_reps, einsum=einsum,
                tl_flags=list(tl_flags), tolerance=tolerance)


def kernels(small, odd):
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
    out.append(kernel(
        "K1", "matrix product n=%d" % n1,
        "var input A : [{0} {0}]\nvar input B : [{0} {0}]\nvar output C : [{0} {0}]\n"
        "C = A # B . [2 3]\n".format(n1),
        {"A": A, "B": B}, "C", ("A @ B", lambda: A @ B), "GFLOP/s",
        2.0 * n1 ** 3, 24.0 * n1 * n1,
        {"c": ("c", "k1-loop", "i, k, j loop nest"),
         "openblas": ("c", "k1-blas", "cblas_dgemm"),
         "blis": ("blis", "k1-blas", "cblas_dgemm"),
         "eigen": ("eigen", "k1", "contract"),
         "mlir-plain": (("mlir", "k1", {"N": n1}), "k1", "linalg.matmul"),
         "mlir-tuned": (("mlir-tuned", "k1", {"N": n1}), "k1",
                        "linalg.matmul, tiled 64x128x256 / 8x16, FMAs")},
        einsum=("ij,jk->ik", ["A", "B"])))

    # K1 in single precision: twice the lanes per register.
    A1f, B1f = A.astype(np.float32), B.astype(np.float32)
    out.append(kernel(
        "K1F", "matrix product in f32 n=%d" % n1,
        "var input A : [{0} {0}]\nvar input B : [{0} {0}]\nvar output C : [{0} {0}]\n"
        "C = A # B . [2 3]\n".format(n1),
        {"A": A1f, "B": B1f}, "C", ("A @ B (sgemm)", lambda: A1f @ B1f), "GFLOP/s",
        2.0 * n1 ** 3, 12.0 * n1 * n1,
        {"openblas": ("c", "k1f-blas", "cblas_sgemm"),
         "blis": ("blis", "k1f-blas", "cblas_sgemm")},
        einsum=("ij,jk->ik", ["A", "B"]), tl_flags=["--element-type=f32"],
        tolerance=1e-4))

    A2, B2 = rnd((n2, n2), 1), rnd((n2, n2), 2)
    out.append(kernel(
        "K2", "trace of a product n=%d" % n2,
        "var input A : [{0} {0}]\nvar input B : [{0} {0}]\nvar output s : []\n"
        "s = A # B . [2 3] . [1 2]\n".format(n2),
        {"A": A2, "B": B2}, "s",
        ("einsum ij,ji->", lambda: np.einsum("ij,ji->", A2, B2, optimize=True)),
        "GFLOP/s", 2.0 * n2 * n2, 16.0 * n2 * n2,
        {"c": ("c", "k2-loop", "sum_ij A[i,j] B[j,i] loops"),
         "openblas": ("c", "k2-blas", "n cblas_ddot (row . column)"),
         "eigen": ("eigen", "k2", "contract over both dims"),
         "mlir-plain": (("mlir", "k2", {"N": n2}), "k2", "one O(n^2) linalg.generic")}))

    u = rnd(u3, 3)
    v3 = (u3[0], u3[3], u3[2], u3[1], u3[4])
    out.append(kernel(
        "K3", "5-d transposition %s" % "x".join(map(str, u3)),
        "var input u : [%s]\nvar output v : [%s]\nv = u ^ [2 4]\n" % (
            " ".join(map(str, u3)), " ".join(map(str, v3))),
        {"u": u}, "v",
        ("ascontiguousarray(transpose)", lambda: np.ascontiguousarray(u.transpose(0, 3, 2, 1, 4))),
        "GB/s", 0, 2.0 * u.nbytes,
        {"c": ("c", "k3-loop", "loop nest"),
         "stream": ("c", "k3-memcpy", "memcpy of u (no check)"),
         "eigen": ("eigen", "k3", "shuffle"),
         "mlir-plain": (("mlir", "k3", dict(("D%d" % (i + 1), d) for i, d in enumerate(u3))),
                        "k3", "linalg.transpose")}))

    a, b, c, d = (rnd((n4, n4), s) for s in (1, 2, 3, 4))
    e = rnd((n4, n4), 5) + 2.0
    out.append(kernel(
        "K4", "element-wise ((a + b) * c) - d / e, %d^2" % n4,
        "type m : [{0} {0}]\nvar input a : m\nvar input b : m\nvar input c : m\n"
        "var input d : m\nvar input e : m\nvar output z : m\n"
        "z = (a + b) * c - d / e\n".format(n4),
        {"a": a, "b": b, "c": c, "d": d, "e": e}, "z",
        ("expression", lambda: ((a + b) * c) - (d / e)),
        "GB/s", 4.0 * a.size, 6.0 * a.nbytes,
        {"c": ("c", "k4-loop", "one loop"),
         "stream": ("c", "k4-stream", "STREAM z = a+b+c+d+e (no check)"),
         "eigen": ("eigen", "k4", "expression"),
         "mlir-plain": (("mlir", "k4", {"N": n4}), "k4", "4 named ops, temporaries")}))

    A5, u5 = rnd((p, p), 7), rnd((e5, p, p, p), 8)
    out.append(kernel(
        "K5", "CFD interpolation E=%d p=%d" % (e5, p),
        "var input u : [{0} {1} {1} {1}]\nvar input A : [{1} {1}]\n"
        "var output v : [{0} {1} {1} {1}]\n"
        "v = u # A # A # A . [[2 6] [3 8] [4 10]]\n".format(e5, p),
        {"u": u5, "A": A5}, "v",
        ("einsum optimize=True",
         lambda: np.einsum("elmn,il,jm,kn->eijk", u5, A5, A5, A5, optimize=True)),
        "GFLOP/s", 6.0 * e5 * p ** 4, 16.0 * e5 * p ** 3,
        {"c": ("c", "k5-fact", "hand-written factorized loops"),
         "openblas": ("c", "k5-blas", "3 GEMM stages"),
         "libxsmm": ("libxsmm", "k5-xsmm", "3 small GEMMs per element"),
         "eigen": ("eigen", "k5", "3 contract + shuffle"),
         "mlir-plain": (("mlir", "k5", {"E": e5, "P": p}), "k5", "3 linalg.generic stages")},
        einsum=("elmn,il,jm,kn->eijk", ["u", "A", "A", "A"])))

    # K5 in single precision, against LIBXSMM's f32 kernels.
    A5f, u5f = A5.astype(np.float32), u5.astype(np.float32)
    out.append(kernel(
        "K5F", "CFD interpolation in f32 E=%d p=%d" % (e5, p),
        "var input u : [{0} {1} {1} {1}]\nvar input A : [{1} {1}]\n"
        "var output v : [{0} {1} {1} {1}]\n"
        "v = u # A # A # A . [[2 6] [3 8] [4 10]]\n".format(e5, p),
        {"u": u5f, "A": A5f}, "v",
        ("einsum optimize=True",
         lambda: np.einsum("elmn,il,jm,kn->eijk", u5f, A5f, A5f, A5f, optimize=True)),
        "GFLOP/s", 6.0 * e5 * p ** 4, 8.0 * e5 * p ** 3,
        {"libxsmm": ("libxsmm", "k5f-xsmm", "3 small f32 GEMMs per element")},
        einsum=("elmn,il,jm,kn->eijk", ["u", "A", "A", "A"]),
        tl_flags=["--element-type=f32"], tolerance=1e-4))

    # Element-wise functions (language extensions): exp and log through
    # glibc's libmvec, sqrt, abs and max as vector instructions.
    f = rnd((n4, n4), 12)
    out.append(kernel(
        "F1", "functions exp(-|u|) * sqrt|u| + max(u, 0.5) - log(|u| + 1), %d^2" % n4,
        "var input u : [{0} {0}]\nvar output v : [{0} {0}]\n"
        "v = exp(-abs(u)) * sqrt(abs(u)) + max(u, 0.5) - log(abs(u) + 1)\n".format(n4),
        {"u": f}, "v",
        ("expression", lambda: np.exp(-np.abs(f)) * np.sqrt(np.abs(f))
         + np.maximum(f, 0.5) - np.log(np.abs(f) + 1)),
        "GB/s", 0, 2.0 * f.nbytes, {}))

    # The CFD gradient: three derivatives stacked into one [3 E p p p]
    # tensor (a stack, computed slice by slice into the result).
    ug = rnd((e5, p, p, p), 13)
    Dg = rnd((p, p), 14)
    out.append(kernel(
        "G1", "CFD gradient, a stack of 3 derivatives E=%d p=%d" % (e5, p),
        "var input u : [{0} {1} {1} {1}]\nvar input D : [{1} {1}]\n"
        "var output g : [3 {0} {1} {1} {1}]\n"
        "g = [D # u . [2 4] ^ [1 2], D # u . [2 5] ^ [[1 2] [2 3]], "
        "D # u . [2 6] ^ [[1 2] [2 3] [3 4]]]\n".format(e5, p),
        {"u": ug, "D": Dg}, "g",
        ("stack of 3 einsum", lambda: np.stack([
            np.einsum("ai,eijk->eajk", Dg, ug, optimize=True),
            np.einsum("aj,eijk->eiak", Dg, ug, optimize=True),
            np.einsum("ak,eijk->eija", Dg, ug, optimize=True)])),
        "GFLOP/s", 3 * 2.0 * e5 * p ** 4, 8.0 * (ug.size * 4 + Dg.size), {}))

    # Inverse Helmholtz (CFDlang's kernel) on E elements: into the
    # eigenbasis, scale, back.
    S6, D6, u6 = rnd((p, p), 9), rnd((e5, p, p, p), 10), rnd((e5, p, p, p), 11)

    def helmholtz():
        t = np.einsum("eabc,ai,bj,ck->eijk", u6, S6, S6, S6, optimize=True)
        return np.einsum("eabc,ia,jb,kc->eijk", D6 * t, S6, S6, S6, optimize=True)
    # K5H, and the same kernel in the batch form (K5HB): one element's
    # program batched over E (docs/language.md, Batches), which should run
    # as fast. Same inputs, NumPy computation, counts and peers.
    helmholtz_sources = {
        "K5H": ("inverse Helmholtz E=%d p=%d",
                "type f : [{0} {1} {1} {1}]\nvar input S : [{1} {1}]\n"
                "var input D : f\nvar input u : f\nvar output v : f\nvar t : f\n"
                "t = u # S # S # S . [[2 5] [3 7] [4 9]]\n"
                "v = (D * t) # S # S # S . [[2 6] [3 8] [4 10]]\n"),
        "K5HB": ("inverse Helmholtz in the batch form, E=%d p=%d",
                 "type f : [{1} {1} {1}]\nvar input S : [{1} {1}]\n"
                 "var input D : f\nvar input u : f\nvar output v : f\nvar t : f\n"
                 "batch [D u v t] {0}\n"
                 "t = u # S # S # S . [[1 4] [2 6] [3 8]]\n"
                 "v = (D * t) # S # S # S . [[1 5] [2 7] [3 9]]\n"),
    }
    for ident, (description, source) in helmholtz_sources.items():
        out.append(kernel(
            ident, description % (e5, p), source.format(e5, p),
            {"S": S6, "D": D6, "u": u6}, "v",
            ("2 einsum optimize=True", helmholtz),
            "GFLOP/s", 12.0 * e5 * p ** 4 + e5 * p ** 3, 24.0 * e5 * p ** 3,
            {"c": ("c", "k5h-fact", "hand-written factorized loops"),
             "openblas": ("c", "k5h-blas", "2 x 3 GEMM stages"),
             "libxsmm": ("libxsmm", "k5h-xsmm", "2 x 3 small GEMMs per element"),
             "eigen": ("eigen", "k5h", "2 x (3 contract + shuffle)")}))

    # CFDlang's own Helmholtz test (normanrink/cfdlang tests/test.Helmholtz.cpp)
    # on one m^3 tensor: its statements `D * (A # B # C # u . [[0 6] [2 7]
    # [4 8]])` and `A # B # C # t . [[1 6] [3 7] [5 8]]` (0-based), here
    # 1-based.
    m8 = 32 if small else (63 if odd else 64)
    A8, B8, C8 = rnd((m8, m8), 15), rnd((m8, m8), 16), rnd((m8, m8), 17)
    D8, u8 = rnd((m8, m8, m8), 18), rnd((m8, m8, m8), 19)

    def cfdlang_helmholtz():
        t = D8 * np.einsum("xa,yb,zc,xyz->abc", A8, B8, C8, u8, optimize=True)
        return np.einsum("ax,by,cz,xyz->abc", A8, B8, C8, t, optimize=True)
    out.append(kernel(
        "CH", "CFDlang's Helmholtz test program, m=%d" % m8,
        "type matrix : [{0} {0}]\ntype tensor : [{0} {0} {0}]\n"
        "var input A : matrix\nvar input B : matrix\nvar input C : matrix\n"
        "var input D : tensor\nvar input u : tensor\nvar output v : tensor\n"
        "var t : tensor\n"
        "t = D * (A # B # C # u . [[1 7] [3 8] [5 9]])\n"
        "v = A # B # C # t . [[2 7] [4 8] [6 9]]\n".format(m8),
        {"A": A8, "B": B8, "C": C8, "D": D8, "u": u8}, "v",
        ("2 einsum optimize=True", cfdlang_helmholtz),
        "GFLOP/s", 12.0 * m8 ** 4 + m8 ** 3, 8.0 * (3 * m8 ** 2 + 3 * m8 ** 3),
        {}))

    # A chain of matrix products with very unequal extents: (A B) C is
    # 2 n m^2 + 2 m^2 n flops, A (B C) 2 m n^2 + 2 n^2 m.
    n7, m7 = (512, 16) if small else (2048, 64)
    A7, B7, C7 = rnd((m7, n7), 12), rnd((n7, m7), 13), rnd((m7, n7), 14)
    out.append(kernel(
        "C3", "matrix chain %dx%d %dx%d %dx%d" % (m7, n7, n7, m7, m7, n7),
        "var input A : [{0} {1}]\nvar input B : [{1} {0}]\n"
        "var input C : [{0} {1}]\nvar output D : [{0} {1}]\n"
        "D = A # B # C . [[2 3] [4 5]]\n".format(m7, n7),
        {"A": A7, "B": B7, "C": C7}, "D",
        ("multi_dot", lambda: np.linalg.multi_dot([A7, B7, C7])),
        "GFLOP/s", 4.0 * m7 * m7 * n7, 32.0 * m7 * n7,
        {"c": ("c", "c3-loop", "(A B) C, i, k, j loops"),
         "openblas": ("c", "c3-blas", "2 cblas_dgemm"),
         "blis": ("blis", "c3-blas", "2 cblas_dgemm"),
         "eigen": ("eigen", "c3", "2 contract"),
         "mlir-plain": (("mlir", "c3", {"M": m7, "N": n7}), "c3", "2 linalg.matmul")}))

    # K6: three contractions of the TCCG benchmark (springer13/tccg), in the
    # row-major forms of shared/peers/README.md (every index string of the
    # column-major TCCG spec reversed: same memory layout).
    if small:
        s1, t2, t3 = 24, dict(a=96, b=96, c=24, d=96), dict(a=12, b=8, c=8, d=12, e=8, f=8, g=12)
    else:
        s1, t2, t3 = 72, dict(a=312, b=312, c=24, d=312), dict(a=24, b=16, c=16, d=24, e=16, f=16, g=24)
    t1 = dict((x, s1) for x in "abcdef")
    tccg = [
        ("K6-T1", "ccsd6 abcd-aebf-dfce", "fbea,ecfd->dcba", t1,
         "C = A # B . [[1 7] [3 5]] ^ [[1 4] [2 3] [3 4]]", None, 3),
        ("K6-T2", "intensli0 abc-bda-dc", "adb,cd->cba", t2,
         "C = A # B . [2 5] ^ [1 3]", "k6t2-loop", None),
        ("K6-T3", "ccsd_t0 abcdef-dega-gfbc", "aged,cbfg->fedcba", t3,
         "C = A # B . [2 8] ^ [1 6]", "k6t3-loop", None),
    ]
    for ident, name, spec, sizes, stmt, c_case, max_reps in tccg:
        ins, res = spec.split("->")
        sa, sb = ins.split(",")
        shape = lambda s: tuple(sizes[x] for x in s)
        At, Bt = rnd(shape(sa), 15), rnd(shape(sb), 16)
        source = "var input A : [%s]\nvar input B : [%s]\nvar output C : [%s]\n%s\n" % (
            " ".join(map(str, shape(sa))), " ".join(map(str, shape(sb))),
            " ".join(map(str, shape(res))), stmt)
        peers = {"eigen": ("eigen", ident.replace("-", "").lower(), "contract + shuffle")}
        if c_case:
            peers["c"] = ("c", c_case, "plain loop nest")
        out.append(kernel(
            ident, "%s %s" % (name, "all %d" % s1 if sizes is t1 else
                              ",".join("%s=%d" % kv for kv in sorted(sizes.items()))),
            source, {"A": At, "B": Bt}, "C",
            ("einsum optimize=True",
             lambda spec=spec, At=At, Bt=Bt: np.ascontiguousarray(
                 np.einsum(spec, At, Bt, optimize=True))),
            "GFLOP/s", 2.0 * np.prod([float(v) for v in sizes.values()]),
            8.0 * (At.size + Bt.size + np.prod(shape(res))), peers, max_reps,
            einsum=(spec, ["A", "B"])))
    return out


def compile_program(statements, m=32):
    """A generated program of `statements` statements over [m m] matrices:
    matrix products, element-wise arithmetic and transpositions, each
    reading the two before it (so every statement is live)."""
    names = ["A", "B"] + ["x%d" % i for i in range(1, statements)] + ["y"]
    lines = ["type t : [%d %d]" % (m, m), "var input A : t", "var input B : t"]
    lines += ["var x%d : t" % i for i in range(1, statements)] + ["var output y : t", ""]
    for i in range(statements):
        p, q = names[i + 1], names[i]
        rhs = ["%s # %s . [2 3]" % (p, q), "%s + A * %s" % (p, q),
               "%s ^ [1 2] - B" % p, "%s # A . [1 3] + %s" % (p, q)][i % 4]
        lines.append("%s = %s" % (names[i + 2], rhs))
    return "\n".join(lines) + "\n"


def padded_bytes(inputs, m):
    """Bytes of the padded inputs over bytes of the real ones."""
    real = sum(v.size for v in inputs.values())
    padded = sum(int(np.prod([-(-d // m) * m for d in v.shape])) for v in inputs.values())
    return padded / real


def rel_diff(result, expected):
    result = np.asarray(result, dtype=np.float64).reshape(np.shape(expected))
    scale = max(float(np.max(np.abs(expected))), 1e-300)
    return float(np.max(np.abs(result - expected))) / scale


class Timing:
    """One implementation's result on one kernel."""

    def __init__(self, time=None, reps=0, diff=None, error=None, na=False, capped=False):
        self.time, self.reps, self.diff, self.error, self.na = time, reps, diff, error, na
        self.capped = capped  # fewer repetitions than --reps


def time_numpy(fn, reps, budget):
    start = time.perf_counter()
    result = fn()
    warm = time.perf_counter() - start
    if reps == 0:
        return warm, 0, result
    if budget and warm * reps > budget:
        reps = max(1, int(budget / warm))
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times)), reps, result


def input_paths(workdir, k):
    paths = []
    for name, value in k["inputs"].items():
        path = os.path.join(workdir, "%s_%s.npy" % (k["id"], name))
        if not os.path.exists(path):
            np.save(path, value)
        paths.append((name, path))
    return paths


def time_tl_run(tl_run, workdir, k, engine, reps, timeout, extra=()):
    """(median, reps, output) or an error."""
    prog = os.path.join(workdir, k["id"] + ".tl")
    with open(prog, "w") as f:
        f.write(k["source"])
    args = [tl_run, prog, "--engine=" + engine, "--repeat=%d" % reps] + k["tl_flags"]
    for name, path in input_paths(workdir, k):
        args += ["--in", "%s=%s" % (name, path)]
    out_path = os.path.join(workdir, "%s_%s_%s.npy" % (k["id"], k["output"], engine))
    args += ["--out", "%s=%s" % (k["output"], out_path)] + list(extra)
    try:
        result = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timeout (%d s)" % timeout
    except OSError as error:
        return None, str(error)
    if result.returncode != 0:
        errors = [l for l in result.stderr.splitlines() if "error:" in l]
        return None, (errors or ["failed (status %d)" % result.returncode])[0].split("error: ", 1)[-1]
    match = re.search(r"kernel median: (\S+) s", result.stderr)
    output = np.load(out_path)
    os.remove(out_path)
    return (float(match.group(1)), reps, output), None


class Peers:
    """Builds the C/C++ peers (cached in `directory` by a hash of their
    sources and flags) and runs them."""

    def __init__(self, directory, budget, march="native"):
        self.march = march
        # Binaries for another CPU go to a folder of their own.
        if march != "native":
            directory = os.path.join(directory, march)
        self.dir = os.path.abspath(directory)
        self.budget = budget
        self.built = {}     # key -> binary path or None
        self.why = {}       # key -> reason a peer is not available
        os.makedirs(self.dir, exist_ok=True)

    def _cached_build(self, name, sources, commands):
        """Runs `commands` (lists; '{out}' is the binary) unless the binary
        is up to date. Returns (path, error)."""
        digest = hashlib.sha256()
        for src in sources:
            with open(src, "rb") as f:
                digest.update(f.read())
        for command in commands:
            digest.update(repr(command).encode())
        stamp = os.path.join(self.dir, name + ".stamp")
        out = os.path.join(self.dir, name)
        key = digest.hexdigest()
        if os.path.exists(out) and os.path.exists(stamp) and open(stamp).read() == key:
            return out, None
        print("building %s" % name, file=sys.stderr, flush=True)
        for command in commands:
            command = [c.replace("{out}", out) for c in command]
            try:
                result = subprocess.run(command, capture_output=True, text=True, timeout=600)
            except (OSError, subprocess.TimeoutExpired) as error:
                return None, str(error)
            if result.returncode != 0:
                lines = [l for l in result.stderr.splitlines() if "error" in l] or \
                    result.stderr.splitlines() or ["failed"]
                return None, lines[0][:120]
        with open(stamp, "w") as f:
            f.write(key)
        return out, None

    def binary(self, key):
        """The binary for "c", "openblas" (c_peers with CBLAS), "eigen" or
        ("mlir", template, substitutions); None with self.why[key] set."""
        if key in self.built:
            return self.built[key]
        path, why = None, None
        header = os.path.join(PEER_SRC, "peers.h")
        if key in ("c", "openblas"):
            src = os.path.join(PEER_SRC, "c_peers.c")
            base = [CC, "-O3", "-march=" + self.march, "-std=gnu11", src, "-o", "{out}"]
            if not os.path.exists(CC):
                why = "no " + CC
            else:
                path, why = self._cached_build("c_peers", [src, header],
                                               [base[:-3] + ["-DHAVE_CBLAS"] + base[-3:] + ["-lopenblas"]])
                if path:
                    self.built["c"] = self.built["openblas"] = path
                else:
                    self.why["openblas"] = "no CBLAS: " + why
                    path, why = self._cached_build("c_peers_noblas", [src, header], [base])
                    self.built["c"], self.built["openblas"] = path, None
                    if not path:
                        self.why["c"] = why
                return self.built[key]
        elif key == "blis":
            # c_peers' CBLAS cases, linked with BLIS's CBLAS instead.
            src = os.path.join(PEER_SRC, "c_peers.c")
            if not os.path.exists(CC):
                why = "no " + CC
            else:
                path, why = self._cached_build(
                    "blis_peers", [src, header],
                    [[CC, "-O3", "-march=" + self.march, "-std=gnu11", "-DHAVE_CBLAS", src,
                      "-o", "{out}", "-lblis", "-lm"]])
                if why:
                    why = "no BLIS (bench/install-peers.sh): " + why
        elif key == "libxsmm":
            src = os.path.join(PEER_SRC, "xsmm_peers.c")
            if not os.path.exists("/usr/include/libxsmm.h"):
                why = "no LIBXSMM (bench/install-peers.sh)"
            else:
                path, why = self._cached_build(
                    "xsmm_peers", [src, header],
                    [[CC, "-O3", "-march=" + self.march, "-std=gnu11", src, "-o", "{out}",
                      "-lxsmm", "-lopenblas", "-lm", "-ldl", "-lpthread"]])
        elif key == "eigen":
            src = os.path.join(PEER_SRC, "eigen_peers.cpp")
            if not os.path.exists(EIGEN_HEADER):
                why = "no Eigen headers (apt-get install libeigen3-dev)"
            elif not os.path.exists(CXX):
                why = "no " + CXX
            else:
                path, why = self._cached_build(
                    "eigen_peers", [src, header],
                    [[CXX, "-O3", "-march=" + self.march, "-std=c++17", "-w",
                      "-I/usr/include/eigen3",
                      src, "-o", "{out}"]])
        else:
            _, template, subs = key
            subs = dict(subs)
            if not all(os.path.exists(t) for t in (MLIR_OPT, MLIR_TRANSLATE, CC)):
                why = "no %s / %s" % (MLIR_OPT, MLIR_TRANSLATE)
            else:
                src = os.path.join(PEER_SRC, "mlir", template + ".mlir")
                name = "mlir_%s_%s" % (template, "_".join(str(subs[k]) for k in sorted(subs)))
                inst = os.path.join(self.dir, name + ".mlir")
                try:
                    with open(src) as f:
                        text = string.Template(f.read()).substitute(
                            dict((k, str(v)) for k, v in subs.items()))
                    with open(inst, "w") as f:
                        f.write(text)
                except (OSError, ValueError, KeyError) as error:
                    why = "%s: %s" % (src, error)
                if not why:
                    driver = os.path.join(PEER_SRC, "mlir", "driver.c")
                    march = "MARCH=" + self.march
                    if key[0] == "mlir-tuned":
                        script = os.path.join(PEER_SRC, "mlir", "tuned.sh")
                        schedule = os.path.join(PEER_SRC, "mlir", "sched_%s.mlir" % template)
                        path, why = self._cached_build(
                            name + "_tuned", [inst, script, schedule, driver, header],
                            [["env", march, "sh", script, inst, schedule, "{out}"]])
                    else:
                        script = os.path.join(PEER_SRC, "mlir", "build.sh")
                        path, why = self._cached_build(
                            name, [inst, script, driver, header],
                            [["env", march, "sh", script, inst, "{out}"]])
        self.built[key] = path
        if why:
            self.why[key] = why
        return path

    def run(self, key, case, reps, inputs, out_shape, check_against, timeout=900):
        """Runs one case; a Timing."""
        path = self.binary(key)
        if not path:
            return Timing(error="n/a", na=True)
        out = os.path.join(self.dir, "out.bin")
        args = [path, case, str(reps), out]
        if isinstance(key, tuple):
            args.append(str(int(np.prod(out_shape))))
        args += inputs
        env = dict(os.environ, PEER_BUDGET_S=str(self.budget))
        try:
            result = subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            return Timing(error="timeout")
        match = re.search(r"RESULT case=\S+ reps=(\d+) median_s=(\S+)", result.stdout)
        if result.returncode != 0 or not match:
            lines = [l for l in result.stderr.splitlines() if "error" in l] or ["failed"]
            return Timing(error=lines[0][:60])
        timing = Timing(float(match.group(2)), int(match.group(1)), capped=int(match.group(1)) < reps)
        if check_against is not None:
            timing.diff = rel_diff(np.fromfile(out, dtype=np.float64), check_against)
        os.remove(out)
        return timing

    def peak(self, reps):
        """(FLOP/s of one core, description), (stream bytes/s)."""
        path = self.binary("c")
        if not path:
            return None, None, None
        result = subprocess.run([path, "peak-fma", str(reps), "-"], capture_output=True, text=True)
        fma = re.search(r"min_s=(\S+)", result.stdout)
        info = re.search(r"INFO flops=(\S+) isa=(\S+) chains=(\d+)", result.stdout)
        flops = float(info.group(1)) / float(fma.group(1)) if fma and info else None
        what = "%s FMA, %s chains" % (info.group(2), info.group(3)) if info else ""
        result = subprocess.run([path, "peak-triad", str(reps), "-"], capture_output=True, text=True)
        triad = re.search(r"min_s=(\S+)", result.stdout)
        info = re.search(r"INFO bytes=(\S+)", result.stdout)
        bandwidth = float(info.group(1)) / float(triad.group(1)) if triad and info else None
        return flops, what, bandwidth


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def tccg_arguments(argv):
    """The arguments for bench/tccg.py when `--kernels TCCG` asks for the
    TCCG suite (which has its own table and flags), else None."""
    for i, arg in enumerate(argv):
        if arg == "--kernels=TCCG":
            return argv[:i] + argv[i + 1:]
        if arg == "--kernels" and argv[i + 1:i + 2] == ["TCCG"]:
            return argv[:i] + argv[i + 2:]
    return None


def main():
    forwarded = tccg_arguments(sys.argv[1:])
    if forwarded is not None:
        import tccg
        return tccg.main(forwarded)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--small", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--kernels", default="K1,K1F,K2,K3,K4,F1,K5,K5F,K5H,K5HB,G1,CH,C3,K6,CT",
                        help="K6 selects K6-T1,K6-T2,K6-T3; CT is the compile time; "
                             "TCCG alone runs the TCCG suite (bench/tccg.py, "
                             "with its flags: --suite-sizes, --odd-sizes, "
                             "--prime-sizes, --only)")
    parser.add_argument("--peers", default="all",
                        help="comma-separated, from %s (default all)" % ",".join(PEERS))
    parser.add_argument("--peer-dir", default=None,
                        help="where the C/C++/MLIR peers are built (default BUILD/bench-peers)")
    parser.add_argument("--peer-budget", type=float, default=30.0,
                        help="cap the repetitions of a peer (and NumPy) whose warm-up run "
                             "shows that they would take longer than this many seconds")
    parser.add_argument("--no-reference", action="store_true")
    parser.add_argument("--odd", action="store_true",
                        help="extents that are not multiples of the vector width")
    parser.add_argument("--pad", type=int, default=0,
                        help="also time the JIT with --pad=M")
    parser.add_argument("--threads", type=int, default=0,
                        help="also time the JIT with --threads=N (OpenMP)")
    parser.add_argument("--cpu", default="host",
                        help="an LLVM CPU name (x86-64-v3, skylake-avx512, ...): "
                             "TensorLang compiles for it (tl-run --cpu), the C/C++/MLIR "
                             "peers are built with -march=CPU, and OpenBLAS runs its "
                             "kernels for it (OPENBLAS_CORETYPE)")
    parser.add_argument("--unoptimized", action="store_true",
                        help="also time the JIT with --no-optimize (the "
                             "program as written: contraction order etc.)")
    args = parser.parse_args()
    set_peer_environment(args.cpu)
    tl_run = os.path.join(args.build, "bin", "tl-run")
    tl_compile = os.path.join(args.build, "bin", "tl-compile")
    tl_opt = os.path.join(args.build, "bin", "tl-opt")
    wanted = args.kernels.split(",")
    asked = PEERS if args.peers == "all" else [p.strip() for p in args.peers.split(",") if p.strip()]
    for p in asked:
        if p not in PEERS:
            parser.error("unknown peer %r (known: %s)" % (p, ", ".join(PEERS)))
    peers = [p for p in PEERS if p in asked]
    runner = Peers(args.peer_dir or os.path.join(args.build, "bench-peers"), args.peer_budget,
                   "native" if args.cpu == "host" else args.cpu)
    torch = None
    if "torch" in peers:
        try:
            import torch
            threads = int(os.environ.get("OMP_NUM_THREADS", "0") or 0)
            if threads > 0:
                torch.set_num_threads(threads)
        except ImportError:
            print("warning: no PyTorch (bench/install-peers.sh); its column stays empty",
                  file=sys.stderr)

    # Extra tensorlang variants: (label, tl-run flags, reps).
    variants = []
    if not args.no_reference:
        variants.append(("reference", "reference interpreter", None))
    if args.pad:
        variants.append(("pad", "JIT --pad=%d" % args.pad, ["--pad=%d" % args.pad]))
    if args.unoptimized:
        variants.append(("raw", "JIT --no-optimize", ["--no-optimize"]))
    if args.threads:
        variants.append(("threads", "JIT %d threads" % args.threads,
                         ["--threads=%d" % args.threads]))

    peak_flops, peak_what, peak_bw = runner.peak(10)
    print("peak measured: %s, %s" % (
        "%.1f GFLOP/s (one core, %s)" % (peak_flops * 1e-9, peak_what) if peak_flops else "FLOP/s n/a",
        "STREAM triad %.1f GB/s" % (peak_bw * 1e-9) if peak_bw else "bandwidth n/a"),
        file=sys.stderr, flush=True)

    rows = []   # (kernel dict, {column: Timing}, {column: label})
    with tempfile.TemporaryDirectory() as workdir:
        for k in kernels(args.small, args.odd):
            if k["id"] not in wanted and k["id"].split("-")[0] not in wanted:
                continue
            reps = min(args.reps, k["max_reps"] or args.reps)
            res, labels = {}, {}
            np_time, np_reps, expected = time_numpy(
                k["numpy"][1], reps if "numpy" in peers else 0, args.peer_budget)
            expected = np.asarray(expected)
            if "numpy" in peers:
                res["numpy"] = Timing(np_time, np_reps, 0.0, capped=np_reps < args.reps)
                labels["numpy"] = k["numpy"][0]
            if args.cpu != "host":
                k["tl_flags"].append("--cpu=" + args.cpu)
            if torch is not None and k["einsum"]:
                spec, names = k["einsum"]
                operands = [torch.from_numpy(np.ascontiguousarray(k["inputs"][n]))
                            for n in names]
                t_time, t_reps, t_out = time_numpy(
                    lambda: torch.einsum(spec, *operands).contiguous(), reps,
                    args.peer_budget)
                res["torch"] = Timing(t_time, t_reps, rel_diff(t_out.numpy(), expected),
                                      capped=t_reps < args.reps)
                labels["torch"] = "torch.einsum"
            out, error = time_tl_run(tl_run, workdir, k, "jit", reps, 3600)
            res["tl"] = Timing(out[0], out[1], rel_diff(out[2], expected), capped=reps < args.reps) \
                if out else Timing(error=error)
            for ident, label, extra in variants:
                if ident == "reference":
                    out, error = time_tl_run(tl_run, workdir, k, "reference", 1, 300)
                    if error and "handles" in error:
                        error = "refused"
                else:
                    out, error = time_tl_run(tl_run, workdir, k, "jit", reps, 3600, extra)
                    if ident == "pad":
                        label += " (%.3fx memory)" % padded_bytes(k["inputs"], args.pad)
                res[ident] = Timing(out[0], out[1], rel_diff(out[2], expected),
                                    capped=ident != "reference" and reps < args.reps) if out \
                    else Timing(error=error)
                labels[ident] = label
            paths = [p for _, p in input_paths(workdir, k)]
            for peer in peers:
                if peer == "numpy":
                    continue
                if peer not in k["peers"]:
                    continue
                binary, case, label = k["peers"][peer]
                if binary == "c":
                    key = "openblas" if peer == "openblas" else "c"
                elif binary in ("eigen", "blis", "libxsmm"):
                    key = binary
                else:
                    key = (binary[0], binary[1], tuple(sorted(binary[2].items())))
                check = None if "no check" in label else expected
                res[peer] = runner.run(key, case, reps, paths, expected.shape, check)
                res[peer].capped = res[peer].time is not None and res[peer].reps < args.reps
                labels[peer] = label
                if res[peer].na:
                    res[peer].error = "n/a: " + runner.why.get(key, "not built")
            for name, _ in input_paths(workdir, k):
                os.remove(os.path.join(workdir, "%s_%s.npy" % (k["id"], name)))
            rows.append((k, res, labels))
            print("done %s" % k["id"], file=sys.stderr, flush=True)

        if "CT" in wanted:
            rows.append(compile_time(args, workdir, tl_compile, tl_opt, peers, runner))
            print("done CT", file=sys.stderr, flush=True)

    report(rows, peers, variants, peak_flops, peak_what, peak_bw, args)


def compile_time(args, workdir, tl_compile, tl_opt, peers, runner):
    """The CT row: tl-compile on a generated program; the mlir-plain peer
    lowers tensorlang's own linalg (tl-opt --tl-optimize
    --convert-tl-to-linalg) with upstream mlir-opt's plain pipeline, then
    mlir-translate and clang -O3 -c."""
    statements = 50 if args.small else 200
    k = dict(id="CT", description="compile %d statements, [32 32]" % statements,
             unit="stmt/s", flops=0.0, bytes=0.0, work=statements)
    prog = os.path.join(workdir, "ct.tl")
    with open(prog, "w") as f:
        f.write(compile_program(statements))
    reps = min(args.reps, 3)

    def timed(commands):
        times = []
        for _ in range(reps):
            start = time.perf_counter()
            for command in commands:
                result = subprocess.run(command, capture_output=True, text=True, timeout=600)
                if result.returncode != 0:
                    lines = [l for l in result.stderr.splitlines() if "error" in l] or ["failed"]
                    return Timing(error=lines[0].split("error: ", 1)[-1][:60])
            times.append(time.perf_counter() - start)
        return Timing(float(np.median(times)), reps)

    res, labels = {}, {"tl": "tensorlang: tl-compile prog.tl -o x.o"}
    try:
        res["tl"] = timed([[tl_compile, prog, "-o", os.path.join(workdir, "ct.o")]])
    except OSError as error:
        res["tl"] = Timing(error=str(error))
    if "mlir-plain" in peers:
        labels["mlir-plain"] = "mlir-opt plain + translate + clang -O3 on tl's linalg"
        if not all(os.path.exists(t) for t in (MLIR_OPT, MLIR_TRANSLATE, CC, tl_opt)):
            res["mlir-plain"] = Timing(error="n/a: no mlir-opt-22", na=True)
        else:
            linalg = os.path.join(workdir, "ct.linalg.mlir")
            tl_translate = os.path.join(os.path.dirname(tl_opt), "tl-translate")
            subprocess.run([tl_translate, "--import-tl", prog, "-o", linalg + ".tl.mlir"],
                           capture_output=True)
            subprocess.run([tl_opt, linalg + ".tl.mlir", "--tl-optimize", "--convert-tl-to-linalg",
                            "--tl-strip-annotations", "-o", linalg], capture_output=True)
            lowered = os.path.join(workdir, "ct.llvm.mlir")
            res["mlir-plain"] = timed([
                [MLIR_OPT, linalg, "--eliminate-empty-tensors",
                 "--one-shot-bufferize=bufferize-function-boundaries "
                 "function-boundary-type-conversion=identity-layout-map",
                 "--buffer-deallocation-pipeline", "--convert-linalg-to-loops",
                 "--convert-scf-to-cf", "--expand-strided-metadata", "--lower-affine",
                 "--finalize-memref-to-llvm", "--convert-arith-to-llvm", "--convert-math-to-llvm",
                 "--convert-cf-to-llvm", "--convert-func-to-llvm=use-bare-ptr-memref-call-conv=1",
                 "--reconcile-unrealized-casts", "-o", lowered],
                [MLIR_TRANSLATE, "--mlir-to-llvmir", lowered, "-o", lowered + ".ll"],
                [CC, "-O3", "-march=native", "-Wno-override-module", "-c", lowered + ".ll",
                 "-o", lowered + ".o"]])
    return k, res, labels


def report(rows, peers, variants, peak_flops, peak_what, peak_bw, args):
    def fmt(t):
        return "%.4g" % t if t is not None else "-"

    def rate(k, t):
        if t is None:
            return "-"
        if k["unit"] == "stmt/s":
            return "%.0f stmt/s" % (k["work"] / t)
        work = k["bytes"] if k["unit"] == "GB/s" else k["flops"]
        return "%.2f %s" % (work / t * 1e-9, k["unit"])

    def of_peak(k, t):
        """The roofline bound over the time: max(flops / peak FLOP/s, bytes /
        STREAM bandwidth) / t, with F or B for the binding resource."""
        if t is None or not peak_flops or not peak_bw or not (k["flops"] or k["bytes"]):
            return "-"
        f, b = k["flops"] / peak_flops, k["bytes"] / peak_bw
        return "%.1f%% %s" % (100.0 * max(f, b) / t, "F" if f >= b else "B")

    def mark(timing, k):
        return "*" if timing.time is not None and timing.capped else ""

    def cell(timing, k, base, ratio=True):
        if timing is None:
            return "-"
        if timing.time is None:
            if timing.na:
                return "n/a"
            return timing.error if timing.error in ("refused", "timeout") \
                else "failed: " + (timing.error or "?")[:40]
        text = fmt(timing.time) + mark(timing, k)
        if ratio and base is not None:
            text += " (%s)" % fmt(timing.time / base)
        if timing.diff is not None and timing.diff > k["tolerance"]:
            text += " WRONG %.1e" % timing.diff
        return text

    env = ", ".join("%s=%s" % (v, os.environ.get(v, "unset"))
                    for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")
                    + PEER_TARGET_VARIABLES)
    env += "; --cpu=%s" % args.cpu
    commit = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    print("%s, %d cores; %s; %s; commit %s%s" % (
        cpu_name(), os.cpu_count() or 0, env, time.strftime("%Y-%m-%d"), commit,
        " (+ uncommitted changes)" if subprocess.run(
            ["git", "-C", HERE, "diff", "--quiet", "HEAD"]).returncode else ""))
    print("peak: %sFLOP/s on one core (%s); STREAM triad %s GB/s" % (
        "%.1f G" % (peak_flops * 1e-9) if peak_flops else "n/a ", peak_what or "-",
        "%.1f" % (peak_bw * 1e-9) if peak_bw else "n/a"))
    print()

    # The summary: one row per kernel, one column per implementation.
    cols = [p for p in peers]
    extra = [(ident, label) for ident, label, _ in variants]
    head = ["kernel", "size", "tensorlang (s)", "rate", "of peak"]
    head += [label for _, label in extra] + [TITLES[p] for p in cols] + ["max rel. diff"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for k, res, _ in rows:
        tl = res["tl"]
        line = [k["id"], k["description"], cell(tl, k, None), rate(k, tl.time),
                of_peak(k, tl.time)]
        line += [cell(res.get(ident), k, tl.time) for ident, _ in extra]
        line += [cell(res.get(p), k, tl.time) for p in cols]
        line.append("%.1e" % tl.diff if tl.diff is not None else "-")
        print("| " + " | ".join(line) + " |")
    print()
    reasons = {}
    for _, res, _ in rows:
        for p in cols:
            if res.get(p) is not None and res[p].na:
                reasons.setdefault(p, res[p].error)
    for p, why in reasons.items():
        print("%s %s" % (TITLES[p], why))
    print("Cells: median seconds (its ratio to tensorlang's: above 1, tensorlang is "
          "faster). * fewer repetitions than asked (slow case); - no such peer for this "
          "kernel; n/a peer not available here. of peak: max(flops / peak FLOP/s, "
          "bytes / STREAM bandwidth) / time, F or B the binding one.")
    print()

    # The details: one row per implementation.
    print("| kernel | implementation | median (s) | reps | rate | of peak | / tensorlang | max rel. diff |")
    print("|---|---|---|---|---|---|---|---|")
    for k, res, labels in rows:
        tl = res["tl"]
        order = [("tl", labels.get("tl", "tensorlang JIT"))] + [(i, labels.get(i, l)) for i, l in extra] + \
            [(p, "%s: %s" % (TITLES[p], labels[p])) for p in cols if p in labels]
        for ident, label in order:
            t = res.get(ident)
            if t is None:
                continue
            if t.time is None:
                print("| %s | %s | %s | | | | | |" % (k["id"], label, cell(t, k, None)))
                continue
            print("| %s | %s | %s | %d | %s | %s | %s | %s |" % (
                k["id"], label, fmt(t.time), t.reps, rate(k, t.time), of_peak(k, t.time),
                fmt(t.time / tl.time) if tl.time else "-",
                "%.1e" % t.diff if t.diff is not None else "-"))
    for k, res, _ in rows:
        if res["tl"].error:
            print("%s JIT error: %s" % (k["id"], res["tl"].error))


if __name__ == "__main__":
    main()
