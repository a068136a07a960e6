"""The reference interpreter (tl-run --engine=reference) against results
computed independently with NumPy, rule by rule of the report's semantics."""

import numpy as np
import pytest

import tlgen
from tlcompare import assert_same

NAN = np.nan
rng = np.random.default_rng(7)


def same(actual, expected, rtol=1e-12, atol=1e-12):
    assert_same(actual, expected, rtol, atol)


# The report's examples (section 3.1), at reduced sizes.

def test_report_contraction_is_the_matrix_product(tl_run):
    a, b = rng.random((30, 40)), rng.random((40, 50))
    out = tl_run("var A : [30 40]\nvar B : [40 50]\nvar C : [30 50]\n"
                 "C = (A # B) . [2 3]\n", {"A": a, "B": b}, ["C"])
    same(out["C"], a @ b)


def test_report_trace_of_a_matrix_product(tl_run):
    a, b = rng.random((30, 40)), rng.random((40, 30))
    out = tl_run("var A : [30 40]\nvar B : [40 30]\nvar s : []\n"
                 "s = ((A # B) . [2 3]) . [1 2]\n", {"A": a, "B": b}, ["s"])
    same(out["s"], np.trace(a @ b))


def test_report_transposition(tl_run):
    u = rng.random((2, 3, 4, 5, 6))
    out = tl_run("var u : [2 3 4 5 6]\nvar v : [2 5 4 3 6]\nv = u ^ [2 4]\n",
                 {"u": u}, ["v"])
    same(out["v"], np.swapaxes(u, 1, 3))


# Expression forms.

def test_outer_product(tl_run):
    a, b = rng.random((2, 3)), rng.random(4)
    out = tl_run("var a : [2 3]\nvar b : [4]\nvar c : [2 3 4]\nc = a # b\n",
                 {"a": a, "b": b}, ["c"])
    same(out["c"], np.multiply.outer(a, b))


def test_contraction_within_one_tensor_is_a_trace(tl_run):
    t = rng.random((3, 4, 3))
    out = tl_run("var t : [3 4 3]\nvar r : [4]\nr = t . [3 1]\n", {"t": t}, ["r"])
    same(out["r"], np.einsum("iji->j", t))


def test_multi_pair_contraction_is_the_cfd_kernel(tl_run):
    u, a = rng.random((5, 4, 4, 4)), rng.random((4, 4))
    out = tl_run("var u : [5 4 4 4]\nvar A : [4 4]\nvar v : [5 4 4 4]\n"
                 "v = u # A # A # A . [[2 6] [3 8] [4 10]]\n",
                 {"u": u, "A": a}, ["v"])
    same(out["v"], np.einsum("eijk,ai,bj,ck->eabc", u, a, a, a))


def test_multi_pair_transposition_applies_swaps_left_to_right(tl_run):
    t = rng.random((2, 3, 4))
    out = tl_run("var t : [2 3 4]\nvar r : [3 4 2]\nr = t ^ [[1 2] [2 3]]\n",
                 {"t": t}, ["r"])
    same(out["r"], np.swapaxes(np.swapaxes(t, 0, 1), 1, 2))


def test_element_wise_arithmetic_and_precedence(tl_run):
    a, b, c = rng.random((3, 3)), rng.random((3, 3)), rng.random((3, 3)) + 1
    out = tl_run("var a : [3 3]\nvar b : [3 3]\nvar c : [3 3]\nvar r : [3 3]\n"
                 "r = a + b * c - a / c\n", {"a": a, "b": b, "c": c}, ["r"])
    same(out["r"], a + b * c - a / c)


def test_scalar_forms(tl_run):
    s, e = np.float64(2.5), rng.random((2, 3))
    out = tl_run("var s : []\nvar e : [2 3]\nvar p : [2 3]\nvar q : [2 3]\n"
                 "p = s * e\nq = e / s\n", {"s": s, "e": e}, ["p", "q"])
    same(out["p"], s * e)
    same(out["q"], e / s)


# Extensions (docs/language.md): literals, unary minus, a scalar on either
# side (rule t-scalar), the functions (rule t-fun) and their conventions for
# undefined values and domain errors.

def test_literals_and_scalars_on_either_side(tl_run):
    s, e = np.float64(-1.5), rng.random((2, 3)) + 0.5
    out = tl_run("var s : []\nvar e : [2 3]\nvar p : [2 3]\nvar q : [2 3]\n"
                 "var r : [2 3]\n"
                 "p = e * s - 2 + s / e\nq = 0.5 - e + 1e-3 * -e\n"
                 "r = -2.5E+1 / e - -e\n",
                 {"s": s, "e": e}, ["p", "q", "r"])
    same(out["p"], e * s - 2 + s / e)
    same(out["q"], 0.5 - e + 1e-3 * -e)
    same(out["r"], -25.0 / e + e)


def test_scalar_divided_by_a_tensor_is_controlled_division(tl_run):
    out = tl_run("var s : []\nvar e : [3]\nvar q : [3]\nq = s / e\n",
                 {"s": 0.0, "e": [0.0, 2.0, NAN]}, ["q"])
    same(out["q"], [0, 0, 0])
    out = tl_run("var e : [3]\nvar q : [3]\nq = 3 / e\n",
                 {"e": [0.0, 2.0, NAN]}, ["q"])
    same(out["q"], [NAN, 1.5, NAN])


def test_function_conventions(tl_run):
    x = np.array([4.0, 0.0, -0.0, -1.0, NAN, np.inf, 1e-300, 710.0])
    out = tl_run("var x : [8]\nvar a : [8]\nvar b : [8]\nvar c : [8]\n"
                 "var d : [8]\nvar n : [8]\n"
                 "a = sqrt(x)\nb = abs(x)\nc = exp(x)\nd = log(x)\nn = -x\n",
                 {"x": x}, ["a", "b", "c", "d", "n"])
    with np.errstate(all="ignore"):
        same(out["a"], np.sqrt(x))          # sqrt of a negative: undefined
        same(out["b"], np.abs(x))
        same(out["c"], np.exp(x))           # overflow: infinity
        expected_log = np.log(x)
    expected_log[x == 0] = NAN             # log 0 is undefined, like v / 0
    same(out["d"], expected_log)
    same(out["n"], -x)
    assert np.signbit(out["a"][2]) and np.signbit(out["n"][1])


def test_min_and_max_propagate_undefined_and_order_zeros(tl_run):
    a = np.array([1.0, NAN, 2.0, -0.0, 0.0, -np.inf])
    b = np.array([2.0, 1.0, NAN, 0.0, -0.0, 3.0])
    out = tl_run("var a : [6]\nvar b : [6]\nvar lo : [6]\nvar hi : [6]\n"
                 "var c : [6]\nlo = min(a, b)\nhi = max(a, b)\n"
                 "c = max(a, 0.5)\n",
                 {"a": a, "b": b}, ["lo", "hi", "c"])
    same(out["lo"], [1, NAN, NAN, -0.0, -0.0, -np.inf])
    same(out["hi"], [2, NAN, NAN, 0.0, 0.0, 3])
    same(out["c"], [1, NAN, 2, 0.5, 0.5, 0.5])
    assert np.signbit(out["lo"][3]) and np.signbit(out["lo"][4])
    assert not np.signbit(out["hi"][3]) and not np.signbit(out["hi"][4])


def test_single_precision_rounds_literals_once(tl_run):
    x = np.array([1.0, 3.0], dtype=np.float32)
    out = tl_run("var x : [2]\nvar y : [2]\ny = 0.1 * x\n", {"x": x}, ["y"],
                 dtype=np.float32, extra=["--element-type=f32"])
    assert out["y"].dtype == np.float32
    np.testing.assert_array_equal(out["y"], np.float32(0.1) * x)


# Extended arithmetic and controlled division (definitions 4 and 5).

def test_controlled_division_table(tl_run):
    num = np.array([0, 0, 0, 1, -3, NAN, NAN, NAN, 2, 6])
    den = np.array([0, NAN, 5, 0, 0, 2, 0, NAN, NAN, 3])
    expected = np.array([0, 0, 0, NAN, NAN, NAN, NAN, NAN, NAN, 2])
    out = tl_run("var a : [10]\nvar b : [10]\nvar q : [10]\nq = a / b\n",
                 {"a": num, "b": den}, ["q"])
    same(out["q"], expected)
    # The same by a scalar divisor (t-sdiv).
    out = tl_run("var a : [3]\nvar z : []\nvar q : [3]\nq = a / z\n",
                 {"a": [0, 1, NAN], "z": 0.0}, ["q"])
    same(out["q"], [0, NAN, NAN])


def test_undefined_propagates_through_sums_products_and_contractions(tl_run):
    a = np.array([[1, NAN], [3, 4]])
    b = np.array([[1, 2], [3, 4]])
    out = tl_run("var a : [2 2]\nvar b : [2 2]\nvar p : [2 2]\nvar m : [2 2]\n"
                 "var d : [2 2]\nvar c : [2 2]\n"
                 "p = a + b\nm = a * b\nd = a - b\nc = a # b . [2 3]\n",
                 {"a": a, "b": b}, ["p", "m", "d", "c"])
    same(out["p"], a + b)
    same(out["m"], a * b)
    same(out["d"], a - b)
    same(out["c"], [[NAN, NAN], [15, 22]])


def test_variables_not_given_are_undefined(tl_run):
    out = tl_run("var a : [2]\nvar b : [2]\nb = a + a\n", {}, ["a", "b"])
    same(out["a"], [NAN, NAN])
    same(out["b"], [NAN, NAN])


def test_sums_run_in_ascending_index_order(tl_run):
    # In ascending order (1e16 + 1) - 1e16 rounds to 0; other orders give 1
    # or 2.
    a = np.array([1e16, 1.0, -1e16, 1.0])
    out = tl_run("var a : [4]\nvar o : [4]\nvar s : []\ns = a # o . [1 2]\n",
                 {"a": a, "o": np.ones(4)}, ["s"])
    assert out["s"] == (((1e16 + 1.0) - 1e16) + 1.0)


# Statements (rule ev-stmt): the right-hand side reads the old store.

def test_assignment_reads_the_store_before_updating(tl_run):
    a = rng.random((3, 3))
    out = tl_run("var A : [3 3]\nvar T : [3 3]\nvar S : [3 3]\n"
                 "T = A\nT = T ^ [1 2]\nS = A\nS = (S # S) . [2 3]\n",
                 {"A": a}, ["T", "S"])
    same(out["T"], a.T)
    same(out["S"], a @ a)


def test_statements_run_in_order(tl_run):
    out = tl_run("var x : [2]\nvar y : [2]\ny = x + x\nx = y * y\ny = x - y\n",
                 {"x": [1.0, 2.0]}, ["x", "y"])
    same(out["x"], [4, 16])
    same(out["y"], [2, 12])


def test_rank_zero_program(tl_run):
    out = tl_run("var s : []\nvar t : []\nt = s * s / s - s\n", {"s": 3.0}, ["t"])
    same(out["t"], 0.0)


def test_empty_program_returns_the_initial_store(tl_run):
    a = rng.random((2, 2))
    out = tl_run("var input A : [2 2]\n", {"A": a}, ["A"])
    assert np.array_equal(out["A"], a)


def test_single_precision(tl_run):
    a = rng.random((8, 8)).astype(np.float32)
    b = rng.random((8, 8)).astype(np.float32)
    out = tl_run("var A : [8 8]\nvar B : [8 8]\nvar C : [8 8]\nC = A # B . [2 3]\n",
                 {"A": a, "B": b}, ["C"], extra=["--element-type=f32"],
                 dtype=np.float32)
    assert out["C"].dtype == np.float32
    same(out["C"], a @ b, rtol=1e-5, atol=1e-5)


def test_tl_dialect_input(tl_run):
    source = """
tl.program @p {
  tl.var @A : tensor<2x2xf64>
  tl.var @B : tensor<2x2xf64>
  tl.assign @B = {
    %a = tl.use @A : tensor<2x2xf64>
    %t = tl.transpose %a [[0, 1]] : tensor<2x2xf64>
    %s = tl.sub %a, %t : tensor<2x2xf64>, tensor<2x2xf64>
    tl.yield %s : tensor<2x2xf64>
  }
}
"""
    a = np.array([[1.0, 2.0], [5.0, 7.0]])
    out = tl_run(source, {"A": a}, ["B"], suffix=".mlir")
    same(out["B"], a - a.T)


def test_large_matrix_product_does_not_build_the_outer_product(tl_run):
    # The outer product would take 8 * 400^4 bytes = 205 GB.
    a, b = rng.random((400, 400)), rng.random((400, 400))
    out = tl_run("var A : [400 400]\nvar B : [400 400]\nvar C : [400 400]\n"
                 "var s : []\nC = A # B . [2 3]\ns = A # B . [2 3] . [1 2]\n",
                 {"A": a, "B": b}, ["C", "s"])
    same(out["C"], a @ b, rtol=1e-10)
    same(out["s"], np.trace(a @ b), rtol=1e-10)


# .npy round trips through the interpreter: bit-exact, readable by numpy.

@pytest.mark.parametrize("shape", [(), (1,), (3,), (2, 3), (2, 1, 4)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_npy_round_trip(tl_run, shape, dtype):
    a = rng.standard_normal(shape).astype(dtype)
    type_text = " ".join(str(d) for d in shape)
    extra = ["--element-type=f32"] if dtype == np.float32 else []
    out = tl_run("var A : [%s]\nvar B : [%s]\nB = A\n" % (type_text, type_text),
                 {"A": a}, ["B"], extra=extra, dtype=dtype)
    assert out["B"].dtype == dtype and out["B"].shape == shape
    assert np.array_equal(out["B"], a)


# Random well-typed programs against the independent NumPy evaluator.

@pytest.mark.parametrize("seed", range(150))
def test_random_programs(tl_run, seed):
    gen = tlgen.Generator(seed)
    program = gen.program(qualifiers=(seed % 3 == 0))
    store = gen.values(program)
    names = [name for name, _, _ in program.decls]
    out = tl_run(program.source(), store, names)
    expected = tlgen.run(program, store)
    for name in names:
        same(out[name], expected[name], rtol=1e-9, atol=1e-9)
