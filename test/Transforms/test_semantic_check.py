"""Every tl-level pass on the random-program corpus, under
tl-opt --tl-check-semantics: the reference interpreter runs each program
before and after every pass on seeded random inputs, and any pass that
changes a live-out value (or leaves non-zero padding) fails the run."""

import os
import subprocess

import pytest

import tlgen

BIN_DIR = os.environ.get(
    "TENSORLANG_BIN_DIR",
    os.path.join(os.path.dirname(__file__), "..", "..", "build", "bin"))

TL_PASSES = ("tl-cse,canonicalize,cse,tl-dce,tl-fuse-statements,canonicalize,cse,"
             "tl-optimize-contractions")


def import_source(source):
    result = subprocess.run([os.path.join(BIN_DIR, "tl-translate"), "--import-tl"],
                            input=source, capture_output=True, text=True)
    assert result.returncode == 0, source + result.stderr
    return result.stdout


def check(ir, passes, seed=1):
    return subprocess.run(
        [os.path.join(BIN_DIR, "tl-opt"), "--tl-check-semantics",
         "--tl-check-semantics-seed=%d" % seed,
         "-mlir-print-op-on-diagnostic=false",
         "--pass-pipeline=builtin.module(tl.program(%s))" % passes],
        input=ir, capture_output=True, text=True)


def corpus_program(seed):
    gen = tlgen.Generator(7000 + seed, max_rank=4 if seed % 4 == 0 else 3)
    return gen.program(qualifiers=(seed % 3 == 0))


def assert_meaning_kept(program, passes, seed):
    result = check(import_source(program.source()), passes, seed)
    assert result.returncode == 0, program.source() + result.stderr
    assert "error" not in result.stderr, result.stderr
    assert "skipped" not in result.stderr, result.stderr


def count_caught(programs):
    """How many of `programs` (seed, program) the check catches when a pass
    turns the last `+` into `-`; every failure must be the check's."""
    caught = 0
    for seed, program in programs:
        if " + " not in program.source():
            continue
        result = check(import_source(program.source()),
                       "tl-cse,test-tl-break-semantics,canonicalize", seed)
        if result.returncode != 0:
            assert "pass 'test-tl-break-semantics' changed variable" in result.stderr \
                or "left a non-zero value" in result.stderr, result.stderr
            caught += 1
    return caught


@pytest.mark.parametrize("seed", range(150))
def test_tl_passes_keep_the_meaning(seed):
    passes = TL_PASSES
    if seed % 2:
        # The padded implementation too, before and after the others.
        passes = "tl-pad{multiple=%d},%s" % (2 + seed % 3, TL_PASSES)
    assert_meaning_kept(corpus_program(seed), passes, seed)


def test_the_check_catches_a_wrong_pass():
    # The same corpus through a pass that turns the last `+` into `-`:
    # whenever that changes an output, the check must say so.
    caught = count_caught((seed, corpus_program(seed)) for seed in range(150))
    assert caught >= 10, caught


@pytest.mark.parametrize("seed", range(30))
def test_tl_passes_keep_the_meaning_with_sizes(seed):
    # Programs with sizes are checked at one value of their sizes, the
    # same before and after each pass, padded or not.
    program = tlgen.Generator(11000 + seed).sized_program(qualifiers=(seed % 3 == 0))
    passes = TL_PASSES if seed % 2 == 0 else "tl-pad{multiple=3},%s" % TL_PASSES
    assert_meaning_kept(program, passes, seed)


def test_the_check_catches_a_wrong_pass_with_sizes():
    caught = count_caught((seed, tlgen.Generator(11000 + seed).sized_program())
                          for seed in range(60))
    assert caught >= 5, caught
