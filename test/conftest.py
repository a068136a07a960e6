import os
import subprocess
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))

BIN_DIR = os.environ.get(
    "TENSORLANG_BIN_DIR",
    os.path.join(os.path.dirname(__file__), "..", "build", "bin"))


class TlRun:
    """Runs tl-run on source text and arrays in a temporary directory."""

    def __init__(self, tmp_path):
        self.tmp = tmp_path
        self.count = 0

    def __call__(self, source, inputs=None, outputs=None, extra=(),
                 dtype=np.float64, suffix=".tl", check=True,
                 engine="reference", launcher=(), order="C"):
        self.count += 1
        prog = self.tmp / ("p%d%s" % (self.count, suffix))
        prog.write_text(source)
        args = list(launcher) + [os.path.join(BIN_DIR, "tl-run"), str(prog),
                                 "--engine=" + engine]
        for name, value in (inputs or {}).items():
            path = self.tmp / ("in%d_%s.npy" % (self.count, name))
            np.save(path, np.asarray(value, dtype=dtype, order=order))
            args += ["--in", "%s=%s" % (name, path)]
        paths = {}
        for name in outputs or []:
            paths[name] = self.tmp / ("out%d_%s.npy" % (self.count, name))
            args += ["--out", "%s=%s" % (name, paths[name])]
        args += list(extra)
        result = subprocess.run(args, capture_output=True, text=True)
        if check and result.returncode != 0:
            raise AssertionError("tl-run failed (%d):\n%s\n%s" % (
                result.returncode, source, result.stderr))
        if not check:
            return result
        return {name: np.load(path) for name, path in paths.items()}


@pytest.fixture
def tl_run(tmp_path):
    return TlRun(tmp_path)


def pytest_addoption(parser):
    parser.addoption(
        "--shard", default=None, metavar="K/N",
        help="Run only every N-th test, starting at the K-th (0-based), of "
             "those collected: ctest runs a long file as N tests side by "
             "side (test/CMakeLists.txt)")
    parser.addoption(
        "--sample", default=1, type=int, metavar="N",
        help="Run only every N-th case of each test function, its first "
             "included (before --shard): the sanitized build runs the long "
             "files so (test/CMakeLists.txt)")


def _select(config, items, keep):
    kept, deselected = [], []
    for position, item in enumerate(items):
        (kept if keep(position, item) else deselected).append(item)
    config.hook.pytest_deselected(items=deselected)
    items[:] = kept


def pytest_collection_modifyitems(config, items):
    sample = config.getoption("--sample")
    if sample < 1:
        raise pytest.UsageError("--sample must be 1 or more, got %d" % sample)
    if sample > 1:
        # Counted per function, so that each keeps its first case and every
        # N-th after it, however many cases the others have.
        seen = {}

        def in_sample(position, item):
            function = (item.nodeid.split("::")[0], item.originalname)
            seen[function] = seen.get(function, -1) + 1
            return seen[function] % sample == 0

        _select(config, items, in_sample)
    shard = config.getoption("--shard")
    if not shard:
        return
    try:
        index, count = (int(part) for part in shard.split("/"))
    except ValueError:
        raise pytest.UsageError("--shard must be K/N, got %r" % shard)
    if count < 1 or not 0 <= index < count:
        raise pytest.UsageError("--shard must be K/N with 0 <= K < N, got %r"
                                % shard)
    _select(config, items, lambda position, item: position % count == index)
