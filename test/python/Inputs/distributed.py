"""Run under mpirun by distributed.test: every process compiles one program
with distribute="E" and calls it with its block of E = 10 elements (uneven
over 3 processes), and the first process says whether every process got
the block of v and the global dot product s that NumPy computes from the
whole arrays."""
import numpy as np
from mpi4py import MPI
import tensorlang as tl
comm = MPI.COMM_WORLD
src = """size E
var input A : [3 3]
var input u : [E 3]
var output v : [E 3]
var output s : []
v = u # A . [[2 3]]
s = u # v . [[1 3] [2 4]]
"""
rng = np.random.default_rng(4)
A = rng.random((3, 3)); u = rng.random((10, 3))
n, r = comm.Get_size(), comm.Get_rank()
counts = [10 // n + (i < 10 % n) for i in range(n)]
first = sum(counts[:r])
prog = tl.compile(src, distribute="E", comm=comm)
out = prog(A=A, u=u[first:first + counts[r]])
ok = np.allclose(out["v"], u[first:first + counts[r]] @ A) and np.isclose(out["s"], np.sum(u * (u @ A)))
oks = comm.gather(ok)
if r == 0:
    print(n, "processes:", all(oks))
