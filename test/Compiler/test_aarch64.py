"""AArch64 objects from tl-compile --target=aarch64-linux-gnu, linked into a
C driver with the cross compiler and run under qemu-aarch64, against the
reference interpreter: random programs (plain, sized, batched), contractions
at prime extents and the CFD kernels, for a NEON CPU (Neoverse V2) and an
SVE one (A64FX, 512-bit vectors). qemu's timings mean nothing; only the
results and the plans are tested (docs/design.md, "Adding a target")."""

import os
import re
import shutil
import subprocess

import numpy as np
import pytest

import cdriver
import tlgen
from tlcases import CONTRACTIONS, contraction_store
from tlcompare import assert_same

BIN_DIR = os.environ.get(
    "TENSORLANG_BIN_DIR",
    os.path.join(os.path.dirname(__file__), "..", "..", "build", "bin"))
CROSS_CC = "aarch64-linux-gnu-gcc"
QEMU = "qemu-aarch64"
SYSROOT = "/usr/aarch64-linux-gnu"
# -cpu max has SVE; A64FX's code assumes 512-bit vectors (vscale_range).
QEMU_CPU = "max,sve-default-vector-length=64"

pytestmark = pytest.mark.skipif(
    not (shutil.which(CROSS_CC) and shutil.which(QEMU)
         and os.path.isdir(SYSROOT)),
    reason="skipped: no AArch64 cross toolchain or qemu-user "
           "(gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user)")

CPUS = ["neoverse-v2", "a64fx"]


def run_on_aarch64(tmp_path, source, store, cpu, dtype=np.float64,
                   extra=(), shared=False):
    """Compiles `source` for AArch64 `cpu` (an object, or with `shared` a
    shared library, tl-compile --shared, linked by the cross compiler), runs
    it under qemu on `store` (every argument's initial value) and returns
    each argument's final value."""
    work = tmp_path / ("aarch64-" + cpu)
    work.mkdir(exist_ok=True)
    (work / "prog.tl").write_text(source)
    element = ["--element-type=f32"] if dtype == np.float32 else []
    output = "libk.so" if shared else "k.o"
    compiled = subprocess.run(
        [os.path.join(BIN_DIR, "tl-compile"), "prog.tl",
         "--target=aarch64-linux-gnu", "--cpu=" + cpu, "--name=k",
         "-o", output, "--header", "k.h"] + element + list(extra)
        + (["--shared"] if shared else []),
        cwd=work, capture_output=True, text=True)
    assert compiled.returncode == 0, compiled.stderr
    # An ELF object or library for AArch64 (e_machine 183).
    header = (work / output).read_bytes()[:20]
    assert header[:4] == b"\x7fELF" and int.from_bytes(header[18:20],
                                                       "little") == 183
    args = cdriver.prototype((work / "k.h").read_text())
    scalar = "float" if dtype == np.float32 else "double"
    counts = cdriver.write_inputs(work, args, store, dtype)
    (work / "driver.c").write_text(cdriver.driver(
        args, scalar, cdriver.size_values(source, store), counts))
    linked = subprocess.run(
        [CROSS_CC, "-O1", "driver.c"]
        + (["-L.", "-lk"] if shared else ["k.o"]) + ["-o", "driver", "-lm"],
        cwd=work, capture_output=True, text=True)
    assert linked.returncode == 0, linked.stderr
    ran = subprocess.run([QEMU, "-L", SYSROOT, "-cpu", QEMU_CPU, "./driver"],
                         cwd=work, capture_output=True, text=True,
                         timeout=120,
                         env=dict(os.environ, LD_LIBRARY_PATH=str(work)))
    assert ran.returncode == 0, ran.stderr
    return {name: np.fromfile(work / (name + ".out"), dtype=dtype).reshape(
        np.asarray(store[name]).shape)
        for kind, name in args if kind == "pointer"}


def check_against_reference(tl_run, tmp_path, source, store, live_out, cpu,
                            dtype=np.float64, rtol=1e-9):
    names = list(store)
    ref = tl_run(source, store, names, engine="reference", dtype=dtype,
                 extra=["--element-type=f32"] if dtype == np.float32 else [])
    got = run_on_aarch64(tmp_path, source, store, cpu, dtype)
    for name in live_out:
        if name in got:
            assert_same(got[name], ref[name], rtol, rtol)


@pytest.mark.parametrize("cpu", CPUS)
@pytest.mark.parametrize("seed", range(6))
def test_random_programs(tl_run, tmp_path, cpu, seed):
    gen = tlgen.Generator(31000 + seed, max_rank=3, max_extent=5)
    program = gen.program(qualifiers=seed % 2 == 0)
    store = gen.values(program)
    check_against_reference(tl_run, tmp_path, program.source(), store,
                            program.live_out, cpu)


@pytest.mark.parametrize("cpu", CPUS)
@pytest.mark.parametrize("seed", range(4))
def test_random_sized_and_batched_programs(tl_run, tmp_path, cpu, seed):
    gen = tlgen.Generator(32000 + seed, max_rank=3)
    program = gen.sized_program(qualifiers=seed % 2 == 1, batch=seed >= 2)
    bound = program.bind({name: gen.rng.choice([5, 7]) for name in
                          program.sizes})
    store = gen.values(bound)
    check_against_reference(tl_run, tmp_path, program.source(), store,
                            program.live_out, cpu)


@pytest.mark.parametrize("cpu", CPUS)
@pytest.mark.parametrize("case", sorted(CONTRACTIONS))
def test_contractions_and_cfd_kernels(tl_run, tmp_path, cpu, case):
    source = CONTRACTIONS[case]
    store = contraction_store(source, np.random.default_rng(5))
    outputs = re.findall(r"^var output (\w+)", source, re.M)
    check_against_reference(tl_run, tmp_path, source, store, outputs, cpu)


SIZED_CONTRACTIONS = {
    # A matrix product, every extent a size, at primes past the register
    # tiles (NEON 6 x 8, SVE 10 x 16): full tiles and padded edges.
    "matrix product": ("size M\nsize N\nsize K\nvar input A : [M K]\n"
                       "var input B : [K N]\nvar output C : [M N]\n"
                       "C = A # B . [[2 3]]\n",
                       {"A": (23, 13), "B": (13, 37)}),
    # TCCG's abcd-aebf-fdec with every extent a size.
    "ccsd6": ("size Na\nsize Nb\nsize Nc\nsize Nd\nsize Ne\nsize Nf\n"
              "var input A : [Nf Nb Ne Na]\nvar input B : [Nc Ne Nd Nf]\n"
              "var output C : [Nd Nc Nb Na]\n"
              "C = A # B . [[1 8] [3 6]] ^ [[1 4] [2 3] [3 4]]\n",
              {"A": (5, 7, 3, 11), "B": (13, 3, 17, 5)}),
    # TCCG's abc-bda-dc with every extent a size, at extents where the
    # register tile reads A's rows 71 doubles apart over 67 depth steps:
    # prefetched (prfm) after the stride's test at run time.
    "abc-bda-dc": ("size Na\nsize Nb\nsize Nc\nsize Nd\n"
                   "var input A : [Na Nd Nb]\nvar input B : [Nc Nd]\n"
                   "var output C : [Nc Nb Na]\n"
                   "C = A # B . [[2 5]] ^ [[1 3]]\n",
                   {"A": (5, 67, 71), "B": (11, 67)}),
}


@pytest.mark.parametrize("cpu", CPUS)
@pytest.mark.parametrize("case", sorted(SIZED_CONTRACTIONS))
def test_sized_contractions(tl_run, tmp_path, cpu, case):
    """One kernel for any extents, tiled for the AArch64 CPU (the remarks
    name the sized loops), against the reference at prime extents."""
    source, shapes = SIZED_CONTRACTIONS[case]
    (tmp_path / "sized.tl").write_text(source)
    planned = subprocess.run(
        [os.path.join(BIN_DIR, "tl-compile"), "sized.tl", "--remarks",
         "--target=aarch64-linux-gnu", "--cpu=" + cpu, "-o", "sized.o"],
        cwd=tmp_path, capture_output=True, text=True)
    assert planned.returncode == 0, planned.stderr
    if cpu == "a64fx":
        # LLVM 22 does not legalize the masked accesses of the edges for
        # SVE's fixed-length vectors: untiled, and said so.
        assert "not tiled: sized: this target's masked vector accesses" \
            in planned.stderr, planned.stderr
    else:
        assert " sized=" in planned.stderr, planned.stderr
        for fallback in ("not tiled", "left untiled", "stays scalar"):
            assert fallback not in planned.stderr, planned.stderr
    rng = np.random.default_rng(7)
    store = {name: rng.random(shape) - 0.5 for name, shape in shapes.items()}
    ref = tl_run(source, store, ["C"], engine="reference")
    store["C"] = np.zeros_like(ref["C"])
    check_against_reference(tl_run, tmp_path, source, store, ["C"], cpu)


@pytest.mark.parametrize("cpu", CPUS)
def test_single_precision(tl_run, tmp_path, cpu):
    source = CONTRACTIONS["ab-ac-cb"]
    store = {name: value.astype(np.float32) for name, value in
             contraction_store(source, np.random.default_rng(6)).items()}
    check_against_reference(tl_run, tmp_path, source, store, ["C"], cpu,
                            dtype=np.float32, rtol=1e-4)


def test_sve_instructions_only_for_sve_cpus(tmp_path):
    """A64FX's object computes with SVE registers (z0-z31); Neoverse V2's
    with NEON alone; and the remarks show each CPU's plan."""
    (tmp_path / "mm.tl").write_text(CONTRACTIONS["ab-ac-cb"])
    counts, remarks = {}, {}
    for cpu in CPUS:
        compiled = subprocess.run(
            [os.path.join(BIN_DIR, "tl-compile"), "mm.tl", "--remarks",
             "--target=aarch64-linux-gnu", "--cpu=" + cpu, "-o", cpu + ".o"],
            cwd=tmp_path, capture_output=True, text=True)
        assert compiled.returncode == 0, compiled.stderr
        remarks[cpu] = compiled.stderr
        objdump = shutil.which("aarch64-linux-gnu-objdump")
        disassembly = subprocess.run([objdump, "-d", cpu + ".o"],
                                     cwd=tmp_path, capture_output=True,
                                     text=True).stdout
        counts[cpu] = len(re.findall(r"\bz[0-9]+\.d\b", disassembly))
    assert counts["a64fx"] > 0 and counts["neoverse-v2"] == 0, counts
    assert "target: 512-bit SVE vectors x 32, L1 64 KiB" in remarks["a64fx"]
    # The aarch64 planner's register tiles, as BLIS's kernels for these
    # CPUs: 10 rows of two SVE vectors; 6 rows of four NEON vectors.
    assert "planner aarch64, for 64-bit elements: 8 lanes, register tile " \
        "10x16" in remarks["a64fx"]
    assert "target: 128-bit vectors x 32, L1 64 KiB" in remarks["neoverse-v2"]
    assert "planner aarch64, for 64-bit elements: 2 lanes, register tile " \
        "6x8" in remarks["neoverse-v2"]


# tl-compile --shared for AArch64 links with the cross compiler; the
# library runs under qemu like the object, and describes its interface.
@pytest.mark.parametrize("cpu", CPUS)
def test_shared_library(tl_run, tmp_path, cpu):
    source = ("var input u : [5 7 7]\nvar input A : [7 7]\n"
              "var output v : [5 7 7]\nv = u # A # A . [[2 5] [3 7]]\n")
    rng = np.random.default_rng(11)
    store = {"u": rng.standard_normal((5, 7, 7)),
             "A": rng.standard_normal((7, 7)), "v": np.zeros((5, 7, 7))}
    ran = run_on_aarch64(tmp_path, source, store, cpu, shared=True)
    ref = tl_run(source, store, ["v"], engine="reference")
    np.testing.assert_allclose(ran["v"], ref["v"], rtol=1e-12, atol=1e-12)
    symbols = subprocess.run(
        ["aarch64-linux-gnu-nm", "-D", "--defined-only",
         str(tmp_path / ("aarch64-" + cpu) / "libk.so")],
        capture_output=True, text=True, check=True).stdout
    assert " T tensorlang_interface\n" in symbols and " T k\n" in symbols


@pytest.mark.parametrize("cpu", CPUS)
def test_interlaced_batches(tl_run, tmp_path, cpu):
    # --interlace-batches (tl-interlace-batches) on 37 elements of 7^3: on
    # NEON slices of 8 elements (four vectors of two doubles), on A64FX of
    # 16, and the rest one element at a time.
    source = ("var input S : [7 7]\nvar input D : [37 7 7 7]\n"
              "var input u : [37 7 7 7]\nvar output v : [37 7 7 7]\n"
              "var t : [37 7 7 7]\n"
              "t = u # S # S # S . [[2 5] [3 7] [4 9]]\n"
              "v = (D * t) # S # S # S . [[2 6] [3 8] [4 10]]\n")
    rng = np.random.default_rng(11)
    S = rng.standard_normal((7, 7)) * 0.3
    D, u = rng.standard_normal((37, 7, 7, 7)), rng.standard_normal((37, 7, 7, 7))
    t = np.einsum("li,mj,nk,elmn->eijk", S, S, S, u)
    expected = np.einsum("il,jm,kn,elmn->eijk", S, S, S, D * t)
    got = run_on_aarch64(tmp_path, source,
                         {"S": S, "D": D, "u": u, "v": np.zeros_like(u)}, cpu,
                         extra=["--interlace-batches", "--fuse-min-bytes=0"])
    assert_same(got["v"], expected, 1e-10, 1e-10)
    # The six contractions of the whole slices run along the batch (their
    # columns are loop d0).
    (tmp_path / "remarks.tl").write_text(source)
    remarks = subprocess.run(
        [os.path.join(BIN_DIR, "tl-compile"), "remarks.tl",
         "--target=aarch64-linux-gnu", "--cpu=" + cpu, "-o", "r.o",
         "--interlace-batches", "--fuse-min-bytes=0", "--remarks"],
        cwd=tmp_path, capture_output=True, text=True)
    assert remarks.returncode == 0, remarks.stderr
    columns = re.findall(r"tiling plan: \S+ columns=(d\d)", remarks.stderr)
    assert columns.count("d0") == 6, remarks.stderr
