# -*- Python -*-
# lit configuration of the TensorLang test suite.

import os
import platform
import shutil

import lit.formats
from lit.llvm import llvm_config

config.name = "TensorLang"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".tl", ".cfd", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tensorlang_obj_root, "test")
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
# A machine with the NVIDIA driver runs GPU code instead of failing softly.
# The CUDA toolkit whose libdevice MLIR links into GPU kernels, named to
# tl-lower-to-gpu as %cuda_toolkit.
cuda_toolkit = os.environ.get("CUDA_HOME", "/usr/local/cuda")
if os.path.exists(os.path.join(cuda_toolkit, "nvvm", "libdevice",
                               "libdevice.10.bc")):
    config.available_features.add("cuda-toolkit")
    config.substitutions.append(("%cuda_toolkit", cuda_toolkit))
# (The toolkit's stub libcuda.so is not the driver: load libcuda.so.1.)
import ctypes
try:
    ctypes.CDLL("libcuda.so.1")
    config.available_features.add("cuda-driver")
except OSError:
    pass
# Tests that name x86-64 CPUs (--cpu=x86-64-v3) and read x86 assembly.
if platform.machine() in ("x86_64", "AMD64"):
    config.available_features.add("x86_64")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%shlibext", config.llvm_shlib_ext))
config.substitutions.append(("%examples", os.path.join(config.tensorlang_src_root, "examples")))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%clang", os.path.join(config.llvm_tools_dir, "clang")))
# The source and build trees (pip-install.test builds the package in the
# build tree).
config.substitutions.append(("%tl_src_root", config.tensorlang_src_root))
config.substitutions.append(("%tl_obj_root", config.tensorlang_obj_root))
# The build tree's pkg-config files (lib/Runtime/*.pc.in).
config.substitutions.append(("%pkgconfig_path", os.path.join(config.tensorlang_obj_root, "lib", "pkgconfig")))
if shutil.which("gcc") and shutil.which("pkg-config"):
    config.available_features.add("gcc-pkg-config")
config.substitutions.append(("%tl_plugin", os.path.join(config.tensorlang_obj_root, "lib", "TensorLangPlugin" + config.llvm_shlib_ext)))

# A sanitized plugin cannot load into the system's uninstrumented mlir-opt.
if config.tensorlang_sanitized:
    config.available_features.add("sanitized")
# The libFuzzer harnesses (bin/tensorlang-fuzz-*) exist in fuzz builds only;
# regression inputs of the harnesses run there (test/Fuzz/regressions/).
if getattr(config, "tensorlang_fuzz", False):
    config.available_features.add("fuzz")
# Fortran programs calling kernels (tl-compile --fortran); .ci/install
# installs gfortran.
if shutil.which("gfortran"):
    config.available_features.add("gfortran")
# Distributed runs (tl-run --distribute) where MPI was found and mpirun
# exists; as root (CI), mpirun must be told it may run.
if getattr(config, "tensorlang_mpi", False) and shutil.which("mpirun"):
    config.available_features.add("mpi")
    mpirun = "mpirun --oversubscribe"
    if os.geteuid() == 0:
        mpirun += " --allow-run-as-root"
    if config.tensorlang_sanitized:
        # OpenMPI leaves allocations of its dynamically loaded components,
        # whose frames LeakSanitizer cannot name (so no suppression
        # matches): leak checking is off in the processes mpirun starts;
        # the other checks stay on.
        mpirun += " -x ASAN_OPTIONS=detect_leaks=0"
    config.substitutions.append(("%mpirun", mpirun))
    config.substitutions.append(
        ("%tensorlang_lib", os.path.join(config.tensorlang_obj_root, "lib")))
    config.substitutions.append(
        ("%tensorlang_obj_root", config.tensorlang_obj_root))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
# FileCheck, not, count and split-file come from LLVM's tools directory.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.tensorlang_tools_dir, append_path=True)

tool_dirs = [config.tensorlang_tools_dir, config.llvm_tools_dir]
tools = ["tl-compile", "tl-opt", "tl-run", "tl-translate", "tl-lsp-server",
         "tl-language-server",
         "tensorlang-capi-test", "tensorlang-capi-program-test",
         "tensorlang-capi-kernel-test", "mlir-opt", "mlir-translate", "llvm-nm",
         "llvm-objdump"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
