"""Programs with sizes: random well-typed programs whose extents are sizes,
run at several values of each size by tl-run on both engines, against the
NumPy evaluator of tlgen on the program bound to those values."""

import numpy as np
import pytest

import tlgen
from tlcompare import assert_same


def run_random_sized_program(tl_run, seed, extra):
    gen = tlgen.Generator(seed, max_rank=4 if seed % 4 == 0 else 3)
    program = gen.sized_program(qualifiers=(seed % 3 == 0), batch=(seed % 4 == 1))
    source = program.source()
    names = [name for name, _, _ in program.decls]
    # The extent the generator chose, values that divide nothing, and one
    # size 0 (an empty partition: empty tensors, empty sums).
    first = next(iter(program.sizes), None)
    for values in (dict(program.sizes),
                   {name: gen.rng.choice([1, 4, 5, 7]) for name in program.sizes},
                   {name: 0 if name == first else 3 for name in program.sizes}):
        bound = program.bind(values)
        # With a size 0, no undefined (NaN) values: the optimizer may take a
        # factor out of an empty sum (v * 0 rather than a sum of nothing),
        # which is NaN where v is.
        empty = 0 in values.values()
        store = gen.values(bound, undefined_fraction=0 if empty else 0.1)
        expected = tlgen.run(bound, store)
        ref = tl_run(source, store, names, engine="reference")
        for name in names:
            assert ref[name].shape == bound.storage_shapes[name]
            assert_same(ref[name], expected[name])
        jit = tl_run(source, store, names, engine="jit", extra=extra)
        for name in program.live_out:
            assert_same(jit[name], ref[name])
    return program


@pytest.mark.parametrize("seed", range(40))
def test_random_sized_programs(tl_run, seed):
    program = run_random_sized_program(tl_run, 11000 + seed, [])
    assert program.sizes


@pytest.mark.parametrize("seed", range(12))
def test_random_sized_programs_padded(tl_run, seed):
    run_random_sized_program(tl_run, 12000 + seed, ["--pad=4"])


@pytest.mark.parametrize("seed", range(12))
def test_random_sized_programs_threaded(tl_run, seed):
    run_random_sized_program(tl_run, 13000 + seed, ["--threads=2"])


def test_generator_makes_sizes():
    # Sizes in declarations and in contracted pairs; otherwise the tests
    # above test little.
    declared, contracted = 0, 0
    for seed in range(40):
        program = tlgen.Generator(11000 + seed).sized_program()
        text = program.source()
        assert text.startswith("size ")
        declared += sum(1 for _, shape, _ in program.decls
                        if set(shape) & set(program.sizes.values()))
        contracted += text.count(".")
    assert declared > 80 and contracted > 20
