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

#include "tensorlang/API/CommandLine.h"
#include "tensorlang/API/Program.h"
#include "tensorlang/Dialect/TL/IR/TypeRules.h"
#include "tensorlang/Support/Npy.h"
#include "tensorlang/Support/TensorPrinter.h"
#include "tensorlang/Support/ThreadsFlag.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"

#include <chrono>
#include <cstring>
#include <functional>

using namespace mlir;
using namespace tensorlang;
namespace cl = llvm::cl;

namespace {
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
cl::opt<bool> print("print", cl::desc("Print the output variables"),
                    cl::cat(category));
cl::opt<bool> keepPadding(
    "keep-padding",
    cl::desc("With --pad: write and print variables with their padded "
             "shapes (the padded ABI) instead of their real regions"),
    cl::cat(category));
cl::opt<unsigned> repeat(
    "repeat",
    cl::desc("Time the program: one warm-up run, then N timed runs, each on "
             "the initial store; prints 'kernel median: <seconds> s' on "
             "stderr"),
    cl::value_desc("N"), cl::init(0), cl::cat(category));
unsigned threads = 1; // --threads, see ThreadsFlag.h
cl::extrahelp threadsHelp(kThreadsFlagHelp);

} // namespace

static LogicalResult error(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "tl-run") << message << "\n";
  return failure();
}

namespace {
/// A `--in`/`--out` argument.
struct Binding {
  std::string variable;
  std::string path;
};
} // namespace

static FailureOr<std::vector<Binding>>
parseBindings(const cl::list<std::string> &args, llvm::StringRef flag,
              const Program &program) {
  std::vector<Binding> bindings;
  llvm::StringSet<> seen;
  for (const std::string &arg : args) {
    auto [name, path] = llvm::StringRef(arg).split('=');
    if (name.empty() || path.empty() || !llvm::StringRef(arg).contains('='))
      return error("--" + flag + " expects NAME=FILE.npy, got '" + arg + "'");
    if (!program.lookupVariable(name))
      return error("--" + flag + " " + arg + ": the program has no variable '" +
                   name + "'");
    if (!seen.insert(name).second)
      return error("variable '" + name + "' is given more than once with --" +
                   flag);
    bindings.push_back({name.str(), path.str()});
  }
  return bindings;
}

/// Reads the --in files and binds them: each file holds a variable's real
/// region (its declared shape, before any padding).
static FailureOr<Store> loadInputs(Program &program) {
  FailureOr<std::vector<Binding>> bindings =
      parseBindings(inputs, "in", program);
  if (failed(bindings))
    return failure();
  std::vector<HostTensor> tensors;
  std::vector<NamedInput> named;
  for (const Binding &binding : *bindings) {
    llvm::Expected<HostTensor> tensor = readNpy(binding.path);
    if (!tensor)
      return error(llvm::toString(tensor.takeError()));
    tensors.push_back(std::move(*tensor));
  }
  for (auto [binding, tensor] : llvm::zip(*bindings, tensors))
    named.push_back({binding.variable, TensorView::of(tensor), binding.path});
  return program.bindInputs(named);
}

/// One warm-up run and `repeat` timed runs, each starting from the initial
/// store (restored outside the timed region); leaves the last run's store.
static LogicalResult timeRuns(Program &program, Store &store) {
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
    if (failed(program.run(store)))
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
  llvm::Expected<ProgramOptions> options = getProgramOptionsFromCL(threads);
  if (!options)
    return error(llvm::toString(options.takeError()));
  Program program(*options,
                  [](const std::string &message) { (void)error(message); });
  SourceMgrDiagnosticHandler diagnostics(program.getSourceMgr(),
                                         &program.getContext());
  if (failed(program.loadFile(programPath)))
    return failure();

  FailureOr<std::vector<Binding>> outBindings =
      parseBindings(outputs, "out", program);
  if (failed(outBindings))
    return failure();
  // Any variable written with --out is computed, on either engine.
  for (const Binding &binding : *outBindings)
    if (failed(program.keepResult(binding.variable)))
      return failure();

  FailureOr<Store> store = loadInputs(program);
  if (failed(store))
    return failure();
  if (failed(repeat == 0 ? program.run(*store) : timeRuns(program, *store)))
    return failure();

  for (const Binding &binding : *outBindings) {
    FailureOr<HostTensor> result =
        program.getResult(*store, binding.variable, keepPadding);
    if (failed(result))
      return failure();
    if (llvm::Error err = writeNpy(binding.path, *result))
      return error(llvm::toString(std::move(err)));
  }

  if (outBindings->empty() || print) {
    // The outputs as declared: variables kept for --out are not printed.
    for (const VariableInfo &var : program.getVariables()) {
      if (program.hasQualifiers() && !var.output)
        continue;
      FailureOr<HostTensor> result =
          program.getResult(*store, var.name, keepPadding);
      if (failed(result))
        return failure();
      llvm::outs() << var.name << " : "
                   << tl::formatType(RankedTensorType::get(
                          result->getShape(), program.getOp().getElementType()))
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
  registerProgramCLOptions(category, /*runFlags=*/true);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "Run a tensor language program on NumPy .npy files\n\n"
      "  tl-run PROGRAM [--in NAME=FILE.npy]... [--out NAME=FILE.npy]...\n"
      "         [--engine=reference|jit] [--pad=M] [--print]\n");
  return succeeded(run()) ? 0 : 1;
}
