"""Contractions that tl-tile-contractions turns into cache and register
tiles (see lib/Transforms/Tensor/TileContractions.cpp), compiled with and without
the tiling, against the reference interpreter and NumPy: divisible and odd
extents, short extents taken whole, batches, several reductions, scalar
factors, and programs where the tiled result feeds later statements; on
one thread and on two (the outer loop of cache tiles as an scf.forall)."""

import os
import platform
import re
import shutil
import subprocess

import numpy as np
import pytest

from conftest import BIN_DIR
from tlcompare import assert_same

rng = np.random.default_rng(23)

# (source, {input: shape}, NumPy evaluation)

def _ccsd6(n, transposed=True):
    """TCCG ccsd6 (abcd-aebf-dfce) at extent n: the source, the shapes and
    NumPy's einsum; without the transposition, the product in its own
    order."""
    statement = "C = A # B . [[1 7] [3 5]]"
    if transposed:
        statement += " ^ [[1 4] [2 3] [3 4]]"
    shape = "[%d %d %d %d]" % ((n,) * 4)
    spec = "fbea,ecfd->" + ("dcba" if transposed else "bacd")
    return ("var input A : %s\nvar input B : %s\nvar output C : %s\n%s\n"
            % (shape, shape, shape, statement),
            {"A": (n,) * 4, "B": (n,) * 4},
            lambda v: np.einsum(spec, v["A"], v["B"]))

CASES = {
    "matmul-divisible": (
        "var input A : [64 96]\nvar input B : [96 48]\nvar output C : [64 48]\n"
        "C = A # B . [2 3]\n",
        {"A": (64, 96), "B": (96, 48)}, lambda v: v["A"] @ v["B"]),
    "matmul-odd-rows-and-depth": (
        "var input A : [37 29]\nvar input B : [29 32]\nvar output C : [37 32]\n"
        "C = A # B . [2 3]\n",
        {"A": (37, 29), "B": (29, 32)}, lambda v: v["A"] @ v["B"]),
    "matmul-short-odd-columns": (
        "var input A : [12 7]\nvar input B : [7 11]\nvar output C : [12 11]\n"
        "C = A # B . [2 3]\n",
        {"A": (12, 7), "B": (7, 11)}, lambda v: v["A"] @ v["B"]),
    "matmul-large-blocks": (
        "var input A : [520 300]\nvar input B : [300 272]\nvar output C : [520 272]\n"
        "C = A # B . [2 3]\n",
        {"A": (520, 300), "B": (300, 272)}, lambda v: v["A"] @ v["B"]),
    # Rows of B 4 KiB apart, and too few rows for panels: each block of B
    # is copied contiguous first (copy=in1); 37 rows are register tiles of
    # 8 and a rest of 5.
    "matmul-rows-4k-apart": (
        "var input A : [37 96]\nvar input B : [96 512]\nvar output C : [37 512]\n"
        "C = A # B . [2 3]\n",
        {"A": (37, 96), "B": (96, 512)}, lambda v: v["A"] @ v["B"]),
    # B copied into panels of 16 columns (panels=in1), the last holding 3
    # (83 = 5 x 16 + 3); 131 rows in cache tiles and a peeled rest, which
    # read the same panels.
    # Column blocks of 208 that do not divide 1031 columns (4 x 208 + 199):
    # with threads, the whole blocks are an scf.forall and the rest a
    # contraction after it (not the whole product on one thread).
    "matmul-columns-no-block-divides": (
        "var input A : [37 53]\nvar input B : [53 1031]\n"
        "var output C : [37 1031]\nC = A # B . [2 3]\n",
        {"A": (37, 53), "B": (53, 1031)}, lambda v: v["A"] @ v["B"]),
    "matmul-prime-panels": (
        "var input A : [131 101]\nvar input B : [101 83]\nvar output C : [131 83]\n"
        "C = A # B . [2 3]\n",
        {"A": (131, 101), "B": (101, 83)}, lambda v: v["A"] @ v["B"]),
    "vector-times-matrix": (
        "var input x : [50]\nvar input A : [50 40]\nvar output y : [40]\n"
        "y = x # A . [1 2]\n",
        {"x": (50,), "A": (50, 40)}, lambda v: v["x"] @ v["A"]),
    "batched-cfd-step": (
        "var input u : [30 11 11 11]\nvar input A : [11 11]\nvar output v : [30 11 11 11]\n"
        "v = u # A # A # A . [[2 6] [3 8] [4 10]]\n",
        {"u": (30, 11, 11, 11), "A": (11, 11)},
        lambda v: np.einsum("eabc,ia,jb,kc->eijk", v["u"], v["A"], v["A"], v["A"])),
    # Batch-fused chains (tl-fuse-batches: intermediates above 256 KB):
    # a prime number of elements (tiles of one), p = 7 and p = 13 columns
    # (split 8 + 5 for 13), and the inverse Helmholtz operator with its
    # element-wise scaling between two chains.
    "fused-cfd-prime-elements-p7": (
        "var input u : [127 7 7 7]\nvar input A : [7 7]\nvar output v : [127 7 7 7]\n"
        "v = u # A # A # A . [[2 6] [3 8] [4 10]]\n",
        {"u": (127, 7, 7, 7), "A": (7, 7)},
        lambda v: np.einsum("eabc,ia,jb,kc->eijk", v["u"], v["A"], v["A"], v["A"])),
    "fused-cfd-p13": (
        "var input u : [40 13 13 13]\nvar input A : [13 13]\nvar output v : [40 13 13 13]\n"
        "v = u # A # A # A . [[2 6] [3 8] [4 10]]\n",
        {"u": (40, 13, 13, 13), "A": (13, 13)},
        lambda v: np.einsum("eabc,ia,jb,kc->eijk", v["u"], v["A"], v["A"], v["A"])),
    "fused-helmholtz": (
        "type f : [24 11 11 11]\nvar input S : [11 11]\nvar input D : f\n"
        "var input u : f\nvar output v : f\nvar t : f\n"
        "t = u # S # S # S . [[2 5] [3 7] [4 9]]\n"
        "v = (D * t) # S # S # S . [[2 6] [3 8] [4 10]]\n",
        {"S": (11, 11), "D": (24, 11, 11, 11), "u": (24, 11, 11, 11)},
        lambda v: np.einsum("eabc,ia,jb,kc->eijk",
                            v["D"] * np.einsum("eabc,ai,bj,ck->eijk",
                                               v["u"], v["S"], v["S"], v["S"]),
                            v["S"], v["S"], v["S"])),
    # Columns above the register width that it does not divide: the bulk
    # at full width, the rest in power-of-two parts (37 = 32 + 4 + 1), and
    # the TCCG ccsd6 contraction (abcd-aebf-dfce) at extent 20 (16 + 4).
    "matmul-split-columns": (
        "var input A : [24 30]\nvar input B : [30 37]\nvar output C : [24 37]\n"
        "C = A # B . [2 3]\n",
        {"A": (24, 30), "B": (30, 37)}, lambda v: v["A"] @ v["B"]),
    "tccg-ccsd6-split-columns": _ccsd6(20),
    # TCCG ccsd_t0 (abcdef-dega-gfbc) with A above the small-operand size
    # (36,864 doubles) but each element used 256 times: A is transposed so
    # that the result's last dimension is its last, then tiled.
    "tccg-ccsd-t0-transposed-operand": (
        "var input A : [16 12 12 16]\nvar input B : [8 8 4 12]\n"
        "var output C : [4 12 16 8 8 16]\n"
        "C = A # B . [2 8] ^ [1 6]\n",
        {"A": (16, 12, 12, 16), "B": (8, 8, 4, 12)},
        lambda v: np.einsum("aged,cbfg->fedcba", v["A"], v["B"])),
    # A transposed product of few terms per element is computed straight
    # into the transposed layout, its columns (11 = 8 + 2 + 1) split.
    "transposed-product-odd": (
        "var input A : [11 5]\nvar input B : [5 13]\nvar output C : [13 11]\n"
        "C = A # B . [2 3] ^ [1 2]\n",
        {"A": (11, 5), "B": (5, 13)}, lambda v: (v["A"] @ v["B"]).T),
    # TCCG abc-bda-dc at primes, C[c][b][a] = sum_d A[a][d][b] B[c][d]:
    # its transposition is kept (folding would pack A for the columns a),
    # and the contraction computes into [a][c][b], which reads A's rows
    # (b) in place as its columns, before the copy into C's layout.
    "tccg-abc-bda-dc-relaid-prime": (
        "var input A : [31 29 23]\nvar input B : [3 29]\n"
        "var output C : [3 23 31]\n"
        "C = A # B . [[2 5]] ^ [[1 3]]\n",
        {"A": (31, 29, 23), "B": (3, 29)},
        lambda v: np.einsum("adb,cd->cba", v["A"], v["B"])),
    # A sum to a scalar that reads B across its rows: blocked a line of B
    # at a time (the order of the sum changes, not its terms).
    "trace-blocked": (
        "var input A : [64 48]\nvar input B : [48 64]\nvar output s : []\n"
        "s = A # B . [2 3] . [1 2]\n",
        {"A": (64, 48), "B": (48, 64)}, lambda v: np.trace(v["A"] @ v["B"])),
    # Columns that three vector registers divide (72 = 3 x 24, 24) take
    # register tiles of three registers and at most 6 rows (14 rows: tiles
    # of 2); a depth blocked for the caches (600 = 3 x 200) re-reads each
    # tile of the result, which the loop adds after its FMAs.
    "three-register-columns": (
        "var input A : [14 600]\nvar input B : [600 72]\nvar output C : [14 72]\n"
        "C = A # B . [2 3]\n",
        {"A": (14, 600), "B": (600, 72)}, lambda v: v["A"] @ v["B"]),
    "three-register-columns-short": (
        "var input A : [9 40]\nvar input B : [40 24]\nvar output C : [9 24]\n"
        "C = A # B . [2 3]\n",
        {"A": (9, 40), "B": (40, 24)}, lambda v: v["A"] @ v["B"]),
    "two-reductions": (
        "var input A : [16 6 5]\nvar input B : [6 5 24]\nvar output C : [16 24]\n"
        "C = A # B . [2 4] . [2 3]\n",
        {"A": (16, 6, 5), "B": (6, 5, 24)},
        lambda v: np.einsum("iab,abj->ij", v["A"], v["B"])),
    # Prime extents: rows, depth and a second reduction with no divisor
    # near their preferred tile get tiles that do not divide them, the
    # last, partial one peeled off into a tile of its own inside the same
    # loops (71 rows = 8 x 8 + 7, a depth of 311 in blocks of 156 and 155,
    # a reduction of 19 in blocks of 7, 7 and 5); a peeled depth block
    # sums into what the blocks before it left.
    "matmul-prime-rows-and-depth": (
        "var input A : [23 311]\nvar input B : [311 128]\nvar output C : [23 128]\n"
        "C = A # B . [2 3]\n",
        {"A": (23, 311), "B": (311, 128)}, lambda v: v["A"] @ v["B"]),
    "matmul-prime-all": (
        "var input A : [71 29]\nvar input B : [29 37]\nvar output C : [71 37]\n"
        "C = A # B . [2 3]\n",
        {"A": (71, 29), "B": (29, 37)}, lambda v: v["A"] @ v["B"]),
    "tccg-ccsd6-prime": _ccsd6(19),
    # The same product in its own order (no transposition to fold into it):
    # its columns' operand is copied into panels.
    "tccg-ccsd6-prime-own-order": _ccsd6(19, transposed=False),
    # ccsd6's shape (abcd-aefb-fdce's product) at distinct primes: b, a of
    # A and c, d of B follow each other in the result, so the contraction
    # collapses into a matrix product of (13*23) x (17*19) x (11*29), B
    # copied with its reductions first; its 319 columns = 304 + 15.
    "tccg-ccsd6-prime-collapsed": (
        "var input A : [13 17 19 23]\nvar input B : [19 11 29 17]\n"
        "var output C : [13 23 11 29]\n"
        "C = A # B . [[2 8] [3 5]]\n",
        {"A": (13, 17, 19, 23), "B": (19, 11, 29, 17)},
        lambda v: np.einsum("bfea,ecdf->bacd", v["A"], v["B"])),
    # The same with B as [c][f][e][d], in which the reductions alone would
    # not copy it: copied with its reductions first all the same, so that
    # c and d collapse into the columns.
    "tccg-ccsd6-prime-collapsed-from-own-layout": (
        "var input A : [13 17 19 23]\nvar input B : [11 17 19 29]\n"
        "var output C : [13 23 11 29]\n"
        "C = A # B . [[2 6] [3 7]]\n",
        {"A": (13, 17, 19, 23), "B": (11, 17, 19, 29)},
        lambda v: np.einsum("bfea,cfed->bacd", v["A"], v["B"])),
    # Transpositions that move the contiguous dimension are copied in
    # squares of vectors (tl-tile-transpositions), masked at the ends of
    # prime extents: a transposition on its own, and the operand of TCCG
    # abcde-ecbfa-fd (the result's last index first in A) at prime extents.
    "transposition-prime": (
        "var input A : [13 11 7]\nvar output C : [7 11 13]\n"
        "C = A ^ [[1 3]]\n",
        {"A": (13, 11, 7)}, lambda v: np.transpose(v["A"], (2, 1, 0))),
    "tccg-abcde-ecbfa-fd-prime": (
        "var input A : [13 11 5 3 7]\nvar input B : [5 11]\n"
        "var output C : [7 5 3 5 13]\n"
        "C = A # B . [[2 7]] ^ [[1 4] [2 5] [4 5]]\n",
        {"A": (13, 11, 5, 3, 7), "B": (5, 11)},
        lambda v: np.einsum("afbce,df->edcba", v["A"], v["B"])),
    # The same with A too large to transpose whole (437,437 elements, 5
    # uses each): each batch step packs its block of A with the columns
    # last, the packed dimension (13 = 8 + 5) and the columns (23 = 16 + 7)
    # cut where the lanes stop.
    "tccg-abcde-ecbfa-fd-packed-prime": (
        "var input A : [23 19 11 7 13]\nvar input B : [5 19]\n"
        "var output C : [13 5 7 11 23]\n"
        "C = A # B . [[2 7]] ^ [[1 4] [2 5] [4 5]]\n",
        {"A": (23, 19, 11, 7, 13), "B": (5, 19)},
        lambda v: np.einsum("afbce,df->edcba", v["A"], v["B"])),
    # TCCG ccsd_t (abcdef-geab-dfgc) at distinct primes: the result (17,325
    # elements) outgrows both inputs, so the loops outside the register
    # tile follow its layout (the folded transposition would otherwise put
    # an outer loop's dimension inside its rows); 11 columns = 8 + 3.
    "tccg-ccsd-t-prime-result-order": (
        "var input A : [5 11 5 13]\nvar input B : [3 13 3 7]\n"
        "var output C : [3 5 7 3 5 11]\n"
        "C = A # B . [[4 6]] ^ [[1 5] [2 3] [3 6]]\n",
        {"A": (5, 11, 5, 13), "B": (3, 13, 3, 7)},
        lambda v: np.einsum("baeg,cgfd->fedcba", v["A"], v["B"])),
    # TCCG abcd-eb-aecd at primes: b and c are batches whose loops run
    # inside the cache tiles, so the 67 rows stay one block (in blocks of
    # 40 and 27, each would read all of B again); 19 columns = 16 + 3.
    "tccg-abcd-eb-aecd-prime-rows-whole": (
        "var input A : [67 13]\nvar input B : [3 5 13 19]\n"
        "var output C : [67 3 5 19]\n"
        "C = A # B . [[2 5]]\n",
        {"A": (67, 13), "B": (3, 5, 13, 19)},
        lambda v: np.einsum("ik,bckj->ibcj", v["A"], v["B"])),
    "scaled-and-chained": (
        "var input s : []\nvar input A : [40 24]\nvar input B : [24 40]\n"
        "var output C : [40 40]\nvar T : [40 40]\n"
        "T = s * (A # B . [2 3])\nC = T # T . [2 3] + T\n",
        {"s": (), "A": (40, 24), "B": (24, 40)},
        lambda v: (lambda t: t @ t + t)(v["s"] * (v["A"] @ v["B"]))),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("tiling", [[], ["--no-tile"], ["--threads=2"]],
                         ids=["tiled", "untiled", "tiled-2-threads"])
def test_tiled_contractions_match(tl_run, name, tiling):
    source, shapes, numpy = CASES[name]
    values = {k: rng.random(shape) - 0.5 for k, shape in shapes.items()}
    output = [line.split(":")[0].split()[-1] for line in source.splitlines()
              if line.startswith("var output")][0]
    jit = tl_run(source, values, [output], engine="jit", extra=tiling)[output]
    ref = tl_run(source, values, [output], engine="reference")[output]
    assert_same(jit, ref, 1e-12, 1e-12)
    assert_same(jit, numpy(values), 1e-12, 1e-12)



# The fast path, not only the right numbers: a silent fallback to scalar
# loops would pass the test above. Every contraction here reaches a
# register-tiled plan (tl-compile --remarks prints each plan, and why a
# contraction is not tiled or a step fell back), except the trace, whose
# scalar result has no columns (it is blocked by strided sums instead).
NOT_TILED = {"trace-blocked": "not tiled: the result is a scalar"}
# Cases with no contraction to tile.
NO_CONTRACTION = {"transposition-prime"}
# Cases whose columns' operand is copied block by block (its rows conflict
# in the caches).
COPIED_BLOCKS = {"matmul-rows-4k-apart"}
# Cases whose columns' operand is copied into panels of the register
# tile's width.
PANELED = {"matmul-prime-panels", "matmul-large-blocks",
           "tccg-ccsd6-prime-own-order"}
# Cases whose transposition is computed straight into its layout (folded
# into the contraction) however many terms each element sums, because the
# folded contraction copies less.
FOLDED = {"tccg-ccsd6-prime", "tccg-ccsd-t-prime-result-order"}
# Cases whose contraction computes into the layout that reads its largest
# input in place for its columns, before the kept transposition.
RELAID = {"tccg-abc-bda-dc-relaid-prime"}
# Cases whose free dimensions collapse with the reductions: every plan is
# that of a matrix product (rows, columns, depth).
COLLAPSED_TO_PRODUCT = {"tccg-ccsd6-prime-own-order",
                        "tccg-ccsd6-prime-collapsed",
                        "tccg-ccsd6-prime-collapsed-from-own-layout"}
# Cases with a transposition copied in squares of vectors.
TRANSPOSED_IN_SQUARES = {"transposition-prime", "tccg-abcde-ecbfa-fd-prime",
                         "tccg-abcde-ecbfa-fd-packed-prime"}
# Cases whose operand is packed block by block (pack=in0), not transposed
# whole.
PACKED = {"tccg-abcde-ecbfa-fd-packed-prime"}
# Cases built with a batch or several cache tiles of columns, which two
# threads share: their objects must call the OpenMP runtime.
SHARED_BY_THREADS = {
    "tccg-ccsd6-prime", "tccg-ccsd6-prime-own-order",
    "tccg-ccsd6-prime-collapsed",
    "matmul-columns-no-block-divides",
    "batched-cfd-step", "fused-cfd-p13", "fused-cfd-prime-elements-p7",
    "fused-helmholtz", "matmul-large-blocks", "tccg-ccsd6-split-columns",
    "tccg-ccsd-t0-transposed-operand", "tccg-ccsd-t-prime-result-order"}


def _llvm_tool(name):
    return shutil.which(name + "-22") or "/usr/lib/llvm-22/bin/" + name


def _compile(tmp_path, source, extra, disassemble=False):
    program, obj = tmp_path / "p.tl", tmp_path / "p.o"
    program.write_text(source)
    result = subprocess.run(
        [os.path.join(BIN_DIR, "tl-compile"), str(program), "-o", str(obj),
         "--remarks"] + extra, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    symbols = subprocess.run([_llvm_tool("llvm-nm"), str(obj)],
                             capture_output=True, text=True).stdout
    if disassemble:
        code = subprocess.run([_llvm_tool("llvm-objdump"), "-d", str(obj)],
                              capture_output=True, text=True).stdout
        return result.stderr, symbols, code
    return result.stderr, symbols


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("threads", [1, 2])
def test_tiled_contractions_take_the_fast_path(tmp_path, name, threads):
    # The plans of one target, whatever the host's: AVX-512's lanes and
    # registers (an AVX2 host squares transpositions by 4) and a 1 MiB L2
    # (a 2 MiB one, Emerald Rapids, gives ccsd6's products row panels).
    remarks, symbols = _compile(tmp_path, CASES[name][0],
                                ["--threads=%d" % threads,
                                 "--cpu=x86-64-v4",
                                 "--l1-cache-bytes=49152",
                                 "--l2-cache-bytes=1048576"])
    assert "left untiled" not in remarks, remarks
    assert "transposition left scalar" not in remarks, remarks
    if name in TRANSPOSED_IN_SQUARES:
        assert "transposition copied in squares of 8x8" in remarks, remarks
    if name in NOT_TILED:
        assert NOT_TILED[name] in remarks, remarks
    elif name in NO_CONTRACTION:
        assert "tiling plan:" not in remarks, remarks
    else:
        assert "tiling plan:" in remarks, remarks
        assert "not tiled" not in remarks, remarks
    if name in COPIED_BLOCKS:
        assert "copy=in1" in remarks, remarks
    if name in PANELED:
        assert "panels=in" in remarks, remarks
    if name in PACKED:
        assert "pack=in0" in remarks, remarks
    if name in COLLAPSED_TO_PRODUCT:
        plans = re.findall(r"tiling plan: .* register=\[([\d,]*)\]", remarks)
        assert plans and all(len(p.split(",")) == 3 for p in plans if p), \
            remarks
    # None of these reads its rows' panels from 24 register tiles of columns.
    assert "row-panels=in" not in remarks, remarks
    if name in FOLDED:
        assert "transposition folded into its contraction" in remarks, remarks
    if name in RELAID:
        assert "the contraction computes into the layout that reads its " \
            "largest input in place" in remarks, remarks
        assert "columns=d1 " in remarks, remarks
    if threads == 2 and name in SHARED_BY_THREADS:
        assert "__kmpc_fork_call" in symbols, name
    if threads == 1:
        assert "__kmpc_fork_call" not in symbols, name


# The register tiles reach the object as packed vector FMAs of the width
# --cpu has: AVX2's ymm registers for x86-64-v3, AVX-512's zmm for
# skylake-avx512. A tile left scalar, or one whose accumulators spill,
# would show as scalar FMAs (vfmadd...sd) or none.
FMA_WIDTH = {"x86-64-v3": "ymm", "skylake-avx512": "zmm"}


@pytest.mark.skipif(platform.machine() != "x86_64", reason="x86-64 CPUs")
@pytest.mark.parametrize("cpu", sorted(FMA_WIDTH))
@pytest.mark.parametrize("name", ["matmul-large-blocks", "tccg-ccsd6-prime",
                                  "fused-cfd-p13"])
def test_register_tiles_are_vector_fmas_of_the_cpu(tmp_path, name, cpu):
    remarks, _, code = _compile(tmp_path, CASES[name][0], ["--cpu=" + cpu],
                                disassemble=True)
    assert "left untiled" not in remarks, remarks
    packed = re.findall(r"vfmadd\w*pd\s+[^\n]*%(xmm|ymm|zmm)", code)
    widest = FMA_WIDTH[cpu]
    assert packed.count(widest) >= 16, (cpu, packed[:20])
    if cpu == "x86-64-v3":
        assert "zmm" not in code


# Cases whose extents divide nothing near the preferred tiles: the plan
# takes tiles that do not divide them and peels the rest off inside the
# same loops (tl-tile-contractions), rather than splitting the rows into a
# second contraction or taking tiles one row deep. (tile-contractions-
# peel.mlir checks the IR of the peeled tiles.)
PEELED = ["matmul-prime-rows-and-depth", "matmul-prime-all", "tccg-ccsd6-prime"]


@pytest.mark.parametrize("name", PEELED)
def test_prime_extents_are_peeled_not_split_or_tiled_one_row_deep(tmp_path,
                                                                  name):
    remarks, _ = _compile(tmp_path, CASES[name][0], [])
    plans = [line for line in remarks.splitlines() if "tiling plan:" in line]
    tiled = [p for p in plans if "split=none" in p]
    assert tiled, remarks
    for plan in plans:
        rows = re.search(r"rows=(d\d+|none)", plan).group(1)
        assert "split=%s@" % rows not in plan, plan
    for plan in tiled:
        register = plan.split("register=[")[1].split("]")[0].split(",")
        assert sum(int(size) > 1 for size in register) >= 2, plan


# The rows' operand copied into panels of the register tile's rows
# (row-panels=in0): rows a page or more apart, each read by at least 24
# register tiles of columns, which a target with a 2 MiB L2 (blocks of up
# to 512 columns) allows, on one thread or two (801 columns: two blocks,
# or two threads' shares, of 25 register tiles of AVX-512's 16 columns;
# with 401, two threads' shares were 12 such tiles, and only AVX2's
# tiles of 8 had panels). Prime extents but the columns: panels of 8 rows
# and a last one of 3, depth blocks of 174 and 173, 801 = 50 x 16 + 1
# columns; the second case has its rows first of three dimensions (5368 B
# apart) and another reduction kept whole in the panels.
ROW_PANEL_CASES = {
    "matmul-prime-row-panels": (
        "var input A : [67 521]\nvar input B : [521 801]\nvar output C : [67 801]\n"
        "C = A # B . [2 3]\n",
        {"A": (67, 521), "B": (521, 801)}, lambda v: v["A"] @ v["B"]),
    "contraction-row-panels-two-reductions": (
        "var input A : [37 11 61]\nvar input B : [61 11 801]\n"
        "var output C : [37 801]\nC = A # B . [[2 5] [3 4]]\n",
        {"A": (37, 11, 61), "B": (61, 11, 801)},
        lambda v: np.einsum("ikl,lkj->ij", v["A"], v["B"])),
}
L2_2MIB = ["--l2-cache-bytes=2097152"]


@pytest.mark.parametrize("name", sorted(ROW_PANEL_CASES))
@pytest.mark.parametrize("threads", [1, 2])
def test_row_panels_match(tl_run, tmp_path, name, threads):
    source, shapes, numpy = ROW_PANEL_CASES[name]
    flags = L2_2MIB + ["--threads=%d" % threads]
    remarks, _ = _compile(tmp_path, source, flags)
    assert "row-panels=in0" in remarks, remarks
    assert "not tiled" not in remarks and "left untiled" not in remarks
    values = {k: rng.random(shape) - 0.5 for k, shape in shapes.items()}
    jit = tl_run(source, values, ["C"], engine="jit", extra=flags)["C"]
    ref = tl_run(source, values, ["C"], engine="reference")["C"]
    assert_same(jit, ref, 1e-12, 1e-12)
    assert_same(jit, numpy(values), 1e-12, 1e-12)


# The rows' operand with a batch the columns' operand lacks (TCCG ccsd6
# with its transposition folded): 5 x 67 rows in panels would be more than
# a row block of a 2 MiB L2 (128), so the batch (d0) is stepped inside the
# depth blocks (d2), each step copying its own rows' panels. On two
# threads each thread's share of the columns (192) is too few register
# tiles for the rows' panels: the plan differs, the result must not.
BATCH_OF_ROW_PANELS = (
    "var input B : [5 67 521]\nvar input A : [521 401]\n"
    "var output C : [5 67 401]\nC = B # A . [[3 4]]\n")


@pytest.mark.parametrize("threads", [1, 2])
def test_batch_of_row_panels_matches(tl_run, tmp_path, threads):
    flags = L2_2MIB + ["--threads=%d" % threads]
    remarks, _ = _compile(tmp_path, BATCH_OF_ROW_PANELS, flags)
    if threads == 1:
        assert ("cache=[1,0,174,0] register=[1,8,1,16] "
                "cache-order=[d3,d2,d0,d1]" in remarks), remarks
        assert "row-panels=in0" in remarks, remarks
    assert "not tiled" not in remarks and "left untiled" not in remarks
    values = {"B": rng.random((5, 67, 521)) - 0.5,
              "A": rng.random((521, 401)) - 0.5}
    jit = tl_run(BATCH_OF_ROW_PANELS, values, ["C"], engine="jit",
                 extra=flags)["C"]
    ref = tl_run(BATCH_OF_ROW_PANELS, values, ["C"], engine="reference")["C"]
    assert_same(jit, ref, 1e-12, 1e-12)
    assert_same(jit, np.einsum("bik,kj->bij", values["B"], values["A"]),
                1e-12, 1e-12)


# Threads that share the columns take one share of whole register tiles
# each (thread-columns= in the plan), blocked as one thread's columns:
# where blocks that divide the columns would be narrow (2032 = 16 x 127
# after the split of 2039's last 7), and where a batch before the columns
# stays whole in the tiles (ccsd6 at 37 on AVX2: sharing the batch would
# pack each panel once per batch step). The plans of AVX2 (registers of 4
# doubles, register tiles 8 columns wide), whatever the host.
THREAD_SHARE_CASES = {
    "matmul-2039-columns": (
        "var input A : [37 53]\nvar input B : [53 2039]\n"
        "var output C : [37 2039]\nC = A # B . [2 3]\n",
        {"A": (37, 53), "B": (53, 2039)}, "thread-columns=1016",
        lambda v: v["A"] @ v["B"]),
    "tccg-ccsd6-37-batch-whole": (
        "var input A : [37 37 37 37]\nvar input B : [37 37 37 37]\n"
        "var output C : [37 37 37 37]\n"
        "C = A # B . [[1 7] [3 5]] ^ [[1 4] [2 3] [3 4]]\n",
        {"A": (37, 37, 37, 37), "B": (37, 37, 37, 37)}, "thread-columns=680",
        lambda v: np.einsum("fbea,ecfd->dcba", v["A"], v["B"])),
}


@pytest.mark.parametrize("name", sorted(THREAD_SHARE_CASES))
def test_threads_share_columns(tl_run, tmp_path, name):
    source, shapes, share, numpy = THREAD_SHARE_CASES[name]
    remarks, symbols = _compile(tmp_path, source,
                                ["--threads=2", "--cpu=x86-64-v3"])
    assert share in remarks, remarks
    assert "__kmpc_fork_call" in symbols
    one_thread, _ = _compile(tmp_path, source, ["--cpu=x86-64-v3"])
    assert "thread-columns=" not in one_thread, one_thread
    values = {k: rng.random(shape) - 0.5 for k, shape in shapes.items()}
    two = tl_run(source, values, ["C"], engine="jit",
                 extra=["--threads=2"])["C"]
    one = tl_run(source, values, ["C"], engine="jit")["C"]
    # The blocks of every sum are one thread's: the same bits.
    assert np.array_equal(two, one)
    assert_same(two, numpy(values), 1e-12, 1e-12)


# The plans of one Emerald Rapids core (docs/compiler.md, "The target
# description", worked through): 8 x 16 register tiles, depth blocks of
# 256, column blocks of 512 and row blocks of 128 at most, each an extent's
# largest dividing multiple of the register tile where that is at least
# half of it. TCCG ab-ac-cb and the ccsd6 family at TCCG's sizes.
EMERALD_RAPIDS = ["--cpu=emeraldrapids", "--l1-cache-bytes=49152",
                  "--l2-cache-bytes=2097152"]
EMERALD_RAPIDS_PLANS = {
    # Columns 5136 = 16 x 3 x 107: 11 blocks of at most 467, rounded up to
    # 480; depth 5136 / 24 = 214; rows 5120 / 40 = 128.
    "ab-ac-cb": (
        "var input A : [5136 5136]\nvar input B : [5120 5136]\n"
        "var output C : [5120 5136]\nC = A # B . [[1 4]] ^ [[1 2]]\n",
        "rows=d2 columns=d0 depth=d1 cache=[480,214,128] register=[16,1,8] "
        "cache-order=[d0,d1,d2] register-order=[d2,d0,d1] split=none "
        "panels=in0 row-panels=in1"),
    # The transposition folded, its reductions and A's free dimensions
    # collapsed: columns 5184 = 72^2 in blocks of 16 x 27 = 432, depth
    # 5184 / 24 = 216, rows of 72 whole, one of B's dimensions a batch,
    # stepped one at a time inside the depth blocks: B's panels of all 72
    # batches (72 x 72 rows, more than the 128 of a row block) would not
    # stay in L2.
    "abcd-aebf-dfce": (
        "var input A : [72 72 72 72]\nvar input B : [72 72 72 72]\n"
        "var output C : [72 72 72 72]\n"
        "C = A # B . [[1 7] [3 5]] ^ [[1 4] [2 3] [3 4]]\n",
        "rows=d1 columns=d0 depth=d2 cache=[432,0,216,1] "
        "register=[16,8,1,1] cache-order=[d0,d2,d3,d1] "
        "register-order=[d3,d1,d0,d2] split=none panels=in0 row-panels=in1"),
    # The transposition kept: one product of 5184 = 72^2, columns 16 x 27
    # = 432, depth 5184 / 24 = 216, rows 8 x 12 = 96.
    "abcd-aecf-bfde": (
        "var input A : [72 72 72 72]\nvar input B : [72 72 72 72]\n"
        "var output C : [72 72 72 72]\n"
        "C = A # B . [[1 7] [3 5]] ^ [[1 3] [2 3] [3 4]]\n",
        "rows=d0 columns=d1 depth=d2 cache=[96,432,216] register=[8,16,1] "
        "cache-order=[d1,d2,d0] register-order=[d0,d1,d2] split=none "
        "panels=in1 row-panels=in0"),
}


@pytest.mark.parametrize("name", sorted(EMERALD_RAPIDS_PLANS))
def test_emerald_rapids_plans(tmp_path, name):
    source, plan = EMERALD_RAPIDS_PLANS[name]
    remarks, _ = _compile(tmp_path, source, EMERALD_RAPIDS)
    assert "register tile 8x16, cache tile 128x512x256" in remarks, remarks
    assert re.findall(r"tiling plan: (.*)", remarks) == [plan], remarks


# The same with one core's share of L3 (320 MB for 64 cores: 5 MiB): the
# L2 rule's column blocks (512 columns, 32 register tiles of 16) are wide
# enough for the rows' panels (24 tiles or more), so no block grows to L3's
# size; the plans are those without the L3 (docs/compiler.md, "The target
# description"). With a 1 MiB L2 (blocks of 256 columns, 16 tiles) the
# columns of ab-ac-cb go in L3's blocks: 2.5 MiB / (256 x 8 B) = 1280,
# 1024 at most, 5136 / 6 = 856 rounded up to 864.
@pytest.mark.parametrize("name", sorted(EMERALD_RAPIDS_PLANS))
def test_emerald_rapids_plans_with_l3(tmp_path, name):
    source, plan = EMERALD_RAPIDS_PLANS[name]
    remarks, _ = _compile(tmp_path, source,
                          EMERALD_RAPIDS + ["--l3-cache-bytes=5242880"])
    assert ("L3 5120 KiB a core, lines of 64 B; planner cpu, for 64-bit "
            "elements: 8 lanes, register tile 8x16, cache tile 128x512x256"
            in remarks), remarks
    assert re.findall(r"tiling plan: (.*)", remarks) == [plan], remarks


def test_l3_blocks_beside_a_1mib_l2(tmp_path):
    source = EMERALD_RAPIDS_PLANS["ab-ac-cb"][0]
    remarks, _ = _compile(tmp_path, source, [
        "--cpu=emeraldrapids", "--l1-cache-bytes=49152",
        "--l2-cache-bytes=1048576", "--l3-cache-bytes=5242880"])
    assert "cache tile 64x1024x256" in remarks, remarks
    assert (re.findall(r"tiling plan: (.*)", remarks) ==
            ["rows=d2 columns=d0 depth=d1 cache=[864,214,256] "
             "register=[16,1,8] cache-order=[d0,d1,d2] "
             "register-order=[d2,d0,d1] split=none panels=in0 "
             "row-panels=in1"]), remarks


def _sysfs_cache(index):
    """(bytes, CPUs sharing it) of cpu0's cache `index` in Linux's sysfs."""
    directory = "/sys/devices/system/cpu/cpu0/cache/index%d/" % index
    size = open(directory + "size").read().strip()
    scale = {"K": 1 << 10, "M": 1 << 20}.get(size[-1], 1)
    sharing = 0
    for part in open(directory + "shared_cpu_list").read().strip().split(","):
        first, _, last = part.partition("-")
        sharing += int(last or first) - int(first) + 1
    return int(size.rstrip("KM")) * scale, sharing


@pytest.mark.skipif(
    not os.path.exists("/sys/devices/system/cpu/cpu0/cache/index3/level") or
    open("/sys/devices/system/cpu/cpu0/cache/index3/level").read().strip()
    != "3", reason="no L3 in this machine's sysfs")
def test_host_l3_is_one_cores_share(tmp_path):
    """The host's L3 enters the target as one core's share: its size over
    the cores (CPUs sharing it, over the CPUs sharing L1) that share it;
    a machine described by its L1 and L2 sizes has no L3 unless given."""
    l3_bytes, l3_sharing = _sysfs_cache(3)
    _, l1_sharing = _sysfs_cache(0)
    share = l3_bytes // max(1, l3_sharing // max(1, l1_sharing))
    source = "var input A : [64 64]\nvar output B : [64 64]\nB = A # A . [[2 3]]\n"
    remarks, _ = _compile(tmp_path, source, [])
    assert ", L3 %d KiB a core, " % (share >> 10) in remarks, remarks
    remarks, _ = _compile(tmp_path, source, ["--l2-cache-bytes=1048576"])
    assert "L2 1024 KiB, lines of" in remarks, remarks
    remarks, _ = _compile(tmp_path, source, ["--l2-cache-bytes=1048576",
                                             "--l3-cache-bytes=5242880"])
    assert "L2 1024 KiB, L3 5120 KiB a core, lines of" in remarks, remarks


@pytest.mark.skipif(platform.machine() != "x86_64", reason="x86-64 CPUs")
def test_row_panels_are_broadcast_from_one_line(tmp_path):
    """Each depth step broadcasts the 8 rows' elements from consecutive
    doubles of one panel (offsets 8 bytes apart), not from 8 rows of A."""
    source = ROW_PANEL_CASES["matmul-prime-row-panels"][0]
    _, _, code = _compile(tmp_path, source, L2_2MIB + ["--cpu=skylake-avx512"],
                          disassemble=True)
    offsets = {}  # per address register(s), the offsets broadcast from
    for line in code.splitlines():
        match = re.search(r"vbroadcastsd\s+(-?0x[0-9a-f]+)?\(([^)]*)\),\s*%zmm",
                          line)
        if match:
            offsets.setdefault(match.group(2), set()).add(
                int(match.group(1) or "0", 16))
    # The rows of one panel: 8 offsets 8 bytes apart (16 where LLVM
    # unrolls the depth loop by two); A's rows would be 4168 B apart.
    steps = [sorted(found) for found in offsets.values() if len(found) >= 8]
    assert steps, offsets
    assert any(found[-1] - found[0] < 256 for found in steps), steps


def test_row_panels_need_24_column_tiles(tmp_path):
    """With a 1 MiB L2 (blocks of 256 columns, 16 register tiles) the same
    contraction reads A where it is."""
    source = ROW_PANEL_CASES["matmul-prime-row-panels"][0]
    remarks, _ = _compile(tmp_path, source, ["--cpu=x86-64-v4",
                                             "--l2-cache-bytes=1048576"])
    assert "tiling plan:" in remarks and "row-panels" not in remarks, remarks


# Rows are cut into cache blocks only where the blocks share something in
# cache: with batches running inside each block and the depth whole, the
# 67 rows are one block (the rows' cache tile is 0, whole) on a target
# whose blocks hold 64 rows; a plain product of as many rows is still cut.
@pytest.mark.parametrize("name,rows_whole", [
    ("tccg-abcd-eb-aecd-prime-rows-whole", True),
    ("matmul-prime-row-panels", False)])
def test_rows_blocked_only_where_blocks_share_the_cache(tmp_path, name,
                                                        rows_whole):
    source = (CASES.get(name) or ROW_PANEL_CASES[name])[0]
    remarks, _ = _compile(tmp_path, source, [
        "--cpu=skylake-avx512", "--l1-cache-bytes=49152",
        "--l2-cache-bytes=1048576"])
    plans = [line for line in remarks.splitlines()
             if "tiling plan:" in line and "split=none" in line]
    assert plans, remarks
    for plan in plans:
        row_dim = int(re.search(r"rows=d(\d+)", plan).group(1))
        cache = plan.split("cache=[")[1].split("]")[0].split(",")
        assert (cache[row_dim] == "0") == rows_whole, plan


# The inverse Helmholtz operator on elements of 7^3 (rows of 7: a lane of
# every 8 idle), for --interlace-batches (tl-interlace-batches): 70
# elements are four slices of 16 with the batch index last and 6 left
# over, computed one at a time (f32: two slices of 32); with `size E`, the
# same split at run time.
INTERLACED_HELMHOLTZ = """{size}
var input S : [7 7]
var input D : [{e} 7 7 7]
var input u : [{e} 7 7 7]
var output v : [{e} 7 7 7]
var t : [{e} 7 7 7]
t = u # S # S # S . [[2 5] [3 7] [4 9]]
v = (D * t) # S # S # S . [[2 6] [3 8] [4 10]]
"""


@pytest.mark.parametrize("elements", [70, 37, 5, 0])
@pytest.mark.parametrize("sized", [False, True])
@pytest.mark.parametrize("extra", [[], ["--threads=2"],
                                   ["--element-type=f32"]])
def test_interlaced_batches(tl_run, elements, sized, extra):
    if elements == 0 and not sized:
        pytest.skip("a fixed extent is at least 1")
    f32 = "--element-type=f32" in extra
    dtype = np.float32 if f32 else np.float64
    source = INTERLACED_HELMHOLTZ.format(
        size="size E" if sized else "", e="E" if sized else elements)
    S = rng.standard_normal((7, 7)) * 0.3
    D = rng.standard_normal((elements, 7, 7, 7))
    u = rng.standard_normal((elements, 7, 7, 7))
    store = {"S": S, "D": D, "u": u}
    t = np.einsum("li,mj,nk,elmn->eijk", S, S, S, u)
    expected = np.einsum("il,jm,kn,elmn->eijk", S, S, S, D * t)
    tolerance = 1e-4 if f32 else 1e-10
    for flags in (["--interlace-batches"], []):
        actual = tl_run(source, store, ["v"], engine="jit", dtype=dtype,
                        extra=flags + ["--fuse-min-bytes=0"] + extra)["v"]
        assert_same(actual, expected, tolerance, tolerance)
    # The interlaced slices' contractions run along the batch (the columns
    # are loop d0, which the batch is in each rotated statement), between
    # transpositions of u's and D's slices in and of v's out; without the
    # flag, the contractions run along the elements' rows.
    # A fixed extent below two slices is computed one element at a time (on
    # two threads, each thread's share of the largest divisor up to half).
    width = 32 if f32 else 16
    share = elements
    if "--threads=2" in extra and not sized:
        share = max(d for d in range(1, (elements + 1) // 2 + 1)
                    if elements % d == 0)
    if elements >= 16 or sized:
        found = {}
        for flags in ([], ["--interlace-batches"]):
            # 512-bit vectors whatever the host's (an AVX2 host's slices
            # are half as wide); LLVM splits them where the host has none.
            result = tl_run(source, store, ["v"], engine="jit", dtype=dtype,
                            extra=flags + ["--fuse-min-bytes=0", "--remarks",
                                           "--vector-bits=512"]
                            + extra, check=False)
            assert result.returncode == 0, result.stderr
            found[bool(flags)] = (
                re.findall(r"tiling plan: \S+ columns=(d\d)", result.stderr),
                result.stderr.count("transposition copied in squares"))
        (plain, plain_copies), (interlaced, copies) = found[False], found[True]
        assert "d0" not in plain, plain
        if sized or share >= 2 * width:
            assert interlaced.count("d0") >= 6, interlaced
            assert copies >= plain_copies + 3, (copies, plain_copies)
        else:
            assert interlaced == plain and copies == plain_copies
