//===- TensorLangModule.cpp - The tensorlang Python extension -------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A thin pybind11 layer over the program API (API/Program.h), which checks
// the bindings by the report's rules as tl-run does. Python's own
// conventions (conversion to arrays of the dtype, TypeError for an unknown
// keyword) live in tensorlang/__init__.py; this layer checks again what the
// copy relies on, so that no call can crash the interpreter. The options
// are checked by the table of program options (API/ProgramOptions.h), as
// tl-run's flags are: a bad value raises ValueError with tl-run's message.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/API/Program.h"
#include "tensorlang/API/ProgramOptions.h"

#include "mlir/IR/Diagnostics.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>

namespace py = pybind11;
using namespace mlir;
using namespace tensorlang;

namespace {

/// A source or IR error, raised in Python as tensorlang.CompileError with
/// the first error's line and column.
struct CompileError : std::exception {
  std::string message;
  int line = 0, column = 0;
  const char *what() const noexcept override { return message.c_str(); }
};

/// Collects the diagnostics of one operation as `file:line:col: error: ...`.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext &context)
      : handler(&context, [this](Diagnostic &diagnostic) {
          record(diagnostic);
          for (Diagnostic &note : diagnostic.getNotes())
            record(note);
          return success();
        }) {}

  /// The text collected so far (warnings, when loading succeeded).
  const std::string &getText() const { return text; }

  [[noreturn]] void raise(const std::string &fallback) {
    // An error of the machine, not of the program (no CUDA driver, say).
    if (!machineError.empty())
      throw std::runtime_error(machineError);
    CompileError error;
    error.message = text.empty() ? fallback : text;
    if (!error.message.empty() && error.message.back() == '\n')
      error.message.pop_back();
    error.line = line;
    error.column = column;
    throw error;
  }

private:
  void record(Diagnostic &diagnostic) {
    if (isa<UnknownLoc>(diagnostic.getLocation()) &&
        diagnostic.getSeverity() == DiagnosticSeverity::Error &&
        machineError.empty())
      machineError = diagnostic.str();
    std::string location;
    if (auto fileLoc = dyn_cast<FileLineColLoc>(diagnostic.getLocation())) {
      location = (fileLoc.getFilename().str() + ":" +
                  std::to_string(fileLoc.getLine()) + ":" +
                  std::to_string(fileLoc.getColumn()) + ": ");
      if (!line && diagnostic.getSeverity() == DiagnosticSeverity::Error) {
        line = fileLoc.getLine();
        column = fileLoc.getColumn();
      }
    }
    const char *kind = diagnostic.getSeverity() == DiagnosticSeverity::Error
                           ? "error"
                       : diagnostic.getSeverity() == DiagnosticSeverity::Note
                           ? "note"
                           : "warning";
    text += location + kind + ": " + diagnostic.str() + "\n";
  }

  ScopedDiagnosticHandler handler;
  std::string text;
  std::string machineError;
  int line = 0, column = 0;
};

} // namespace

namespace {
/// A program, through the program API (API/Program.h): what is checked and
/// run is the same as in tl-run and tl-compile.
class PyProgram {
public:
  /// `options` are (name, value) pairs of the table of program options
  /// (API/ProgramOptions.h), which checks them as tl-run checks its flags.
  PyProgram(const std::string &text, const std::string &filename, bool isIR,
            const std::vector<std::pair<std::string, std::string>> &options,
            const std::vector<std::string> &keep,
            const std::vector<std::pair<std::string, int64_t>> &sizes,
            int32_t communicator, bool fromFile)
      : program(makeOptions(options, sizes, communicator),
                [this](const std::string &message) { problem = message; }) {
    DiagnosticCollector diagnostics(program.getContext());
    // A file's kind is its extension, as the tools decide it (loadFile).
    if (failed(fromFile ? program.loadFile(filename)
                        : program.loadText(text, filename, isIR))) {
      if (!problem.empty())
        diagnostics.raise(takeProblem());
      diagnostics.raise("cannot read the program");
    }
    loadWarnings = diagnostics.getText();
    for (const std::string &name : keep)
      if (failed(program.keepResult(name)))
        throw py::value_error(takeProblem());
  }

  void compile() {
    DiagnosticCollector diagnostics(program.getContext());
    if (failed(program.compile()))
      diagnostics.raise(takeProblem("compilation failed"));
  }

  /// The compiled kernels for binding with ctypes (loader.py): the host
  /// function's and the device function's addresses (0 where there is
  /// none) and their interface as JSON.
  py::tuple kernels() {
    DiagnosticCollector diagnostics(program.getContext());
    FailureOr<void *> host = program.getKernel();
    FailureOr<std::string> interface = program.getKernelInterface();
    if (failed(host) || failed(interface))
      diagnostics.raise(takeProblem("compilation failed"));
    FailureOr<void *> device = program.getDeviceKernel();
    if (failed(device))
      takeProblem();
    return py::make_tuple(
        reinterpret_cast<uintptr_t>(*host),
        succeeded(device) ? reinterpret_cast<uintptr_t>(*device) : uintptr_t(0),
        *interface);
  }

  /// Per variable: name, shape (a size's name where a size stands),
  /// input, output.
  py::list signature() {
    py::list variables;
    for (const VariableInfo &var : program.getVariables()) {
      py::list shape;
      for (auto [extent, size] : llvm::zip(var.shape, var.sizes))
        shape.append(size.empty() ? py::object(py::int_(extent))
                                  : py::object(py::str(size)));
      variables.append(
          py::make_tuple(var.name, py::tuple(shape), var.input, var.output));
    }
    return variables;
  }

  std::vector<std::string> sizeNames() {
    return std::vector<std::string>(program.getSizeNames().begin(),
                                    program.getSizeNames().end());
  }

  py::list resultNames() {
    py::list names;
    for (llvm::StringRef name : program.getResultNames())
      names.append(py::str(name.str()));
    return names;
  }

  /// Runs on `arrays` (name -> array of the program's dtype, contiguous in
  /// the layout's order); returns the results' final values
  /// (getResultNames), in the layout's order.
  py::dict run(const py::dict &arrays, bool reference, double maxWork) {
    ElementKind kind = program.getElementKind();
    std::vector<NamedInput> inputs;
    std::vector<std::vector<int64_t>> shapes;
    shapes.reserve(arrays.size());
    for (auto [key, value] : arrays) {
      py::array array = py::cast<py::array>(value);
      bool dtypeOk = kind == ElementKind::F64
                         ? array.dtype().is(py::dtype::of<double>())
                         : array.dtype().is(py::dtype::of<float>());
      // The Python layer converts; this checks what the copy relies on.
      bool columnMajor = program.getOptions().layout == Layout::ColumnMajor;
      if (!dtypeOk || !(array.flags() & (columnMajor ? py::array::f_style
                                                     : py::array::c_style)))
        throw py::value_error("variable '" + py::cast<std::string>(key) +
                              "' needs a " + (columnMajor ? "Fortran" : "C") +
                              "-contiguous array of the program's dtype");
      shapes.emplace_back(array.shape(), array.shape() + array.ndim());
      inputs.push_back({py::cast<std::string>(key),
                        TensorView{kind, shapes.back(), array.data()}, ""});
    }

    DiagnosticCollector diagnostics(program.getContext());
    FailureOr<Store> store = program.bindInputs(inputs);
    if (failed(store))
      throw py::value_error(takeProblem("binding the inputs failed"));
    LogicalResult result = success();
    if (reference) {
      InterpreterOptions options;
      options.maxWork = maxWork;
      program.setInterpreterOptions(options);
      py::gil_scoped_release release;
      result = program.run(*store, Engine::Reference);
    } else {
      if (failed(program.compile()))
        diagnostics.raise(takeProblem("compilation failed"));
      py::gil_scoped_release release;
      result = program.run(*store, Engine::Jit);
    }
    if (failed(result))
      diagnostics.raise(takeProblem("running the program failed"));

    py::dict outputs;
    for (llvm::StringRef name : program.getResultNames()) {
      FailureOr<HostTensor> value = program.getResult(*store, name);
      if (failed(value))
        throw std::bad_alloc();
      llvm::ArrayRef<int64_t> shape = value->getShape();
      std::vector<py::ssize_t> dims(shape.begin(), shape.end());
      // Strides in bytes, in the layout's order.
      std::vector<py::ssize_t> strides(dims.size());
      py::ssize_t stride = getElementSize(kind);
      bool columnMajor = program.getOptions().layout == Layout::ColumnMajor;
      for (size_t i = 0; i < dims.size(); ++i) {
        size_t dim = columnMajor ? i : dims.size() - 1 - i;
        strides[dim] = stride;
        stride *= dims[dim];
      }
      py::dtype dtype = kind == ElementKind::F64 ? py::dtype::of<double>()
                                                 : py::dtype::of<float>();
      py::array out(dtype, dims, strides);
      std::memcpy(out.mutable_data(), value->getData(), value->getByteSize());
      outputs[py::str(name.str())] = out;
    }
    return outputs;
  }

  std::string ir(const std::string &stage) {
    DiagnosticCollector diagnostics(program.getContext());
    FailureOr<std::string> text = program.printStage(stage);
    if (failed(text)) {
      if (!problem.empty())
        throw py::value_error(takeProblem());
      diagnostics.raise("cannot print stage '" + stage + "'");
    }
    return *text;
  }

  int compilations() const { return program.getCompilations(); }

  /// The bytes of workspace the compiled kernel needs for these values of
  /// the sizes (the C API's tensorlangProgramGetWorkspaceSize).
  int64_t workspaceSize(const std::vector<int64_t> &sizes) {
    DiagnosticCollector diagnostics(program.getContext());
    FailureOr<int64_t> bytes = program.getWorkspaceSize(sizes);
    if (failed(bytes)) {
      if (!problem.empty())
        throw py::value_error(takeProblem());
      diagnostics.raise("cannot size the workspace");
    }
    return *bytes;
  }

  /// The source's warnings (`file:line:col: warning: ...`), for Python's
  /// warnings module.
  std::string warnings() const { return loadWarnings; }

private:
  static ProgramOptions
  makeOptions(const std::vector<std::pair<std::string, std::string>> &given,
              const std::vector<std::pair<std::string, int64_t>> &sizes,
              int32_t communicator) {
    ProgramOptions options;
    for (const auto &[name, value] : given)
      if (llvm::Error error = setProgramOption(options, name, value))
        throw py::value_error(llvm::toString(std::move(error)));
    // The JIT runs code for this machine: its CPU, or its NVIDIA GPU.
    if (llvm::Error error = checkJitTarget(options))
      throw py::value_error(llvm::toString(std::move(error)));
    options.sizes = sizes;
    options.compile.communicator = communicator;
    return options;
  }

  std::string takeProblem(const std::string &fallback = "") {
    std::string message = problem.empty() ? fallback : problem;
    problem.clear();
    return message;
  }

  std::string problem;
  std::string loadWarnings;
  Program program;
};

} // namespace

PYBIND11_MODULE(_tensorlang, m) {
  m.doc() = "TensorLang: compile and run tensor language programs";

  static py::exception<CompileError> compileError(m, "CompileError");
  py::register_exception_translator([](std::exception_ptr pointer) {
    try {
      if (pointer)
        std::rethrow_exception(pointer);
    } catch (const CompileError &error) {
      py::object instance =
          py::reinterpret_borrow<py::object>(compileError.ptr())(error.message);
      instance.attr("line") = error.line ? py::object(py::int_(error.line))
                                         : py::object(py::none());
      instance.attr("column") = error.column
                                    ? py::object(py::int_(error.column))
                                    : py::object(py::none());
      PyErr_SetObject(compileError.ptr(), instance.ptr());
    }
  });

  py::class_<PyProgram>(m, "Program")
      .def(py::init<const std::string &, const std::string &, bool,
                    const std::vector<std::pair<std::string, std::string>> &,
                    const std::vector<std::string> &,
                    const std::vector<std::pair<std::string, int64_t>> &,
                    int32_t, bool>(),
           py::arg("text"), py::arg("filename"), py::arg("is_ir"),
           py::arg("options"), py::arg("keep"), py::arg("sizes"),
           py::arg("communicator"), py::arg("from_file"))
      .def("size_names", &PyProgram::sizeNames)
      .def("warnings", &PyProgram::warnings)
      .def("compile", &PyProgram::compile)
      .def("kernels", &PyProgram::kernels)
      .def("signature", &PyProgram::signature)
      .def("result_names", &PyProgram::resultNames)
      .def("run", &PyProgram::run, py::arg("arrays"), py::arg("reference"),
           py::arg("max_work"))
      .def("ir", &PyProgram::ir, py::arg("stage"))
      .def("workspace_size", &PyProgram::workspaceSize, py::arg("sizes"))
      .def_property_readonly("compilations", &PyProgram::compilations);
}
