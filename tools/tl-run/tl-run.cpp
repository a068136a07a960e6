//===- tl-run.cpp - Run tensor language programs on .npy files ------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
//   tl-run PROGRAM [--in NAME=FILE.npy]... [--out NAME=FILE.npy]...
//          [--engine=reference|jit] [--pad=M] [--print] [--repeat=N]
//
// PROGRAM is tensor language source (.tl) or tl dialect IR (.mlir).
// Variables not given with --in start undefined (NaN); `input` variables
// must be given, with no undefined values (rule d-in-var). --out writes a
// variable's final value; without --out, or with --print, the final values
// of the output variables (of all variables if the program has no
// qualifiers) are printed. Exit status 0 on success, 1 on any error.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Compiler/Compiler.h"
#include "tensorlang/Dialect/TL/IR/TLDialect.h"
#include "tensorlang/Dialect/TL/IR/TLOps.h"
#include "tensorlang/Dialect/TL/IR/TypeRules.h"
#include "tensorlang/Dialect/TL/Transforms/Passes.h"
#include "tensorlang/Frontend/LoadProgram.h"
#include "tensorlang/Interpreter/Interpreter.h"
#include "tensorlang/Support/Npy.h"
#include "tensorlang/Support/TensorPrinter.h"
#include "tensorlang/Support/ThreadsFlag.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

using namespace mlir;
using namespace tensorlang;
namespace cl = llvm::cl;

namespace {
enum class Engine { Reference, Jit };

cl::OptionCategory category("tl-run options");
cl::opt<std::string> programPath(cl::Positional, cl::Required,
                                 cl::desc("<program.tl | program.mlir>"),
                                 cl::cat(category));
cl::list<std::string> inputs("in", cl::desc("Initial value of a variable"),
                             cl::value_desc("NAME=FILE.npy"),
                             cl::cat(category));
cl::list<std::string> outputs("out", cl::desc("Write a variable's final value"),
                              cl::value_desc("NAME=FILE.npy"),
                              cl::cat(category));
cl::opt<Engine> engine(
    "engine", cl::desc("How to run the program"),
    cl::values(clEnumValN(Engine::Reference, "reference",
                          "the reference interpreter"),
               clEnumValN(Engine::Jit, "jit", "compiled native code")),
    cl::init(Engine::Jit), cl::cat(category));
cl::opt<unsigned> pad("pad",
                      cl::desc("Pad every extent to a multiple of M (0: none)"),
                      cl::value_desc("M"), cl::init(0), cl::cat(category));
cl::opt<bool> print("print", cl::desc("Print the output variables"),
                    cl::cat(category));
cl::opt<bool> keepPadding(
    "keep-padding",
    cl::desc("With --pad: write and print variables with their padded "
             "shapes (the padded ABI) instead of their real regions"),
    cl::cat(category));
cl::opt<ElementType> elementType(
    "element-type", cl::desc("Element type of a .tl program"),
    cl::values(clEnumValN(ElementType::F64, "f64", "64-bit floats"),
               clEnumValN(ElementType::F32, "f32", "32-bit floats")),
    cl::init(ElementType::F64), cl::cat(category));
cl::opt<unsigned> repeat(
    "repeat",
    cl::desc("Time the program: one warm-up run, then N timed runs, each on "
             "the initial store; prints 'kernel median: <seconds> s' on "
             "stderr"),
    cl::value_desc("N"), cl::init(0), cl::cat(category));
cl::opt<bool> noTile(
    "no-tile",
    cl::desc("Do not tile and vectorize contractions into register-blocked "
             "micro-kernels (tl-tile-contractions), and do not compute "
             "statement chains per batch slice (tl-fuse-batches); for "
             "comparisons"),
    cl::init(false), cl::cat(category));
cl::opt<uint64_t> fuseMinBytes(
    "fuse-min-bytes",
    cl::desc("Compute chains of statements one batch slice at a time when "
             "their intermediates total at least N bytes (tl-fuse-batches; "
             "default 262144, 0: wherever possible)"),
    cl::value_desc("N"), cl::init(CompileOptions().fuseBatchesMinBytes),
    cl::cat(category));
cl::opt<uint64_t> streamMinBytes(
    "stream-min-bytes",
    cl::desc("Write variables of at least N bytes that a loop nest writes "
             "whole rows of with non-temporal stores, where they are "
             "aligned (tl-streaming-stores; default 33554432)"),
    cl::value_desc("N"), cl::init(CompileOptions().streamingMinBytes),
    cl::cat(category));
cl::opt<bool> noOptimize(
    "no-optimize",
    cl::desc("With --engine=jit: compile the program as written, without "
             "the tl-level optimizations (contraction order)"),
    cl::init(false), cl::cat(category));
unsigned threads = 1; // --threads, see ThreadsFlag.h
cl::extrahelp threadsHelp(kThreadsFlagHelp);
cl::opt<double> maxWork(
    "max-work",
    cl::desc("With --engine=reference: refuse programs estimated to need "
             "more element evaluations than this"),
    cl::init(InterpreterOptions().maxWork), cl::cat(category));

/// A byte count from the command line, as the compiler's options hold it.
int64_t byteCount(uint64_t bytes) {
  return int64_t(std::min<uint64_t>(bytes, std::numeric_limits<int64_t>::max()));
}

CompileOptions compileOptions() {
  CompileOptions options;
  options.optimize = !noOptimize;
  options.tileContractions = !noTile;
  options.fuseBatchesMinBytes = byteCount(fuseMinBytes);
  options.streamingMinBytes = byteCount(streamMinBytes);
  options.threads = threads;
  return options;
}

LogicalResult error(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "tl-run") << message << "\n";
  return failure();
}

/// A `--in`/`--out` argument.
struct Binding {
  std::string variable;
  std::string path;
};

FailureOr<std::vector<Binding>> parseBindings(const cl::list<std::string> &args,
                                              llvm::StringRef flag,
                                              tl::ProgramOp program) {
  std::vector<Binding> bindings;
  llvm::StringSet<> seen;
  for (const std::string &arg : args) {
    auto [name, path] = llvm::StringRef(arg).split('=');
    if (name.empty() || path.empty() || !llvm::StringRef(arg).contains('='))
      return error("--" + flag + " expects NAME=FILE.npy, got '" + arg + "'");
    if (!program.lookupVar(name))
      return error("--" + flag + " " + arg + ": the program has no variable '" +
                   name + "'");
    if (!seen.insert(name).second)
      return error("variable '" + name + "' is given more than once with --" +
                   flag);
    bindings.push_back({name.str(), path.str()});
  }
  return bindings;
}

std::string formatShape(llvm::ArrayRef<int64_t> shape) {
  std::string text = "(";
  for (int64_t extent : shape)
    text += std::to_string(extent) + (shape.size() == 1 ? "," : ", ");
  if (shape.size() > 1)
    text.resize(text.size() - 2);
  return text + ")";
}

/// Rule d-in-var: an input variable holds no undefined (or infinite) value.
LogicalResult checkDefined(const HostTensor &tensor, llvm::StringRef name) {
  for (int64_t i = 0; i < tensor.getNumElements(); ++i) {
    double value = tensor.getAsDouble(i);
    if (std::isfinite(value))
      continue;
    llvm::SmallVector<int64_t> index(tensor.getShape().size());
    for (int64_t d = int64_t(index.size()) - 1, rest = i; d >= 0; --d) {
      index[d] = rest % tensor.getShape()[d];
      rest /= tensor.getShape()[d];
    }
    return error("input variable '" + name + "' holds " +
                 (std::isnan(value) ? "an undefined (NaN)" : "an infinite") +
                 " value at index " + formatShape(index) + " (rule d-in-var)");
  }
  return success();
}

/// Reads the --in files into `store`: each file holds a variable's real
/// region (its declared shape, before any padding).
LogicalResult loadInputs(tl::ProgramOp program, Store &store) {
  FailureOr<std::vector<Binding>> bindings =
      parseBindings(inputs, "in", program);
  if (failed(bindings))
    return failure();
  ElementKind kind = getElementKind(program);
  llvm::StringSet<> given;
  for (const Binding &binding : *bindings) {
    tl::VarOp var = program.lookupVar(binding.variable);
    llvm::Expected<HostTensor> tensor = readNpy(binding.path);
    if (!tensor)
      return error(llvm::toString(tensor.takeError()));
    if (tensor->getKind() != kind)
      return error(binding.path + ": dtype is " +
                   getElementKindName(tensor->getKind()) + " but variable '" +
                   binding.variable + "' is " + getElementKindName(kind));
    llvm::ArrayRef<int64_t> shape = var.getRealShapeOrShape();
    if (tensor->getShape() != shape)
      return error(binding.path + ": shape " +
                   formatShape(tensor->getShape()) + " does not match variable '" +
                   binding.variable + "' of type " +
                   tl::formatType(RankedTensorType::get(
                       shape, var.getType().getElementType())) +
                   ", shape " + formatShape(shape));
    if (var.getInput() && failed(checkDefined(*tensor, binding.variable)))
      return failure();
    copyIntoCorner(*tensor, store[binding.variable]);
    given.insert(binding.variable);
  }
  for (tl::VarOp var : program.getVars())
    if (var.getInput() && !given.contains(var.getSymName()))
      return error("input variable '" + var.getSymName() +
                   "' must be given with --in " + var.getSymName() +
                   "=FILE.npy (rule d-in-var)");
  return success();
}

/// A variable's final value as the user sees it: its real region, or all of
/// it with --keep-padding.
FailureOr<HostTensor> resultOf(tl::VarOp var, Store &store) {
  HostTensor &tensor = store[var.getSymName()];
  llvm::ArrayRef<int64_t> shape =
      keepPadding ? var.getType().getShape() : var.getRealShapeOrShape();
  std::optional<HostTensor> result = extractCorner(tensor, shape);
  if (!result)
    return error("out of memory extracting variable '" + var.getSymName() +
                 "'");
  return std::move(*result);
}

} // namespace

/// One warm-up run and `repeat` timed runs, each starting from the initial
/// store (restored outside the timed region); leaves the last run's store.
static LogicalResult timeRuns(const std::function<LogicalResult(Store &)> &run,
                              Store &store) {
  Store initial;
  for (auto &entry : store) {
    std::optional<HostTensor> copy = HostTensor::allocateUndefined(
        entry.second.getKind(), entry.second.getShape());
    if (!copy)
      return error("out of memory copying the store for --repeat");
    std::memcpy(copy->getData(), entry.second.getData(),
                entry.second.getByteSize());
    initial[entry.first()] = std::move(*copy);
  }
  auto restore = [&] {
    for (auto &entry : initial)
      std::memcpy(store[entry.first()].getData(), entry.second.getData(),
                  entry.second.getByteSize());
  };
  std::vector<double> seconds;
  for (unsigned i = 0; i <= repeat; ++i) {
    restore();
    auto start = std::chrono::steady_clock::now();
    if (failed(run(store)))
      return failure();
    auto stop = std::chrono::steady_clock::now();
    if (i > 0)
      seconds.push_back(std::chrono::duration<double>(stop - start).count());
  }
  std::sort(seconds.begin(), seconds.end());
  size_t n = seconds.size();
  double median = n % 2 ? seconds[n / 2]
                        : 0.5 * (seconds[n / 2 - 1] + seconds[n / 2]);
  llvm::errs() << "kernel median: " << llvm::format("%.6g", median) << " s\n";
  return success();
}

static LogicalResult run() {
  MLIRContext context;
  context.loadDialect<tl::TLDialect>();
  // Errors about a program speak of its source; the op dump is noise.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  ImportOptions importOptions;
  importOptions.elementType = elementType;
  std::string message;
  FailureOr<LoadedProgram> loaded = loadProgramFile(
      programPath, sourceMgr, context, importOptions, message);
  if (failed(loaded))
    return message.empty() ? failure() : error(message);
  tl::ProgramOp program = loaded->program;

  if (pad != 0 && failed(tl::padProgram(program, pad)))
    return failure();

  FailureOr<std::vector<Binding>> outBindings =
      parseBindings(outputs, "out", program);
  if (failed(outBindings))
    return failure();

  FailureOr<Store> store = makeUndefinedStore(program);
  if (failed(store) || failed(loadInputs(program, *store)))
    return failure();

  std::function<LogicalResult(Store &)> runOnce;
  std::unique_ptr<JitProgram> jit;
  if (engine == Engine::Reference) {
    InterpreterOptions options;
    options.maxWork = maxWork;
    runOnce = [program, options](Store &s) {
      return interpret(program, s, options);
    };
  } else {
    FailureOr<std::unique_ptr<JitProgram>> compiled =
        JitProgram::compile(program, compileOptions());
    if (failed(compiled))
      return failure();
    jit = std::move(*compiled);
    runOnce = [&](Store &s) { return jit->run(s); };
  }
  if (repeat == 0) {
    if (failed(runOnce(*store)))
      return failure();
  } else if (failed(timeRuns(runOnce, *store))) {
    return failure();
  }

  for (const Binding &binding : *outBindings) {
    FailureOr<HostTensor> result =
        resultOf(program.lookupVar(binding.variable), *store);
    if (failed(result))
      return failure();
    if (llvm::Error err = writeNpy(binding.path, *result))
      return error(llvm::toString(std::move(err)));
  }

  if (outBindings->empty() || print) {
    bool qualified = llvm::any_of(program.getVars(), [](tl::VarOp var) {
      return var.getInput() || var.getOutput();
    });
    for (tl::VarOp var : program.getVars()) {
      if (qualified && !var.getOutput())
        continue;
      FailureOr<HostTensor> result = resultOf(var, *store);
      if (failed(result))
        return failure();
      llvm::outs() << var.getSymName() << " : "
                   << tl::formatType(RankedTensorType::get(
                          result->getShape(), var.getType().getElementType()))
                   << " =\n";
      printTensor(llvm::outs(), *result);
      llvm::outs() << "\n";
    }
  }
  return success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  std::string threadsError;
  if (!takeThreadsFlag(argc, argv, threads, threadsError)) {
    (void)error(threadsError);
    return 1;
  }
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "Run a tensor language program on NumPy .npy files\n\n"
      "  tl-run PROGRAM [--in NAME=FILE.npy]... [--out NAME=FILE.npy]...\n"
      "         [--engine=reference|jit] [--pad=M] [--print]\n");
  return succeeded(run()) ? 0 : 1;
}
