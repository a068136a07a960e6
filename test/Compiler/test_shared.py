"""tl-compile --shared and tensorlang.load: kernel libraries that run where
TensorLang is not installed. The loader runs here as it would on a GPU node
without the compiler: the package's Python files alone, without its native
module. CPU kernels are checked against the reference interpreter; GPU
kernels, which cannot run without a GPU, against a stand-in driver
(test/gpu/fake-driver) that logs what they queue on which stream."""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import cudabuild

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
BIN_DIR = os.environ.get("TENSORLANG_BIN_DIR",
                         os.path.join(ROOT, "build", "bin"))
TL_COMPILE = os.path.join(BIN_DIR, "tl-compile")
CC = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang-22")


def load_loader():
    """tensorlang/loader.py, imported from the source tree by itself."""
    spec = importlib.util.spec_from_file_location(
        "tensorlang_loader",
        os.path.join(ROOT, "python", "tensorlang", "loader.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


loader = load_loader()


def compile_shared(directory, source, *flags, name="k", env=None):
    directory.mkdir(parents=True, exist_ok=True)
    (directory / (name + ".tl")).write_text(source)
    result = subprocess.run(
        [TL_COMPILE, name + ".tl", "--shared", "-o", name + ".so",
         "--header", name + ".h", *flags],
        cwd=directory, capture_output=True, text=True, env=env)
    return result


def shared(directory, source, *flags, name="k"):
    result = compile_shared(directory, source, *flags, name=name)
    assert result.returncode == 0, result.stderr
    return directory / (name + ".so")


@pytest.fixture(scope="module")
def runtime_only(tmp_path_factory):
    """The package's Python files without its native module: what a GPU
    node where the compiler was not built has."""
    root = tmp_path_factory.mktemp("runtime-only")
    (root / "tensorlang").mkdir()
    for name in ("__init__.py", "loader.py"):
        shutil.copy(os.path.join(ROOT, "python", "tensorlang", name),
                    root / "tensorlang" / name)
    return root


def run_python(code, package, env=None):
    environment = dict(os.environ, PYTHONPATH=str(package), **(env or {}))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)],
                          capture_output=True, text=True, env=environment,
                          timeout=120)


CONTRACTION = """
var input A : [4 7]
var input B : [7 5]
var C : [4 5]
var output D : [4 5]
C = A # B . [[2 3]]
D = C * C + A # B . [[2 3]]
"""

SIZED = """
size E
var input u : [E 5 5]
var input S : [5 5]
var output v : [E 5 5]
v = u # S # S . [[2 5] [3 7]]
"""

UNQUALIFIED = """
var a : [3 11]
var b : [11]
var c : [3]
c = a # b . [[2 3]]
"""

# (source, flags, inputs as name -> shape with E = 7)
PROGRAMS = {
    "contraction": (CONTRACTION, [], {"A": (4, 7), "B": (7, 5)}),
    "contraction-padded": (CONTRACTION, ["--pad=4"],
                           {"A": (4, 7), "B": (7, 5)}),
    "contraction-col-major": (CONTRACTION, ["--layout=col-major"],
                              {"A": (4, 7), "B": (7, 5)}),
    "contraction-f32": (CONTRACTION, ["--element-type=f32"],
                        {"A": (4, 7), "B": (7, 5)}),
    "sized": (SIZED, [], {"u": (7, 5, 5), "S": (5, 5)}),
    "sized-padded-threads": (SIZED, ["--pad=4", "--threads=2"],
                             {"u": (7, 5, 5), "S": (5, 5)}),
    # A size of 0 (an empty partition): empty arrays in and out.
    "sized-zero": (SIZED, [], {"u": (0, 5, 5), "S": (5, 5)}),
    "sized-zero-padded-threads": (SIZED, ["--pad=4", "--threads=2"],
                                  {"u": (0, 5, 5), "S": (5, 5)}),
    "unqualified": (UNQUALIFIED, [], {"a": (3, 11), "b": (11,)}),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_load_runs_as_the_reference(tmp_path, tl_run, name):
    source, flags, shapes = PROGRAMS[name]
    dtype = np.float32 if "--element-type=f32" in flags else np.float64
    order = "F" if "--layout=col-major" in flags else "C"
    kernel = loader.load(shared(tmp_path, source, *flags))
    rng = np.random.default_rng(5)
    inputs = {n: rng.standard_normal(shape).astype(dtype)
              for n, shape in shapes.items()}
    copies = {n: value.copy() for n, value in inputs.items()}
    results = kernel(**inputs)
    assert set(results) == set(kernel.results)
    layout = ["--layout=col-major"] if order == "F" else []
    element = ["--element-type=f32"] if dtype == np.float32 else []
    reference = tl_run(source, inputs, list(results), dtype=dtype,
                       extra=layout + element, order=order)
    for output, value in results.items():
        assert value.dtype == dtype
        assert value.flags[order + "_CONTIGUOUS"]
        np.testing.assert_allclose(
            value, reference[output],
            rtol=1e-12 if dtype == np.float64 else 1e-5, atol=1e-12)
    # The caller's arrays are not written.
    for n, value in inputs.items():
        np.testing.assert_array_equal(value, copies[n])


def test_load_describes_the_interface(tmp_path):
    kernel = loader.load(shared(tmp_path, SIZED, "--pad=4"))
    assert kernel.sizes == ("E",)
    assert kernel.results == ("v",)
    assert not kernel.gpu
    assert [(v["name"], v["shape"], v["buffer_shape"], v["input"],
             v["output"], v["written"]) for v in kernel.variables] == [
        ("u", ["E", 5, 5], ["E", 8, 8], True, False, False),
        ("S", [5, 5], [8, 8], True, False, False),
        ("v", ["E", 5, 5], ["E", 8, 8], False, True, True)]
    assert repr(kernel) == "<tensorlang.Kernel k.so: u[E 5 5], S[5 5], v[E 5 5]>"


def test_load_errors(tmp_path):
    kernel = loader.load(shared(tmp_path, SIZED))
    u, S = np.ones((3, 5, 5)), np.ones((5, 5))
    with pytest.raises(TypeError, match="input variable 'S' must be given"):
        kernel(u=u)
    with pytest.raises(TypeError, match="the kernel has no variable 'w'"):
        kernel(u=u, S=S, w=S)
    with pytest.raises(ValueError,
                       match=r"variable 'S': shape \(5, 4\) does not match \[5 5\]"):
        kernel(u=u, S=np.ones((5, 4)))
    with pytest.raises(ValueError, match="undefined \\(NaN\\) or infinite"):
        kernel(u=u, S=np.full((5, 5), np.nan))
    with pytest.raises(ValueError, match="the kernel has no size 'F'"):
        kernel.run({"u": u, "S": S}, sizes={"F": 3})
    with pytest.raises(ValueError, match=r"variable 'u': shape \(3, 5, 5\) "
                       r"does not match \[E 5 5\] \(sizes \{'E': 4\}\)"):
        kernel.run({"u": u, "S": S}, sizes={"E": 4})
    with pytest.raises(TypeError, match="complex values"):
        kernel(u=u + 1j, S=S)
    with pytest.raises(FileNotFoundError):
        loader.load(tmp_path / "missing.so")
    (tmp_path / "k.tl").write_text("not a library")
    with pytest.raises(OSError, match="cannot load .*k.tl as a kernel library"):
        loader.load(tmp_path / "k.tl")
    (tmp_path / "other.c").write_text("int other(void) { return 1; }\n")
    subprocess.run([CC, "-shared", "-fPIC", "-o", "other.so", "other.c"],
                   cwd=tmp_path, check=True)
    with pytest.raises(ValueError, match="not a TensorLang kernel library"):
        loader.load(tmp_path / "other.so")


def test_size_on_no_variable(tmp_path):
    source = "size N\nvar input a : [3]\nvar output b : [3]\nb = a * 2\n"
    kernel = loader.load(shared(tmp_path, source))
    # N is on no variable: any value does, as in the C API.
    np.testing.assert_array_equal(kernel(a=np.arange(3.0))["b"],
                                  [0.0, 2.0, 4.0])


def test_runtime_only_package(tmp_path, runtime_only):
    library = shared(tmp_path, CONTRACTION)
    ran = run_python("""
        import numpy as np, tensorlang as tl
        k = tl.load(%r)
        A, B = np.arange(28.0).reshape(4, 7), np.ones((7, 5))
        C = A @ B
        assert np.array_equal(k(A=A, B=B)["D"], C * C + C)
        try:
            tl.compile("var a : [1]")
        except ImportError as error:
            print(error)
        """ % str(library), runtime_only)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith(
        "the TensorLang compiler (the package's native module) is not "
        "available here"), ran.stdout


def test_link_failures_leave_the_output_alone(tmp_path):
    (tmp_path / "k.so").write_text("previous")
    missing = compile_shared(tmp_path, CONTRACTION,
                             env=dict(os.environ, CC="/nonexistent/cc"))
    assert missing.returncode == 1
    assert "no C compiler to link a shared library for" in missing.stderr
    assert "set CC to one" in missing.stderr
    failing = compile_shared(tmp_path, CONTRACTION,
                             env=dict(os.environ, CC="false"))
    assert failing.returncode == 1
    assert "linking 'k.so' with" in failing.stderr and "failed" in failing.stderr
    assert (tmp_path / "k.so").read_text() == "previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.so", "k.tl"]


# --- GPU kernel libraries -------------------------------------------------

@pytest.fixture(scope="module")
def fake_driver(tmp_path_factory):
    directory = tmp_path_factory.mktemp("fake-driver")
    cudabuild.fake_driver(directory)
    return directory


# A temporary that two statements read (one transposed): it stays a device
# allocation, not a block's own buffer.
TEMPORARY = """
var input A : [4 7]
var input B : [7 5]
var C : [4 5]
var output D : [5 4]
var output F : [4 5]
C = A # B . [[2 3]]
D = C ^ [1 2]
F = C * C
"""


def gpu_library(tmp_path, source=CONTRACTION):
    result = compile_shared(tmp_path, source, "--target=cuda")
    assert result.returncode == 0, result.stderr
    return tmp_path / "k.so"


def test_gpu_library_needs_only_the_c_library(tmp_path):
    library = gpu_library(tmp_path)
    dynamic = subprocess.run(["readelf", "-d", str(library)],
                             capture_output=True, text=True, check=True).stdout
    needed = {line.split("[")[1].split("]")[0]
              for line in dynamic.splitlines() if "(NEEDED)" in line}
    # (The dynamic loader provides the runtime's thread-local storage.)
    assert needed <= {"libc.so.6", "libm.so.6", "libdl.so.2",
                      "libpthread.so.0", "ld-linux-x86-64.so.2"}, needed
    symbols = subprocess.run(["nm", "-D", "--defined-only", str(library)],
                             capture_output=True, text=True, check=True).stdout
    for symbol in ("k", "k_device", "tensorlang_interface",
                   "tensorlang_cuda_last_error", "mgpuLaunchKernel"):
        assert (" T %s\n" % symbol) in symbols
    header = (tmp_path / "k.h").read_text()
    assert ("void k_device(const double *A, const double *B, double *D, "
            "void *stream);") in header
    (tmp_path / "use.c").write_text(
        '#include "k.h"\nvoid use(const double *a, const double *b, double *d,'
        ' void *s) { k_device(a, b, d, s); k(a, b, d); }\n')
    subprocess.run([CC, "-Wall", "-Werror", "-c", "use.c"], cwd=tmp_path,
                   check=True)


@pytest.mark.skipif(cudabuild.has_driver(), reason="a CUDA driver is present")
def test_gpu_library_without_a_driver(tmp_path, runtime_only):
    library = gpu_library(tmp_path)
    ran = run_python("""
        import numpy as np, tensorlang as tl
        k = tl.load(%r)
        print(k)
        try:
            k(A=np.ones((4, 7)), B=np.ones((7, 5)))
        except RuntimeError as error:
            print(error)
        """ % str(library), runtime_only)
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    assert lines[0] == ("<tensorlang.Kernel k.so: A[4 7], B[7 5], D[4 5] on "
                        "the GPU (sm_90)>")
    assert lines[1].startswith("no CUDA driver: libcuda.so.1")


def logged(directory, code, runtime_only):
    log = directory / "driver.log"
    ran = run_python(code, runtime_only,
                     env={"LD_LIBRARY_PATH": str(directory.parent / "fake"),
                          "FAKE_CUDA_LOG": str(log)})
    assert ran.returncode == 0, ran.stderr
    return ran.stdout, [line.split() for line in log.read_text().splitlines()]


@pytest.fixture
def fake(tmp_path, fake_driver):
    (tmp_path / "fake").mkdir()
    shutil.copy(fake_driver / "libcuda.so.1", tmp_path / "fake")
    (tmp_path / "work").mkdir()
    return tmp_path / "work"


def test_gpu_host_function_queues_everything_on_one_stream(fake,
                                                           runtime_only):
    library = gpu_library(fake, TEMPORARY)
    _, calls = logged(fake, """
        import numpy as np, tensorlang as tl
        tl.load(%r)(A=np.ones((4, 7)), B=np.ones((7, 5)))
        """ % str(library), runtime_only)
    # The device's memory pool keeps what is freed (set once, first).
    assert calls[0] == ["cuMemPoolSetAttribute-keep-all"]
    calls = calls[1:]
    names = [call[0] for call in calls]
    # One stream for the call: copies in, the kernels (C on the device),
    # copies out, and one wait at the end; allocations in its order.
    assert names.count("cuStreamCreate") == 1
    stream = calls[0][1]
    assert all(call[1] == stream for call in calls if len(call) > 1), calls
    assert names.count("cuLaunchKernel") >= 2
    assert names[-2:] == ["cuStreamSynchronize", "cuStreamDestroy"]
    assert names.count("cuStreamSynchronize") == 1
    assert "cuMemAlloc" not in names and "cuMemFree" not in names
    assert names.count("cuMemAllocAsync") == 5   # A, B, D, F and C
    first_launch = names.index("cuLaunchKernel")
    last_launch = len(names) - 1 - names[::-1].index("cuLaunchKernel")
    assert names[:first_launch].count("cuMemcpyAsync") == 4   # A, B, D, F in
    assert names[last_launch:].count("cuMemcpyAsync") == 2    # D, F out


FAKE_ARRAY = """
import numpy as np, tensorlang as tl

class CudaArray:
    '''Host memory dressed as a CUDA array (the stand-in driver's device
    memory is host memory).'''
    def __init__(self, array, strides=None, typestr=None):
        self.array = array
        self.__cuda_array_interface__ = {
            "shape": array.shape, "typestr": typestr or array.dtype.str,
            "data": (array.ctypes.data, False), "strides": strides,
            "version": 3}
"""


def test_gpu_device_function_takes_cuda_arrays_and_a_stream(fake,
                                                            runtime_only):
    library = gpu_library(fake, TEMPORARY)
    out, calls = logged(fake, FAKE_ARRAY + """
k = tl.load(%r)
A, B, D, F = (CudaArray(np.ones(s))
              for s in ((4, 7), (7, 5), (5, 4), (4, 5)))
results = k.run({"A": A, "B": B, "D": D, "F": F}, stream=0xabc)
print(results["D"] is D)
for values, error in (
        ({"A": A, "B": np.ones((7, 5)), "D": D, "F": F}, TypeError),
        ({"A": CudaArray(np.ones((4, 7), np.float32)), "B": B, "D": D,
          "F": F}, TypeError),
        ({"A": CudaArray(np.ones((4, 7)), strides=(8, 32)), "B": B, "D": D,
          "F": F}, ValueError),
        ({"A": A, "B": B}, TypeError)):
    try:
        k.run(values)
        print("no error")
    except error as e:
        print(type(e).__name__, e)
""" % str(library), runtime_only)
    lines = out.splitlines()
    assert lines[0] == "True"
    assert lines[1].startswith("TypeError variables A, D, F are CUDA arrays "
                               "and B are not")
    assert lines[2].startswith("TypeError variable 'A': a CUDA array of <f4")
    assert lines[3].startswith("ValueError variable 'A': a CUDA array that is "
                               "not C-contiguous")
    assert lines[4].startswith("TypeError cannot allocate the variables not "
                               "given on the GPU")
    # On the caller's stream, without copies or waits; the temporary C is
    # allocated and freed in the stream's order.
    assert [call[0] for call in calls if call[0] != "cuLaunchKernel"] == [
        "cuMemPoolSetAttribute-keep-all", "cuMemAllocAsync", "cuMemFreeAsync"]
    assert all(call[1] == "0xabc" for call in calls[1:]), calls



# The GPU contraction kernels store each lane's two adjacent columns as one
# vector where the result's buffer is aligned for it, else one by one: a
# caller's pointer may be to any element. The kernel mapped as for the GPU
# and run on this CPU (--gpu-mapping-on-cpu), called from C with a result
# 16-byte aligned and one 8 bytes past that, takes both paths.
ALIGNMENT_DRIVER = r"""
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "k.h"
int main(void) {
  static double a[37 * 29], b[29 * 46];
  static _Alignas(16) double storage[37 * 46 + 2];
  for (int i = 0; i < 37 * 29; ++i) a[i] = sin(i);
  for (int i = 0; i < 29 * 46; ++i) b[i] = cos(3 * i);
  for (int start = 0; start < 2; ++start) {
    for (int i = 0; i < 37 * 46 + 2; ++i) storage[i] = NAN;
    double *c = storage + start;
    k(a, b, c);
    for (int i = 0; i < 37; ++i)
      for (int j = 0; j < 46; ++j) {
        double sum = 0;
        for (int l = 0; l < 29; ++l) sum += a[i * 29 + l] * b[l * 46 + j];
        if (!(fabs(c[i * 46 + j] - sum) <= 1e-12 * (1 + fabs(sum)))) {
          printf("start %d: C[%d][%d] = %g, expected %g\n", start, i, j,
                 c[i * 46 + j], sum);
          return 1;
        }
      }
    if (!isnan(storage[start ? 0 : 37 * 46]) || !isnan(storage[37 * 46 + 1])) {
      printf("start %d: written outside the result\n", start);
      return 1;
    }
  }
  return 0;
}
"""


@pytest.mark.skipif(not CC, reason="skipped: no C compiler")
def test_gpu_kernel_stores_at_any_alignment(tmp_path):
    (tmp_path / "k.tl").write_text(
        "var input A : [37 29]\nvar input B : [29 46]\n"
        "var output C : [37 46]\nC = A # B . [[2 3]]\n")
    compiled = subprocess.run(
        [TL_COMPILE, "k.tl", "--gpu-mapping-on-cpu", "--name=k",
         "--header=k.h", "-o", "k.o"], cwd=tmp_path, capture_output=True,
        text=True)
    assert compiled.returncode == 0, compiled.stderr
    (tmp_path / "driver.c").write_text(ALIGNMENT_DRIVER)
    linked = subprocess.run([CC, "driver.c", "k.o", "-o", "driver", "-lm"],
                            cwd=tmp_path, capture_output=True, text=True)
    assert linked.returncode == 0, linked.stderr
    ran = subprocess.run(["./driver"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=60)
    assert ran.returncode == 0, ran.stdout + ran.stderr
