"""Contractions whose extents are all sizes, one compiled kernel for any
extents: every TCCG index pattern at prime extents (below and above the
register tiles), run by tl-run's JIT against the reference interpreter
and NumPy, without and with padding and threads. The remarks must show
the tiled path (a plan naming the sized loops), never the generic
lowering. The primes run the version planned for short sizes; the
version planned for long ones runs with --max-short-size below them."""

import importlib.util
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import BIN_DIR
from tlcompare import assert_same

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
# bench/tccg.py imports its neighbours.
sys.path.insert(0, os.path.join(ROOT, "bench"))
_spec = importlib.util.spec_from_file_location(
    "tccg", os.path.join(ROOT, "bench", "tccg.py"))
tccg = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tccg)

CASES = [name for name, _ in tccg.suite()]
PRIMES = [23, 19, 17, 13, 11, 7, 5, 3]
# The reference interpreter visits every point of the iteration space.
MAX_ITERATIONS = 400000


def prime_extents(number, name):
    """Primes for the case's indices, different per case and index, the
    largest ones that keep the iteration space small."""
    indices = sorted(set(name) - {"-"})
    for start in range(len(PRIMES)):
        extents = {index: PRIMES[min(len(PRIMES) - 1,
                                     start + (number + k) % 3)]
                   for k, index in enumerate(indices)}
        if math.prod(extents.values()) <= MAX_ITERATIONS:
            return extents
    return {index: 2 for index in indices}


def run(tmp_path, source, inputs, engine, extra=()):
    program = tmp_path / "sized.tl"
    program.write_text(source)
    args = [os.path.join(BIN_DIR, "tl-run"), str(program),
            "--engine=" + engine, "--out", "C=%s" % (tmp_path / "C.npy")]
    for name, value in inputs.items():
        path = tmp_path / ("%s.npy" % name)
        np.save(path, value)
        args += ["--in", "%s=%s" % (name, path)]
    result = subprocess.run(args + list(extra), capture_output=True,
                            text=True)
    assert result.returncode == 0, source + result.stderr
    return np.load(tmp_path / "C.npy"), result.stderr


def inputs_and_reference(tmp_path, name, extents, source, spec, seed):
    """Random inputs of TCCG case `name` at `extents`, and the reference
    interpreter's result of `source` on them, checked against NumPy."""
    c, a, b = (indices[::-1] for indices in name.split("-"))
    rng = np.random.default_rng(seed)
    inputs = {"A": rng.random([extents[i] for i in a]) - 0.5,
              "B": rng.random([extents[i] for i in b]) - 0.5}
    reference, _ = run(tmp_path, source, inputs, "reference")
    np.testing.assert_allclose(reference,
                               np.einsum(spec, inputs["A"], inputs["B"]),
                               rtol=1e-12, atol=1e-12)
    return inputs, reference


# The remarks of a contraction that the tilers leave to the generic lowering.
FALLBACK_REMARKS = ("not tiled", "left untiled", "stays scalar")


def check_case(tmp_path, number, extra=()):
    name = CASES[number]
    extents = prime_extents(number, name)
    source, spec = tccg.sized_program(name, extents)
    assert source.startswith("size "), source
    inputs, reference = inputs_and_reference(tmp_path, name, extents, source,
                                             spec, number)
    compiled, remarks = run(tmp_path, source, inputs, "jit",
                            list(extra) + ["--remarks"])
    assert_same(compiled, reference)
    assert "tiling plan:" in remarks and " sized=" in remarks, remarks
    for fallback in FALLBACK_REMARKS:
        assert fallback not in remarks, remarks


@pytest.mark.parametrize("number", range(len(CASES)))
def test_sized_tccg_pattern(tmp_path, number):
    check_case(tmp_path, number)


@pytest.mark.parametrize("number", range(0, len(CASES), 4))
def test_sized_tccg_pattern_padded(tmp_path, number):
    check_case(tmp_path, number, ["--pad=4"])


@pytest.mark.parametrize("number", range(1, len(CASES), 4))
def test_sized_tccg_pattern_threaded(tmp_path, number):
    check_case(tmp_path, number, ["--threads=2"])


@pytest.mark.parametrize("number", range(2, len(CASES), 4))
def test_sized_tccg_pattern_long_version(tmp_path, number):
    """The tests above run the version planned for short sizes (every
    prime is at most 512); with --max-short-size=2 the same programs run
    the version planned for long ones."""
    check_case(tmp_path, number, ["--max-short-size=2"])


@pytest.mark.parametrize("number", range(3, len(CASES), 4))
def test_sized_tccg_pattern_long_version_threaded(tmp_path, number):
    """The version planned for long sizes on two threads: where its column
    blocks come first, each thread takes a share of the columns computed
    from their size (thread-columns=run-time)."""
    check_case(tmp_path, number, ["--max-short-size=2", "--threads=2"])


def tiling_remarks(tmp_path, source):
    """tl-tile-linalg's remarks on `source` (tl-fuse-batches and
    tl-tile-contractions: no code generated)."""
    program = tmp_path / "one.tl"
    program.write_text(source)
    imported = subprocess.run(
        [os.path.join(BIN_DIR, "tl-translate"), "--import-tl", str(program)],
        capture_output=True, text=True)
    assert imported.returncode == 0, imported.stderr
    tiled = subprocess.run(
        [os.path.join(BIN_DIR, "tl-opt"), "--tl-optimize",
         "--convert-tl-to-linalg", "--tl-tile-linalg=remarks=true",
         "-o", os.devnull],
        input=imported.stdout, capture_output=True, text=True)
    assert tiled.returncode == 0, tiled.stderr
    return tiled.stderr


def result_orders(name):
    """The order of the free indices in the contraction's own result (A's,
    then B's, as bench/tccg.py's program writes them) and in C."""
    c, a, b = (indices[::-1] for indices in name.split("-"))
    product = a + b
    return [i for i in product if product.count(i) == 1], list(c)


@pytest.mark.parametrize("number", range(len(CASES)))
def test_one_index_sized_is_tiled(tmp_path, number):
    """Each TCCG pattern with one index at a time a size, the others fixed,
    at TCCG's extents scaled to 16 MiB, through tl-tile-linalg's remarks.

    Tiled: a size that is the leading index of the result and of one
    operand only looks like a batch, but where the other operand is large
    and little reused per index (ab-ac-cb with its rows a size), the
    contraction is tiled whole, not one row at a time through the generic
    lowering.

    Where C is the contraction's result transposed, tl-tile-contractions
    decides whether to fold the transposition into the contraction, as
    for the fixed program. A sized index that leads C (but not the
    contraction's result) made tl-fuse-batches compute the transposition
    an index at a time, a column of the contraction's result each
    (ab-ac-cb with its rows a size: 0.64 of the fixed program); one that
    leads the contraction's result (but not C) made it compute the
    contraction an index at a time, its result then transposed whole
    (ccsd_t abcdef-gdab-efgc with b a size: 0.26). Either way the
    contraction was no longer the transposition's own, and no fold was
    weighed."""
    name, extents = tccg.suite()[number]
    extents = tccg.scale(extents, name, 16 * 2 ** 20)
    own, layout = result_orders(name)
    for index in sorted(extents):
        remarks = tiling_remarks(tmp_path,
                                 tccg.sized_program(name, extents, index)[0])
        assert "tiling plan:" in remarks, (index, remarks)
        assert "not tiled" not in remarks, (index, remarks)
        if own != layout:
            assert ("transposition folded into its contraction" in remarks
                    or "transposition kept after its contraction"
                    in remarks), (index, remarks)


# ccsd_t patterns whose columns (a, last in C) are fixed and every other
# free index a size: whole vectors, fewer than one, and 23 = 16 + 7, whose
# last register tile of 7 columns once made the padded edge tiles
# dynamic and three contractions fall back to untiled code (8x slower).
FIXED_COLUMNS_CCSD_T = ["abcdef-dfga-gebc", "abcdef-dfgb-geac",
                        "abcdef-gdab-efgc"]


def fixed_columns_program(name, columns):
    extents = dict(zip("abcdefg", (columns, 15, 15, 23, 15, 15, 23)))
    source, spec = tccg.sized_program(name, extents, "bcdef")
    return source, spec, extents


@pytest.mark.parametrize("columns", [7, 16, 23, 24])
@pytest.mark.parametrize("name", FIXED_COLUMNS_CCSD_T)
def test_fixed_columns_beside_sized_rows_tiled(tmp_path, name, columns):
    source, _, _ = fixed_columns_program(name, columns)
    remarks = tiling_remarks(tmp_path, source)
    assert "tiling plan:" in remarks, remarks
    for fallback in FALLBACK_REMARKS:
        assert fallback not in remarks, remarks


@pytest.mark.parametrize("extra", [[], ["--pad=4"]])
@pytest.mark.parametrize("name", FIXED_COLUMNS_CCSD_T)
def test_fixed_columns_with_a_rest_matches(tmp_path, name, extra):
    """23 fixed columns (a register tile of 16 and a last one of 7, padded
    to 8 where the rows are at an edge) beside sized rows, against the
    reference interpreter."""
    source, spec, extents = fixed_columns_program(name, 23)
    inputs, reference = inputs_and_reference(tmp_path, name, extents, source,
                                             spec, len(name))
    compiled, _ = run(tmp_path, source, inputs, "jit", extra)
    assert_same(compiled, reference)


@pytest.mark.parametrize("columns", [16, 23])
def test_sized_columns_beside_stepped_batches(tmp_path, columns):
    """ccsd_t abcdef-dfga-gebc with only its columns (a, last in C) a size:
    the folded plan steps the other free indices outside its column blocks,
    each step with 15 rows, and reads A's columns without copying them into
    panels at every step (sized-panels; 2.6 times the fixed program's time
    with them). Against the reference interpreter."""
    name = "abcdef-dfga-gebc"
    extents = dict(zip("abcdefg", (columns, 15, 15, 23, 15, 15, 23)))
    source, spec = tccg.sized_program(name, extents, "a")
    remarks = tiling_remarks(tmp_path, source)
    folded = [line for line in remarks.splitlines()
              if "tiling plan: rows=d4 columns=d0" in line]
    assert folded and "cache=[256,1,1,1," in folded[0], remarks
    assert "sized-panels" not in folded[0], remarks
    inputs, reference = inputs_and_reference(tmp_path, name, extents, source,
                                             spec, columns)
    compiled, _ = run(tmp_path, source, inputs, "jit")
    assert_same(compiled, reference)


@pytest.mark.parametrize("name,extents", [
    ("ab-ac-cb", {"a": 5, "b": 131, "c": 131}),
    ("ab-acd-dbc", {"a": 5, "b": 29, "c": 23, "d": 29}),
    ("ab-cad-dcb", {"a": 7, "b": 29, "c": 29, "d": 23}),
    ("abcd-ea-ebcd", {"a": 5, "b": 11, "c": 13, "d": 11, "e": 13}),
])
def test_leading_index_sized_beside_a_large_operand(tmp_path, name, extents):
    """The cases of the test above whose leading index, a size, was once
    computed one index at a time (B larger than L1, read once per index),
    at primes, against the reference interpreter. (B beyond any core's
    L1, so that the test does not depend on the machine's.)"""
    source, spec = tccg.sized_program(name, extents, "a")
    remarks = tiling_remarks(tmp_path, source)
    assert "not tiled" not in remarks and " sized=" in remarks, remarks
    inputs, reference = inputs_and_reference(tmp_path, name, extents, source,
                                             spec, len(name))
    assert inputs["B"].nbytes > 128 * 1024, inputs["B"].shape
    compiled, _ = run(tmp_path, source, inputs, "jit")
    assert_same(compiled, reference)


@pytest.mark.parametrize("name,extents", [
    ("ab-acd-dbc", {"a": 131, "b": 137, "c": 3, "d": 5}),
    ("ab-cad-dcb", {"a": 331, "b": 139, "c": 2, "d": 3}),
])
@pytest.mark.parametrize("extra", [[], ["--pad=4"]])
def test_sized_row_blocks_share_panels(tmp_path, name, extents, extra):
    """The long version's cache tiles at primes past a block of rows (128)
    and, for ab-cad-dcb, past a block of columns (320): the bulk of the
    row blocks and their peeled rest read the panels of one copy of each
    block of columns. Against the reference interpreter, with and without
    padding."""
    source, spec = tccg.sized_program(name, extents)
    inputs, reference = inputs_and_reference(tmp_path, name, extents, source,
                                             spec, len(name))
    compiled, remarks = run(tmp_path, source, inputs, "jit",
                            ["--max-short-size=2", "--remarks"] + extra)
    assert "sized-panels=" in remarks and "planned as 32" not in remarks, \
        remarks
    assert_same(compiled, reference)


@pytest.mark.parametrize("extents", [(0, 5, 7), (13, 7, 15), (61, 37, 17),
                                     (37, 29, 131)])
def test_sized_product_shares_columns_between_threads(tmp_path, extents):
    """A matrix product over sizes, its long version on two threads: the
    columns in shares computed at run time (fewer columns than two
    register tiles included: one share, or none), the same bits as one
    thread, and the reference's result."""
    m, k, n = extents
    source = ("size M\nsize N\nsize K\nvar input A : [M K]\n"
              "var input B : [K N]\nvar output C : [M N]\n"
              "C = A # B . [[2 3]]\n")
    rng = np.random.default_rng(n)
    inputs = {"A": rng.random((m, k)) - 0.5, "B": rng.random((k, n)) - 0.5}
    long_version = ["--max-short-size=2"]
    two, remarks = run(tmp_path, source, inputs, "jit",
                       long_version + ["--threads=2", "--remarks"])
    assert "thread-columns=run-time" in remarks, remarks
    one, _ = run(tmp_path, source, inputs, "jit", long_version)
    reference, _ = run(tmp_path, source, inputs, "reference")
    assert np.array_equal(two, one)
    assert_same(two, reference)


def test_short_and_long_versions_remarked(tmp_path):
    """TCCG abc-bda-dc over sizes gets both versions (its plans for short
    and long sizes differ), each remarked; --max-short-size=0 leaves one."""
    source, _ = tccg.sized_program("abc-bda-dc",
                                   {"a": 5, "b": 7, "c": 3, "d": 11})
    program = tmp_path / "sized.tl"
    program.write_text(source)
    remarks = []
    for extra in ([], ["--max-short-size=0"]):
        result = subprocess.run(
            [os.path.join(BIN_DIR, "tl-compile"), str(program), "--remarks",
             "-o", str(tmp_path / "sized.o")] + extra,
            capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        remarks.append(result.stderr)
    assert "planned for short sizes (each as 32)" in remarks[0], remarks[0]
    assert "planned as 32)" in remarks[0], remarks[0]
    assert "planned for short sizes" not in remarks[1], remarks[1]
    assert "planned as 32" not in remarks[1], remarks[1]


@pytest.mark.parametrize("name,reduced", [
    ("abc-bda-dc", 5), ("abcd-ec-abed", 3), ("abcd-dbea-ec", 3),
    ("abcd-deca-be", 3)])
@pytest.mark.parametrize("extra", [[], ["--max-short-size=0"],
                                   ["--threads=2"]])
def test_columns_of_three_vectors(tmp_path, name, reduced, extra):
    """The primes above never run the versions planned for register tiles
    three vectors wide, which run where the columns' sizes are multiples
    of three vectors (24 doubles with 8 lanes, 12 with 4): the result's
    indices at 24 (whichever the plans take as columns), the reductions
    short: the short version's, the long plan's (--max-short-size=0: no
    short version, and the long plan of one keeps a single version), on
    two threads."""
    c, a, b = name.split("-")
    extents = {index: 24 if index in c else reduced
               for index in set(name) - {"-"}}
    source, spec = tccg.sized_program(name, extents)
    inputs, reference = inputs_and_reference(tmp_path, name, extents, source,
                                             spec, len(name))
    compiled, remarks = run(tmp_path, source, inputs, "jit",
                            extra + ["--remarks"])
    assert_same(compiled, reference)
    assert "planned with register tiles of" in remarks, remarks
    assert "planned as" in remarks, remarks


@pytest.mark.parametrize("columns", [48, 47])
@pytest.mark.parametrize("extra", [[], ["--max-short-size=0"]])
def test_product_columns_of_three_vectors(tmp_path, columns, extra):
    """A matrix product over sizes whose columns are a multiple of three
    vectors (48) or not (47), its rows (37) and depth (29) prime: the
    register tiles three vectors wide and their row edges, or the other
    version; the same result as the reference either way."""
    source = ("size M\nsize N\nsize K\nvar input A : [M K]\n"
              "var input B : [K N]\nvar output C : [M N]\n"
              "C = A # B . [[2 3]]\n")
    rng = np.random.default_rng(columns)
    inputs = {"A": rng.random((37, 29)) - 0.5,
              "B": rng.random((29, columns)) - 0.5}
    compiled, remarks = run(tmp_path, source, inputs, "jit",
                            extra + ["--remarks"])
    reference, _ = run(tmp_path, source, inputs, "reference")
    assert_same(compiled, reference)
    assert "planned with register tiles of" in remarks, remarks


def test_extents_are_primes_above_and_below_the_tiles():
    """Otherwise the tests above would not reach the edges of the register
    tiles (8 rows, 16 columns of doubles)."""
    seen = set()
    for number, name in enumerate(CASES):
        extents = prime_extents(number, name)
        assert math.prod(extents.values()) <= MAX_ITERATIONS
        seen.update(extents.values())
    assert {5, 7, 11, 13, 17, 19} <= seen, seen


@pytest.mark.parametrize("sized", [False, True])
def test_strided_operand_prefetched(tmp_path, sized):
    """TCCG abc-bda-dc at extents where its register tile reads A's rows
    in place 71 doubles (568 bytes, more than 512) apart over 67 depth
    steps: tl-lower-contraction-vectors prefetches them (for the sized
    program, after comparing the stride at run time), so the results of
    that path, vectors past lines included (71 is no multiple of 8), are
    checked here; the primes above stay below its thresholds."""
    name = "abc-bda-dc"
    extents = {"a": 5, "b": 71, "c": 11, "d": 67}
    make = tccg.sized_program if sized else tccg.program
    source, spec = make(name, extents)
    inputs, reference = inputs_and_reference(tmp_path, name, extents, source,
                                             spec, 71)
    compiled, _ = run(tmp_path, source, inputs, "jit")
    assert_same(compiled, reference)
    # The prefetches are there, and gone with the option off: the IR right
    # after tl-lower-contraction-vectors (the tiles' own prefetches are
    # for writing; those of batch slices come later).
    counts = []
    for steps in ("16", "0"):
        lowered = subprocess.run(
            [os.path.join(BIN_DIR, "tl-translate"), "--import-tl",
             str(tmp_path / "sized.tl")], capture_output=True, text=True)
        assert lowered.returncode == 0, lowered.stderr
        dumped = subprocess.run(
            [os.path.join(BIN_DIR, "tl-opt"),
             "--tl-to-llvm=prefetch-strided-steps=" + steps,
             "--mlir-print-ir-after=tl-lower-contraction-vectors",
             "-o", os.devnull],
            input=lowered.stdout, capture_output=True, text=True)
        assert dumped.returncode == 0, dumped.stderr
        counts.append(dumped.stderr.count("read, locality<3>"))
    assert counts[0] > 0 and counts[1] == 0, counts


@pytest.mark.parametrize("threads", [1, 2])
def test_sized_transposition_streamed(tmp_path, threads):
    """TCCG abcd-ebad-ce over sizes keeps the transposition of its result
    after the contraction (per index of d): with --stream-min-bytes=0 the
    transposition writes the result with non-temporal stores where its
    rows start on lines at run time (extents of 8 and 16), and with
    ordinary ones otherwise (extents one smaller); both against the
    reference, on one thread and two (a fence per parallel iteration,
    where the target is x86: tl-opt, without one, leaves parallel loops
    alone and is asked about one thread only)."""
    name = "abcd-ebad-ce"
    extra = ["--stream-min-bytes=0", "--threads=%d" % threads]
    for extents in ({"a": 16, "b": 8, "c": 8, "d": 3, "e": 16},
                    {"a": 15, "b": 7, "c": 7, "d": 3, "e": 15}):
        source, spec = tccg.sized_program(name, extents)
        inputs, reference = inputs_and_reference(tmp_path, name, extents,
                                                 source, spec, 40)
        compiled, _ = run(tmp_path, source, inputs, "jit", extra)
        assert_same(compiled, reference)
    if threads > 1:
        return
    # tl-streaming-stores adds non-temporal stores to those of the
    # register tiles (tl-lower-contraction-vectors).
    lowered = subprocess.run(
        [os.path.join(BIN_DIR, "tl-translate"), "--import-tl",
         str(tmp_path / "sized.tl")], capture_output=True, text=True)
    assert lowered.returncode == 0, lowered.stderr
    counts = []
    for after in ("tl-lower-contraction-vectors", "tl-streaming-stores"):
        dumped = subprocess.run(
            [os.path.join(BIN_DIR, "tl-opt"),
             "--tl-to-llvm=streaming-min-bytes=0",
             "--mlir-print-ir-after=" + after, "-o", os.devnull],
            input=lowered.stdout, capture_output=True, text=True)
        assert dumped.returncode == 0, dumped.stderr
        counts.append(dumped.stderr.count("nontemporal = true"))
    assert counts[1] > counts[0], counts
