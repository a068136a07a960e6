"""The batch form (`batch [u v] N`, docs/language.md): compiled code and the
reference interpreter against NumPy, on hand-written kernels and on random
batch programs, with the batch dimension first and last, padded, threaded
and unoptimized."""

import numpy as np
import pytest

import tlgen
from tlcompare import assert_same

rng = np.random.default_rng(23)

# The inverse Helmholtz operator of CFDlang's tests, per element, with a
# shared statement (SS, computed once), a per-element stack of a batched
# and a shared value (broadcast), and a batched variable assigned a shared
# value (w0).
HELMHOLTZ = """
var input S : [7 7]
var input D : [7 7 7]
var input u : [7 7 7]
var input c : [7]
var output v : [7 7 7]
var t : [7 7 7]
var output g : [2 7 7 7]
var output SS : [7 7]
var output w0 : [7]
batch [D u v t g w0] %d%s
SS = S # S . [[2 3]]
t = S # S # S # u . [[2 7] [4 8] [6 9]]
v = S # S # S # (D * t) . [[1 7] [3 8] [5 9]]
g = [exp(-abs(u)) t - c # c # c]
w0 = SS # c . [[2 3]]
"""


def helmholtz_expected(S, D, u, c, last):
    """NumPy's answer, with the batch dimension first."""
    if last:
        D, u = np.moveaxis(D, -1, 0), np.moveaxis(u, -1, 0)
    t = np.einsum("ai,bj,ck,eijk->eabc", S, S, S, u)
    v = np.einsum("ia,jb,kc,eijk->eabc", S, S, S, D * t)
    ccc = np.einsum("a,b,c->abc", c, c, c)
    g = np.stack([np.exp(-np.abs(u)), t - ccc], axis=1)
    w0 = np.broadcast_to((S @ S) @ c, (u.shape[0], 7))
    return {"v": v, "g": g, "SS": S @ S, "w0": w0}


@pytest.mark.parametrize("last", [False, True])
@pytest.mark.parametrize("extra", [[], ["--pad=4"], ["--threads=2"],
                                   ["--no-optimize"], ["--no-tile"],
                                   ["--element-type=f32"]])
def test_helmholtz(tl_run, last, extra):
    # 13 elements: a prime, so that no tile divides the batch.
    extent = 13
    dtype = np.float32 if "--element-type=f32" in extra else np.float64

    def batched(shape):
        return shape + (extent,) if last else (extent,) + shape
    S = rng.standard_normal((7, 7)) * 0.3
    D = rng.standard_normal(batched((7, 7, 7)))
    u = rng.standard_normal(batched((7, 7, 7)))
    c = rng.standard_normal(7) * 0.5
    source = HELMHOLTZ % (extent, " last" if last else "")
    store = {"S": S, "D": D, "u": u, "c": c}
    outputs = ["v", "g", "SS", "w0"]
    expected = helmholtz_expected(S, D, u, c, last)
    tolerance = 1e-4 if dtype == np.float32 else 1e-10
    for engine in ["jit", "reference"]:
        actual = tl_run(source, store, outputs, engine=engine, extra=extra,
                        dtype=dtype)
        for name in outputs:
            value = actual[name]
            assert value.shape == np.asarray(
                expected[name] if name == "SS" or not last
                else np.moveaxis(expected[name], 0, -1)).shape
            if last and name != "SS":
                value = np.moveaxis(value, -1, 0)
            assert_same(value, expected[name], tolerance, tolerance)


def test_batch_of_one_is_the_plain_program(tl_run):
    # A batch of one element computes what the program without the batch
    # computes, with a leading dimension of extent 1.
    plain = "var input A : [5 6]\nvar input x : [6]\nvar output y : [5]\n" \
            "y = A # x . [[2 3]]\n"
    batch = plain.replace("y = ", "batch [x y] 1\ny = ")
    A, x = rng.standard_normal((5, 6)), rng.standard_normal(6)
    expected = tl_run(plain, {"A": A, "x": x}, ["y"], engine="jit")["y"]
    actual = tl_run(batch, {"A": A, "x": x[None]}, ["y"], engine="jit")["y"]
    assert actual.shape == (1, 5)
    assert_same(actual[0], expected)


def test_outer_product_of_batched_values_is_per_element(tl_run):
    # u # v per element is the diagonal of the whole arrays' outer product:
    # no program without the batch form computes it with one statement.
    source = "var input u : [3]\nvar input v : [4]\nvar output w : [3 4]\n" \
             "batch [u v w] 6\nw = u # v\n"
    u, v = rng.standard_normal((6, 3)), rng.standard_normal((6, 4))
    for engine in ["jit", "reference"]:
        w = tl_run(source, {"u": u, "v": v}, ["w"], engine=engine)["w"]
        assert_same(w, np.einsum("ea,eb->eab", u, v))


def run_random_batch_program(tl_run, seed, extra):
    gen = tlgen.Generator(seed, max_rank=4 if seed % 4 == 0 else 3)
    program = gen.batch_program(qualifiers=(seed % 3 == 0))
    store = gen.values(program)
    names = [name for name, _, _ in program.decls]
    ref = tl_run(program.source(), store, names, engine="reference")
    expected = tlgen.run(program, store)
    for name in names:
        assert_same(ref[name], expected[name])
    jit = tl_run(program.source(), store, names, engine="jit", extra=extra)
    for name in program.live_out:
        assert_same(jit[name], ref[name])
    return program


@pytest.mark.parametrize("seed", range(60))
def test_random_batch_programs(tl_run, seed):
    program = run_random_batch_program(tl_run, 7000 + seed, [])
    assert program.batch


@pytest.mark.parametrize("seed", range(20))
def test_random_batch_programs_padded(tl_run, seed):
    run_random_batch_program(tl_run, 8000 + seed, ["--pad=4"])


@pytest.mark.parametrize("seed", range(20))
def test_random_batch_programs_threaded(tl_run, seed):
    run_random_batch_program(tl_run, 9000 + seed, ["--threads=2"])


def test_generator_batches_variables():
    # The generator's batch programs batch some variables and keep others
    # shared, in both positions; otherwise the tests above test little.
    batched, shared, positions = 0, 0, set()
    for seed in range(60):
        program = tlgen.Generator(7000 + seed).batch_program()
        extent, last, names = program.batch
        batched += len(names)
        shared += len(program.decls) - len(names)
        positions.add(last)
    assert batched > 50 and shared > 50 and positions == {False, True}
