//===- TensorLangModule.cpp - The tensorlang Python extension -------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A thin pybind11 layer over the project's C++ API (frontend, padding pass,
// JIT, reference interpreter). Argument checking that is easier in Python
// (shapes, dtypes, names) lives in tensorlang/__init__.py; this layer checks
// again what it relies on, so that no call can crash the interpreter.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Compiler/Compiler.h"
#include "tensorlang/Dialect/TL/IR/TLDialect.h"
#include "tensorlang/Dialect/TL/Transforms/Passes.h"
#include "tensorlang/Frontend/MLIRGen.h"
#include "tensorlang/Interpreter/Interpreter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

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

  [[noreturn]] void raise(const std::string &fallback) {
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
  int line = 0, column = 0;
};

ElementKind kindOf(const std::string &dtype) {
  if (dtype == "float64")
    return ElementKind::F64;
  if (dtype == "float32")
    return ElementKind::F32;
  throw py::value_error("dtype must be 'float64' or 'float32', got '" +
                        dtype + "'");
}

/// A compiled program: its context and IR, and the JIT-compiled code.
class Program {
public:
  Program(const std::string &text, const std::string &filename, bool isIR,
          int64_t pad, const std::string &dtype, int64_t threads)
      : kind(kindOf(dtype)) {
    if (threads < 1 || threads > 1024)
      throw py::value_error("threads must be from 1 to 1024, got " +
                            std::to_string(threads));
    options.threads = unsigned(threads);
    if (pad < 0)
      throw py::value_error("pad must be 0 (no padding) or a positive "
                            "multiple, got " + std::to_string(pad));
    context.loadDialect<tl::TLDialect>();
    context.printOpOnDiagnostic(false);
    DiagnosticCollector diagnostics(context);
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(text, filename), llvm::SMLoc());
    if (isIR) {
      module = parseSourceFile<ModuleOp>(sourceMgr, &context);
    } else {
      ImportOptions options;
      options.elementType =
          kind == ElementKind::F32 ? ElementType::F32 : ElementType::F64;
      module = importSource(sourceMgr, &context, options);
    }
    if (!module)
      diagnostics.raise("cannot read the program");
    llvm::SmallVector<tl::ProgramOp> programs(module->getOps<tl::ProgramOp>());
    if (programs.size() != 1) {
      CompileError error;
      error.message = "expected exactly one tl.program, found " +
                      std::to_string(programs.size());
      throw error;
    }
    program = programs.front();
    if (getElementKind(program) != kind)
      throw py::value_error("the program's element type is " +
                            getElementKindName(getElementKind(program)).str() +
                            " but dtype is '" + dtype + "'");
    if (pad > 0 && failed(tl::padProgram(program, pad)))
      diagnostics.raise("padding failed");
  }

  /// Compiles once; later calls reuse the code.
  JitProgram &jit() {
    if (!compiled) {
      DiagnosticCollector diagnostics(context);
      FailureOr<std::unique_ptr<JitProgram>> result =
          JitProgram::compile(program, options);
      if (failed(result))
        diagnostics.raise("compilation failed");
      compiled = std::move(*result);
      ++compilations;
    }
    return *compiled;
  }

  py::list signature() {
    py::list variables;
    for (tl::VarOp var : program.getVars()) {
      llvm::ArrayRef<int64_t> shape = var.getRealShapeOrShape();
      variables.append(py::make_tuple(var.getSymName().str(),
                                      py::tuple(py::cast(std::vector<int64_t>(
                                          shape.begin(), shape.end()))),
                                      bool(var.getInput()),
                                      bool(var.getOutput())));
    }
    return variables;
  }

  /// Runs on `arrays` (name -> C-contiguous array of the program's dtype
  /// and the variable's shape); returns every variable's final value.
  py::dict run(const py::dict &arrays, bool reference, double maxWork) {
    Store store;
    for (tl::VarOp var : program.getVars()) {
      std::optional<HostTensor> tensor =
          HostTensor::allocateZero(kind, var.getType().getShape());
      if (!tensor)
        throw std::bad_alloc();
      fillCornerUndefined(*tensor, var.getRealShapeOrShape());
      store[var.getSymName()] = std::move(*tensor);
    }
    for (auto [key, value] : arrays) {
      std::string name = py::cast<std::string>(key);
      tl::VarOp var = program.lookupVar(name);
      if (!var)
        throw py::type_error("the program has no variable '" + name + "'");
      py::array array = py::cast<py::array>(value);
      llvm::ArrayRef<int64_t> shape = var.getRealShapeOrShape();
      bool dtypeOk = kind == ElementKind::F64
                         ? array.dtype().is(py::dtype::of<double>())
                         : array.dtype().is(py::dtype::of<float>());
      if (!dtypeOk || !(array.flags() & py::array::c_style) ||
          size_t(array.ndim()) != shape.size() ||
          !std::equal(shape.begin(), shape.end(), array.shape()))
        throw py::value_error("variable '" + name +
                              "' needs a C-contiguous array of the "
                              "program's dtype and the declared shape");
      copyIntoCorner(array.data(), shape, store[name]);
    }

    LogicalResult result = success();
    {
      DiagnosticCollector diagnostics(context);
      if (reference) {
        InterpreterOptions options;
        options.maxWork = maxWork;
        py::gil_scoped_release release;
        result = interpret(program, store, options);
      } else {
        JitProgram &code = jit();
        py::gil_scoped_release release;
        result = code.run(store);
      }
      if (failed(result))
        diagnostics.raise("running the program failed");
    }

    py::dict outputs;
    for (tl::VarOp var : program.getVars()) {
      llvm::ArrayRef<int64_t> shape = var.getRealShapeOrShape();
      std::optional<HostTensor> real =
          extractCorner(store[var.getSymName()], shape);
      if (!real)
        throw std::bad_alloc();
      std::vector<py::ssize_t> dims(shape.begin(), shape.end());
      py::array out = kind == ElementKind::F64
                          ? py::array(py::dtype::of<double>(), dims)
                          : py::array(py::dtype::of<float>(), dims);
      std::memcpy(out.mutable_data(), real->getData(), real->getByteSize());
      outputs[py::str(var.getSymName().str())] = out;
    }
    return outputs;
  }

  std::string ir(const std::string &stage) {
    DiagnosticCollector diagnostics(context);
    FailureOr<std::string> text = printStage(program, stage, options);
    if (failed(text))
      throw py::value_error("cannot print stage '" + stage +
                            "': expected 'tl', 'linalg', 'loops' or 'llvm'");
    return *text;
  }

  int compilations = 0;

private:
  MLIRContext context;
  llvm::SourceMgr sourceMgr;
  OwningOpRef<ModuleOp> module;
  tl::ProgramOp program;
  ElementKind kind;
  CompileOptions options;
  std::unique_ptr<JitProgram> compiled;
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

  py::class_<Program>(m, "Program")
      .def(py::init<const std::string &, const std::string &, bool, int64_t,
                    const std::string &, int64_t>(),
           py::arg("text"), py::arg("filename"), py::arg("is_ir"),
           py::arg("pad"), py::arg("dtype"), py::arg("threads"))
      .def("compile", [](Program &self) { self.jit(); })
      .def("signature", &Program::signature)
      .def("run", &Program::run, py::arg("arrays"), py::arg("reference"),
           py::arg("max_work"))
      .def("ir", &Program::ir, py::arg("stage"))
      .def_readonly("compilations", &Program::compilations);
}
