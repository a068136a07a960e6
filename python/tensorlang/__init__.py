"""TensorLang: compile and run tensor language programs on NumPy arrays.

    import numpy as np, tensorlang as tl
    prog = tl.compile('''
        var input A : [3 4]
        var input B : [4 5]
        var output C : [3 5]
        C = A # B . [2 3]
    ''')
    out = prog(A=np.ones((3, 4)), B=np.ones((4, 5)))   # {'C': array(...)}

See docs/python.md.
"""

import collections
import ctypes
import json
import numbers
import os
import warnings

import numpy as np

from .loader import _DTYPES, Kernel, load

try:
    from ._tensorlang import CompileError, Program as _Program
except ImportError as _error:
    # Where the native module was not built (a GPU node without the
    # compiler, another Python): kernel libraries still load and run.
    _NATIVE_ERROR = _error

    class CompileError(Exception):
        """A program that does not compile (never raised without the
        compiler)."""

    def _Program(*args, **kwargs):
        raise ImportError("the TensorLang compiler (the package's native "
                          "module) is not available here (%s): only "
                          "tensorlang.load runs, on libraries built by "
                          "tl-compile --shared" % _NATIVE_ERROR)

# An installed package (setup.py) carries the MPI and CUDA runtimes next to
# its module: the JIT loads those copies for distributed and GPU programs.
for _name, _variable in (("libtensorlang_mpi.so",
                          "TENSORLANG_MPI_RUNTIME_LIBRARY"),
                         ("libtensorlang_cuda.so",
                          "TENSORLANG_CUDA_RUNTIME_LIBRARY")):
    _runtime = os.path.join(os.path.dirname(os.path.abspath(__file__)), _name)
    if os.path.exists(_runtime):
        os.environ.setdefault(_variable, _runtime)

__all__ = ["CompileError", "SourceWarning", "Program", "Variable",
           "Signature", "IR", "compile", "compile_file", "run_reference",
           "Kernel", "load"]


class IR(str):
    """The IR of a program at a stage of the lowering: a str that IPython
    and Jupyter show as the text itself, not as a quoted string."""

    def _repr_pretty_(self, printer, cycle):
        printer.text(str(self))


class SourceWarning(UserWarning):
    """Legal source that is almost always a mistake: a statement whose value
    is never used, an input never read (docs/language.md, Warnings). The
    message has the warnings' file:line:col lines."""

Variable = collections.namedtuple("Variable", "name shape input output")
Variable.__doc__ = ("A declared variable: its name, shape and qualifiers. A "
                    "sized dimension's extent is the size's name, a str.")

Signature = collections.namedtuple("Signature", "variables dtype sizes",
                                   defaults=((),))
Signature.__doc__ = ("A program's variables, in declaration order, its dtype "
                     "and its sizes (names of extents known at run time).")



def _check_dtype(dtype):
    try:
        name = np.dtype(dtype).name
    except TypeError:
        raise TypeError("dtype must be float64 or float32, got %r" % (dtype,))
    if name not in _DTYPES:
        raise ValueError("dtype must be float64 or float32, got %r" % (dtype,))
    return name


def _check_sizes(sizes):
    """The values of sizes as (name, value) pairs, from a dict or None."""
    if sizes is None:
        return []
    if not isinstance(sizes, dict):
        raise TypeError("sizes must be a dict of size names to integers, got %s"
                        % type(sizes).__name__)
    pairs = []
    for name, value in sizes.items():
        if not isinstance(name, str):
            raise TypeError("size names must be str, got %r" % (name,))
        pairs.append((name, _check_int(value, "size %r" % name, 0)))
    return pairs


def _check_distribution(distribute, comm):
    """The communicator as MPI's Fortran handle (mpi4py's comm.py2f()), for
    the compiled code."""
    if distribute is None:
        if comm is not None:
            raise ValueError("comm is given but distribute is not")
        return 0
    if comm is None or not hasattr(comm, "py2f"):
        raise TypeError("distribute needs comm, an mpi4py communicator "
                        "(mpi4py.MPI.COMM_WORLD), got %r" % (comm,))
    return int(comm.py2f())


# The keywords whose values are text (the others are integers).
_TEXT_OPTIONS = ("syntax", "distribute", "layout", "target", "cpu",
                 "gpu_arch")


def _options(flags=(), **given):
    """The keywords that are options of the table of program options
    (include/tensorlang/API/ProgramOptions.h) as its (name, text) pairs: the
    table checks the values, with tl-run's messages. Here only their Python
    types are checked; None leaves an option's default."""
    options = [(name, "true" if on else "false") for name, on in flags]
    for keyword, value in given.items():
        if value is None:
            continue
        if keyword in _TEXT_OPTIONS:
            if not isinstance(value, str):
                raise TypeError("%s must be a str, got %r" % (keyword, value))
            options.append((keyword.replace("_", "-"), value))
        else:
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise TypeError("%s must be an integer, got %r" % (keyword, value))
            options.append((keyword.replace("_", "-"), str(int(value))))
    return options


def _check_int(value, name, minimum):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError("%s must be an integer, got %r" % (name, value))
    if value < minimum:
        raise ValueError("%s must be at least %d, got %d" % (name, minimum, value))
    return int(value)


class Program:
    """A compiled program. Call it with the variables' initial values as
    keyword arguments; it returns the final values of the output variables
    (of all variables if the program has no qualifiers) as a dict.

    Compiled once, when created; calls reuse the code. The GIL is released
    while the kernel runs."""

    def __init__(self, text, filename="<string>", pad=0, dtype="float64",
                 threads=1, is_ir=False, keep=(), warnings_as_errors=False,
                 syntax=None, sizes=None, distribute=None, comm=None,
                 layout="row-major", target="host", from_file=False,
                 cpu=None, gpu_arch=None, l1_cache_bytes=None,
                 l2_cache_bytes=None, vector_bits=None, opt_level=None,
                 l3_cache_bytes=None):
        if not isinstance(text, str):
            raise TypeError("the program must be a str, got %s" % type(text).__name__)
        self._dtype = _check_dtype(dtype)
        if isinstance(keep, str):
            keep = (keep,)
        options = _options(
            flags=[("Werror", bool(warnings_as_errors))],
            pad=pad, threads=threads, syntax=syntax, distribute=distribute,
            layout=layout, target=target, cpu=cpu, gpu_arch=gpu_arch,
            l1_cache_bytes=l1_cache_bytes, l2_cache_bytes=l2_cache_bytes,
            l3_cache_bytes=l3_cache_bytes, vector_bits=vector_bits,
            opt_level=opt_level)
        options.append(("element-type",
                        "f32" if self._dtype == "float32" else "f64"))
        self._impl = _Program(text, filename, is_ir, options,
                              [str(name) for name in keep],
                              _check_sizes(sizes),
                              _check_distribution(distribute, comm),
                              bool(from_file))
        self._pad = int(pad)
        self._threads = int(threads)
        self._layout = "col-major" if layout == "column-major" else layout
        self._sizes = dict(sizes or {})
        self._device_kernel = None
        if self._impl.warnings():
            warnings.warn(self._impl.warnings().rstrip("\n"), SourceWarning,
                          stacklevel=3)
        variables = [Variable(name, tuple(shape), bool(i), bool(o))
                     for name, shape, i, o in self._impl.signature()]
        self._signature = Signature(variables, self._dtype,
                                    tuple(self._impl.size_names()))
        for name in (sizes or {}):
            if name not in self._signature.sizes:
                raise ValueError("the program has no size %r (sizes: %s)" % (
                    name, ", ".join(self._signature.sizes) or "none"))
        self._by_name = {v.name: v for v in variables}

    @property
    def signature(self):
        """The variables (name, shape, input, output) and the dtype."""
        return self._signature

    @property
    def results(self):
        """The variables whose final values a call returns: the output
        variables (all, without qualifiers) and those asked for with keep."""
        return tuple(self._impl.result_names())

    @property
    def layout(self):
        """The order of the elements of the arrays a call takes and returns:
        'row-major' (C) or 'col-major' (Fortran)."""
        return self._layout

    @property
    def pad(self):
        return self._pad

    @property
    def threads(self):
        """Threads that run the outermost parallel loop of each loop nest
        (OpenMP). Results do not depend on it: reductions stay sequential."""
        return self._threads

    def _arrays(self, values):
        arrays = {}
        for name, value in values.items():
            var = self._by_name.get(name)
            if var is None:
                raise TypeError("the program has no variable %r (variables: %s)"
                                % (name, ", ".join(self._by_name) or "none"))
            if np.iscomplexobj(value):
                raise TypeError("variable %r: complex values are not supported" % name)
            try:
                # A copy only where the array is not contiguous in the
                # layout's order, or not of the program's dtype. (asarray
                # keeps a scalar's shape, (); ascontiguousarray makes it
                # (1,).)
                order = "F" if self._layout == "col-major" else "C"
                given = np.asarray(value)
                with np.errstate(over="ignore"):
                    array = np.asarray(given, dtype=_DTYPES[self._dtype],
                                       order=order)
            except (TypeError, ValueError) as error:
                raise TypeError("variable %r: cannot convert to %s: %s"
                                % (name, self._dtype, error)) from None
            if array.dtype != given.dtype and given.dtype.kind == "f":
                # A finite value that the conversion made infinite does not
                # fit the program's dtype: say so, not "infinite value".
                overflowed = np.isfinite(given) & ~np.isfinite(array)
                if overflowed.any():
                    where = tuple(int(i) for i in
                                  np.argwhere(overflowed)[0])
                    raise ValueError(
                        "variable %r: %r at index %s overflows %s" % (
                            name, float(given[where]), where, self._dtype))
            # Shapes and rule d-in-var are checked by the program API, as in
            # tl-run.
            arrays[name] = array
        return arrays

    def __call__(self, **values):
        if any(hasattr(value, "__cuda_array_interface__")
               for value in values.values()):
            return self._on_device().run(values, self._sizes)
        return self._impl.run(self._arrays(values), False, 0.0)

    def _on_device(self):
        """The compiled kernels bound for CUDA arrays (CuPy, PyTorch): the
        device function, on the arrays themselves and the library's current
        stream (loader.Kernel)."""
        if self._device_kernel is None:
            host, device, interface = self._impl.kernels()
            if not device:
                raise TypeError("CUDA arrays are for programs compiled with "
                                "target='cuda'; this one runs on the CPU "
                                "(give NumPy arrays)")
            # The JIT loaded the CUDA runtime into the process.
            self._device_kernel = Kernel._from_addresses(
                json.loads(interface), "<program>", host, device,
                ctypes.CDLL(None))
        return self._device_kernel

    def run_reference(self, max_work=3e10, **values):
        """Runs the program with the reference interpreter instead."""
        return self._impl.run(self._arrays(values), True, float(max_work))

    def ir(self, stage="tl"):
        """The IR at a stage of the lowering, as text: 'tl', 'linalg',
        'loops' (affine loops and vectors) or 'llvm' (the LLVM dialect)."""
        if stage not in ("tl", "linalg", "loops", "llvm"):
            raise ValueError("stage must be 'tl', 'linalg', 'loops' or 'llvm', got %r"
                             % (stage,))
        return IR(self._impl.ir(stage))

    def __repr__(self):
        return "<tensorlang.Program %s>" % ", ".join(
            "%s%s" % (v.name, list(v.shape)) for v in self._signature.variables)

    def describe(self):
        """The signature as text, one variable per line: what IPython and
        Jupyter show for a program."""
        lines = ["tensorlang.Program (%s%s%s)" % (
            self._dtype,
            ", sizes " + " ".join(self._signature.sizes) if self._signature.sizes else "",
            ", layout " + self._layout if self._layout != "row-major" else "")]
        qualified = any(v.input or v.output for v in self._signature.variables)
        for v in self._signature.variables:
            qualifier = " ".join(q for q, on in (("input", v.input),
                                                 ("output", v.output)) if on)
            if qualified and not qualifier:
                qualifier = "(internal)"
            lines.append("  %-13s %s : [%s]" % (qualifier, v.name,
                                                 " ".join(map(str, v.shape))))
        return "\n".join(lines)

    def _repr_pretty_(self, printer, cycle):
        printer.text(self.describe())


def compile(source, pad=0, dtype="float64", threads=1, keep=(),
            warnings_as_errors=False, syntax="tl", sizes=None,
            distribute=None, comm=None, layout="row-major", target="host",
            cpu=None, gpu_arch=None, l1_cache_bytes=None, l2_cache_bytes=None,
            vector_bits=None, opt_level=None, l3_cache_bytes=None):
    """Compiles tensor language source text (or tl dialect IR, if it starts
    with a module or tl.program) into a Program. `keep` names variables
    whose final values calls return besides the outputs. The source's
    warnings are issued as SourceWarning, or raised as CompileError with
    `warnings_as_errors`. `syntax="cfdlang"` reads CFDlang source
    (docs/language.md, Differences from CFDlang). A program with sizes
    takes their values from the shapes of the arrays of each call; `sizes`
    gives values that no input's shape fixes, as {'E': 4000}.
    `distribute="E", comm=MPI.COMM_WORLD` (mpi4py) runs the program on the
    processes of comm, each calling with its block of E's indices
    (docs/distributed.md); every process must call. `layout="col-major"`
    takes and returns arrays in Fortran order (numpy order='F'), without
    copies for arrays already in that order. `target="cuda"` runs the
    statements on an NVIDIA GPU (docs/gpu.md; NumPy arrays are copied to
    the GPU and back; CuPy arrays and PyTorch CUDA tensors are used in
    place, without copies, and the call returns arrays of the same kind
    without waiting, on the library's current stream); without a driver or
    a GPU it raises RuntimeError. `gpu_arch` is its architecture ('sm_90').
    `cpu` compiles for an LLVM CPU ('x86-64-v3'; this one runs the code),
    `l1_cache_bytes`, `l2_cache_bytes` and `l3_cache_bytes` (one core's
    share of L3) size the tiles for another machine's caches, `vector_bits`
    and `opt_level` are tl-run's --vector-bits and --opt-level. A bad value raises ValueError with
    tl-run's message (docs/python.md, Options)."""
    is_ir = isinstance(source, str) and source.lstrip().startswith(("module", "tl.program"))
    try:
        program = Program(source, "<string>", pad, dtype, threads, is_ir, keep,
                          warnings_as_errors, syntax, sizes, distribute, comm,
                          layout, target, cpu=cpu, gpu_arch=gpu_arch,
                          l1_cache_bytes=l1_cache_bytes,
                          l2_cache_bytes=l2_cache_bytes,
                          l3_cache_bytes=l3_cache_bytes,
                          vector_bits=vector_bits, opt_level=opt_level)
        program._impl.compile()
    except CompileError as error:
        # A file's name where source text belongs: point at compile_file.
        name = source.strip() if isinstance(source, str) else ""
        if "\n" not in name and (name.endswith((".tl", ".cfd", ".mlir")) or
                                 os.path.exists(name)):
            error.args = (error.args[0] + "\n(tl.compile takes source text; "
                          "to compile the file %r, use tl.compile_file)"
                          % name,) + error.args[1:]
        raise
    return program


def compile_file(path, pad=0, dtype="float64", threads=1, keep=(),
                 warnings_as_errors=False, sizes=None, layout="row-major",
                 target="host", syntax=None, cpu=None, gpu_arch=None,
                 l1_cache_bytes=None, l2_cache_bytes=None, vector_bits=None,
                 opt_level=None, l3_cache_bytes=None):
    """Compiles a .tl source file, a .cfd CFDlang source file or a .mlir
    file in the tl dialect, as tl-run and tl-compile do: a file of another
    extension is refused (CompileError), not guessed. `syntax` reads a
    source file in that language whatever its extension; the other options
    are compile's."""
    path = os.fspath(path)
    # (A missing file raises FileNotFoundError, as open does.)
    with open(path):
        pass
    program = Program("", path, pad, dtype, threads, False, keep,
                      warnings_as_errors, syntax, sizes, layout=layout,
                      target=target, from_file=True, cpu=cpu,
                      gpu_arch=gpu_arch, l1_cache_bytes=l1_cache_bytes,
                      l2_cache_bytes=l2_cache_bytes,
                      l3_cache_bytes=l3_cache_bytes, vector_bits=vector_bits,
                      opt_level=opt_level)
    program._impl.compile()
    return program


def run_reference(source, pad=0, dtype="float64", max_work=3e10, keep=(),
                  sizes=None, **values):
    """Runs source text with the reference interpreter (no compilation)."""
    is_ir = isinstance(source, str) and source.lstrip().startswith(("module", "tl.program"))
    return Program(source, "<string>", pad, dtype, 1, is_ir, keep,
                   sizes=sizes).run_reference(
        max_work=max_work, **values)
