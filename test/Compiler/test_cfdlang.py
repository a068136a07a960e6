"""CFDlang programs (written for this suite in CFDlang's syntax: 0-based
indices, right-associative operators, juxtaposed stacks) imported with the
.cfd extension and run on both engines, against NumPy. (Python's
syntax="cfdlang" is tested in test/python, which needs the module.)"""

import numpy as np
import pytest

from tlcompare import assert_same

rng = np.random.default_rng(17)

INTERPOLATION = """
var input A  : [5 6]
var input u  : [6 6 6]
var output v : [5 5 5]
v = A # A # A # u . [[1 6] [3 7] [5 8]]
"""

HELMHOLTZ = """
var input S : [4 4]
var input D : [4 4 4]
var input u : [4 4 4]
var t : [4 4 4]
var r : [4 4 4]
var output v : [4 4 4]
t = S # S # S # u . [[0 6] [2 7] [4 8]]
r = D * t
v = S # S # S # r . [[1 6] [3 7] [5 8]]
"""

GRADIENT = """
var input D : [5 5]
var input u : [5 5 5]
var output g : [3 5 5 5]
g = [(D # u . [[1 2]]) (D # u . [[1 3]]) ^ [[0 1]] (D # u . [[1 4]]) ^ [[0 1] [1 2]]]
"""

ASSOCIATIVITY = """
var input a : [3 4]
var input b : [3 4]
var input c : [3 4]
var input M : [4 4]
var input s : []
var output x : [3 4]
var output y : [3 4]
var output z : [3 4]
x = a - b - c
y = a / s * 2
z = a . M - b
"""


def interpolation(A, u):
    return np.einsum("ai,bj,ck,ijk->abc", A, A, A, u)


def helmholtz(S, D, u):
    t = np.einsum("ia,jb,kc,ijk->abc", S, S, S, u)
    return np.einsum("ai,bj,ck,ijk->abc", S, S, S, D * t)


def gradient(D, u):
    return np.stack([np.einsum("ai,ijk->ajk", D, u),
                     np.einsum("ai,jik->jak", D, u),
                     np.einsum("ai,jki->jka", D, u)])


CASES = {
    "interpolation": (INTERPOLATION, lambda: {"A": rng.standard_normal((5, 6)),
                                              "u": rng.standard_normal((6, 6, 6))},
                      lambda s: {"v": interpolation(s["A"], s["u"])}),
    "helmholtz": (HELMHOLTZ, lambda: {"S": rng.standard_normal((4, 4)),
                                      "D": rng.standard_normal((4, 4, 4)),
                                      "u": rng.standard_normal((4, 4, 4))},
                  lambda s: {"v": helmholtz(s["S"], s["D"], s["u"])}),
    "gradient": (GRADIENT, lambda: {"D": rng.standard_normal((5, 5)),
                                    "u": rng.standard_normal((5, 5, 5))},
                 lambda s: {"g": gradient(s["D"], s["u"])}),
    "associativity": (ASSOCIATIVITY,
                      lambda: {"a": rng.standard_normal((3, 4)),
                               "b": rng.standard_normal((3, 4)),
                               "c": rng.standard_normal((3, 4)),
                               "M": rng.standard_normal((4, 4)), "s": 4.0},
                      None),
}


@pytest.mark.parametrize("name", ["interpolation", "helmholtz", "gradient"])
@pytest.mark.parametrize("engine", ["reference", "jit"])
def test_cfdlang_programs_against_numpy(tl_run, name, engine):
    source, inputs, expected = CASES[name]
    store = inputs()
    want = expected(store)
    out = tl_run(source, store, list(want), engine=engine, suffix=".cfd")
    for variable, value in want.items():
        assert_same(out[variable], value, 1e-10, 1e-10)


def test_right_associativity_and_the_matrix_product_form(tl_run):
    source, inputs, _ = CASES["associativity"]
    store = inputs()
    a, b, c, M, s = (store[k] for k in "abcMs")
    out = tl_run(source, store, ["x", "y", "z"], engine="jit", suffix=".cfd")
    assert_same(out["x"], a - (b - c), 1e-12, 1e-12)
    assert_same(out["y"], a / (s * 2), 1e-12, 1e-12)
    # `.` and `-` on different levels: (a . M) - b, a matrix product.
    assert_same(out["z"], a @ M - b, 1e-12, 1e-12)


# CFDlang's element loop: `elem [D u v] 9 first` runs the kernel on each of
# 9 elements; the temporaries t and r, declared inside CFDlang's loop, hold
# one value per element (they become batched: docs/language.md).
ELEM = HELMHOLTZ.replace("t = ", "elem [D u v] 9 %s\nt = ", 1)


@pytest.mark.parametrize("position", ["first", "last"])
@pytest.mark.parametrize("engine", ["reference", "jit"])
def test_elem_directive(tl_run, position, engine):
    last = position == "last"
    shape = (4, 4, 4, 9) if last else (9, 4, 4, 4)
    store = {"S": rng.standard_normal((4, 4)), "D": rng.standard_normal(shape),
             "u": rng.standard_normal(shape)}
    out = tl_run(ELEM % position, store, ["v", "t"], engine=engine,
                 suffix=".cfd")
    axis = -1 if last else 0
    for e in range(9):
        D, u = (np.take(store[k], e, axis=axis) for k in "Du")
        assert_same(np.take(out["v"], e, axis=axis),
                    helmholtz(store["S"], D, u), 1e-10, 1e-10)
    assert out["t"].shape == shape


# CFDlang's own Helmholtz test (normanrink/cfdlang tests/test.Helmholtz.cpp)
# at m = 20 and 23: u (64-97 KB) is above tl-fuse-batches' L1 tile, so the
# first mode product of each statement, whose rows are the batch, is
# computed whole and the two after it one slice at a time
# (streamsUnbatchedInput); threads share both.
CFDLANG_HELMHOLTZ_TEST = """
type matrix  : [{m} {m}]
type tensor  : [{m} {m} {m}]
var input A : matrix
var input B : matrix
var input C : matrix
var input D : tensor
var input u  : tensor
var output v : tensor
var t : tensor
t = D * (A # B # C # u . [[0 6] [2 7] [4 8]])
v = A # B # C # t . [[1 6] [3 7] [5 8]]
"""


@pytest.mark.parametrize("m", [20, 23])
@pytest.mark.parametrize("extra", [[], ["--threads=2"], ["--fuse-min-bytes=0"]])
def test_cfdlang_helmholtz_test_program(tl_run, m, extra):
    A, B, C = (rng.standard_normal((m, m)) for _ in range(3))
    D, u = (rng.standard_normal((m, m, m)) for _ in range(2))
    t = D * np.einsum("xa,yb,zc,xyz->abc", A, B, C, u)
    v = np.einsum("ax,by,cz,xyz->abc", A, B, C, t)
    out = tl_run(CFDLANG_HELMHOLTZ_TEST.format(m=m),
                 {"A": A, "B": B, "C": C, "D": D, "u": u}, ["v"],
                 engine="jit", suffix=".cfd", extra=extra)
    assert_same(out["v"], v, 1e-9, 1e-9)
