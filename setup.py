"""Builds the `tensorlang` package's native module (_tensorlang) and the MPI
runtime through the project's CMake build, for `pip install .`.

TENSORLANG_BUILD_DIR names an existing build directory (configured by
.ci/build, say) to build in; otherwise the build is configured in
build-python/cmake with the settings of .ci/build (clang-22, lld, Ninja,
Debian's MLIR 22; .ci/install installs them). Only the targets the package
needs are built."""

import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE = os.path.dirname(os.path.abspath(__file__))


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.environ.get("TENSORLANG_BUILD_DIR") or os.path.join(
            SOURCE, "build-python", "cmake")
        build = os.path.abspath(build)
        if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
            llvm_prefix = subprocess.run(
                ["llvm-config-22", "--prefix"], check=True, capture_output=True,
                text=True).stdout.strip()
            generator = ["-G", "Ninja"] if shutil.which("ninja") else []
            # As .ci/build: ccache where it exists, hashing paths relative to
            # the checkout (another build of these sources hits its cache).
            if shutil.which("ccache"):
                os.environ.setdefault("CCACHE_BASEDIR", SOURCE)
                generator += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache",
                              "-DCMAKE_C_COMPILER_LAUNCHER=ccache"]
            subprocess.run(
                ["cmake", *generator, "-S", SOURCE, "-B", build,
                 "-DCMAKE_BUILD_TYPE=Release",
                 "-DCMAKE_C_COMPILER=clang-22", "-DCMAKE_CXX_COMPILER=clang++-22",
                 "-DLLVM_USE_LINKER=lld",
                 "-DMLIR_DIR=%s/lib/cmake/mlir" % llvm_prefix,
                 # The module is built for the interpreter that installs it.
                 "-DPython3_EXECUTABLE=%s" % sys.executable],
                check=True)
        targets = ["_tensorlang", "tensorlang_cuda"]
        cache = open(os.path.join(build, "CMakeCache.txt")).read()
        has_mpi = "TENSORLANG_HAVE_MPI:INTERNAL=ON" in cache
        if has_mpi:
            targets.append("tensorlang_mpi")
        subprocess.run(["cmake", "--build", build, "--target", *targets],
                       check=True)
        module_dir = os.path.join(build, "python_packages", "tensorlang")
        module = [f for f in os.listdir(module_dir)
                  if f.startswith("_tensorlang") and f.endswith(".so")]
        if len(module) != 1:
            sys.exit("setup.py: expected one _tensorlang module in %s, found %s"
                     % (module_dir, module))
        destination = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(destination), exist_ok=True)
        shutil.copyfile(os.path.join(module_dir, module[0]), destination)
        # The runtimes distributed and GPU programs load
        # (tensorlang/__init__.py points the JIT at these copies).
        shutil.copyfile(os.path.join(build, "lib", "libtensorlang_cuda.so"),
                        os.path.join(os.path.dirname(destination),
                                     "libtensorlang_cuda.so"))
        if has_mpi:
            shutil.copyfile(os.path.join(build, "lib", "libtensorlang_mpi.so"),
                            os.path.join(os.path.dirname(destination),
                                         "libtensorlang_mpi.so"))


setup(
    ext_modules=[CMakeExtension("tensorlang._tensorlang")],
    cmdclass={"build_ext": CMakeBuild},
    # setuptools' own build directory, apart from CMake's build/.
    options={"build": {"build_base": os.path.join("build-python", "setuptools")}},
)
