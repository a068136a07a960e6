"""The tensorlang Python package: every API, against NumPy computations
written here, and its errors."""

import os
import re
import subprocess
import sys
import threading
import time
import types

import numpy as np
import pytest

import cudabuild
import tensorlang as tl
from tlcompare import assert_same

rng = np.random.default_rng(3)

MATMUL = """
var input A : [7 5]
var input B : [5 3]
var output C : [7 3]
C = A # B . [2 3]
"""

CFD = """
var input u : [6 5 5 5]
var input A : [5 5]
var output v : [6 5 5 5]
v = u # A # A # A . [[2 6] [3 8] [4 10]]
"""


def test_compile_and_call():
    prog = tl.compile(MATMUL)
    a, b = rng.random((7, 5)), rng.random((5, 3))
    out = prog(A=a, B=b)
    assert list(out) == ["C"]
    assert out["C"].dtype == np.float64 and out["C"].shape == (7, 3)
    np.testing.assert_allclose(out["C"], a @ b, rtol=1e-13)


def test_inputs_are_not_modified_and_any_array_like_is_accepted():
    prog = tl.compile("var x : [3]\nvar y : [3]\nx = x + y\ny = x * y\n")
    x = [1, 2, 3]          # a list of ints
    y = np.array([4.0, 5.0, 6.0], dtype=np.float32)[::1]
    out = prog(x=x, y=y)
    np.testing.assert_array_equal(out["x"], [5, 7, 9])
    np.testing.assert_array_equal(out["y"], [20, 35, 54])
    assert x == [1, 2, 3] and y.tolist() == [4, 5, 6]


def test_fortran_order_and_strided_inputs_are_converted():
    prog = tl.compile(MATMUL)
    a = np.asfortranarray(rng.random((7, 5)))
    b = rng.random((3, 5)).T        # a non-contiguous view
    np.testing.assert_allclose(prog(A=a, B=b)["C"], a @ b, rtol=1e-13)


def test_cfd_interpolation_against_einsum():
    prog = tl.compile(CFD)
    u, a = rng.random((6, 5, 5, 5)), rng.random((5, 5))
    np.testing.assert_allclose(prog(u=u, A=a)["v"],
                               np.einsum("eijk,ai,bj,ck->eabc", u, a, a, a), rtol=1e-12)


def test_no_qualifiers_returns_every_variable_and_undefined_is_nan():
    out = tl.compile("var a : [2]\nvar b : [2]\nvar c : []\nb = a / a\n")(a=[0.0, 3.0])
    assert set(out) == {"a", "b", "c"}
    np.testing.assert_array_equal(out["b"], [0.0, 1.0])   # controlled 0/0 = 0
    assert np.isnan(out["c"])


def test_signature():
    with pytest.warns(tl.SourceWarning, match="input variable 'A' is never read"):
        sig = tl.compile("var input A : [2 3]\nvar output s : []\nvar t : [4]\n"
                         "var input output u : [1]\n").signature
    assert sig.dtype == "float64"
    assert [tuple(v) for v in sig.variables] == [
        ("A", (2, 3), True, False), ("s", (), False, True),
        ("t", (4,), False, False), ("u", (1,), True, True)]


def test_ir_at_every_stage():
    prog = tl.compile(MATMUL)
    assert "tl.contract" in prog.ir("tl")
    assert "linalg.generic" in prog.ir("linalg")
    assert "vector<" in prog.ir("loops")
    assert "llvm.func @main" in prog.ir("llvm")
    with pytest.raises(ValueError, match="stage"):
        prog.ir("asm")


def test_run_reference_matches_numpy():
    a, b = rng.random((7, 5)), rng.random((5, 3))
    out = tl.run_reference(MATMUL, A=a, B=b)
    np.testing.assert_allclose(out["C"], a @ b, rtol=1e-13)
    assert tl.compile(MATMUL).run_reference(A=a, B=b)["C"].shape == (7, 3)


def test_compile_file(tmp_path):
    path = tmp_path / "matmul.tl"
    path.write_text(MATMUL)
    a, b = rng.random((7, 5)), rng.random((5, 3))
    np.testing.assert_allclose(tl.compile_file(path)(A=a, B=b)["C"], a @ b, rtol=1e-13)
    mlir = tmp_path / "matmul.mlir"
    mlir.write_text(tl.compile(MATMUL).ir("tl"))
    np.testing.assert_allclose(tl.compile_file(str(mlir))(A=a, B=b)["C"], a @ b, rtol=1e-13)


@pytest.mark.parametrize("pad", [1, 3, 8])
def test_padding_is_invisible(pad):
    u, a = rng.random((6, 5, 5, 5)), rng.random((5, 5))
    plain = tl.compile(CFD)(u=u, A=a)["v"]
    padded = tl.compile(CFD, pad=pad)
    assert padded.signature == tl.compile(CFD).signature
    np.testing.assert_allclose(padded(u=u, A=a)["v"], plain, rtol=1e-12)
    ref = tl.run_reference(CFD, pad=pad, u=u, A=a)["v"]
    np.testing.assert_allclose(ref, plain, rtol=1e-12)


def test_single_precision():
    prog = tl.compile(MATMUL, dtype="float32")
    a, b = rng.random((7, 5)), rng.random((5, 3))
    out = prog(A=a, B=b)["C"]
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5)
    assert tl.compile(MATMUL, dtype=np.float32).signature.dtype == "float32"


# A product with loops of register tiles to share (7 x 3 is one tile, and
# its result is no longer zeroed in a loop of its own).
MATMUL_TILES = """
var input A : [67 5]
var input B : [5 37]
var output C : [67 37]
C = A # B . [2 3]
"""


def test_threads_are_validated_and_do_not_change_results():
    a, b = rng.random((67, 5)), rng.random((5, 37))
    one = tl.compile(MATMUL_TILES, threads=1)
    two = tl.compile(MATMUL_TILES, threads=2)
    assert two.threads == 2
    # Two threads: the outer loop is an OpenMP work-sharing loop.
    assert "omp.parallel" in two.ir("llvm")
    assert "omp." not in one.ir("llvm")
    np.testing.assert_array_equal(two(A=a, B=b)["C"], one(A=a, B=b)["C"])
    np.testing.assert_allclose(one(A=a, B=b)["C"], a @ b, rtol=1e-12)
    with pytest.raises(ValueError, match="threads"):
        tl.compile(MATMUL, threads=0)
    with pytest.raises(TypeError, match="threads"):
        tl.compile(MATMUL, threads=1.5)
    with pytest.raises(ValueError, match="threads"):
        tl.compile(MATMUL, threads=5000)


def test_compiled_once_and_reused():
    prog = tl.compile(MATMUL)
    a, b = rng.random((7, 5)), rng.random((5, 3))
    for _ in range(3):
        prog(A=a, B=b)
    assert prog._impl.compilations == 1


def test_gil_is_released_while_the_kernel_runs():
    # An outer product no optimization can shrink: 70^4 doubles (192 MB)
    # to write take tens of milliseconds on any machine (the contraction
    # chain used before became two fast matrix products once contraction
    # order was optimized).
    prog = tl.compile("var input A : [70 70]\nvar output C : [70 70 70 70]\n"
                      "C = A # A\n")
    a = rng.random((70, 70))
    ticks = []
    done = threading.Event()

    def ticker():
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    thread = threading.Thread(target=ticker)
    start = time.perf_counter()
    thread.start()
    prog(A=a)
    end = time.perf_counter()
    done.set()
    thread.join()
    during = [t for t in ticks if start < t < end]
    # The other thread kept running while the kernel ran.
    assert end - start > 0.01
    assert len(during) >= 3


# Errors.

def test_compile_errors_carry_line_and_column():
    with pytest.raises(tl.CompileError) as info:
        tl.compile("var A : [2 2]\nvar B : [3]\nA = A + B\n")
    assert (info.value.line, info.value.column) == (3, 7)
    assert "operands of '+' must have the same type, got [2 2] and [3] (rule t-elem)" in str(info.value)
    with pytest.raises(tl.CompileError) as info:
        tl.compile("var A [2]\n")
    assert (info.value.line, info.value.column) == (1, 7)
    with pytest.raises(tl.CompileError, match="tl.program"):
        tl.compile("module {\n}\n")


def test_argument_errors():
    prog = tl.compile(MATMUL)
    a, b = rng.random((7, 5)), rng.random((5, 3))
    with pytest.raises(ValueError, match=r"shape \(5, 7\) does not match variable 'A' of type \[7 5\], shape \(7, 5\)"):
        prog(A=a.T, B=b)
    with pytest.raises(TypeError, match="no variable 'Z'"):
        prog(A=a, B=b, Z=a)
    with pytest.raises(ValueError, match="input variable 'B' must be given"):
        prog(A=a)
    bad = a.copy()
    bad[1, 1] = np.nan
    with pytest.raises(ValueError, match=r"input variable 'A' holds an undefined \(NaN\) value at index \(1, 1\) \(rule d-in-var\)"):
        prog(A=bad, B=b)
    bad[1, 1] = np.inf
    with pytest.raises(ValueError, match=r"input variable 'A' holds an infinite value at index \(1, 1\)"):
        prog(A=bad, B=b)
    with pytest.raises(TypeError, match="cannot convert"):
        prog(A=[["x"] * 5] * 7, B=b)
    with pytest.raises(TypeError, match="complex"):
        prog(A=a + 1j, B=b)
    with pytest.raises(TypeError, match="must be a str"):
        tl.compile(b"var x : [1]")
    with pytest.raises(ValueError, match="dtype"):
        tl.compile(MATMUL, dtype="int32")
    with pytest.raises(ValueError, match="pad"):
        tl.compile(MATMUL, pad=-1)
    with pytest.raises(TypeError, match="pad"):
        tl.compile(MATMUL, pad="8")
    with pytest.raises(FileNotFoundError):
        tl.compile_file("/no/such/file.tl")


def test_compile_file_decides_the_language_as_the_tools_do(tmp_path):
    # A CFDlang program saved as .txt (as CFDlang's own tests are named) was
    # read as TensorLang, and ran with wrong results: it is refused, as
    # tl-run and tl-compile refuse it.
    cfdlang = ("var input A : [2 2]\nvar input u : [2 2]\n"
               "var output v : [2 2]\nv = A # u . [[1 2]]\n")
    text = tmp_path / "prog.txt"
    text.write_text(cfdlang)
    with pytest.raises(tl.CompileError,
                       match="cannot tell the kind of '.*prog.txt': expected "
                             "a .tl source file, a .cfd CFDlang source file "
                             "or a .mlir file"):
        tl.compile_file(text)
    # As .cfd it is CFDlang: 0-based indices, the contraction of A's
    # columns with u's rows.
    cfd = tmp_path / "prog.cfd"
    cfd.write_text(cfdlang)
    a, u = rng.standard_normal((2, 2)), rng.standard_normal((2, 2))
    np.testing.assert_allclose(tl.compile_file(cfd)(A=a, u=u)["v"], a @ u,
                               rtol=1e-13)


def test_kept_variables_are_results_on_both_engines():
    # t is neither input nor output: the optimizer may fold it into B and
    # drop its statement, unless it is kept.
    source = ("var input A : [2 3]\nvar t : [2 3]\nvar output B : [2 3]\n"
              "t = A + A\nB = t * A\n")
    a = rng.random((2, 3))
    plain = tl.compile(source)
    assert plain.results == ("B",)
    assert set(plain(A=a)) == {"B"}
    kept = tl.compile(source, keep=["t"])
    assert kept.results == ("t", "B")
    for result in (kept(A=a), kept.run_reference(A=a)):
        assert_same(result["t"], 2 * a)
        assert_same(result["B"], 2 * a * a)
    with pytest.raises(ValueError, match="no variable 'q'"):
        tl.compile(source, keep=["q"])


def test_reference_refuses_too_much_work():
    with pytest.raises(tl.CompileError, match="element evaluations"):
        tl.run_reference("var A : [60 60]\nvar s : []\ns = A # A # A . [[2 3] [4 5] [6 1]]\n",
                         max_work=1000)


def test_the_package_is_importable_from_the_build_tree():
    assert os.path.basename(os.path.dirname(tl.__file__)) == "tensorlang"


UNUSED = """
var input a : [2]
var input b : [2]
var output c : [2]
c = a
c = a + a
"""


def test_source_warnings_are_python_warnings():
    with pytest.warns(tl.SourceWarning) as caught:
        prog = tl.compile(UNUSED)
    text = str(caught[0].message)
    assert "<string>:3:11: warning: input variable 'b' is never read" in text
    assert "<string>:5:1: warning: the value assigned to 'c' is never used" in text
    assert "<string>:6:1: note: assigned again here" in text
    np.testing.assert_array_equal(prog(a=[1.0, 2.0], b=[0.0, 0.0])["c"], [2.0, 4.0])


def test_warnings_as_errors():
    with pytest.raises(tl.CompileError) as error:
        tl.compile(UNUSED, warnings_as_errors=True)
    assert error.value.line == 3 and error.value.column == 11
    assert "error: input variable 'b' is never read" in str(error.value)


def test_cfdlang_syntax():
    # CFDlang's 0-based pairs: in this language they would be out of place.
    source = """
var input A  : [5 6]
var input u  : [6 6 6]
var output v : [5 5 5]
v = A # A # A # u . [[1 6] [3 7] [5 8]]
"""
    prog = tl.compile(source, syntax="cfdlang")
    A, u = rng.standard_normal((5, 6)), rng.standard_normal((6, 6, 6))
    assert_same(prog(A=A, u=u)["v"], np.einsum("ai,bj,ck,ijk->abc", A, A, A, u),
                1e-10, 1e-10)
    with pytest.raises(tl.CompileError):
        tl.compile(source)
    with pytest.raises(ValueError):
        tl.compile(source, syntax="fortran")


def test_batch_programs():
    # A batch program takes and returns its batched variables with the
    # batch dimension (first here), on both engines, and from CFDlang's elem.
    source = """
var input A : [4 3]
var input u : [3]
var output v : [4]
batch [u v] 6
v = A # u . [[2 3]]
"""
    A, u = rng.standard_normal((4, 3)), rng.standard_normal((6, 3))
    prog = tl.compile(source)
    assert [v.shape for v in prog.signature.variables] == [(4, 3), (6, 3), (6, 4)]
    assert_same(prog(A=A, u=u)["v"], u @ A.T, 1e-12, 1e-12)
    assert_same(tl.run_reference(source, A=A, u=u)["v"], u @ A.T, 1e-12, 1e-12)
    with pytest.raises(ValueError):
        prog(A=A, u=u[0])
    cfd = source.replace("batch [u v] 6", "elem [u v] 6 last").replace(
        "[[2 3]]", "[[1 2]]")
    prog = tl.compile(cfd, syntax="cfdlang")
    assert_same(prog(A=A, u=u.T)["v"], (u @ A.T).T, 1e-12, 1e-12)


SIZED = """
size E, N
var input A : [N N]
var input u : [E N]
var output v : [E N]
var output s : []
v = u # A . [[2 3]]
s = u # u . [[1 3] [2 4]]
"""


def test_sizes():
    # One program, any number of elements: the sizes take their values from
    # each call's arrays, on both engines; the signature names them.
    prog = tl.compile(SIZED)
    assert prog.signature.sizes == ("E", "N")
    assert [v.shape for v in prog.signature.variables] == [
        ("N", "N"), ("E", "N"), ("E", "N"), ()]
    for e, n in ((1, 3), (7, 3), (4, 5), (7, 3)):
        A = rng.random((n, n))
        u = rng.random((e, n))
        for result in (prog(A=A, u=u), prog.run_reference(A=A, u=u)):
            assert result["v"].shape == (e, n)
            assert_same(result["v"], u @ A)
            assert_same(result["s"], np.sum(u * u))


def test_size_zero():
    """A size may be 0 (a mesh partition without elements): the program
    runs on empty arrays, and a sum over no elements is 0, on both engines,
    given by the arrays or when compiling."""
    A = rng.random((3, 3))
    u = np.zeros((0, 3))
    for prog in (tl.compile(SIZED), tl.compile(SIZED, sizes={"E": 0}),
                 tl.compile(SIZED, threads=2)):
        for result in (prog(A=A, u=u), prog.run_reference(A=A, u=u)):
            assert result["v"].shape == (0, 3)
            assert result["s"] == 0.0


def test_size_errors():
    prog = tl.compile(SIZED)
    # The inputs disagree about N.
    # (Dimensions counted from 1, as the language does, with NumPy's axis.)
    with pytest.raises(ValueError, match=r"variable 'u', dimension 2 \(axis "
                       r"1\) has extent 4, but size 'N' is 3 \(from variable "
                       r"'A', dimension 1 \(axis 0\)\)"):
        prog(A=np.ones((3, 3)), u=np.ones((2, 4)))
    with pytest.raises(ValueError, match=r"variable 'A', dimension 2 \(axis "
                       r"1\) has extent 2, but size 'N' is 3"):
        prog(A=np.ones((3, 2)), u=np.ones((2, 3)))
    # Values given when compiling must agree with the arrays.
    fixed = tl.compile(SIZED, sizes={"E": 2})
    assert fixed(A=np.eye(3), u=np.ones((2, 3)))["v"].shape == (2, 3)
    with pytest.raises(ValueError, match=r"dimension 1 \(axis 0\) has extent "
                       r"5, but size 'E' is 2 \(as given\)"):
        fixed(A=np.eye(3), u=np.ones((5, 3)))
    with pytest.raises(ValueError, match="the program has no size 'F'"):
        tl.compile(SIZED, sizes={"F": 2})
    with pytest.raises(ValueError, match="size 'E' must be at least 0"):
        tl.compile(SIZED, sizes={"E": -1})
    with pytest.raises(TypeError, match="sizes must be a dict"):
        tl.compile(SIZED, sizes=[("E", 2)])
    # A size that no input fixes needs a value.
    free = "size N\nvar input a : [2]\nvar output b : [2]\nvar output z : [N]\nb = a + a\n"
    with pytest.raises(ValueError, match=r"size 'N' has no value: no input's "
                       r"shape gives it"):
        tl.compile(free)(a=np.ones(2))
    assert tl.compile(free, sizes={"N": 4})(a=np.ones(2))["z"].shape == (4,)


def test_sizes_compiled_once():
    # Compiled code takes the sizes as arguments: one compilation serves
    # every value, with threads too, and at sizes that divide nothing.
    for threads in (1, 2):
        prog = tl.compile(SIZED, threads=threads)
        for e, n in ((1, 3), (97, 3), (4, 5), (3999, 11)):
            A = rng.random((n, n))
            u = rng.random((e, n))
            result = prog(A=A, u=u)
            assert_same(result["v"], u @ A)
            assert_same(result["s"], np.sum(u * u))
        assert prog._impl.compilations == 1


def test_sized_workspace_grows():
    # Intermediates whose extents are sizes live in the JIT's workspace,
    # which grows when a call's sizes need more than any before and serves
    # smaller calls after: each result right, one compilation, and the size
    # function says the intermediates (9E doubles each) are in it.
    source = ("size E\nvar input A : [3 3]\nvar input u : [3 3 E]\n"
              "var output v : [3 3 E]\nv = A # A # u . [[2 5] [4 6]]\n")
    for threads in (1, 2):
        prog = tl.compile(source, threads=threads)
        A = rng.random((3, 3))
        for e in (1, 37, 1001, 2, 0, 1001):
            u = rng.random((3, 3, e))
            assert_same(prog(A=A, u=u)["v"],
                        np.einsum("ia,jb,abe->ije", A, A, u))
        assert prog._impl.compilations == 1
    library = tl.compile(source)
    largest = library._impl.workspace_size([1001])
    assert largest >= 8 * 9 * 1001 > library._impl.workspace_size([1])


def test_sizes_ir():
    # ir() shows the code the JIT compiles: with a size's value given for
    # every size, code for that value; otherwise code taking the sizes.
    source = "size E, F\nvar input x : [E F]\nvar output y : [E F]\ny = x * 2\n"
    assert "tensor<?x?xf64>" in tl.compile(source).ir("linalg")
    assert "tensor<?x?xf64>" in tl.compile(source, sizes={"E": 4}).ir("linalg")
    fixed = tl.compile(source, sizes={"E": 4, "F": 3})
    assert "tensor<4x3xf64>" in fixed.ir("linalg")
    assert fixed(x=np.ones((4, 3)))["y"].shape == (4, 3)
    with pytest.raises(ValueError, match="the program has no size 'G'"):
        tl.compile(source, sizes={"G": 4})


HELMHOLTZ = """
var input S : [4 4]
var input D : [4 4 4]
var input u : [4 4 4]
var t : [4 4 4]
var output v : [4 4 4]
t = S # S # S # u . [[2 7] [4 8] [6 9]]
v = S # S # S # (D * t) . [[1 7] [3 8] [5 9]]
"""


def helmholtz(S, D, u):
    t = np.einsum("ia,jb,kc,abc->ijk", S, S, S, u)
    return np.einsum("ai,bj,ck,abc->ijk", S, S, S, D * t)


@pytest.mark.parametrize("pad", [0, 3])
def test_column_major_layout(pad):
    rng = np.random.default_rng(5)
    S, D, u = (rng.standard_normal(s) for s in [(4, 4), (4, 4, 4), (4, 4, 4)])
    program = tl.compile(HELMHOLTZ, layout="col-major", pad=pad)
    assert program.layout == "col-major"
    # Fortran-order arrays are taken as they are; others are converted.
    for arrays in [dict(S=np.asfortranarray(S), D=np.asfortranarray(D),
                        u=np.asfortranarray(u)), dict(S=S, D=D, u=u)]:
        for run in [program, lambda **a: program.run_reference(**a)]:
            v = run(**arrays)["v"]
            assert v.flags["F_CONTIGUOUS"] and not v.flags["C_CONTIGUOUS"]
            assert_same(v, helmholtz(S, D, u))
    with pytest.raises(ValueError, match=r"unknown layout 'fortran' \(row-major, col-major\)"):
        tl.compile(HELMHOLTZ, layout="fortran")


def test_column_major_sizes_come_from_the_declared_shapes():
    program = tl.compile("size E\nvar input a : [E 3]\nvar output b : [3 E]\n"
                         "b = a ^ [[1 2]]\n", layout="col-major")
    a = np.asfortranarray(np.arange(15.0).reshape(5, 3))
    b = program(a=a)["b"]
    assert b.shape == (3, 5) and b.flags["F_CONTIGUOUS"]
    assert_same(b, a.T)


def test_calls_reuse_the_workspace_and_threads_still_get_their_own():
    # The JIT keeps one workspace per program (tl-workspace); a call that
    # finds it in use by another thread runs with temporaries of its own.
    program = tl.compile(HELMHOLTZ, threads=1)
    rng = np.random.default_rng(11)
    cases = [[rng.standard_normal(s) for s in [(4, 4), (4, 4, 4), (4, 4, 4)]]
             for _ in range(8)]
    for S, D, u in cases:
        assert_same(program(S=S, D=D, u=u)["v"], helmholtz(S, D, u))
    errors = []

    def work(index):
        for _ in range(20):
            S, D, u = cases[index]
            v = program(S=S, D=D, u=u)["v"]
            if not np.allclose(v, helmholtz(S, D, u), rtol=1e-12, atol=1e-12):
                errors.append(index)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


class _Printer:
    """What IPython passes to _repr_pretty_."""

    def __init__(self):
        self.text_ = ""

    def text(self, text):
        self.text_ += text


def test_jupyter_shows_the_signature_and_the_ir_as_text():
    program = tl.compile(HELMHOLTZ)
    printer = _Printer()
    program._repr_pretty_(printer, False)
    assert printer.text_ == (
        "tensorlang.Program (float64)\n"
        "  input         S : [4 4]\n"
        "  input         D : [4 4 4]\n"
        "  input         u : [4 4 4]\n"
        "  (internal)    t : [4 4 4]\n"
        "  output        v : [4 4 4]")
    sized = tl.compile("size E\nvar input a : [E 2]\nvar output b : [E 2]\n"
                       "b = a\n", layout="col-major")
    assert sized.describe().splitlines()[0] == (
        "tensorlang.Program (float64, sizes E, layout col-major)")
    ir = program.ir("linalg")
    assert isinstance(ir, tl.IR) and isinstance(ir, str)
    printer = _Printer()
    ir._repr_pretty_(printer, False)
    assert printer.text_ == str(ir) and "linalg.generic" in printer.text_


@pytest.mark.skipif(cudabuild.has_driver(), reason="a CUDA driver is present")
def test_gpu_target_without_a_driver_raises_runtime_error():
    with pytest.raises(RuntimeError) as error:
        tl.compile(MATMUL, target="cuda")
    message = str(error.value)
    assert message.startswith("no CUDA driver: libcuda.so.1")
    assert "\n" not in message


def test_unknown_target_is_refused():
    with pytest.raises(ValueError, match=r"unknown target 'tpu' \(host, cuda "
                                         "or a triple such as "):
        tl.compile(MATMUL, target="tpu")
    # The JIT runs this machine's code only, as in tl-run.
    with pytest.raises(ValueError, match="the JIT runs code for this machine "
                                         "only, not for 'aarch64-linux-gnu'"):
        tl.compile(MATMUL, target="aarch64-linux-gnu")


# The table of program options (include/tensorlang/API/ProgramOptions.h)
# checks every interface's values: these are the messages tl-run and
# tl-compile print (test/Tools/program-options.test) and the C API returns
# (test/CAPI/program.test), word for word.
@pytest.mark.parametrize("keywords, message", [
    (dict(threads=0), "threads must be a number from 1 to 1024, got '0'"),
    (dict(threads=5000),
     "threads must be a number from 1 to 1024, got '5000'"),
    (dict(syntax="fortran"),
     "unknown syntax 'fortran' (tensorlang, tl, cfdlang)"),
    (dict(l1_cache_bytes=-1), "l1-cache-bytes must be a positive number of "
                              "bytes (0: this machine's), got '-1'"),
    (dict(l2_cache_bytes=-1), "l2-cache-bytes must be a positive number of "
                              "bytes (0: this machine's), got '-1'"),
    (dict(l3_cache_bytes=-1), "l3-cache-bytes must be a positive number of "
                              "bytes (0: this machine's), got '-1'"),
    (dict(layout="diagonal"), "unknown layout 'diagonal' (row-major, "
                              "col-major)"),
    (dict(cpu=""), "cpu must be host or an LLVM CPU name such as x86-64-v3, "
                   "got ''"),
    (dict(distribute="2E", comm=types.SimpleNamespace(py2f=lambda: 0)),
     "distribute must be the name of a size of the program, got '2E'"),
    (dict(target="nowhere"), "unknown target 'nowhere' (host, cuda or a "
                             "triple such as aarch64-linux-gnu)"),
    (dict(opt_level=7), "opt-level must be 0, 1, 2 or 3, got '7'"),
    (dict(gpu_arch="volta"),
     "unknown GPU architecture 'volta' (expected sm_NN, such as sm_90)"),
])
def test_options_share_one_message(keywords, message):
    with pytest.raises(ValueError) as error:
        tl.compile(MATMUL, **keywords)
    assert str(error.value) == message
    with pytest.raises(TypeError, match="cpu must be a str"):
        tl.compile(MATMUL, cpu=3)
    with pytest.raises(TypeError, match="l1_cache_bytes must be an integer"):
        tl.compile(MATMUL, l1_cache_bytes="32K")


def test_cpu_and_cache_options_take_effect(tmp_path):
    """cpu= and the cache sizes are the code generator's target (the
    module's #tl.target, which the tiles are derived from)."""
    target = re.compile(r"#tl\.target<[^>]*>")
    default = target.search(tl.compile(MATMUL).ir("llvm")).group()
    assert 'cpu = "host"' in default
    given = target.search(tl.compile(
        MATMUL, cpu="x86-64-v2", l1_cache_bytes=4096,
        l2_cache_bytes=65536).ir("llvm")).group()
    assert 'cpu = "x86-64-v2"' in given
    # x86-64-v2 has SSE4.2, without AVX: 128-bit vectors.
    assert "vector_bits = 128" in given
    assert "l1_cache_bytes = 4096, l2_cache_bytes = 65536" in given
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((7, 5)), rng.standard_normal((5, 3))
    for keywords in [dict(cpu="x86-64"), dict(l1_cache_bytes=4096,
                                              l2_cache_bytes=65536)]:
        assert_same(tl.compile(MATMUL, **keywords)(A=a, B=b)["C"], a @ b,
                    1e-12, 1e-12)
    path = tmp_path / "p.tl"
    path.write_text("var input A : [2 2]\nvar input x : [2]\n"
                    "var output y : [2]\ny = (A # x) . [[0 2]]\n")
    # syntax overrides the extension, as --syntax does.
    y = tl.compile_file(path, syntax="cfdlang", cpu="x86-64")(
        A=np.array([[1., 2], [3, 4]]), x=np.array([1., 10]))["y"]
    np.testing.assert_array_equal(y, [31, 42])


CUDA_ARRAY = """
import json, sys
import numpy as np, tensorlang as tl

class CudaArray:
    '''Host memory dressed as a CUDA array (the stand-in driver's device
    memory is host memory).'''
    def __init__(self, array):
        self.array = array
        self.__cuda_array_interface__ = {
            "shape": array.shape, "typestr": array.dtype.str,
            "data": (array.ctypes.data, False), "strides": None,
            "version": 3}

prog = tl.compile(%r, target="cuda")
A, B, C = (CudaArray(np.ones(s)) for s in ((7, 5), (5, 3), (7, 3)))
print(prog(A=A, B=B, C=C)["C"] is C)
try:
    prog(A=A, B=np.ones((5, 3)), C=C)
except TypeError as error:
    print(error)
try:
    tl.compile(%r)(A=A, B=B, C=C)
except TypeError as error:
    print(error)
""" % (MATMUL, MATMUL)


@pytest.mark.skipif(cudabuild.has_driver(), reason="a CUDA driver is present")
def test_cuda_arrays_run_the_device_kernel_in_place(tmp_path):
    # tl.compile(target="cuda") on CUDA arrays (CuPy, PyTorch) calls the
    # device kernel on the arrays themselves: against a stand-in driver,
    # the kernels are queued on the current stream (CUDA's default for
    # arrays of no known library) with nothing copied, and the array given
    # for the output comes back.
    cudabuild.fake_driver(tmp_path)
    log = tmp_path / "driver.log"
    ran = subprocess.run(
        [sys.executable, "-c", CUDA_ARRAY], capture_output=True, text=True,
        env=dict(os.environ, LD_LIBRARY_PATH=str(tmp_path),
                 FAKE_CUDA_LOG=str(log)), timeout=120)
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    assert lines[0] == "True"
    assert lines[1].startswith("variables A, C are CUDA arrays and B are not")
    assert lines[2].startswith("CUDA arrays are for programs compiled with "
                               "target='cuda'")
    calls = [line.split() for line in log.read_text().splitlines()]
    # (The runtime's setting of the device's memory pool, then launches.)
    assert calls[0] == ["cuMemPoolSetAttribute-keep-all"], calls
    assert {call[0] for call in calls[1:]} == {"cuLaunchKernel"}, calls
    assert all(call[1] == "(nil)" for call in calls[1:]), calls


def test_gpu_stages_show_the_gpu_code():
    # The IR of a GPU program at each stage is the GPU's, not the CPU's
    # (which the stages showed before): its statements mapped to blocks and
    # threads with the device function, then its kernels as PTX. Printing
    # needs no driver.
    prog = tl.Program(MATMUL, target="cuda")
    loops = prog.ir("loops")
    assert "processor = block_x" in loops and "processor = thread_x" in loops
    assert "func.func @main_device(" in loops
    assert "vector." not in loops
    llvm = prog.ir("llvm")
    assert "gpu.binary @main_s0_kernel" in llvm and ".visible .entry" in llvm


def test_first_hour_messages(tmp_path):
    # A scalar's shape is (), as NumPy says, not (1,).
    prog = tl.compile("var input A : [3]\nvar output B : [3]\nB = A * 2\n")
    with pytest.raises(ValueError, match=r"shape \(\) does not match "
                                         r"variable 'A'"):
        prog(A=1.0)
    # A finite value too large for f32 overflows; it is not "infinite".
    single = tl.compile("var input A : [3]\nvar output B : [3]\nB = A * 2\n",
                        dtype="float32")
    with pytest.raises(ValueError, match=r"variable 'A': 1e\+300 at index "
                                         r"\(0,\) overflows float32"):
        single(A=np.array([1e300, 1.0, 2.0]))
    # A file's name where source belongs: compile_file is named.
    (tmp_path / "p.tl").write_text("var input a : [2]\nvar output b : [2]\n"
                                   "b = a\n")
    with pytest.raises(tl.CompileError, match="to compile the file '.*p.tl', "
                                              "use tl.compile_file"):
        tl.compile(str(tmp_path / "p.tl"))
    assert tl.compile_file(tmp_path / "p.tl")(a=np.ones(2))["b"].shape == (2,)


def test_cpu_stages_show_the_cpu_code():
    # The CPU's stages are the CPU's (for a while they took the GPU
    # pipeline's default chip for a GPU target and printed its mapping).
    prog = tl.Program(MATMUL)
    loops = prog.ir("loops")
    assert "affine.for" in loops or "scf.for" in loops
    assert "gpu." not in loops and "main_device" not in loops
    assert "gpu.binary" not in prog.ir("llvm")
