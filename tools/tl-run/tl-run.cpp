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

#ifdef TENSORLANG_HAVE_MPI
#include "Distribution.h"
#endif

#include "tensorlang/API/CommandLine.h"
#include "tensorlang/API/Program.h"
#include "tensorlang/Dialect/TL/IR/TypeRules.h"
#include "tensorlang/Support/Npy.h"
#include "tensorlang/Support/TensorPrinter.h"

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

} // namespace

static LogicalResult error(const llvm::Twine &message) {
  // One write per message: the processes of --distribute share stderr, and
  // a message written in pieces ("tl-run: ", "error: ", the text)
  // interleaves with the others' ("tl-run: tl-run: error: error: ...").
  std::string line;
  llvm::raw_string_ostream os(line);
  llvm::WithColor::error(os, "tl-run") << message << "\n";
  llvm::errs() << line;
  return failure();
}

#ifdef TENSORLANG_HAVE_MPI
/// The processes of `--distribute`, or null.
static Distribution *distribution = nullptr;
#endif
/// The size `--distribute` names, or empty.
static std::string distribute;

/// Whether this process writes files and prints: the only one, or the
/// first of a distributed run.
static bool isRootProcess() {
#ifdef TENSORLANG_HAVE_MPI
  return !distribution || distribution->isRoot();
#else
  return true;
#endif
}

/// The dimension of `var` that is the distributed size, if any.
static std::optional<unsigned> distributedDim(const VariableInfo &var) {
  if (distribute.empty())
    return std::nullopt;
  const auto *it = llvm::find(var.sizes, distribute);
  if (it == var.sizes.end())
    return std::nullopt;
  return unsigned(it - var.sizes.begin());
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
  std::vector<HostTensor> tensors(bindings->size());
  std::optional<int64_t> globalExtent;
  for (auto [index, binding] : llvm::enumerate(*bindings)) {
#ifdef TENSORLANG_HAVE_MPI
    // A distributed variable: this process reads its block of the file's
    // array, and only that (the file is mapped).
    std::optional<unsigned> dim =
        distributedDim(*program.lookupVariable(binding.variable));
    if (distribution && dim) {
      std::optional<int64_t> extent;
      llvm::Expected<HostTensor> block =
          readNpyBlock(binding.path, *dim, [&](llvm::ArrayRef<int64_t> shape) {
            extent = shape[*dim];
            return distribution->getBlock(*extent);
          });
      if (!block)
        return error(llvm::toString(block.takeError()));
      if (extent && globalExtent && *globalExtent != *extent)
        return error(binding.path + ": variable '" + binding.variable +
                     "', dimension " + llvm::Twine(*dim + 1) + " has extent " +
                     llvm::Twine(*extent) + ", but size '" + distribute +
                     "' is " + llvm::Twine(*globalExtent) +
                     " in the inputs before it");
      if (extent)
        globalExtent = extent;
      tensors[index] = std::move(*block);
      continue;
    }
#endif
    // A file in the program's layout becomes its variable's value where it
    // is mapped (the store takes the tensor): no copy, no allocation.
    llvm::Expected<HostTensor> tensor =
        mapNpy(binding.path, program.getOptions().layout);
    if (!tensor)
      return error(llvm::toString(tensor.takeError()));
    tensors[index] = std::move(*tensor);
  }
  std::vector<NamedInput> named;
  for (auto [binding, tensor] : llvm::zip(*bindings, tensors))
    named.push_back(
        {binding.variable, TensorView::of(tensor), binding.path, &tensor});
  return program.bindInputs(named);
}

/// One warm-up run and `repeat` timed runs, each starting from the initial
/// store (restored outside the timed region); leaves the last run's store.
/// Prints the median (the slowest process's, in a distributed run).
static LogicalResult timeRuns(Program &program, Store &store) {
  Store initial;
  for (auto &entry : store) {
    // The initial values stay where they are (restore only reads them);
    // the timed runs work on memory allocated as an application's arrays
    // are (large ones on transparent huge pages, as NumPy's), not on the
    // pages of a mapped .npy file: a kernel that reads an input across
    // many pages (TCCG abcde-ecbfa-fd: 2209 runs of 376 bytes per step)
    // ran 1 to 5 times slower on those, by where the copies of the pages
    // landed. restore() fills it before each run.
    std::optional<HostTensor> working = HostTensor::allocateUninitialized(
        entry.second.getKind(), entry.second.getShape());
    if (!working)
      return error("out of memory copying the store for --repeat");
    initial[entry.first()] = std::move(entry.second);
    entry.second = std::move(*working);
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
#ifdef TENSORLANG_HAVE_MPI
  if (distribution)
    median = distribution->maximum(median);
#endif
  if (isRootProcess())
    llvm::errs() << "kernel median: " << llvm::format("%.6g", median) << " s\n";
  return success();
}

/// The final value of `name` as the caller sees it: in a distributed run,
/// a distributed variable's blocks put together (on the first process;
/// std::nullopt on the others).
static FailureOr<std::optional<HostTensor>> getResult(Program &program,
                                                      Store &store,
                                                      llvm::StringRef name,
                                                      bool lastUse = false) {
  FailureOr<HostTensor> result =
      lastUse ? program.takeResult(store, name, keepPadding)
              : program.getResult(store, name, keepPadding);
  if (failed(result))
    return failure();
#ifdef TENSORLANG_HAVE_MPI
  if (std::optional<unsigned> dim =
          distribution ? distributedDim(*program.lookupVariable(name))
                       : std::nullopt) {
    int64_t global = distribution->sum(result->getShape()[*dim]);
    llvm::Expected<std::optional<HostTensor>> gathered =
        distribution->gatherBlocks(*result, *dim, global);
    if (!gathered)
      return error(llvm::toString(gathered.takeError()));
    return std::move(*gathered);
  }
#endif
  if (!isRootProcess())
    return std::optional<HostTensor>();
  return std::optional<HostTensor>(std::move(*result));
}

/// In a distributed run, whether every process got this far: they stop
/// together rather than wait for one that failed.
static LogicalResult agree(LogicalResult result) {
#ifdef TENSORLANG_HAVE_MPI
  if (distribution && !distribution->allSucceeded(succeeded(result)))
    return failure();
#endif
  return result;
}

static LogicalResult run() {
  llvm::Expected<ProgramOptions> options = getProgramOptionsFromCL();
  if (!options)
    return error(llvm::toString(options.takeError()));
  distribute = options->compile.distribute;
  if (!distribute.empty()) {
#ifdef TENSORLANG_HAVE_MPI
    if (options->engine != Engine::Jit)
      return error("--distribute runs compiled code; the reference "
                   "interpreter runs the whole program in one process "
                   "(without --distribute)");
    if (!distribution)
      return error("--distribute is spelled --distribute=SIZE");
    options->compile.communicator = distribution->getFortranComm();
    // A value given for the distributed size is the whole extent; this
    // process has its block.
    for (auto &[name, value] : options->sizes)
      if (name == distribute && value > 0)
        value = distribution->getBlock(value).second;
#else
    return error("--distribute needs MPI, which this tl-run was built "
                 "without (install libopenmpi-dev and rebuild)");
#endif
  }
  Program program(*options,
                  [](const std::string &message) { (void)error(message); });
  SourceMgrDiagnosticHandler diagnostics(program.getSourceMgr(),
                                         &program.getContext());
  MachineErrorHandler machineErrors(
      program.getContext(),
      [](const std::string &message) { (void)error(message); });
  if (failed(agree(program.loadFile(programPath))))
    return failure();
  if (!distribute.empty() &&
      !llvm::is_contained(program.getSizeNames(), distribute))
    return agree(error("--distribute=" + distribute +
                       ": the program has no size '" + distribute + "'"));

  FailureOr<std::vector<Binding>> outBindings =
      parseBindings(outputs, "out", program);
  if (failed(outBindings))
    return failure();
  // Any variable written with --out is computed, on either engine.
  for (const Binding &binding : *outBindings)
    if (failed(program.keepResult(binding.variable)))
      return failure();

  // A distributed program is compiled before its inputs are read: what
  // cannot be distributed (a variable with the size in two dimensions) is
  // reported as such, not as inputs whose blocks do not fit.
  if (!distribute.empty() && failed(agree(program.compile())))
    return failure();
  FailureOr<Store> store = loadInputs(program);
  // Compiled before the processes agree to run: the code calls
  // collectives, which a process that failed would never reach.
  if (failed(agree(succeeded(store) && options->engine == Engine::Jit
                       ? program.compile()
                       : LogicalResult(store))))
    return failure();
  if (failed(repeat == 0 ? program.run(*store) : timeRuns(program, *store)))
    return failure();

  for (const Binding &binding : *outBindings) {
#ifdef TENSORLANG_HAVE_MPI
    // A distributed variable: every process writes its block in place.
    if (std::optional<unsigned> dim =
            distribution
                ? distributedDim(*program.lookupVariable(binding.variable))
                : std::nullopt) {
      FailureOr<HostTensor> local =
          program.getResult(*store, binding.variable, keepPadding);
      if (failed(agree(LogicalResult(local))))
        return failure();
      auto [first, total] =
          distribution->offsetAndTotal(local->getShape()[*dim]);
      if (llvm::Error err = distribution->writeBlocks(binding.path, *local,
                                                      *dim, first, total))
        return error(llvm::toString(std::move(err)));
      continue;
    }
#endif
    // Written once, unless printed too: the store's tensor itself.
    bool printed = outBindings->empty() || print;
    bool writtenAgain = llvm::count_if(*outBindings, [&](const Binding &other) {
                          return other.variable == binding.variable;
                        }) > 1;
    FailureOr<std::optional<HostTensor>> result =
        getResult(program, *store, binding.variable, !printed && !writtenAgain);
    if (failed(result))
      return failure();
    if (!*result)
      continue;
    if (llvm::Error err =
            writeNpy(binding.path, **result, program.getOptions().layout))
      return error(llvm::toString(std::move(err)));
  }

  if (outBindings->empty() || print) {
    // The outputs as declared: variables kept for --out are not printed.
    for (const VariableInfo &var : program.getVariables()) {
      if (program.hasQualifiers() && !var.output)
        continue;
      FailureOr<std::optional<HostTensor>> result =
          getResult(program, *store, var.name);
      if (failed(result))
        return failure();
      if (!*result)
        continue;
      // Printed as NumPy prints, whatever the layout.
      if (program.getOptions().layout == Layout::ColumnMajor) {
        // Column-major elements of [a b c] are row-major ones of [c b a].
        HostTensor &columnMajor = **result;
        columnMajor.reinterpretShape(
            getStorageOrder(columnMajor.getShape(), Layout::ColumnMajor));
        std::optional<HostTensor> rowMajor = reverseDimensions(columnMajor);
        if (!rowMajor)
          return error("out of memory printing variable '" + var.name + "'");
        columnMajor = std::move(*rowMajor);
      }
      llvm::outs() << var.name << " : "
                   << tl::formatType(RankedTensorType::get(
                          (*result)->getShape(),
                          program.getOp().getElementType()))
                   << " =\n";
      printTensor(llvm::outs(), **result);
      llvm::outs() << "\n";
    }
  }
  return success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
#ifdef TENSORLANG_HAVE_MPI
  // MPI only for a distributed run: a plain run needs no launcher.
  std::optional<Distribution> processes;
  for (int i = 1; i < argc; ++i)
    if (llvm::StringRef(argv[i]).starts_with("--distribute")) {
      processes.emplace(argc, argv);
      distribution = &*processes;
      break;
    }
#endif
  registerProgramCLOptions(category, /*withRunFlags=*/true);
  if (llvm::Error threadsError = takeThreadsFlag(argc, argv)) {
    (void)error(llvm::toString(std::move(threadsError)));
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
