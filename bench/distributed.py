#!/usr/bin/python3
"""Weak scaling of the distributed CFD kernels: K5 (interpolation) and K5H
(inverse Helmholtz) with `size E`, E = 4000 elements per process, run by
tl-run in one process and by `mpirun -np 2 tl-run --distribute=E` on twice
the elements, in the same run. Prints the slowest process's kernel median
and the efficiency t(1 process) / t(2 processes) (target: at least 0.9),
and checks that the distributed result equals the one-process run's on the
same elements.

    OMP_NUM_THREADS=1 /usr/bin/python3 bench/distributed.py [--build build]
        [--reps 20] [--rounds 3] [--elements 4000]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from sizes import KERNELS, P, cpu_name  # noqa: E402


def median_of(args):
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(args), result.stderr))
    return float(re.search(r"kernel median: (\S+) s", result.stderr).group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--elements", type=int, default=4000,
                        help="elements per process")
    args = parser.parse_args()
    tl_run = os.path.join(args.build, "bin", "tl-run")
    mpirun = shutil.which("mpirun")
    if not mpirun:
        sys.exit("no mpirun: install openmpi-bin (.ci/install)")
    launcher = [mpirun, "--oversubscribe", "--bind-to", "core"]
    if os.geteuid() == 0:
        launcher.append("--allow-run-as-root")
    print("CPU: %s; %d elements per process; tl-run --repeat=%d, best of %d"
          % (cpu_name(), args.elements, args.reps, args.rounds))
    print("| kernel | 1 process (s) | 2 processes (s) | efficiency | "
          "allreduce words per call |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as work:
        for ident in ("K5", "K5H"):
            template, names, output = KERNELS[ident]
            path = os.path.join(work, ident + ".tl")
            with open(path, "w") as f:
                f.write(template.format(p=P))
            files = {}
            for count in (args.elements, 2 * args.elements):
                rng = np.random.default_rng(count)
                for name in names:
                    shape = (P, P) if name in ("A", "S") else (count, P, P, P)
                    file = os.path.join(work, "%s-%d-%s.npy" % (ident, count, name))
                    np.save(file, rng.random(shape) - 0.5)
                    files[count, name] = file

            def command(count, out):
                return ["--repeat=%d" % args.reps, "--out", "%s=%s" % (output, out)] + [
                    a for name in names for a in ("--in", "%s=%s" % (name, files[count, name]))]

            one = os.path.join(work, "one.npy")
            two = os.path.join(work, "two.npy")
            whole = os.path.join(work, "whole.npy")
            best1 = best2 = float("inf")
            for _ in range(args.rounds):
                best1 = min(best1, median_of([tl_run, path] + command(args.elements, one)))
                best2 = min(best2, median_of(launcher + ["-np", "2", tl_run, path,
                                                         "--distribute=E"] +
                                             command(2 * args.elements, two)))
            median_of([tl_run, path, "--repeat=1", "--out", "%s=%s" % (output, whole)] + [
                a for name in names
                for a in ("--in", "%s=%s" % (name, files[2 * args.elements, name]))])
            same = np.array_equal(np.load(two), np.load(whole))
            print("| %s | %.4g | %.4g | %.2f | 0 |%s"
                  % (ident, best1, best2, best1 / best2,
                     "" if same else " RESULTS DIFFER"))


if __name__ == "__main__":
    main()
