#!/usr/bin/env python3
"""Builds the GPU check bundle: every case of test/lib/gpucases.py compiled
with tl-compile --target=cuda into a driver executable (runtime linked in,
no LLVM needed to run it), its inputs, and the reference interpreter's
results, with test/gpu/run.py beside them; and each case as a kernel
library (tl-compile --shared, every third one also with --pad=4) with the
package's runtime-only Python part (tensorlang.load) in OUT/python. Copy
OUT to a machine with an NVIDIA GPU and driver and run `python3 OUT/run.py`
there (NumPy only; `--load` also runs the libraries on NumPy, CuPy and
PyTorch arrays where those are installed).

  /usr/bin/python3 test/gpu/make_bundle.py OUT [--build build]
      [--tl-flag=--gpu-depth-contiguous-tiles ...]

--tl-flag passes a tl-compile flag to every case's kernels and libraries
(a variant of the kernels checked on the GPU)."""

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))

import numpy as np  # noqa: E402

import cudabuild  # noqa: E402
import gpucases  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--build", default=os.path.join(HERE, "..", "..",
                                                        "build"))
    parser.add_argument("--random", type=int, default=12,
                        help="random programs (and half as many sized and "
                             "batched ones)")
    parser.add_argument("--tl-flag", action="append", default=[],
                        help="a tl-compile flag for every case (repeatable)")
    args = parser.parse_args()
    out = Path(args.out).resolve()
    if out.exists():
        shutil.rmtree(out)
    (out / "cases").mkdir(parents=True)
    bin_dir = os.path.join(args.build, "bin")
    runtime = cudabuild.runtime_object(out)
    manifest = []
    for name, source, store, live_out, dtype in gpucases.cases(args.random):
        work = out / "cases" / name
        kernel_args = cudabuild.build(work, source, store, bin_dir, runtime,
                                      dtype, extra=args.tl_flag)
        if kernel_args is None:
            sys.exit("make_bundle.py: %s needs libdevice: set CUDA_HOME to a "
                     "CUDA toolkit" % name)
        cudabuild.reference(os.path.join(bin_dir, "tl-run"), work, source,
                            store, dtype)
        # The inputs as .npy as well, for run.py --tl-run.
        for variable, value in store.items():
            np.save(work / ("in_%s.npy" % variable), np.asarray(value, dtype))
        padded = len(manifest) % 3 == 0
        for library, flags in (("k.so", []), ("kpad.so", ["--pad=4"])):
            if library == "kpad.so" and not padded:
                continue
            element = (["--element-type=f32"] if dtype == np.float32
                       else [])
            subprocess.run([os.path.join(bin_dir, "tl-compile"), "prog.tl",
                            "--target=cuda", "--shared", "--name=k", "-o",
                            library] + element + flags + args.tl_flag,
                           cwd=work, check=True)
        pointers = [n for kind, n in kernel_args if kind == "pointer"]
        for leftover in ("k.o", "driver.c", "k.h"):
            os.remove(work / leftover)
        manifest.append({"name": name, "outputs": [n for n in live_out
                                                   if n in pointers],
                         "variables": sorted(store),
                         "padded": padded,
                         "arguments": pointers,
                         "dtype": np.dtype(dtype).name})
    os.remove(runtime)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    shutil.copy(os.path.join(HERE, "run.py"), out / "run.py")
    package = out / "python" / "tensorlang"
    package.mkdir(parents=True)
    for name in ("__init__.py", "loader.py"):
        shutil.copy(os.path.join(HERE, "..", "..", "python", "tensorlang",
                                 name), package / name)
    print("%d cases in %s" % (len(manifest), out))


if __name__ == "__main__":
    main()
