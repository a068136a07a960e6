"""Run from outside the source and build trees, by the interpreter of the
virtual environment the package was installed into (pip-install.test)."""

import os
import sys

import numpy as np
import tensorlang as tl

environment = os.path.realpath(sys.argv[1])
package = os.path.realpath(os.path.dirname(tl.__file__))
print("installed in the environment:", package.startswith(environment))
print("native module in the environment:",
      os.path.realpath(tl._tensorlang.__file__).startswith(environment))
program = tl.compile("var input A : [2 3]\nvar input B : [3 2]\n"
                     "var output C : [2 2]\nC = A # B . [[2 3]]\n")
A = np.arange(6.0).reshape(2, 3)
B = np.arange(6.0).reshape(3, 2)
print("result is A @ B:", np.array_equal(program(A=A, B=B)["C"], A @ B))
runtime = os.path.join(package, "libtensorlang_mpi.so")
print("MPI runtime packaged:", os.path.exists(runtime))
print("JIT points at the packaged runtime:",
      os.environ.get("TENSORLANG_MPI_RUNTIME_LIBRARY") == runtime)
# The runtime-only loader is part of the package.
print("loader packaged:", os.path.realpath(
    sys.modules["tensorlang.loader"].__file__).startswith(environment))
