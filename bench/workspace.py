#!/usr/bin/python3
"""A caller's workspace (tl-workspace) against temporaries allocated per
call: kernels compiled by tl-compile and called from C, `prog(...)` (which
mallocs its temporaries) and `prog_ws(..., workspace)` (which finds them in
a workspace allocated once), alternately, in the same process. Prints the
median time of each, the minor page faults per call, and the ratio
plain / workspace (above 1: the workspace is faster).

    OMP_NUM_THREADS=1 /usr/bin/python3 bench/workspace.py [--build build]
        [--reps 15] [--only K5H,...]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

from run import cpu_name

HERE = os.path.dirname(os.path.abspath(__file__))

# name -> (source, description). The first two keep their intermediates
# (--no-optimize is not needed: t is read by a contraction); ccsd6 is the
# TCCG contraction whose transposition needs a temporary.
KERNELS = {
    "K5H": ("type f : [4000 11 11 11]\nvar input S : [11 11]\n"
            "var input D : f\nvar input u : f\nvar output v : f\nvar t : f\n"
            "t = u # S # S # S . [[2 5] [3 7] [4 9]]\n"
            "v = (D * t) # S # S # S . [[2 6] [3 8] [4 10]]\n",
            "inverse Helmholtz E=4000 p=11"),
    "K5": ("type f : [4000 11 11 11]\nvar input A : [11 11]\n"
           "var input u : f\nvar output v : f\n"
           "v = u # A # A # A . [[2 6] [3 8] [4 10]]\n",
           "interpolation E=4000 p=11"),
    # K5 with the element index last: its two 42 MB intermediates.
    "K5L": ("type f : [11 11 11 4000]\nvar input A : [11 11]\n"
            "var input u : f\nvar output v : f\n"
            "v = A # A # A # u . [[2 7] [4 8] [6 9]]\n",
            "interpolation, element index last, E=4000 p=11"),
    "T1": ("var input A : [{n} {n} {n} {n}]\nvar input B : [{n} {n} {n} {n}]\n"
           "var output C : [{n} {n} {n} {n}]\n"
           "C = A # B . [[1 7] [3 5]] ^ [[1 4] [2 3] [3 4]]\n",
           "TCCG ccsd6 abcd-aebf-dfce, all {n}"),
}

DRIVER = r"""
#include "kernel.h"
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
static long faults(void) {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}
static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
static double *buffer(long count, int seed) {
  double *p = aligned_alloc(64, (count * 8 + 63) / 64 * 64);
  for (long i = 0; i < count; ++i)
    p[i] = ((i * 7 + seed) %% 13) * 0.125 - 0.75;
  return p;
}

int main(int argc, char **argv) {
  int reps = atoi(argv[1]);
  %(declare)s
  long bytes = kernel_workspace_size();
  void *workspace = aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
  double plain[reps], ws[reps];
  long plainFaults = 0, wsFaults = 0;
  for (int r = -1; r < reps; ++r) {
    long f = faults();
    double t = now();
    kernel(%(args)s);
    if (r >= 0) { plain[r] = now() - t; plainFaults += faults() - f; }
    f = faults();
    t = now();
    kernel_ws(%(args)s, workspace);
    if (r >= 0) { ws[r] = now() - t; wsFaults += faults() - f; }
  }
  qsort(plain, reps, sizeof(double), compare);
  qsort(ws, reps, sizeof(double), compare);
  printf("%%g %%g %%ld %%ld %%ld\n", plain[reps / 2], ws[reps / 2],
         plainFaults / reps, wsFaults / reps, bytes);
  return 0;
}
"""


def interface(header):
    """The kernel's parameters, from the header: (name, element count)."""
    declaration = header[header.index("void kernel(") :].split(");")[0]
    params = []
    for line in declaration.splitlines()[1:]:
        match = re.match(r"\s*(?:const )?double \*(\w+),? /\* .*?, ([\d ]+) element", line)
        if match:
            params.append((match.group(1), int(match.group(2))))
    return params


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--only", default=",".join(KERNELS))
    parser.add_argument("--t1-extent", type=int, default=40)
    args = parser.parse_args()
    tl_compile = os.path.join(args.build, "bin", "tl-compile")
    print("CPU: %s; one thread; medians of %d calls" % (cpu_name(), args.reps))
    print("%-5s %-40s %12s %12s %13s %13s %12s %6s" % (
        "", "kernel", "plain s", "workspace s", "plain faults", "ws faults",
        "workspace B", "ratio"))
    for name in args.only.split(","):
        source, description = KERNELS[name]
        source = source.format(n=args.t1_extent)
        description = description.format(n=args.t1_extent)
        with tempfile.TemporaryDirectory() as directory:
            path = lambda f: os.path.join(directory, f)
            with open(path("kernel.tl"), "w") as f:
                f.write(source)
            subprocess.run([tl_compile, path("kernel.tl"), "-o", path("kernel.o"),
                            "--header", path("kernel.h")], check=True)
            params = interface(open(path("kernel.h")).read())
            declare = "\n  ".join("double *%s = buffer(%d, %d);" % (p, n, i)
                                  for i, (p, n) in enumerate(params))
            with open(path("driver.c"), "w") as f:
                f.write(DRIVER % {"declare": declare,
                                  "args": ", ".join(p for p, _ in params)})
            subprocess.run(["cc", "-O2", "-std=c11", "-D_POSIX_C_SOURCE=200809L",
                            "-I", directory, path("driver.c"), path("kernel.o"),
                            "-lm", "-o", path("driver")], check=True)
            out = subprocess.run([path("driver"), str(args.reps)], check=True,
                                 capture_output=True, text=True).stdout.split()
            plain, ws = float(out[0]), float(out[1])
            print("%-5s %-40s %12.5f %12.5f %13s %13s %12s %6.2f" % (
                name, description, plain, ws, out[2], out[3], out[4], plain / ws))


if __name__ == "__main__":
    main()
