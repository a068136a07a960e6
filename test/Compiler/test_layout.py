"""Column-major storage (--layout=col-major, tl-column-major): random
well-typed programs, plain, batched, with sizes, padded and threaded, run
on Fortran-order .npy files by both engines, against the NumPy evaluator
of tlgen. The results must be the same values, written in Fortran order."""

import numpy as np
import pytest

import tlgen
from tlcompare import assert_same


def run_in_layouts(tl_run, program, store, extra):
    source = program.source()
    expected = tlgen.run(program, store)
    # Only the live-out variables are written: with qualifiers the others
    # stay intermediates, internal to the compiled function.
    names = list(program.live_out)
    for engine in ["reference", "jit"]:
        # Files in Fortran order, read without a transposition; files in C
        # order are transposed as they are read.
        for order in ["F", "C"]:
            out = tl_run(source, store, names, engine=engine, order=order,
                         extra=["--layout=col-major"] + extra)
            for name in names:
                value = out[name]
                assert value.ndim < 2 or value.flags["F_CONTIGUOUS"]
                assert value.ndim < 2 or not value.flags["C_CONTIGUOUS"] \
                    or min(value.shape) == 1
                assert_same(value, expected[name])


@pytest.mark.parametrize("seed", range(30))
def test_random_programs_column_major(tl_run, seed):
    gen = tlgen.Generator(21000 + seed, max_rank=4 if seed % 4 == 0 else 3)
    if seed % 2:
        program = gen.program(qualifiers=(seed % 4 == 1))
    else:
        program = gen.batch_program(qualifiers=(seed % 4 == 0))
    extra = [[], ["--pad=4"], ["--threads=2"]][seed % 3 if seed % 5 else 0]
    store = gen.values(program)
    run_in_layouts(tl_run, program, store, extra)


@pytest.mark.parametrize("seed", range(8))
def test_random_sized_programs_column_major(tl_run, seed):
    # The program keeps its sizes: compiled once, sized by the inputs.
    gen = tlgen.Generator(22000 + seed, max_rank=3)
    program = gen.sized_program(qualifiers=(seed % 2 == 0))
    bound = program.bind({name: gen.rng.choice([1, 5, 7])
                          for name in program.sizes})
    store = gen.values(bound)
    names = [name for name, _, _ in program.decls]
    expected = tlgen.run(bound, store)
    for engine in ["reference", "jit"]:
        out = tl_run(program.source(), store, names, engine=engine, order="F",
                     extra=["--layout=col-major"])
        for name in (names if engine == "reference" else program.live_out):
            assert_same(out[name], expected[name])


def test_row_major_run_reads_fortran_order_files(tl_run):
    a = np.arange(12.0).reshape(3, 4)
    out = tl_run("var input a : [3 4]\nvar output b : [4 3]\nb = a ^ [[1 2]]\n",
                 {"a": a}, ["b"], engine="jit", order="F")
    assert out["b"].flags["C_CONTIGUOUS"]
    assert_same(out["b"], a.T)


def test_printed_values_are_the_same_in_both_layouts(tl_run):
    source = "var input a : [2 3]\nvar output b : [2 3]\nb = a * 2\n"
    a = np.arange(6.0).reshape(2, 3)
    printed = [tl_run(source, {"a": a}, [], engine="jit", order=order,
                      extra=["--print", "--layout=" + layout], check=False)
               for layout, order in [("row-major", "C"), ("col-major", "F")]]
    assert [result.returncode for result in printed] == [0, 0]
    printed = [result.stdout for result in printed]
    assert printed[0] == printed[1]
    assert "[[0, 2, 4],\n [6, 8, 10]]" in printed[0]


def test_distributed_column_major_is_refused(tl_run):
    result = tl_run("size E\nvar input a : [E 3]\nvar output b : [E 3]\nb = a\n",
                    {"a": np.ones((4, 3))}, ["b"], engine="jit", check=False,
                    extra=["--layout=col-major", "--distribute=E"])
    assert result.returncode != 0
    assert "column-major layout cannot be combined with distribution" in result.stderr
