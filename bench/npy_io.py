#!/usr/bin/python3
"""tl-run's I/O against NumPy's: the sum of two 4096 x 4096 f64 arrays
(134 MB each) read from .npy files and written to one, timed end to end
(process start, compilation, reading, the kernel, writing) against NumPy's
load + add + save in this interpreter, and in a process of its own as
tl-run is (interpreter start and `import numpy` included), interleaved, in
the same run. Prints the medians, the minor page faults of each, and the
ratio tl-run / NumPy in this interpreter (the target is at most 2). Both
are run in Fortran order too (--layout=col-major on Fortran-order files).

    /usr/bin/python3 bench/npy_io.py [--build build] [--rounds 5] [--extent 4096]
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from run import cpu_name

HERE = os.path.dirname(os.path.abspath(__file__))


def numpy_run(directory, order):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    start = time.perf_counter()
    x = np.load(os.path.join(directory, "x.npy"))
    y = np.load(os.path.join(directory, "y.npy"))
    np.save(os.path.join(directory, "numpy.npy"), x + y)
    seconds = time.perf_counter() - start
    del x, y
    return seconds, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


NUMPY_PROCESS = """
import sys, numpy as np
x = np.load(sys.argv[1] + '/x.npy'); y = np.load(sys.argv[1] + '/y.npy')
np.save(sys.argv[1] + '/process.npy', x + y)
"""


def numpy_process(directory):
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", NUMPY_PROCESS, directory], check=True)
    return time.perf_counter() - start


def tl_run(tool, directory, program, layout):
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt
    start = time.perf_counter()
    result = subprocess.run(
        [tool, program, "--layout=" + layout,
         "--in", "x=" + os.path.join(directory, "x.npy"),
         "--in", "y=" + os.path.join(directory, "y.npy"),
         "--out", "z=" + os.path.join(directory, "tl.npy")],
        capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit("tl-run failed:\n" + result.stderr)
    return seconds, resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt - before


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--extent", type=int, default=4096)
    args = parser.parse_args()
    tool = os.path.join(args.build, "bin", "tl-run")
    n = args.extent
    print("CPU: %s; two %d x %d f64 arrays (%.0f MB each)"
          % (cpu_name(), n, n, n * n * 8 / 1e6))
    print("%-6s %9s %15s %9s %13s %14s %6s" % (
        "order", "numpy s", "numpy process s", "tl-run s", "numpy faults",
        "tl-run faults", "ratio"))
    with tempfile.TemporaryDirectory() as directory:
        program = os.path.join(directory, "add.tl")
        with open(program, "w") as f:
            f.write("var input x : [{0} {0}]\nvar input y : [{0} {0}]\n"
                    "var output z : [{0} {0}]\nz = x + y\n".format(n))
        rng = np.random.default_rng(0)
        for order, layout in [("C", "row-major"), ("F", "col-major")]:
            for name in ["x", "y"]:
                np.save(os.path.join(directory, name + ".npy"),
                        np.asarray(rng.standard_normal((n, n)), order=order))
            numpy_times, tl_times, numpy_faults, tl_faults = [], [], [], []
            process_times = []
            for _ in range(args.rounds):
                process_times.append(numpy_process(directory))
                seconds, faults = numpy_run(directory, order)
                numpy_times.append(seconds)
                numpy_faults.append(faults)
                seconds, faults = tl_run(tool, directory, program, layout)
                tl_times.append(seconds)
                tl_faults.append(faults)
            same = np.array_equal(np.load(os.path.join(directory, "numpy.npy")),
                                  np.load(os.path.join(directory, "tl.npy")))
            if not same:
                sys.exit("tl-run and NumPy disagree")
            numpy_median = statistics.median(numpy_times)
            tl_median = statistics.median(tl_times)
            print("%-6s %9.3f %15.3f %9.3f %13d %14d %6.2f" % (
                order, numpy_median, statistics.median(process_times), tl_median,
                statistics.median(numpy_faults), statistics.median(tl_faults),
                tl_median / numpy_median))


if __name__ == "__main__":
    main()
