//===- Program.cpp - C API of the program API -----------------------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang-c/Program.h"
#include "tensorlang/API/Program.h"
#include "tensorlang/API/ProgramOptions.h"

#include "mlir/CAPI/Support.h"
#include "mlir/IR/Diagnostics.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace tensorlang;

/// Hands `message` to the caller as an error (malloc'ed), if it asked.
static void reportError(char **error, const std::string &message) {
  if (!error)
    return;
  *error = static_cast<char *>(std::malloc(message.size() + 1));
  if (*error)
    std::memcpy(*error, message.c_str(), message.size() + 1);
}

/// A program and the messages of its last failing call.
struct TensorlangProgramImpl {
  explicit TensorlangProgramImpl(const ProgramOptions &options)
      : program(options,
                [this](const std::string &message) {
                  record("error: " + message);
                }),
        handler(&program.getContext(), [this](Diagnostic &diagnostic) {
          record(diagnostic);
          return success();
        }) {}

  void record(const std::string &message) { messages += message + "\n"; }
  void record(Diagnostic &diagnostic) {
    std::string text;
    llvm::raw_string_ostream os(text);
    if (auto loc = dyn_cast<FileLineColLoc>(diagnostic.getLocation()))
      os << loc.getFilename().getValue() << ":" << loc.getLine() << ":"
         << loc.getColumn() << ": ";
    os << (diagnostic.getSeverity() == DiagnosticSeverity::Error  ? "error: "
           : diagnostic.getSeverity() == DiagnosticSeverity::Note ? "note: "
                                                                  : "warning: ")
       << diagnostic.str();
    record(text);
    for (Diagnostic &note : diagnostic.getNotes())
      record(note);
  }

  /// Hands the messages to the caller (malloc'ed) and forgets them.
  void takeMessages(char **error);

  Program program;
  ScopedDiagnosticHandler handler;
  std::string messages;
  /// What loading the program reported when it succeeded: its warnings.
  std::string warnings;
};

void TensorlangProgramImpl::takeMessages(char **error) {
  reportError(error, messages.empty() ? "error: the call failed\n" : messages);
  messages.clear();
}

void tensorlangProgramOptionsInit(TensorlangProgramOptions *options) {
  ProgramOptions defaults;
  options->elementType = TensorlangF64;
  options->pad = defaults.pad;
  options->engine = TensorlangEngineJit;
  options->threads = defaults.compile.threads;
  options->optimize = defaults.compile.optimize;
  options->tileContractions = defaults.compile.tileContractions;
  options->fuseBatchesMinBytes = defaults.compile.fuseBatchesMinBytes;
  options->streamingMinBytes = defaults.compile.streamingMinBytes;
  options->vectorBits = defaults.compile.vectorBits;
  options->l1CacheBytes = defaults.compile.l1CacheBytes;
  options->l2CacheBytes = defaults.compile.l2CacheBytes;
  options->l3CacheBytes = defaults.compile.l3CacheBytes;
  options->optLevel = defaults.compile.optLevel;
  options->maxWork = defaults.interpreter.maxWork;
  options->warningsAreErrors = defaults.warningsAreErrors;
  options->columnMajor = defaults.layout == Layout::ColumnMajor;
  options->target = nullptr;
  options->cpu = nullptr;
  options->gpuArch = nullptr;
  options->syntax = nullptr;
  options->distribute = nullptr;
  options->communicator = defaults.compile.communicator;
}

/// The options of `c`, each field checked by the table of program options
/// (setProgramOption), so that a bad value gets the message tl-run and
/// Python give.
static llvm::Expected<ProgramOptions>
unwrapOptions(const TensorlangProgramOptions *c) {
  TensorlangProgramOptions defaults;
  tensorlangProgramOptionsInit(&defaults);
  if (!c)
    c = &defaults;
  auto flag = [](bool on) { return on ? "true" : "false"; };
  char maxWork[32];
  std::snprintf(maxWork, sizeof(maxWork), "%.17g", c->maxWork);
  // The C enums number their values apart from the C++ ones (F64 first),
  // and keep that numbering: map by name.
  std::vector<std::pair<StringRef, std::string>> fields = {
      {"element-type", c->elementType == TensorlangF32 ? "f32" : "f64"},
      {"pad", std::to_string(c->pad)},
      {"engine", c->engine == TensorlangEngineReference ? "reference" : "jit"},
      {"threads", std::to_string(c->threads)},
      {"no-optimize", flag(!c->optimize)},
      {"no-tile", flag(!c->tileContractions)},
      {"fuse-min-bytes", std::to_string(c->fuseBatchesMinBytes)},
      {"stream-min-bytes", std::to_string(c->streamingMinBytes)},
      {"vector-bits", std::to_string(c->vectorBits)},
      {"opt-level", std::to_string(c->optLevel)},
      {"max-work", maxWork},
      {"Werror", flag(c->warningsAreErrors)},
      {"layout", c->columnMajor ? "col-major" : "row-major"},
      {"l1-cache-bytes", std::to_string(c->l1CacheBytes)},
      {"l2-cache-bytes", std::to_string(c->l2CacheBytes)},
      {"l3-cache-bytes", std::to_string(c->l3CacheBytes)},
  };
  // A string left NULL keeps the default.
  for (auto [name, text] :
       {std::pair<StringRef, const char *>{"target", c->target},
        {"cpu", c->cpu},
        {"gpu-arch", c->gpuArch},
        {"syntax", c->syntax},
        {"distribute", c->distribute}})
    if (text)
      fields.emplace_back(name, text);
  ProgramOptions options;
  for (const auto &[name, text] : fields)
    if (llvm::Error error = setProgramOption(options, name, text))
      return std::move(error);
  options.compile.communicator = c->communicator;
  return options;
}

TensorlangProgram
tensorlangProgramCreate(MlirStringRef text, MlirStringRef filename, bool isIR,
                        const TensorlangProgramOptions *options, char **error) {
  llvm::Expected<ProgramOptions> unwrapped = unwrapOptions(options);
  if (!unwrapped) {
    reportError(error,
                "error: " + llvm::toString(unwrapped.takeError()) + "\n");
    return nullptr;
  }
  // The JIT runs code for this machine: its CPU, or its NVIDIA GPU.
  if (llvm::Error wrongTarget = checkJitTarget(*unwrapped)) {
    reportError(error,
                "error: " + llvm::toString(std::move(wrongTarget)) + "\n");
    return nullptr;
  }
  auto impl = std::make_unique<TensorlangProgramImpl>(*unwrapped);
  if (failed(impl->program.loadText(unwrap(text), unwrap(filename), isIR))) {
    impl->takeMessages(error);
    return nullptr;
  }
  impl->warnings = std::move(impl->messages);
  impl->messages.clear();
  return impl.release();
}

void tensorlangProgramDestroy(TensorlangProgram program) { delete program; }

const char *tensorlangProgramGetWarnings(TensorlangProgram program) {
  return program->warnings.c_str();
}

intptr_t tensorlangProgramGetNumVariables(TensorlangProgram program) {
  return program->program.getVariables().size();
}

const char *tensorlangProgramGetVariableName(TensorlangProgram program,
                                             intptr_t index) {
  return program->program.getVariables()[index].name.c_str();
}

intptr_t tensorlangProgramGetVariableRank(TensorlangProgram program,
                                          intptr_t index) {
  return program->program.getVariables()[index].shape.size();
}

int64_t tensorlangProgramGetVariableExtent(TensorlangProgram program,
                                           intptr_t index, intptr_t dim) {
  const VariableInfo &var = program->program.getVariables()[index];
  return var.sizes[dim].empty() ? var.shape[dim] : -1;
}

const char *tensorlangProgramGetVariableSize(TensorlangProgram program,
                                             intptr_t index, intptr_t dim) {
  const std::string &size = program->program.getVariables()[index].sizes[dim];
  return size.empty() ? nullptr : size.c_str();
}

intptr_t tensorlangProgramGetNumSizes(TensorlangProgram program) {
  return program->program.getSizeNames().size();
}

const char *tensorlangProgramGetSizeName(TensorlangProgram program,
                                         intptr_t index) {
  return program->program.getSizeNames()[index].c_str();
}

bool tensorlangProgramIsInput(TensorlangProgram program, intptr_t index) {
  return program->program.getVariables()[index].input;
}

bool tensorlangProgramIsOutput(TensorlangProgram program, intptr_t index) {
  return program->program.getVariables()[index].output;
}

bool tensorlangProgramKeepResult(TensorlangProgram program, const char *name,
                                 char **error) {
  if (succeeded(program->program.keepResult(name)))
    return true;
  program->takeMessages(error);
  return false;
}

bool tensorlangProgramRun(TensorlangProgram program, intptr_t numInputs,
                          const char *const *inputNames,
                          const void *const *inputs, intptr_t numResults,
                          const char *const *resultNames, void *const *results,
                          char **error) {
  return tensorlangProgramRunWithSizes(program, 0, nullptr, nullptr, numInputs,
                                       inputNames, inputs, numResults,
                                       resultNames, results, error);
}

bool tensorlangProgramRunWithSizes(
    TensorlangProgram program, intptr_t numSizes, const char *const *sizeNames,
    const int64_t *sizeValues, intptr_t numInputs,
    const char *const *inputNames, const void *const *inputs,
    intptr_t numResults, const char *const *resultNames, void *const *results,
    char **error) {
  Program &api = program->program;
  std::vector<std::pair<std::string, int64_t>> sizes;
  llvm::StringMap<int64_t> sizeOf;
  for (intptr_t i = 0; i < numSizes; ++i) {
    sizes.emplace_back(sizeNames[i], sizeValues[i]);
    sizeOf[sizeNames[i]] = sizeValues[i];
  }
  // The caller's buffers have the declared shapes, with the sizes' values;
  // an unknown name is reported by bindInputs.
  std::vector<llvm::SmallVector<int64_t>> shapes;
  shapes.reserve(numInputs);
  std::vector<NamedInput> named;
  for (intptr_t i = 0; i < numInputs; ++i) {
    const VariableInfo *var = api.lookupVariable(inputNames[i]);
    shapes.emplace_back();
    if (var) {
      shapes.back() = var->shape;
      for (auto [extent, size] : llvm::zip(shapes.back(), var->sizes)) {
        if (size.empty())
          continue;
        auto it = sizeOf.find(size);
        if (it == sizeOf.end()) {
          program->record("error: variable '" + var->name + "' has size '" +
                          size +
                          "', which needs a value "
                          "(tensorlangProgramRunWithSizes)");
          program->takeMessages(error);
          return false;
        }
        extent = it->second;
      }
    }
    named.push_back({inputNames[i],
                     TensorView{api.getElementKind(), shapes.back(), inputs[i]},
                     ""});
  }
  FailureOr<Store> store = api.bindInputs(named, sizes);
  if (failed(store) || failed(api.run(*store))) {
    program->takeMessages(error);
    return false;
  }
  for (intptr_t i = 0; i < numResults; ++i) {
    FailureOr<HostTensor> value = api.getResult(*store, resultNames[i]);
    if (failed(value)) {
      program->takeMessages(error);
      return false;
    }
    std::memcpy(results[i], value->getData(), value->getByteSize());
  }
  return true;
}

TensorlangProgram
tensorlangCompileSource(const char *source,
                        const TensorlangProgramOptions *options, char **error) {
  TensorlangProgram program = tensorlangProgramCreate(
      mlirStringRefCreateFromCString(source ? source : ""),
      mlirStringRefCreateFromCString("<source>"), /*isIR=*/false, options,
      error);
  if (!program)
    return nullptr;
  // The kernel's name in its declaration (a source program is `main`,
  // which C reserves).
  if (failed(program->program.setName("kernel")) ||
      failed(program->program.compile())) {
    program->takeMessages(error);
    tensorlangProgramDestroy(program);
    return nullptr;
  }
  return program;
}

void *tensorlangProgramGetKernel(TensorlangProgram program, char **error) {
  FailureOr<void *> kernel = program->program.getKernel();
  if (failed(kernel)) {
    program->takeMessages(error);
    return nullptr;
  }
  return *kernel;
}

void *tensorlangProgramGetDeviceKernel(TensorlangProgram program,
                                       char **error) {
  FailureOr<void *> kernel = program->program.getDeviceKernel();
  if (failed(kernel)) {
    program->takeMessages(error);
    return nullptr;
  }
  return *kernel;
}

void *tensorlangProgramGetWorkspaceKernel(TensorlangProgram program,
                                          int64_t *workspaceBytes,
                                          char **error) {
  FailureOr<std::pair<void *, int64_t>> kernel =
      program->program.getWorkspaceKernel();
  if (failed(kernel)) {
    program->takeMessages(error);
    return nullptr;
  }
  if (workspaceBytes)
    *workspaceBytes = kernel->second;
  return kernel->first;
}

int64_t tensorlangProgramGetWorkspaceSize(TensorlangProgram program,
                                          const int64_t *sizes, char **error) {
  size_t count =
      sizes ? llvm::range_size(program->program.getOp().getSizes()) : 0;
  FailureOr<int64_t> bytes =
      program->program.getWorkspaceSize(llvm::ArrayRef(sizes, count));
  if (failed(bytes)) {
    program->takeMessages(error);
    return -1;
  }
  return *bytes;
}

char *tensorlangProgramGetKernelDeclaration(TensorlangProgram program,
                                            char **error) {
  FailureOr<std::string> text = program->program.getKernelDeclaration();
  if (failed(text)) {
    program->takeMessages(error);
    return nullptr;
  }
  char *copy = static_cast<char *>(std::malloc(text->size() + 1));
  if (copy)
    std::memcpy(copy, text->c_str(), text->size() + 1);
  return copy;
}
