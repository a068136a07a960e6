//===- Program.cpp - C API of the program API -----------------------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang-c/Program.h"
#include "tensorlang/API/Program.h"

#include "mlir/CAPI/Support.h"
#include "mlir/IR/Diagnostics.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace tensorlang;

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
  void takeMessages(char **error) {
    if (error) {
      if (messages.empty())
        messages = "error: the call failed\n";
      *error = static_cast<char *>(std::malloc(messages.size() + 1));
      if (*error)
        std::memcpy(*error, messages.c_str(), messages.size() + 1);
    }
    messages.clear();
  }

  Program program;
  ScopedDiagnosticHandler handler;
  std::string messages;
  /// What loading the program reported when it succeeded: its warnings.
  std::string warnings;
};

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
  options->optLevel = defaults.compile.optLevel;
  options->maxWork = defaults.interpreter.maxWork;
  options->warningsAreErrors = defaults.warningsAreErrors;
  options->columnMajor = defaults.layout == Layout::ColumnMajor;
  options->target = nullptr;
  options->cpu = nullptr;
  options->gpuArch = nullptr;
}

static ProgramOptions unwrapOptions(const TensorlangProgramOptions *c) {
  TensorlangProgramOptions defaults;
  tensorlangProgramOptionsInit(&defaults);
  if (!c)
    c = &defaults;
  ProgramOptions options;
  // The C enum numbers its values apart from ElementKind (F64 first), and
  // keeps that numbering: map by name.
  options.elementType =
      c->elementType == TensorlangF32 ? ElementKind::F32 : ElementKind::F64;
  options.pad = c->pad;
  options.engine =
      c->engine == TensorlangEngineReference ? Engine::Reference : Engine::Jit;
  options.compile.threads = c->threads;
  options.compile.optimize = c->optimize;
  options.compile.tileContractions = c->tileContractions;
  options.compile.fuseBatchesMinBytes = c->fuseBatchesMinBytes;
  options.compile.streamingMinBytes = c->streamingMinBytes;
  options.compile.vectorBits = c->vectorBits;
  options.compile.l1CacheBytes = std::max<int64_t>(0, c->l1CacheBytes);
  options.compile.l2CacheBytes = std::max<int64_t>(0, c->l2CacheBytes);
  options.compile.optLevel = c->optLevel;
  options.interpreter.maxWork = c->maxWork;
  options.warningsAreErrors = c->warningsAreErrors;
  options.layout = c->columnMajor ? Layout::ColumnMajor : Layout::RowMajor;
  if (c->target && *c->target && StringRef(c->target) != "host")
    options.compile.target = c->target;
  if (c->cpu && *c->cpu)
    options.compile.cpu = c->cpu;
  if (c->gpuArch && *c->gpuArch)
    options.compile.gpuArch = c->gpuArch;
  return options;
}

TensorlangProgram
tensorlangProgramCreate(MlirStringRef text, MlirStringRef filename, bool isIR,
                        const TensorlangProgramOptions *options, char **error) {
  ProgramOptions unwrapped = unwrapOptions(options);
  auto impl = std::make_unique<TensorlangProgramImpl>(unwrapped);
  if (unwrapped.compile.threads < 1 || unwrapped.compile.threads > 1024 ||
      unwrapped.compile.optLevel > 3) {
    impl->record("error: threads must be from 1 to 1024 and optLevel at "
                 "most 3");
    impl->takeMessages(error);
    return nullptr;
  }
  // The JIT runs code for this machine: its CPU, or its NVIDIA GPU.
  if (!unwrapped.compile.target.empty() && unwrapped.compile.target != "cuda") {
    impl->record("error: target must be \"host\" or \"cuda\", got \"" +
                 unwrapped.compile.target + "\"");
    impl->takeMessages(error);
    return nullptr;
  }
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
