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

import tlgen
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


def prototype(header):
    """The arguments of the function a header declares, as (C type, name),
    in order: the sizes (int64_t) first, then one pointer per variable."""
    text = re.sub(r"/\*.*?\*/", "", header, flags=re.S)
    match = re.search(r"\bvoid\s+k\s*\((.*?)\)\s*;", text, flags=re.S)
    assert match, header
    args = []
    for arg in match.group(1).split(","):
        words = arg.replace("*", " * ").split()
        args.append(("int64_t" if words[0] == "int64_t" else "pointer",
                     words[-1]))
    return args


def driver(args, scalar, size_values, counts):
    """A C program that reads each variable from <name>.in, calls the kernel
    and writes each variable to <name>.out (raw, in storage order)."""
    lines = ["#include <stdio.h>", "#include <stdlib.h>", '#include "k.h"',
             "static void *load(const char *path, size_t n) {",
             "  void *data = malloc(n ? n : 1);",
             "  FILE *f = fopen(path, \"rb\");",
             "  if (!f || fread(data, 1, n, f) != n) { perror(path); exit(2); }",
             "  fclose(f); return data; }",
             "static void save(const char *path, const void *data, size_t n) {",
             "  FILE *f = fopen(path, \"wb\");",
             "  if (!f || fwrite(data, 1, n, f) != n) { perror(path); exit(2); }",
             "  fclose(f); }",
             "int main(void) {"]
    call = []
    for kind, name in args:
        if kind == "int64_t":
            call.append("%dLL" % size_values[name])
            continue
        nbytes = "%d * sizeof(%s)" % (counts[name], scalar)
        lines.append('  %s *%s = load("%s.in", %s);' % (scalar, name, name,
                                                        nbytes))
        call.append(name)
    lines.append("  k(%s);" % ", ".join(call))
    for kind, name in args:
        if kind != "int64_t":
            lines.append('  save("%s.out", %s, %d * sizeof(%s));' % (
                name, name, counts[name], scalar))
    lines += ["  return 0;", "}"]
    return "\n".join(lines) + "\n"


def run_on_aarch64(tmp_path, source, store, cpu, dtype=np.float64,
                   extra=()):
    """Compiles `source` for AArch64 `cpu`, runs it under qemu on `store`
    (every argument's initial value) and returns each argument's final
    value."""
    work = tmp_path / ("aarch64-" + cpu)
    work.mkdir(exist_ok=True)
    (work / "prog.tl").write_text(source)
    element = ["--element-type=f32"] if dtype == np.float32 else []
    compiled = subprocess.run(
        [os.path.join(BIN_DIR, "tl-compile"), "prog.tl",
         "--target=aarch64-linux-gnu", "--cpu=" + cpu, "--name=k",
         "-o", "k.o", "--header", "k.h"] + element + list(extra),
        cwd=work, capture_output=True, text=True)
    assert compiled.returncode == 0, compiled.stderr
    assert "ARM aarch64" in subprocess.run(
        ["file", "k.o"], cwd=work, capture_output=True, text=True).stdout
    args = prototype((work / "k.h").read_text())
    scalar = "float" if dtype == np.float32 else "double"
    # A size's value is the extent of an input that has it (sizes come
    # first, each named as declared).
    size_values = {}
    sized = re.findall(r"^var (?:\w+ )*(\w+) : \[([^\]]*)\]", source, re.M)
    for name, extents in sized:
        for axis, extent in enumerate(extents.split()):
            if not extent.isdigit() and name in store:
                size_values.setdefault(
                    extent, np.asarray(store[name]).shape[axis])
    counts = {}
    for kind, name in args:
        if kind == "pointer":
            value = np.ascontiguousarray(store[name], dtype=dtype)
            value.tofile(work / (name + ".in"))
            counts[name] = value.size
    (work / "driver.c").write_text(driver(args, scalar, size_values, counts))
    linked = subprocess.run(
        [CROSS_CC, "-O1", "driver.c", "k.o", "-o", "driver", "-lm"],
        cwd=work, capture_output=True, text=True)
    assert linked.returncode == 0, linked.stderr
    ran = subprocess.run([QEMU, "-L", SYSROOT, "-cpu", QEMU_CPU, "./driver"],
                         cwd=work, capture_output=True, text=True,
                         timeout=120)
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


# Contractions of the TCCG suite's index patterns at prime extents (no tile
# divides them), and the CFD kernels, with a sized element count.
CONTRACTIONS = {
    "ab-ac-cb": ("var input A : [67 71]\nvar input B : [71 73]\n"
                 "var output C : [67 73]\nC = A # B . [[2 3]]\n"),
    "abc-bda-dc": ("var input A : [17 11 13]\nvar input B : [11 7]\n"
                   "var output C : [13 17 7]\n"
                   "C = A # B . [[2 4]] ^ [[1 2]]\n"),
    "abcd-aebf-fdec": ("var input A : [5 11 2 13]\n"
                       "var input B : [13 3 11 7]\n"
                       "var output C : [5 2 7 3]\n"
                       "C = A # B . [[2 7] [4 5]] ^ [[3 4]]\n"),
    "cfd-interpolation": ("size E\nvar input u : [E 11 11 11]\n"
                          "var input A : [11 11]\n"
                          "var output v : [E 11 11 11]\n"
                          "v = u # A # A # A . [[2 6] [3 8] [4 10]]\n"),
    "inverse-helmholtz": ("var input S : [7 7]\nvar input D : [7 7 7]\n"
                          "var input u : [7 7 7]\nvar t : [7 7 7]\n"
                          "var r : [7 7 7]\nvar output v : [7 7 7]\n"
                          "t = S # S # S # u . [[2 7] [4 8] [6 9]]\n"
                          "r = D * t\n"
                          "v = S # S # S # r . [[1 7] [3 8] [5 9]]\n"),
}


def contraction_store(source, rng):
    store = {}
    for name, extents in re.findall(
            r"^var input (\w+) : \[([^\]]*)\]", source, re.M):
        shape = [int(e) if e.isdigit() else 3 for e in extents.split()]
        store[name] = rng.standard_normal(shape)
    for name, extents in re.findall(
            r"^var output (\w+) : \[([^\]]*)\]", source, re.M):
        shape = [int(e) if e.isdigit() else 3 for e in extents.split()]
        store[name] = np.zeros(shape)
    return store


@pytest.mark.parametrize("cpu", CPUS)
@pytest.mark.parametrize("case", sorted(CONTRACTIONS))
def test_contractions_and_cfd_kernels(tl_run, tmp_path, cpu, case):
    source = CONTRACTIONS[case]
    store = contraction_store(source, np.random.default_rng(5))
    outputs = re.findall(r"^var output (\w+)", source, re.M)
    check_against_reference(tl_run, tmp_path, source, store, outputs, cpu)


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
    assert "8 lanes, register tile 8x16" in remarks["a64fx"]
    assert "target: 128-bit vectors x 32, L1 64 KiB" in remarks["neoverse-v2"]
    assert "2 lanes" in remarks["neoverse-v2"]
