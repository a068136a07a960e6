"""Runs kernels that `tl-compile --shared` built, with ctypes and NumPy only.

    import numpy as np, tensorlang
    kernel = tensorlang.load("interp.so")     # tl-compile --shared [--target=cuda]
    v = kernel(u=u, A=A)["v"]                 # NumPy arrays: copied to the GPU and back
    v = kernel(u=cupy_u, A=cupy_A)["v"]       # CuPy or PyTorch CUDA arrays: no copies

The library describes its own interface (`tensorlang_interface()`), and a
GPU kernel's library holds TensorLang's CUDA runtime: this module needs
neither the compiler nor LLVM, only the NVIDIA driver for GPU kernels. It
imports nothing of the package's native module, so that it runs where that
module was not built (docs/gpu.md, Compiling for another machine).
"""

import ctypes
import json
import math
import os

import numpy as np

__all__ = ["Kernel", "load"]

_DTYPES = {"float64": np.float64, "float32": np.float32}
_TYPESTRS = {"float64": "<f8", "float32": "<f4"}


def load(path):
    """Loads a kernel library built by `tl-compile --shared`."""
    return Kernel(path)


class Kernel:
    """A kernel library. Call it with the variables' values as keyword
    arguments (NumPy arrays, or CuPy or PyTorch CUDA arrays for a GPU
    kernel); it returns the final values of the output variables (all
    variables, for a program without qualifiers) as a dict of arrays of the
    same kind. `run` also takes sizes that no array gives and a stream."""

    def __init__(self, path):
        path = os.fspath(path)
        if not os.path.exists(path):
            raise FileNotFoundError("no such file: %r" % path)
        try:
            self._lib = ctypes.CDLL(os.path.abspath(path))
        except OSError as error:
            raise OSError("cannot load %s as a kernel library (build one with "
                          "tl-compile --shared): %s" % (path, error)) from None
        try:
            describe = self._lib.tensorlang_interface
        except AttributeError:
            raise ValueError("%s is not a TensorLang kernel library (it has no "
                             "tensorlang_interface): build it with "
                             "tl-compile --shared" % path) from None
        describe.restype = ctypes.c_char_p
        describe.argtypes = []
        interface = json.loads(describe().decode())
        self._bind(interface, path,
                   lambda name, argtypes: _function(getattr(self._lib, name),
                                                    argtypes),
                   self._lib)

    @classmethod
    def _from_addresses(cls, interface, label, host, device, runtime):
        """A kernel of functions at addresses (the JIT's), with `runtime`
        the library of the CUDA runtime's functions."""
        kernel = cls.__new__(cls)
        addresses = {interface["function"]: host}
        if interface["device_function"]:
            addresses[interface["device_function"]] = device
        kernel._bind(interface, label,
                     lambda name, argtypes: ctypes.CFUNCTYPE(None, *argtypes)(
                         addresses[name]),
                     runtime)
        return kernel

    def _bind(self, interface, path, function, runtime):
        if interface.get("tensorlang_interface") != 1:
            raise ValueError("%s describes its interface in a version this "
                             "loader does not know (%r)"
                             % (path, interface.get("tensorlang_interface")))
        if interface["distributed"]:
            raise NotImplementedError(
                "%s is distributed over MPI processes (size %s): link its "
                "object from C instead" % (path, interface["distributed"]))
        self.interface = interface
        self.path = path
        self.dtype = np.dtype(_DTYPES[interface["dtype"]])
        self.sizes = tuple(interface["sizes"])
        self.variables = interface["variables"]
        self.gpu = interface["target"] == "cuda"
        self._order = "F" if interface["layout"] == "col-major" else "C"
        qualified = any(v["input"] or v["output"] for v in self.variables)
        self.results = tuple(v["name"] for v in self.variables
                             if v["output"] or not qualified)
        self._by_name = {v["name"]: v for v in self.variables}
        pointers = [ctypes.c_int64] * len(self.sizes) + \
            [ctypes.c_void_p] * len(self.variables)
        self._host = function(interface["function"], pointers)
        self._device = None
        self._runtime = runtime
        if self.gpu:
            self._device = function(interface["device_function"],
                                    pointers + [ctypes.c_void_p])
            runtime.tensorlang_cuda_last_error.restype = ctypes.c_char_p
            runtime.tensorlang_cuda_init.argtypes = [ctypes.c_char_p,
                                                     ctypes.c_size_t]
            runtime.mgpuSetDefaultDevice.argtypes = [ctypes.c_int32]
            self._initialized = False

    def __repr__(self):
        return "<tensorlang.Kernel %s: %s%s>" % (
            os.path.basename(self.path),
            ", ".join("%s[%s]" % (v["name"], " ".join(map(str, v["shape"])))
                      for v in self.variables),
            " on the GPU (%s)" % self.interface["gpu_chip"] if self.gpu else "")

    def __call__(self, **values):
        return self.run(values)

    def run(self, values, sizes=None, stream=None):
        """Runs the kernel on `values` (a dict of variable names to arrays).
        `sizes` gives sizes that no array's shape gives ({'E': 1000}).
        On CUDA arrays the work is queued on `stream` (a CUstream as an
        int; by default the current stream of CuPy or PyTorch) and the call
        returns without waiting, as CuPy's and PyTorch's operations do."""
        for name in values:
            if name not in self._by_name:
                raise TypeError("the kernel has no variable %r (variables: %s)"
                                % (name, ", ".join(self._by_name) or "none"))
        for v in self.variables:
            if v["input"] and v["name"] not in values:
                raise TypeError("input variable %r must be given (rule d-in-var)"
                                % v["name"])
        on_device = [name for name, value in values.items()
                     if hasattr(value, "__cuda_array_interface__")]
        if on_device and len(on_device) != len(values):
            raise TypeError("variables %s are CUDA arrays and %s are not: give "
                            "all on the GPU or all on the host" % (
                                ", ".join(on_device),
                                ", ".join(n for n in values if n not in on_device)))
        if on_device and not self.gpu:
            raise TypeError("%s is a kernel for the CPU (%s): give NumPy arrays"
                            % (os.path.basename(self.path), self.interface["target"]))
        if self.gpu:
            device = _device_of(values[on_device[0]]) if on_device else 0
            self._initialize(device)
        if on_device:
            return self._run_on_device(values, sizes, stream)
        return self._run_on_host(values, sizes)

    # --- sizes and shapes ---------------------------------------------------

    def _size_values(self, shapes, sizes, padded):
        """The sizes' values, from the given arrays' shapes (as declared, or
        padded) and `sizes`; checks every shape."""
        known = {}
        for name, value in (sizes or {}).items():
            if name not in self.sizes:
                raise ValueError("the kernel has no size %r (sizes: %s)"
                                 % (name, ", ".join(self.sizes) or "none"))
            # 0 is a size: the kernel then runs on empty tensors.
            if isinstance(value, bool) or int(value) != value or value < 0:
                raise ValueError("size %r must be a non-negative integer, "
                                 "got %r" % (name, value))
            known[name] = int(value)
        for name, shape in shapes.items():
            var = self._by_name[name]
            declared = var["buffer_shape"] if padded else var["shape"]
            if len(shape) != len(declared):
                raise ValueError("variable %r: shape %s does not match [%s]"
                                 % (name, tuple(shape), " ".join(map(str, declared))))
            for dim, (extent, want) in enumerate(zip(shape, declared)):
                if isinstance(want, str):
                    want = known.setdefault(want, extent)
                if extent != want:
                    raise ValueError("variable %r: shape %s does not match [%s]%s"
                                     % (name, tuple(shape),
                                        " ".join(map(str, declared)),
                                        " (sizes %s)" % known if known else ""))
        values = []
        for size in self.sizes:
            if size not in known:
                if any(size in v["shape"] for v in self.variables):
                    raise ValueError("size %r has no value: no array's shape gives "
                                     "it, so give it: run(values, sizes={%r: ...})"
                                     % (size, size))
                known[size] = 1
            values.append(known[size])
        return values, known

    @staticmethod
    def _resolve(shape, known):
        return tuple(known[e] if isinstance(e, str) else e for e in shape)

    # --- host ---------------------------------------------------------------

    def _run_on_host(self, values, sizes):
        arrays = {}
        for name, value in values.items():
            if np.iscomplexobj(value):
                raise TypeError("variable %r: complex values are not supported" % name)
            try:
                arrays[name] = np.asarray(value, dtype=self.dtype)
            except (TypeError, ValueError) as error:
                raise TypeError("variable %r: cannot convert to %s: %s"
                                % (name, self.dtype, error)) from None
            if self._by_name[name]["input"] and not np.isfinite(arrays[name]).all():
                raise ValueError("variable %r has an undefined (NaN) or infinite "
                                 "element" % name)
        size_values, known = self._size_values(
            {n: a.shape for n, a in arrays.items()}, sizes, padded=False)
        buffers, regions = [], {}
        for var in self.variables:
            shape = self._resolve(var["shape"], known)
            buffer_shape = self._resolve(var["buffer_shape"], known)
            given = arrays.get(var["name"])
            region = tuple(slice(0, e) for e in shape)
            if given is not None and shape == buffer_shape and \
                    not var["written"] and given.flags[self._order + "_CONTIGUOUS"]:
                buffer = given   # only read: no copy
            else:
                # Padding is zero; a value not given is undefined (NaN).
                buffer = np.zeros(buffer_shape, self.dtype, order=self._order)
                buffer[region] = given if given is not None else np.nan
            buffers.append(buffer)
            regions[var["name"]] = (buffer, region, shape == buffer_shape)
        self._clear_error()
        self._host(*size_values, *[b.ctypes.data for b in buffers])
        self._raise_error()
        return {name: (regions[name][0] if regions[name][2]
                       else regions[name][0][regions[name][1]].copy(order=self._order))
                for name in self.results}

    # --- device -------------------------------------------------------------

    def _run_on_device(self, values, sizes, stream):
        padded = any(v["shape"] != v["buffer_shape"] for v in self.variables)
        shapes = {}
        for name, value in values.items():
            interface = value.__cuda_array_interface__
            if interface["typestr"] != _TYPESTRS[self.interface["dtype"]]:
                raise TypeError("variable %r: a CUDA array of %s, the kernel takes "
                                "%s (convert it first: no copies are made on the "
                                "GPU)" % (name, interface["typestr"], self.dtype))
            shape = tuple(interface["shape"])
            if not _is_contiguous(shape, interface.get("strides"),
                                  self.dtype.itemsize, self._order):
                raise ValueError("variable %r: a CUDA array that is not %s-"
                                 "contiguous (copy it first)" % (
                                     name, self._order))
            if interface["data"][1] and self._by_name[name]["written"]:
                raise ValueError("variable %r is written but its CUDA array is "
                                 "read-only" % name)
            shapes[name] = shape
        # On the GPU the buffers are the caller's: a padded kernel takes them
        # with their padded shapes.
        size_values, known = self._size_values(shapes, sizes, padded=padded)
        first = values[next(iter(values))] if values else None
        pointers = []
        results = {}
        for var in self.variables:
            value = values.get(var["name"])
            if value is None:
                region = tuple(slice(0, e)
                               for e in self._resolve(var["shape"], known))
                value = _empty_like(first, self._resolve(var["buffer_shape"], known),
                                    region, self.dtype, self._order)
            pointers.append(value.__cuda_array_interface__["data"][0])
            if var["name"] in self.results:
                results[var["name"]] = value
        if stream is None:
            stream = _current_stream(first)
        self._clear_error()
        self._device(*size_values, *pointers, ctypes.c_void_p(stream or None))
        self._raise_error()
        return results

    # --- the CUDA runtime ---------------------------------------------------

    def _initialize(self, device):
        if not self._initialized:
            self._runtime.mgpuSetDefaultDevice(device)
            message = ctypes.create_string_buffer(512)
            if self._runtime.tensorlang_cuda_init(message, len(message)) != 0:
                raise RuntimeError(message.value.decode())
            self._initialized = True
            self._device_index = device
        elif device != self._device_index:
            raise RuntimeError("the arrays are on GPU %d, but this kernel runs on "
                               "GPU %d" % (device, self._device_index))

    def _clear_error(self):
        if self.gpu:
            self._runtime.tensorlang_cuda_clear_error()

    def _raise_error(self):
        if self.gpu:
            error = self._runtime.tensorlang_cuda_last_error()
            if error:
                raise RuntimeError(error.decode())


def _function(function, argtypes):
    function.argtypes = argtypes
    function.restype = None
    return function


def _is_contiguous(shape, strides, itemsize, order):
    """Whether a CUDA array interface's shape and strides (None: C order)
    lay the elements out in `order` without gaps."""
    if strides is None:
        return order == "C" or sum(extent > 1 for extent in shape) <= 1
    step = itemsize
    dims = reversed(range(len(shape))) if order == "C" else range(len(shape))
    for dim in dims:
        if shape[dim] != 1 and strides[dim] != step:
            return False
        step *= shape[dim]
    return True


def _library_of(array):
    return type(array).__module__.split(".")[0]


def _device_of(array):
    library = _library_of(array)
    if library == "cupy":
        return int(array.device.id)
    if library == "torch":
        return int(array.device.index or 0)
    return 0


def _current_stream(array):
    library = _library_of(array) if array is not None else None
    if library == "cupy":
        import cupy
        return int(cupy.cuda.get_current_stream().ptr)
    if library == "torch":
        import torch
        return int(torch.cuda.current_stream(array.device).cuda_stream)
    return 0


def _empty_like(array, shape, region, dtype, order):
    """A CUDA array of the library of `array` for a variable not given:
    undefined (NaN) in its real region `region`, zero padding."""
    library = _library_of(array) if array is not None else None
    if library == "cupy":
        import cupy
        result = cupy.zeros(shape, dtype=dtype, order=order)
    elif library == "torch" and order == "C":
        import torch
        result = torch.zeros(shape, dtype=getattr(torch, dtype.name),
                             device=array.device)
    else:
        raise TypeError("cannot allocate the variables not given on the GPU "
                        "next to a %s array: give every variable"
                        % (library or "CUDA"))
    result[region] = float("nan")
    return result
