//===- Program.h - Load, bind, run and compile a program -------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The one program API every interface drives (tl-run, tl-compile, the
// Python module, the C API): load a program from source or IR, bind the
// caller's inputs by the report's rules, run it on either engine, read its
// results, or compile it ahead of time. The models are StableHLO's
// `reference/Api.h` (one entry point for the tools, Python and the tests)
// and CIRCT's Firtool options library (one options struct the tools' flags
// fill).
//
// The rules that used to live in each driver live here once:
//  - rule d-in-var: every input variable is given, without undefined or
//    infinite values, with the variable's declared shape and element type;
//  - rules d-var and d-pad-var: variables not given start undefined, their
//    padding (in a padded program) zero;
//  - which final values a run reports: the output variables, or every
//    variable of a program without qualifiers, plus any variable the caller
//    asked to keep. Asking for another variable's value is refused on both
//    engines alike: the optimizer may drop statements whose results no one
//    reads, so compiled code would not have it.
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_API_PROGRAM_H
#define TENSORLANG_API_PROGRAM_H

#include "tensorlang/API/ProgramOptions.h"
#include "tensorlang/Compiler/Compiler.h"
#include "tensorlang/Frontend/MLIRGen.h"
#include "tensorlang/Interpreter/Interpreter.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/SourceMgr.h"

#include <functional>
#include <optional>

namespace tensorlang {

/// Elements the caller owns, of a kind and a shape, in the order of the
/// program's layout (ProgramOptions::layout): row-major by default.
struct TensorView {
  ElementKind kind = ElementKind::F64;
  llvm::ArrayRef<int64_t> shape;
  const void *data = nullptr;

  static TensorView of(const HostTensor &tensor) {
    return {tensor.getKind(), tensor.getShape(), tensor.getData()};
  }
};

/// An initial value the caller gives for a variable. `origin` (a file name,
/// say) prefixes messages about the value itself.
struct NamedInput {
  std::string name;
  TensorView value;
  std::string origin;
  /// The tensor `value` views, if the store may take it instead of a copy
  /// (bindInputs moves it where it is the variable's whole storage).
  HostTensor *owned = nullptr;
};

/// A variable as the program's interface shows it.
struct VariableInfo {
  std::string name;
  /// The declared extents (the real region, in a padded program).
  llvm::SmallVector<int64_t> shape;
  /// The extents of its storage: padded, in a padded program.
  llvm::SmallVector<int64_t> storageShape;
  /// Per dimension, the size it stands for, or empty. A sized dimension's
  /// extent in `shape` and `storageShape` is mlir::ShapedType::kDynamic.
  llvm::SmallVector<std::string> sizes;
  bool input = false;
  bool output = false;
};

/// One tensor language program, loaded into a context of its own, with
/// everything needed to run or compile it.
class Program {
public:
  /// Receives the problems that have no place in a source file (arguments,
  /// bindings, files, memory). Problems located in the program are MLIR
  /// diagnostics on getContext(), with getSourceMgr()'s file:line:col.
  using ErrorHandler = std::function<void(const std::string &message)>;

  /// An empty program; install a diagnostic handler on getContext() if the
  /// default (printing to stderr) does not suit, then load().
  explicit Program(ProgramOptions options = {}, ErrorHandler onError = {});
  ~Program();
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;

  mlir::MLIRContext &getContext() { return context; }
  llvm::SourceMgr &getSourceMgr() { return sourceMgr; }
  const ProgramOptions &getOptions() const { return options; }
  /// The reference engine's options may change between runs.
  void setInterpreterOptions(const InterpreterOptions &interpreter) {
    options.interpreter = interpreter;
  }

  /// Reads `path`: source text if it ends in `.tl`, tl dialect IR if it ends
  /// in `.mlir`, CFDlang source in `.cfd` (source in the options' syntax,
  /// where they give one). Then as loadText.
  mlir::LogicalResult loadFile(llvm::StringRef path);
  /// Reads `text` (named `bufferName` in messages) as source or as IR,
  /// verifies it, finds its one tl.program, checks the element type against
  /// the options, and pads it if the options say so.
  mlir::LogicalResult loadText(llvm::StringRef text, llvm::StringRef bufferName,
                               bool isIR);

  /// The loaded program (padded, if padding was asked for).
  tl::ProgramOp getOp() const { return program; }
  ElementKind getElementKind() const;
  /// The variables in declaration order, with their qualifiers as written.
  llvm::ArrayRef<VariableInfo> getVariables() const { return variables; }
  const VariableInfo *lookupVariable(llvm::StringRef name) const;
  /// Whether any variable is declared `input` or `output` (as written).
  bool hasQualifiers() const { return qualified; }
  /// The program's sizes, in order of declaration.
  llvm::ArrayRef<std::string> getSizeNames() const { return sizeNames; }
  /// The variables whose final values a run reports: the output variables
  /// (every variable, without qualifiers) and the kept ones, in declaration
  /// order.
  llvm::SmallVector<llvm::StringRef> getResultNames() const;
  /// Whether a run reports `name`'s final value.
  bool isResult(llvm::StringRef name) const;

  /// Renames the program (the C function of an object file). Before
  /// compiling.
  mlir::LogicalResult setName(llvm::StringRef name);
  /// Asks for `name`'s final value as well: compiled code then computes it
  /// even where the program's qualifiers would let the optimizer drop it.
  /// Before compiling.
  mlir::LogicalResult keepResult(llvm::StringRef name);

  /// A store holding `inputs` and, for every other variable, undefined
  /// values (rules d-var, d-pad-var). Checks rule d-in-var and each value's
  /// variable, element kind and shape; reports what is wrong. The sizes
  /// take their values from the inputs' shapes, the options and `sizes`
  /// (this run's values); the store holds variables of those extents. A
  /// size that no variable has needs no value.
  mlir::FailureOr<Store>
  bindInputs(llvm::ArrayRef<NamedInput> inputs,
             llvm::ArrayRef<std::pair<std::string, int64_t>> sizes = {});

  /// Compiles for the JIT engine now (a run with it compiles on first use).
  /// A program with sizes is compiled once: its code takes their values.
  mlir::LogicalResult compile();
  /// The JIT-compiled function (compiling it now if need be), callable
  /// from C as an object file's: the sizes first, then one pointer per
  /// interface variable, in order of declaration (getKernelDeclaration).
  mlir::FailureOr<void *> getKernel();
  /// getKernel's workspace variant (tl-workspace), and the bytes of
  /// workspace it needs: -1 if they grow with the sizes (getWorkspaceSize).
  mlir::FailureOr<std::pair<void *, int64_t>> getWorkspaceKernel();
  /// The bytes of workspace the workspace variant needs for these values
  /// of the sizes (one per size, in order of declaration).
  mlir::FailureOr<int64_t> getWorkspaceSize(llvm::ArrayRef<int64_t> sizes);
  /// A GPU program's (target cuda) device variant of getKernel's function:
  /// the same arguments as device pointers, then a CUstream; it queues the
  /// work on the stream and returns (tl-compile's header, `<name>_device`).
  /// An error for other targets.
  mlir::FailureOr<void *> getDeviceKernel();
  /// The interface of the kernels as JSON (tensorlang::describeInterface),
  /// for callers that bind them at run time (Python's CUDA arrays).
  mlir::FailureOr<std::string> getKernelInterface();
  /// The C declaration of getKernel's function, as tl-compile's header has
  /// it (the function's name is the program's).
  mlir::FailureOr<std::string> getKernelDeclaration();
  /// Runs the program on `store` (from bindInputs) with the engine of the
  /// options.
  mlir::LogicalResult run(Store &store);
  /// Runs the program on `store` with `engine`.
  mlir::LogicalResult run(Store &store, Engine engine);
  /// A result's final value in `store`: its real region, or its whole
  /// storage with `keepPadding`, with the variable's shape and its elements
  /// in the layout's order. Refuses variables that are not results.
  mlir::FailureOr<HostTensor>
  getResult(const Store &store, llvm::StringRef name, bool keepPadding = false);
  /// As getResult, but moves the value out of `store` (which no longer
  /// holds the variable) where it is the whole stored tensor, rather than
  /// copying it: for a caller done with the store.
  mlir::FailureOr<HostTensor> takeResult(Store &store, llvm::StringRef name,
                                         bool keepPadding = false);

  /// Compiles ahead of time into an object file at `path` (written
  /// atomically) and returns the C header that declares its function,
  /// both from one lowering.
  mlir::FailureOr<std::string> emitObjectFile(llvm::StringRef path);
  /// As emitObjectFile, linked into a shared library at `path` that also
  /// describes its interface (tensorlang::linkSharedLibrary,
  /// describeInterface): for loaders without a header, and machines
  /// without TensorLang.
  mlir::FailureOr<std::string> emitSharedLibrary(llvm::StringRef path);
  /// The Fortran module declaring the function of emitObjectFile's object
  /// file (see tensorlang::emitFortranInterface).
  mlir::FailureOr<std::string> emitFortranInterface();
  /// The IR at a stage of the lowering: "tl", "linalg", "loops" or "llvm".
  mlir::FailureOr<std::string> printStage(llvm::StringRef stage);

  /// How many times the JIT compiled this program (0 or 1).
  int getCompilations() const { return compilations; }

private:
  mlir::FailureOr<std::string> emitCompiledCode(llvm::StringRef path,
                                                bool sharedLibrary);
  mlir::LogicalResult load(llvm::StringRef text, llvm::StringRef bufferName,
                           bool isIR, SourceSyntax syntax);
  mlir::LogicalResult finishLoading(mlir::OwningOpRef<mlir::ModuleOp> loaded);
  mlir::LogicalResult error(const llvm::Twine &message);
  mlir::LogicalResult checkNotCompiled(llvm::StringRef what);
  /// Compile options with what the target decides filled in.
  CompileOptions resolvedCompileOptions() const;
  /// The values of the sizes that the options and `sizes` give, checked.
  mlir::FailureOr<llvm::StringMap<int64_t>>
  getGivenSizes(llvm::ArrayRef<std::pair<std::string, int64_t>> sizes = {});
  /// The values of the sizes in a store from bindInputs, in order of
  /// declaration.
  mlir::FailureOr<std::vector<int64_t>> getSizesOf(const Store &store);
  /// The program with its sizes replaced by `values` (tl-bind-sizes); the
  /// program itself without sizes. The last one is kept.
  mlir::FailureOr<tl::ProgramOp>
  getBoundProgram(llvm::ArrayRef<int64_t> values);
  /// The program to compile: with its sizes, whose values the code takes
  /// as arguments, or bound to the values the options give, if they give
  /// all of them. Giving some but not all is an error `forObjectFile`.
  mlir::FailureOr<tl::ProgramOp> getProgramToCompile(bool forObjectFile);

  /// A program with sizes, bound to one set of values.
  struct BoundProgram {
    std::vector<int64_t> values;
    mlir::OwningOpRef<mlir::ModuleOp> module;
    tl::ProgramOp program;
  };

  ProgramOptions options;
  ErrorHandler onError;
  mlir::MLIRContext context;
  llvm::SourceMgr sourceMgr;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mutable tl::ProgramOp program;
  llvm::SmallVector<VariableInfo> variables;
  llvm::SmallVector<std::string> sizeNames;
  BoundProgram bound;
  bool qualified = false;
  llvm::StringSet<> kept;
  std::unique_ptr<JitProgram> jit;
  int compilations = 0;
};

} // namespace tensorlang

#endif // TENSORLANG_API_PROGRAM_H
