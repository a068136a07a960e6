"""The NVIDIA GPU target without a GPU: every case of gpucases.py compiles
with tl-compile --target=cuda into an object whose kernels' PTX ptxas
assembles for sm_90 (skipped where the CUDA toolkit is missing), links with
the CUDA runtime into a driver that, finding no libcuda.so.1, says so in one
line and exits with an error instead of crashing or writing outputs. On a
GPU machine the same cases run through test/gpu/make_bundle.py against the
reference interpreter (docs/gpu.md)."""

import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import cudabuild
import gpucases

BIN_DIR = os.environ.get(
    "TENSORLANG_BIN_DIR",
    os.path.join(os.path.dirname(__file__), "..", "..", "build", "bin"))
def find_ptxas():
    """The CUDA toolkit's ptxas, if one runs here."""
    for candidate in (shutil.which("ptxas"), "/usr/local/cuda/bin/ptxas"):
        if candidate and os.path.exists(candidate) and subprocess.run(
                [candidate, "--version"], capture_output=True).returncode == 0:
            return candidate
    return None


PTXAS = find_ptxas()


def assemble_without_spills(work, kernels):
    """Assembles each kernel's PTX for sm_90 (ptxas -v) in `work`: it must
    assemble, and spill no register. The exception: kernels on sm_90's
    f64 tensor-core shapes (inline mma.sync) may spill up to 16 bytes:
    ptxas gives them 128 registers (.minnctapersm 2) or 255 (1, 128 x 128
    tiles) and spills 4 or 8 bytes in some, and they ran 1.25x as fast as
    the unspilled m8n8k4 kernels on an H100 (bench/README.md)."""
    for index, ptx in enumerate(kernels):
        (work / ("k%d.ptx" % index)).write_text(ptx)
        assembled = subprocess.run(
            [PTXAS, "-arch=sm_90", "-v", "k%d.ptx" % index, "-o",
             "/dev/null"], cwd=work, capture_output=True, text=True)
        assert assembled.returncode == 0, assembled.stderr
        spilled = re.search(r"(\d+) bytes spill stores", assembled.stderr)
        assert spilled, assembled.stderr
        allowed = 16 if ".minnctapersm" in ptx else 0
        assert int(spilled.group(1)) <= allowed, assembled.stderr


def compile_for_gpu(work, source, *flags):
    """tl-compile's --target=cuda object of `source` in `work`, with
    --remarks; returns its diagnostics."""
    (work / "k.tl").write_text(source)
    compiled = subprocess.run(
        [os.path.join(BIN_DIR, "tl-compile"), "k.tl", "--target=cuda",
         "--remarks", "-o", "k.o", *flags], cwd=work, capture_output=True,
        text=True)
    assert compiled.returncode == 0, compiled.stderr
    return compiled.stderr


CASES = {case[0]: case for case in gpucases.cases()}


@pytest.fixture(scope="module")
def runtime(tmp_path_factory):
    return cudabuild.runtime_object(tmp_path_factory.mktemp("runtime"))


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiles_assembles_and_fails_softly(tmp_path, runtime, name):
    _, source, store, _, dtype = CASES[name]
    work = tmp_path / name
    args = cudabuild.build(work, source, store, BIN_DIR, runtime, dtype)
    if args is None:
        pytest.skip("skipped: the kernels call libdevice, and there is no "
                    "CUDA toolkit (tl-compile said so)")
    # (A program whose statements all fold away, `t4 = t4`, has none.)
    kernels = cudabuild.ptx_of(work / "k.o")
    if PTXAS:
        assemble_without_spills(work, kernels)
    if cudabuild.has_driver():
        return
    ran = subprocess.run(["./driver"], cwd=work, capture_output=True,
                         text=True, timeout=60)
    assert ran.returncode == 3, ran.stderr
    # The PTX is handed to the driver to compile when the object loads;
    # without kernels, the first stream fails.
    first = "compiling PTX" if kernels else "creating a stream"
    assert ran.stderr.startswith(first + ": no CUDA driver: libcuda.so.1"), \
        ran.stderr
    assert len(ran.stderr.strip().splitlines()) == 1
    assert not any((work / (n + ".out")).exists() for _, n in args)


def bench_cases():
    """bench/gpu.py's cases: the CFD kernels and the whole TCCG suite at
    the sizes they are timed at."""
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                    "bench"))
    import gpu
    return {case["id"]: case for case in gpu.cfd_cases() +
            gpu.tccg_cases(whole_suite=True)}


BENCH_CASES = bench_cases()
BENCH_CASES_CFD = {"K5", "K5-prime-E", "K5F", "K5F-prime-E", "K5H",
                   "K5H-prime-E", "G1", "G1-prime-E"}
# The CFD kernels whose statements run as one fused kernel each.
# (G1: the gradient's three components, each a contraction computed in
# its transposition's layout by tl-fuse-batches{for-gpu}, in one kernel:
# tl-gpu-map-loops merges their batch loops. K5H: one per statement, t
# not substituted into the second, whose chain would not fit a block.)
FUSED_KERNELS = {"K5": 1, "K5-prime-E": 1, "K5F": 1, "K5F-prime-E": 1,
                 "K5H": 2, "K5H-prime-E": 2, "G1": 1, "G1-prime-E": 1}


# The benchmark's kernels as they are timed on a GPU (bench/gpu.py): each
# kernel's PTX assembles for sm_90 without spilling registers.
@pytest.mark.skipif(not PTXAS, reason="skipped: no ptxas")
@pytest.mark.parametrize("name", sorted(BENCH_CASES))
def test_benchmark_kernels_assemble_without_spills(tmp_path, name):
    case = BENCH_CASES[name]
    (tmp_path / "k.tl").write_text(case["source"])
    element = (["--element-type=f32"] if case["dtype"] == "float32" else [])
    compiled = subprocess.run(
        [os.path.join(BIN_DIR, "tl-compile"), "k.tl", "--target=cuda", "-o",
         "k.o"] + element, cwd=tmp_path, capture_output=True, text=True)
    assert compiled.returncode == 0, compiled.stderr
    kernels = cudabuild.ptx_of(tmp_path / "k.o")
    assert kernels
    if name in FUSED_KERNELS:
        # Each statement's chain one kernel, a block per element in shared
        # memory (tl-gpu-map-loops): not one kernel per step.
        assert len(kernels) == FUSED_KERNELS[name]
        assert all("bar.sync" in ptx and ".shared" in ptx for ptx in kernels)
        # Register tiles, their multiply-adds fused.
        assert all("fma.rn.f" in ptx for ptx in kernels)
    if name not in BENCH_CASES_CFD:
        # A TCCG contraction: one tiled kernel on the f64 tensor cores,
        # in sm_90's m16n8k8 shape where its registers are sized for one
        # block per multiprocessor (.minnctapersm 1: the 128 x 128 tiles),
        # else m16n8k4.
        tiled = [ptx for ptx in kernels if "mma.sync" in ptx]
        assert len(tiled) == 1, name
        shape = "m16n8k8" if ".minnctapersm 1" in tiled[0] else "m16n8k4"
        assert "mma.sync.aligned.%s.row.col.f64" % shape in tiled[0], name
    assemble_without_spills(tmp_path, kernels)


def test_ptxas_is_found_or_skipped():
    if not PTXAS:
        pytest.skip("skipped: no ptxas (the CUDA toolkit at /usr/local/cuda)")
    assert os.access(PTXAS, os.X_OK)


@pytest.mark.skipif(cudabuild.has_driver(), reason="a CUDA driver is present")
def test_tl_run_without_a_driver_says_so_in_one_line(tmp_path):
    (tmp_path / "p.tl").write_text("var input a : [3]\nvar output b : [3]\n"
                                   "b = a * 2\n")
    np.save(tmp_path / "a.npy", np.arange(3.0))
    ran = subprocess.run(
        [os.path.join(BIN_DIR, "tl-run"), "p.tl", "--target=cuda",
         "--in", "a=a.npy", "--out", "b=b.npy"],
        cwd=tmp_path, capture_output=True, text=True)
    assert ran.returncode == 1
    assert ran.stderr.startswith("tl-run: error: no CUDA driver: "
                                 "libcuda.so.1"), ran.stderr
    assert len(ran.stderr.strip().splitlines()) == 1, ran.stderr
    assert not (tmp_path / "b.npy").exists()


def test_tl_run_refuses_a_foreign_cpu_target(tmp_path):
    (tmp_path / "p.tl").write_text("var input a : [3]\nvar output b : [3]\n"
                                   "b = a * 2\n")
    np.save(tmp_path / "a.npy", np.arange(3.0))
    ran = subprocess.run(
        [os.path.join(BIN_DIR, "tl-run"), "p.tl",
         "--target=aarch64-linux-gnu", "--in", "a=a.npy", "--out", "b=b.npy"],
        cwd=tmp_path, capture_output=True, text=True)
    assert ran.returncode == 1
    assert "the JIT runs code for this machine only" in ran.stderr
    assert not (tmp_path / "b.npy").exists()


def test_unknown_gpu_architecture(tmp_path):
    (tmp_path / "p.tl").write_text("var input a : [3]\nvar output b : [3]\n"
                                   "b = a * 2\n")
    ran = subprocess.run(
        [os.path.join(BIN_DIR, "tl-compile"), "p.tl", "--target=cuda",
         "--gpu-arch=volta", "-o", "p.o"],
        cwd=tmp_path, capture_output=True, text=True)
    assert ran.returncode == 1
    assert "unknown GPU architecture 'volta' (expected sm_NN" in ran.stderr
    assert not (tmp_path / "p.o").exists()


def assert_close(mapped, ref, dtype):
    """f64 within 1e-12 of the reference element by element; f32 within
    its rounding of the result's scale: a contraction's multiply-adds fused
    (FMA) round differently from the reference's, which shows on elements
    whose sums cancel."""
    if dtype == np.float64:
        np.testing.assert_allclose(mapped, ref, rtol=1e-12, atol=1e-12,
                                   equal_nan=True)
        return
    finite = np.abs(ref[np.isfinite(ref)])
    scale = finite.max() if finite.size else 0.0
    np.testing.assert_allclose(mapped, ref, rtol=1e-5,
                               atol=max(1e-12, 1e-5 * scale), equal_nan=True)


# The GPU mapping (tl-gpu-map-loops: one thread per element, the nest
# collapsed and tiled into blocks, the last block masked) run on this CPU:
# its index arithmetic and bounds against the reference interpreter, at
# extents that divide no block size.
@pytest.mark.parametrize("name", sorted(CASES))
def test_gpu_mapping_on_the_cpu(tl_run, name):
    _, source, store, live_out, dtype = CASES[name]
    element = ["--element-type=f32"] if dtype == np.float32 else []
    names = list(store)
    mapped = tl_run(source, store, names, engine="jit", dtype=dtype,
                    extra=["--gpu-mapping-on-cpu"] + element)
    ref = tl_run(source, store, names, engine="reference", dtype=dtype,
                 extra=element)
    for output in live_out:
        assert_close(mapped[output], ref[output], dtype)


# The same with padding (--pad=4): the padded buffers' extents and the
# zero padding through the mapped loops, on every other case.
@pytest.mark.parametrize("name", sorted(CASES)[::2])
def test_gpu_mapping_on_the_cpu_padded(tl_run, name):
    _, source, store, live_out, dtype = CASES[name]
    element = ["--element-type=f32"] if dtype == np.float32 else []
    names = list(store)
    mapped = tl_run(source, store, names, engine="jit", dtype=dtype,
                    extra=["--gpu-mapping-on-cpu", "--pad=4"] + element)
    ref = tl_run(source, store, names, engine="reference", dtype=dtype,
                 extra=element)
    for output in live_out:
        assert_close(mapped[output], ref[output], dtype)


def test_gpu_mapping_on_the_cpu_across_blocks(tl_run):
    # 3 x 7 x 53 = 1113 elements: four blocks of 256 and a masked fifth.
    source = ("var input a : [3 7 53]\nvar input b : [53 5]\n"
              "var output c : [3 7 5]\nvar output d : [3 7 53]\n"
              "c = a # b . [[3 4]]\nd = a * 2 - a\n")
    rng = np.random.default_rng(3)
    store = {"a": rng.standard_normal((3, 7, 53)),
             "b": rng.standard_normal((53, 5)),
             "c": np.zeros((3, 7, 5)), "d": np.zeros((3, 7, 53))}
    mapped = tl_run(source, store, ["c", "d"], engine="jit",
                    extra=["--gpu-mapping-on-cpu"])
    np.testing.assert_allclose(mapped["c"], np.einsum("ijk,kl->ijl",
                                                      store["a"], store["b"]),
                               rtol=1e-12)
    np.testing.assert_array_equal(mapped["d"], store["a"])


def test_gpu_mapping_on_the_cpu_size_zero(tl_run):
    # A size of 0 (an empty partition): the mapped loops have no blocks to
    # run (the runtime launches nothing for an empty grid), and the sum over
    # the empty index is 0; a size that is not 0 still runs.
    source = ("size E\nvar input u : [E 5]\nvar input w : [E]\n"
              "var input A : [5 5]\nvar output v : [E 5]\n"
              "var output s : [5]\nv = u # A . [[2 3]]\n"
              "s = u # w . [[1 3]]\n")
    rng = np.random.default_rng(4)
    for e in (0, 3):
        store = {"u": rng.standard_normal((e, 5)), "w": rng.standard_normal(e),
                 "A": rng.standard_normal((5, 5)), "v": np.zeros((e, 5)),
                 "s": np.zeros(5)}
        mapped = tl_run(source, store, ["v", "s"], engine="jit",
                        extra=["--gpu-mapping-on-cpu"])
        assert mapped["v"].shape == (e, 5)
        np.testing.assert_allclose(mapped["v"], store["u"] @ store["A"],
                                   rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(mapped["s"], store["w"] @ store["u"],
                                   rtol=1e-12, atol=1e-12)


# tl-gpu-map-loops' contraction kernels, run on this CPU (their index
# arithmetic, edges, splits and copies; the tensor cores' fragments as each
# lane's elements) against NumPy, at extents that divide no tile. Each
# compiles for the GPU with the remark that names the path it takes: a
# contraction that silently fell back to one thread per element would be
# right, and 50 times slower.
KERNEL_CASES = gpucases.KERNEL_CASES
kernel_case_store = gpucases.kernel_case_store


@pytest.mark.parametrize("name", sorted(KERNEL_CASES))
def test_contraction_kernel_on_the_cpu(tl_run, tmp_path, name):
    source, spec, inputs = kernel_case_store(name)
    expected = np.einsum(spec, inputs["A"], inputs["B"])
    mapped = tl_run(source, inputs, ["C"], engine="jit",
                    extra=["--gpu-mapping-on-cpu"])
    np.testing.assert_allclose(mapped["C"], expected, rtol=1e-12, atol=1e-12)
    diagnostics = compile_for_gpu(tmp_path, source)
    remarks = [line for line in diagnostics.splitlines()
               if "GPU contraction kernel" in line]
    assert len(remarks) == 1, diagnostics
    assert KERNEL_CASES[name][2] in remarks[0], remarks[0]
    # (f64 on the tensor cores where the block's tile has 32 columns or
    # more: not the split case's 16 x 16, nor 3 columns.)
    assert ("tensor cores" in remarks[0]) == (
        name not in ("split", "strided-result")), remarks[0]
    assert ("transposition folded" in remarks[0]) == (name == "transposed"), \
        remarks[0]
    # (Run-time extents keep m8n8k4: sm_90's shapes spilled there.)
    if name == "sized":
        assert "mma.sync m8n8k4" in remarks[0], remarks[0]


# The transposition kernel, run on this CPU against NumPy at extents that
# divide no tile, each with the remark that names it (one thread per
# element would be right, and 4 times slower on an H100).
@pytest.mark.parametrize("name", sorted(gpucases.TRANSPOSITION_CASES))
def test_transposition_kernel_on_the_cpu(tl_run, tmp_path, name):
    source, inputs, expected = gpucases.transposition_case_store(name)
    mapped = tl_run(source, inputs, ["C"], engine="jit",
                    extra=["--gpu-mapping-on-cpu"])
    np.testing.assert_array_equal(mapped["C"], expected)
    diagnostics = compile_for_gpu(tmp_path, source)
    assert "GPU transposition kernel: tiles of 32x32" in diagnostics, \
        diagnostics
    kernels = cudabuild.ptx_of(tmp_path / "k.o")
    assert len(kernels) == 1 and "bar.sync" in kernels[0]
    if PTXAS:
        assemble_without_spills(tmp_path, kernels)


# Random transpositions (rank 2 to 4, extents 1 to 40, some sized), with and
# without padding: the transposition kernel where both stride-1 loops are
# long enough, one thread per element elsewhere, each against NumPy.
def test_random_transpositions_on_the_cpu(tl_run, tmp_path):
    kernels = 0
    for seed in range(16):
        source, inputs, expected = gpucases.random_transposition(seed)
        for pad in ([], ["--pad=4"]):
            mapped = tl_run(source, inputs, ["C"], engine="jit",
                            extra=["--gpu-mapping-on-cpu"] + pad)
            np.testing.assert_array_equal(mapped["C"], expected, source)
        work = tmp_path / str(seed)
        work.mkdir()
        kernels += "GPU transposition kernel" in compile_for_gpu(work, source)
    # (Both paths taken: the seeds are fixed.)
    assert 0 < kernels < 16, kernels


# Random contractions of two operands about the kernels' tiles, with and
# without padding, against NumPy; most take the contraction kernel.
def test_random_contractions_on_the_cpu(tl_run, tmp_path):
    kernels = 0
    for seed in range(8):
        source, inputs, expected = gpucases.random_contraction(seed)
        for pad in ([], ["--pad=4"]):
            mapped = tl_run(source, inputs, ["C"], engine="jit",
                            extra=["--gpu-mapping-on-cpu"] + pad)
            np.testing.assert_allclose(mapped["C"], expected, rtol=1e-11,
                                       atol=1e-11, err_msg=source)
        work = tmp_path / str(seed)
        work.mkdir()
        kernels += "GPU contraction kernel" in compile_for_gpu(work, source)
    assert kernels >= 4, kernels


# The registers of sm_90's tensor-core kernels: sized for two blocks per
# multiprocessor with 16 sums per thread (64 x 64 tiles), for one with 64
# (128 x 128 tiles: a depth of 1031 and 12 x 13 such tiles, unless
# --gpu-register-tile bounds them), or as --gpu-blocks-per-sm says; the
# plan's choices spill nothing.
SMALL_PRODUCT = ("var input A : [131 127]\nvar input B : [127 137]\n"
                 "var output C : [131 137]\nC = A # B . [[2 3]]\n")
LONG_PRODUCT = ("var input A : [1601 1031]\nvar input B : [1031 1709]\n"
                "var output C : [1601 1709]\nC = A # B . [[2 3]]\n")


@pytest.mark.parametrize("source, flags, blocks, tile", [
    (SMALL_PRODUCT, [], 2, "64x64"),
    (LONG_PRODUCT, [], 1, "128x128"),
    (LONG_PRODUCT, ["--gpu-register-tile=4"], 2, "64x64"),
    (SMALL_PRODUCT, ["--gpu-blocks-per-sm=3"], 3, "64x64")])
def test_blocks_per_multiprocessor(tmp_path, source, flags, blocks, tile):
    diagnostics = compile_for_gpu(tmp_path, source, *flags)
    assert "block tile %s," % tile in diagnostics, diagnostics
    assert "registers for %d block%s per multiprocessor" % (
        blocks, "s" if blocks > 1 else "") in diagnostics, diagnostics
    kernels = [ptx for ptx in cudabuild.ptx_of(tmp_path / "k.o")
               if "mma.sync" in ptx]
    assert len(kernels) == 1
    assert ".minnctapersm %d" % blocks in kernels[0]
    # (Three blocks' 80 registers spill the staged loads of this kernel:
    # the flag is for kernels of one short step.)
    if PTXAS and blocks != 3:
        assemble_without_spills(tmp_path, kernels)


# Asynchronous copies (cp.async) of the staged tiles: three stages by
# default on sm_80 and later for kernels on the tensor cores of more than
# one step (beyond the 48 KiB a kernel declares, in dynamic shared
# memory), none with --gpu-async-stages=0, for one step of depth
# (ccsd_t's) or on sm_70 (no cp.async, and no f64 tensor cores: LLVM
# cannot select their mma.sync there).
ONE_STEP_PRODUCT = ("var input A : [131 24]\nvar input B : [24 137]\n"
                    "var output C : [131 137]\nC = A # B . [[2 3]]\n")


def staged_tile_stride(width):
    """The tensor cores' staged tile stride (ContractionKernel.cpp)."""
    return width + (4 - width % 16 + 16) % 16


@pytest.mark.parametrize("source, flags, stages", [
    (SMALL_PRODUCT, [], 3),
    (SMALL_PRODUCT, ["--gpu-async-stages=0"], 0),
    (SMALL_PRODUCT, ["--gpu-async-stages=2"], 2),
    (SMALL_PRODUCT, ["--gpu-arch=sm_80"], 3),
    (SMALL_PRODUCT, ["--gpu-arch=sm_70"], 0),
    (LONG_PRODUCT, [], 3),
    (LONG_PRODUCT, ["--gpu-async-stages=4"], 4),
    (ONE_STEP_PRODUCT, [], 0)])
def test_async_copies(tmp_path, source, flags, stages):
    diagnostics = compile_for_gpu(tmp_path, source, *flags)
    plan = re.search(r"GPU contraction kernel: block tile (\d+)x(\d+), "
                     r"depth (\d+) per step( \((\d) stages of asynchronous "
                     r"copies\))?,", diagnostics)
    assert plan, diagnostics
    assert int(plan.group(5) or 0) == stages, diagnostics
    assert ("f64 tensor cores" in diagnostics) == (
        "--gpu-arch=sm_70" not in flags), diagnostics
    kernels = [ptx for ptx in cudabuild.ptx_of(tmp_path / "k.o")
               if "bar.sync" in ptx]
    assert len(kernels) == 1
    copies = re.findall(r"cp\.async\.ca\.shared\.global", kernels[0])
    assert bool(copies) == bool(stages)
    if stages:
        assert re.search(r"cp\.async\.wait_group\s+%d;" % (stages - 2),
                         kernels[0])
        assert re.search(r"cp\.async\.wait_group\s+0;", kernels[0])
        tiles_bytes = stages * int(plan.group(3)) * 8 * (
            staged_tile_stride(int(plan.group(1))) +
            staged_tile_stride(int(plan.group(2))))
        assert ("__dynamic_shmem" in kernels[0]) == (tiles_bytes > 48 << 10)
    if PTXAS and "--gpu-arch=sm_70" not in flags:
        assemble_without_spills(tmp_path, kernels)


# Depth-contiguous tiles (--gpu-depth-contiguous-tiles, off by default
# until measured on a GPU): the tensor cores' tile of an input whose
# stride-1 index is a reduction is stored [row][depth], each row padded to
# 4 modulo 16 elements. Run on this CPU against NumPy (the staging's
# indices; the fragments' reads of the tiles run on a GPU only), with the
# remark naming the tiles stored so, and assembled without spills, the
# tiles in dynamic shared memory as their new size asks.
BOTH_DEPTH_FASTEST = ("var input A : [131 127]\nvar input B : [137 127]\n"
                      "var output C : [131 137]\nC = A # B . [[2 4]]\n")
COLUMNS_DEPTH_FASTEST = ("var input A : [127 131]\nvar input B : [137 127]\n"
                         "var output C : [131 137]\nC = A # B . [[1 4]]\n")


@pytest.mark.parametrize("source, spec, tiles, flags", [
    (SMALL_PRODUCT, "ik,kj->ij", "rows", []),
    (BOTH_DEPTH_FASTEST, "ik,jk->ij", "rows and columns", []),
    (COLUMNS_DEPTH_FASTEST, "ki,jk->ij", "columns", []),
    (SMALL_PRODUCT, "ik,kj->ij", "rows", ["--gpu-async-stages=0"]),
    (SMALL_PRODUCT, "ik,kj->ij", "rows", ["--gpu-f64-mma=m16n8k8"]),
    (LONG_PRODUCT, None, "rows", [])])
def test_depth_contiguous_tiles(tl_run, tmp_path, source, spec, tiles, flags):
    flags = ["--gpu-depth-contiguous-tiles"] + flags
    if spec:
        rng = np.random.default_rng(5)
        shapes = [[int(n) for n in re.search(
            r"var input %s : \[(\d+) (\d+)\]" % name, source).groups()]
            for name in "AB"]
        inputs = {"A": rng.standard_normal(shapes[0]),
                  "B": rng.standard_normal(shapes[1])}
        mapped = tl_run(source, inputs, ["C"], engine="jit",
                        extra=["--gpu-mapping-on-cpu"] + flags)
        np.testing.assert_allclose(mapped["C"],
                                   np.einsum(spec, inputs["A"], inputs["B"]),
                                   rtol=1e-12, atol=1e-12)
    diagnostics = compile_for_gpu(tmp_path, source, *flags)
    plan = re.search(r"GPU contraction kernel: block tile (\d+)x(\d+), "
                     r"depth (\d+) per step( \((\d) stages of asynchronous "
                     r"copies\))?, \d+ threads, depth-contiguous tiles of "
                     r"the ([a-z ]+),", diagnostics)
    assert plan and plan.group(6) == tiles, diagnostics
    kernels = [ptx for ptx in cudabuild.ptx_of(tmp_path / "k.o")
               if "mma.sync" in ptx]
    assert len(kernels) == 1
    rows, columns, depth = (int(plan.group(i)) for i in (1, 2, 3))
    stages = int(plan.group(5) or 0)

    def tile_elements(width, contiguous):
        return (width * staged_tile_stride(depth) if contiguous
                else depth * staged_tile_stride(width))
    tiles_bytes = max(stages, 1) * 8 * (
        tile_elements(rows, "rows" in tiles) +
        tile_elements(columns, "columns" in tiles))
    assert ("__dynamic_shmem" in kernels[0]) == (tiles_bytes > 48 << 10)
    if PTXAS:
        assemble_without_spills(tmp_path, kernels)


# The f64 tensor-core shapes: sm_90's m16n8k4 by default there (inline
# PTX, and .minnctapersm 2: tl-gpu-tensor-core-occupancy), m8n8k4 on
# sm_80 (MLIR lowers it), the others by --gpu-f64-mma; each assembles for
# its architecture.
@pytest.mark.parametrize("flags, shape", [
    ([], "m16n8k4"), (["--gpu-arch=sm_80"], "m8n8k4"),
    (["--gpu-f64-mma=m8n8k4"], "m8n8k4"),
    (["--gpu-f64-mma=m16n8k16"], "m16n8k16"),
    (["--gpu-f64-mma=m16n8k8"], "m16n8k8")])
def test_f64_tensor_core_shapes(tmp_path, flags, shape):
    diagnostics = compile_for_gpu(tmp_path, KERNEL_CASES["transposed"][0],
                                  *flags)
    assert "mma.sync %s)" % shape in diagnostics, diagnostics
    kernels = cudabuild.ptx_of(tmp_path / "k.o")
    assert any("mma.sync.aligned.%s.row.col.f64" % shape in ptx
               for ptx in kernels)
    assert any(".minnctapersm 2" in ptx for ptx in kernels) == (
        shape != "m8n8k4")
    if PTXAS:
        arch = "sm_80" if "--gpu-arch=sm_80" in flags else "sm_90"
        for index, ptx in enumerate(kernels):
            (tmp_path / ("k%d.ptx" % index)).write_text(ptx)
            assembled = subprocess.run(
                [PTXAS, "-arch=" + arch, "k%d.ptx" % index, "-o",
                 "/dev/null"], cwd=tmp_path, capture_output=True, text=True)
            assert assembled.returncode == 0, assembled.stderr


# A bad value of a GPU option: one line naming the option and the value or
# what it must be, a non-zero exit, no output.
@pytest.mark.parametrize("flag, fragment", [
    ("--gpu-f64-mma=m16n16k16", "m16n16k16"),
    ("--gpu-blocks-per-sm=9", "1 to 8"),
    ("--gpu-async-stages=1", "0 or 2 to 8"),
    ("--gpu-tile-group-rows=65", "0 to 64")])
def test_bad_gpu_option(tmp_path, flag, fragment):
    (tmp_path / "k.tl").write_text(KERNEL_CASES["transposed"][0])
    compiled = subprocess.run(
        [os.path.join(BIN_DIR, "tl-compile"), "k.tl", "--target=cuda", flag,
         "-o", "k.o"], cwd=tmp_path, capture_output=True, text=True)
    assert compiled.returncode != 0
    assert flag.split("=")[0][2:] in compiled.stderr and fragment in \
        compiled.stderr, compiled.stderr
    assert len(compiled.stderr.strip().splitlines()) == 1, compiled.stderr
    assert not (tmp_path / "k.o").exists()
