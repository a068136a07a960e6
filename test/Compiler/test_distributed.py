"""Random programs with sizes run over MPI processes (tl-run --distribute):
each program either runs on 2 and 3 processes with the results of one
process's run, or is refused with a reason when no process's block would
give its meaning (docs/distributed.md)."""

import os
import shutil
import subprocess

import numpy as np
import pytest

import tlgen
from conftest import BIN_DIR
from tlcompare import assert_same

MPIRUN = shutil.which("mpirun")


def distribution_available():
    if not MPIRUN:
        return False
    result = subprocess.run([os.path.join(BIN_DIR, "tl-run"), "--help"],
                            capture_output=True, text=True)
    return "--distribute" in result.stdout


pytestmark = pytest.mark.skipif(not distribution_available(),
                                reason="no mpirun or no MPI in this build")


def mpirun(processes):
    command = [MPIRUN, "--oversubscribe", "-np", str(processes)]
    if os.geteuid() == 0:
        command.append("--allow-run-as-root")
    # OpenMPI does not free its allocations before exiting, which a
    # sanitized tl-run's leak check would report (ignored elsewhere).
    command += ["-x", "ASAN_OPTIONS=detect_leaks=0"]
    return command


@pytest.mark.parametrize("seed", range(24))
def test_random_distributed_programs(tl_run, tmp_path, seed):
    gen = tlgen.Generator(14000 + seed)
    program = gen.sized_program(qualifiers=True)
    size = "N"
    # Enough indices that every process has some, and one that has none.
    for value in (7, 2):
        values = dict(program.sizes)
        values[size] = value
        bound = program.bind(values)
        store = gen.values(bound)
        names = program.live_out
        one = tl_run(program.source(), store, names, engine="jit")
        for processes in (2, 3):
            result = tl_run(program.source(), store, names, engine="jit",
                            extra=["--distribute=" + size],
                            launcher=mpirun(processes), check=False)
            if result.returncode != 0:
                assert "cannot distribute 'N'" in result.stderr, result.stderr
                pytest.skip("refused, as it should be: " + next(
                    line for line in result.stderr.splitlines()
                    if "cannot distribute" in line).split("error: ")[-1])
            for name in names:
                actual = np.load(tmp_path / ("out%d_%s.npy" % (tl_run.count, name)))
                assert_same(actual, one[name])
