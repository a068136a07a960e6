"""Compiled code (tl-run --engine=jit) against the reference interpreter and
the independent NumPy evaluator, on the report's kernels and on several
hundred randomly generated well-typed programs."""

import os

import numpy as np
import pytest

import tlgen
from tlcompare import assert_same

rng = np.random.default_rng(11)


def same(actual, expected, rtol=1e-9, atol=1e-9):
    assert_same(actual, expected, rtol, atol)


EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")


def both_engines(tl_run, source, inputs, outputs, **kwargs):
    jit = tl_run(source, inputs, outputs, engine="jit", **kwargs)
    ref = tl_run(source, inputs, outputs, engine="reference", **kwargs)
    return jit, ref


def live_outs_match_reference(tl_run, generator_seed, qualifiers, extra,
                              max_rank, max_extent):
    """Compiles a generated program with `extra` flags and checks what the
    caller sees of it (its live-out variables) against the reference."""
    gen = tlgen.Generator(generator_seed, max_rank=max_rank,
                          max_extent=max_extent)
    program = gen.program(qualifiers=qualifiers)
    store = gen.values(program)
    names = [name for name, _, _ in program.decls]
    jit = tl_run(program.source(), store, names, engine="jit", extra=extra)
    ref = tl_run(program.source(), store, names, engine="reference")
    for name in program.live_out:
        same(jit[name], ref[name])


# The extensions' special values, through every lowering path: element-wise
# loops, a contraction group (the function read inside its sums), padding
# and two threads. The compiled code must agree with the reference
# interpreter on undefined values (log 0, sqrt of a negative, min/max of
# NaN) as well as on numbers. No qualifiers, so that inputs may hold NaN.
EXTENSIONS = """
var x : [3 7]
var y : [3 7]
var s : []
var e : [3 7]
var f : [3 7]
var c : [3 3]
e = max(sqrt(x), -y) - log(abs(x)) + min(x, s) * 2
f = exp(-abs(y)) / s + 0.5 * -x
c = sqrt(abs(x)) # min(y, 1) . [[2 4]] - s
"""


@pytest.mark.parametrize("extra", [[], ["--pad=4"], ["--threads=2"],
                                   ["--no-optimize"], ["--element-type=f32"]])
def test_extension_special_values(tl_run, extra):
    dtype = np.float32 if "--element-type=f32" in extra else np.float64
    x = rng.standard_normal((3, 7)).astype(dtype)
    x[0, :4] = [0.0, -0.0, -2.0, np.nan]
    y = rng.standard_normal((3, 7)).astype(dtype)
    y[1, :3] = [np.nan, np.inf, -np.inf]
    store = {"x": x, "y": y, "s": dtype(0.75)}
    element = [e for e in extra if e.startswith("--element-type")]
    jit = tl_run(EXTENSIONS, store, ["e", "f", "c"], engine="jit",
                 extra=extra, dtype=dtype)
    ref = tl_run(EXTENSIONS, store, ["e", "f", "c"], engine="reference",
                 extra=element, dtype=dtype)
    tolerance = 1e-5 if dtype == np.float32 else 1e-12
    for name in ["e", "f", "c"]:
        assert np.isnan(ref[name]).any() or name != "e"
        same(jit[name], ref[name], rtol=tolerance, atol=tolerance)


# Stacks: at a statement's root (computed into the target's slices, or,
# when the statement reads its target, through a temporary), inside a
# contraction (never stored), summed with themselves, padded.
STACKS = """
var input u : [4 5 6]
var input D : [5 5]
var input E : [6 6]
var input v : [4]
var input s : [3]
var output g : [2 4 5 6]
var output t : [3 4]
var output n : [4 4]
g = [D # u . [2 4] ^ [1 2], E # u . [2 5] ^ [[1 2] [2 3]]]
t = [v, -v, 2 * v]
t = [s # t . [1 2], max(v, s # t . [1 2]), v]
n = [u, 2 * u, -u] # [u, u, u] . [[1 5] [3 7] [4 8]]
"""


@pytest.mark.parametrize("extra", [[], ["--pad=4"], ["--pad=3"], ["--threads=2"],
                                   ["--no-optimize"]])
def test_stacks(tl_run, extra):
    store = {"u": rng.standard_normal((4, 5, 6)),
             "D": rng.standard_normal((5, 5)), "E": rng.standard_normal((6, 6)),
             "v": rng.standard_normal(4), "s": rng.standard_normal(3)}
    jit = tl_run(STACKS, store, ["g", "t", "n"], engine="jit", extra=extra)
    ref = tl_run(STACKS, store, ["g", "t", "n"], engine="reference")
    u, D, E, v, s = (store[k] for k in "uDEvs")
    same(ref["g"], np.stack([np.einsum("ij,ajb->aib", D, u),
                             np.einsum("ij,abj->abi", E, u)]))
    t = np.stack([v, -v, 2 * v])
    same(ref["t"], np.stack([s @ t, np.maximum(v, s @ t), v]))
    same(ref["n"], np.einsum("kaij,kbij->ab", np.stack([u, 2 * u, -u]),
                             np.stack([u, u, u])))
    for name in ["g", "t", "n"]:
        same(jit[name], ref[name])


@pytest.mark.parametrize("seed", range(120))
def test_random_programs_batch_fused(tl_run, seed):
    # tl-fuse-batches wherever a chain of statements allows it
    # (--fuse-min-bytes=0: about one program in nine has such a chain), on
    # one thread and on two (the batch loop as an scf.forall), with and
    # without padding.
    extra = ["--fuse-min-bytes=0"]
    if seed % 2:
        extra.append("--threads=2")
    if seed % 3 == 1:
        extra.append("--pad=4")
    live_outs_match_reference(tl_run, 13000 + seed, seed % 3 == 0, extra,
                              max_rank=5 if seed % 4 == 0 else 3,
                              max_extent=5)


@pytest.mark.parametrize("example,inputs", [
    ("matmul.tl", {"A": (300, 400), "B": (400, 500)}),
    ("trace.tl", {"A": (300, 400), "B": (400, 300)}),
    ("transpose.tl", {"u": (8, 12, 16, 20, 24)}),
    ("cfd_interpolation.tl", {"u": (400, 11, 11, 11), "A": (11, 11)}),
    ("inverse_helmholtz.tl", {"S": (11, 11), "D": (11, 11, 11), "u": (11, 11, 11)}),
    ("axpy.tl", {"a": (), "x": (1000,), "y": (1000,)}),
])
def test_examples_match_the_reference(tl_run, example, inputs):
    source = open(os.path.join(EXAMPLES, example)).read()
    values = {name: rng.random(shape) for name, shape in inputs.items()}
    names = [line.split(":")[0].split()[-1] for line in source.splitlines()
             if line.startswith("var ")]
    jit, ref = both_engines(tl_run, source, values, names)
    # With qualifiers only outputs are live-out: locals may be fused away.
    outputs = [line.split(":")[0].split()[-1] for line in source.splitlines()
               if line.startswith("var ") and " output " in line]
    for name in outputs or names:
        same(jit[name], ref[name], rtol=1e-12, atol=0)


def test_statements_in_place_and_through_temporaries(tl_run):
    # A = A + B may write in place; A = A ^ [1 2] and A = (A # A) . [2 3]
    # must read the old A throughout.
    a, b = rng.random((5, 5)), rng.random((5, 5))
    source = ("var A : [5 5]\nvar B : [5 5]\nvar T : [5 5]\nvar S : [5 5]\n"
              "A = A + B\nT = A\nT = T ^ [1 2]\nS = A\nS = (S # S) . [2 3]\n"
              "A = A ^ [1 2] - A\n")
    jit = tl_run(source, {"A": a, "B": b}, ["A", "T", "S"], engine="jit")
    same(jit["T"], (a + b).T)
    same(jit["S"], (a + b) @ (a + b), rtol=1e-12)
    same(jit["A"], (a + b).T - (a + b))


def test_deeply_shared_values(tl_run):
    # tl-fuse-statements substitutes each statement into the next, so c is
    # one expression that uses each level four times: the lowering computes
    # each level once (written out as a tree it would be 4^12 terms and
    # never finish compiling). x * x - x keeps values in (-1/4, 1/3).
    c0 = rng.random((6, 7))
    source = ("var input c0 : [6 7]\nvar output c : [6 7]\n"
              "var input x : [5 5 5]\nvar output t : []\nvar r : [5]\n"
              "c = c0 * c0 - c0\n" + "c = c * c - c + (c - c)\n" * 12 +
              "r = x . [[2 3]]\nt = (r # r) . [[1 2]]\n")
    x = rng.random((5, 5, 5))
    jit, ref = both_engines(tl_run, source, {"c0": c0, "x": x}, ["c", "t"])
    expected = c0 * c0 - c0
    for _ in range(12):
        expected = expected * expected - expected
    same(jit["c"], expected)
    same(ref["c"], expected)
    r = np.einsum("ijj->i", x)
    same(jit["t"], r @ r, rtol=1e-12)
    same(ref["t"], r @ r, rtol=1e-12)


def test_swaps_through_a_third_variable(tl_run):
    # Final values living in other variables' arguments are copied out
    # before any argument is written.
    a, b = rng.random(7), rng.random(7)
    out = tl_run("var a : [7]\nvar b : [7]\nvar t : [7]\nt = a\na = b\nb = t\n",
                 {"a": a, "b": b, "t": np.zeros(7)}, ["a", "b", "t"], engine="jit")
    same(out["a"], b)
    same(out["b"], a)
    same(out["t"], a)


def test_variables_that_are_not_assigned_keep_their_values(tl_run):
    s, t = np.array(-1.0), np.array(5.0)
    out = tl_run("var s : []\nvar t : []\nt = s\nt = t + t\n",
                 {"s": s, "t": t}, ["s", "t"], engine="jit")
    same(out["s"], s)
    same(out["t"], 2 * s)


def test_controlled_division_in_compiled_code(tl_run):
    num = np.array([0, 0, 0, 1, -3, np.nan, np.nan, np.nan, 2, 6] * 3)
    den = np.array([0, np.nan, 5, 0, 0, 2, 0, np.nan, np.nan, 3] * 3)
    expected = np.array([0, 0, 0, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan, 2] * 3)
    out = tl_run("var a : [30]\nvar b : [30]\nvar q : [30]\nq = a / b\n",
                 {"a": num, "b": den}, ["q"], engine="jit")
    same(out["q"], expected)


def test_single_precision(tl_run):
    a = rng.random((33, 17)).astype(np.float32)
    b = rng.random((17, 9)).astype(np.float32)
    source = "var A : [33 17]\nvar B : [17 9]\nvar C : [33 9]\nC = A # B . [2 3]\n"
    jit, ref = both_engines(tl_run, source, {"A": a, "B": b}, ["C"],
                            extra=["--element-type=f32"], dtype=np.float32)
    assert jit["C"].dtype == np.float32
    same(jit["C"], ref["C"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("seed", range(300))
def test_random_programs(tl_run, seed):
    gen = tlgen.Generator(seed, max_rank=5 if seed % 4 == 0 else 3)
    program = gen.program(qualifiers=(seed % 3 == 0))
    store = gen.values(program)
    names = [name for name, _, _ in program.decls]
    jit, ref = both_engines(tl_run, program.source(), store, names)
    expected = tlgen.run(program, store)
    for name in names:
        same(ref[name], expected[name])
    # Compiled code computes what the caller sees (with qualifiers, the
    # outputs: dead statements are removed).
    for name in program.live_out:
        same(jit[name], ref[name])


@pytest.mark.parametrize("seed", range(100))
def test_random_programs_unoptimized(tl_run, seed):
    # The program as written (--no-optimize): every variable as the
    # reference leaves it.
    gen = tlgen.Generator(5000 + seed, max_rank=5 if seed % 4 == 0 else 3)
    program = gen.program(qualifiers=(seed % 3 == 0))
    store = gen.values(program)
    names = [name for name, _, _ in program.decls]
    jit = tl_run(program.source(), store, names, engine="jit",
                 extra=["--no-optimize"])
    ref = tl_run(program.source(), store, names, engine="reference")
    for name in names:
        same(jit[name], ref[name])


@pytest.mark.parametrize("seed", range(60))
def test_random_programs_streaming_stores(tl_run, seed):
    # Non-temporal stores wherever a nest writes whole rows of a variable
    # (--stream-min-bytes=0; padding to 8 makes rows whole lines), on one
    # thread and on two (a fence per parallel iteration).
    extra = ["--stream-min-bytes=0", "--pad=8"]
    if seed % 2:
        extra.append("--threads=2")
    live_outs_match_reference(tl_run, 17000 + seed, seed % 3 == 0, extra,
                              max_rank=4 if seed % 4 == 0 else 3,
                              max_extent=6)


@pytest.mark.parametrize("threads", [1, 2])
def test_streamed_transposition_and_elementwise(tl_run, threads):
    # The shapes of K3 and K4, small: every result row is whole lines, so
    # both statements write with non-temporal stores.
    u = rng.random((2, 3, 4, 5, 16))
    a, b, c = (rng.random((24, 32)) for _ in range(3))
    source = ("var input u : [2 3 4 5 16]\nvar output v : [2 5 4 3 16]\n"
              "var input a : [24 32]\nvar input b : [24 32]\n"
              "var input c : [24 32]\nvar output z : [24 32]\n"
              "v = u ^ [2 4]\nz = (a + b) * c - a / b\n")
    jit = tl_run(source, {"u": u, "a": a, "b": b, "c": c}, ["v", "z"],
                 engine="jit", extra=["--stream-min-bytes=0",
                                      "--threads=%d" % threads])
    same(jit["v"], u.transpose(0, 3, 2, 1, 4))
    same(jit["z"], (a + b) * c - a / b)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("case", ["streamed", "through-caches", "temporary"])
def test_transposition_squares(tl_run, threads, case):
    # The three ways a transposition's squares are written (docs/compiler.md,
    # "Streaming stores"): rows of whole lines streamed along the input's
    # rows (with two threads, each a share of the result's columns); rows
    # of 203 doubles through the caches along the result's rows, each row
    # prefetched for writing (a result beyond the 64 KiB L2 given); and an
    # operand of a contraction copied whole into a temporary, streamed.
    if case == "temporary":
        a, b = rng.random((40, 40, 40)), rng.random((16, 40, 40))
        source = ("var input A : [40 40 40]\nvar input B : [16 40 40]\n"
                  "var output C : [16 40]\n"
                  "C = A # B . [[1 6] [3 5]] ^ [[1 2]]\n")
        jit = tl_run(source, {"A": a, "B": b}, ["C"], engine="jit",
                     extra=["--stream-min-bytes=0", "--threads=%d" % threads])
        same(jit["C"], np.einsum("ijk,lki->lj", a, b))
        return
    columns = 208 if case == "streamed" else 203
    u = rng.random((200, columns))
    source = ("var input u : [200 %d]\nvar output v : [%d 200]\n"
              "v = u ^ [1 2]\n" % (columns, columns))
    jit = tl_run(source, {"u": u}, ["v"], engine="jit",
                 extra=["--stream-min-bytes=0", "--l2-cache-bytes=65536",
                        "--threads=%d" % threads])
    same(jit["v"], u.T)


def test_streamed_register_tiles(tl_run):
    # TCCG ccsd_t0's shape, small: the register tiles (4 rows of 24
    # columns) sum all of their terms in registers and write each row as
    # three whole lines, streamed with --stream-min-bytes=0 (AVX-512; on
    # other vectors the nest keeps its stores). 2 and 3 rows of B, 5 of A,
    # beside the tiles' 4.
    a = rng.random((4, 24, 5, 24))
    b = rng.random((3, 24, 2, 24))
    source = ("var input A : [4 24 5 24]\nvar input B : [3 24 2 24]\n"
              "var output C : [2 5 24 4 3 24]\n"
              "C = A # B . [[2 8]] ^ [[1 6] [4 6] [5 6]]\n")
    jit = tl_run(source, {"A": a, "B": b}, ["C"], engine="jit",
                 extra=["--stream-min-bytes=0"])
    same(jit["C"], np.einsum("pgqr,stug->uqrpst", a, b))


@pytest.mark.parametrize("seed", range(60))
def test_random_programs_two_threads(tl_run, seed):
    # OpenMP work-sharing outer loops: same results as the reference.
    live_outs_match_reference(tl_run, 9000 + seed, seed % 3 == 0,
                              ["--threads=2"],
                              max_rank=5 if seed % 4 == 0 else 3,
                              max_extent=6)


@pytest.mark.parametrize("example,inputs", [
    ("matmul.tl", {"A": (300, 400), "B": (400, 500)}),
    ("cfd_interpolation.tl", {"u": (400, 11, 11, 11), "A": (11, 11)}),
    ("inverse_helmholtz.tl", {"S": (11, 11), "D": (11, 11, 11), "u": (11, 11, 11)}),
])
def test_examples_on_two_threads(tl_run, example, inputs):
    source = open(os.path.join(EXAMPLES, example)).read()
    values = {name: rng.random(shape) for name, shape in inputs.items()}
    names = [line.split(":")[0].split()[-1] for line in source.splitlines()
             if line.startswith("var ")]
    two = tl_run(source, values, names, engine="jit", extra=["--threads=2"])
    one = tl_run(source, values, names, engine="jit")
    for name in names:
        same(two[name], one[name], rtol=0, atol=0)


# The 6-D interpolation: an outer product of rank 18 that the contraction
# consumes and no path stores (the rank limit is for tensors that exist).
INTERPOLATION_6D = """
var input A : [4 3]
var input u : [3 3 3 3 3 3]
var output v : [4 4 4 4 4 4]
v = A # A # A # A # A # A # u . [[2 13] [4 14] [6 15] [8 16] [10 17] [12 18]]
"""


@pytest.mark.parametrize("extra", [[], ["--no-optimize"], ["--pad=4"],
                                   ["--threads=2"]])
def test_outer_products_above_the_rank_limit(tl_run, extra):
    A = rng.standard_normal((4, 3))
    u = rng.standard_normal((3,) * 6)
    expected = np.einsum("ai,bj,ck,dl,em,fn,ijklmn->abcdef",
                         A, A, A, A, A, A, u, optimize=True)
    jit, ref = both_engines(tl_run, INTERPOLATION_6D, {"A": A, "u": u}, ["v"],
                            extra=extra)
    same(ref["v"], expected, rtol=1e-12, atol=1e-12)
    same(jit["v"], expected, rtol=1e-12, atol=1e-12)
