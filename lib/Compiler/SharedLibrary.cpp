//===- SharedLibrary.cpp - Kernels as shared libraries --------------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A shared library of a program is what runs where nothing of TensorLang is
// installed: the GPU runtime is linked into it, and it describes its own
// interface, so that a loader needs only the C library and ctypes.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Compiler/Compiler.h"
#include "tensorlang/Dialect/TL/IR/TypeRules.h"
#include "tensorlang/Dialect/TL/Transforms/Passes.h"
#include "tensorlang/Support/AtomicOutput.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;
using namespace tensorlang;

std::string tensorlang::describeInterface(tl::ProgramOp program,
                                          const LoweredProgram &lowered,
                                          StringRef distributed) {
  llvm::StringSet<> assigned;
  for (tl::AssignOp assign : program.getStatements())
    assigned.insert(assign.getTarget());
  bool columnMajor = tl::TLDialect::ColumnMajorAttrHelper(program.getContext())
                         .isAttrPresent(program);
  // A size's name where it stands.
  auto toJSON = [](ArrayRef<tl::Extent> extents) {
    llvm::json::Array result;
    for (const tl::Extent &extent : extents) {
      if (extent.isSized())
        result.push_back(extent.size.getValue().str());
      else
        result.push_back(extent.value);
    }
    return result;
  };
  llvm::json::Array sizes, variables;
  for (tl::SizeOp size : program.getSizes())
    sizes.push_back(size.getSymName().str());
  for (tl::VarOp var : program.getVars()) {
    if (!var.isInterface())
      continue;
    DeclaredExtents declared = getDeclaredExtents(program, var);
    variables.push_back(llvm::json::Object{
        {"name", var.getSymName().str()},
        {"shape", toJSON(declared.real)},
        {"buffer_shape", toJSON(declared.buffer)},
        {"input", var.getInput()},
        {"output", var.getOutput()},
        {"written", assigned.contains(var.getSymName())},
    });
  }
  bool gpu = !lowered.target.gpuChip.empty();
  llvm::json::Object description{
      {"tensorlang_interface", 1},
      {"name", program.getSymName().str()},
      {"function", lowered.functionName},
      {"device_function",
       gpu ? llvm::json::Value(lowered.functionName + "_device") : nullptr},
      {"target", gpu ? "cuda" : lowered.target.triple},
      {"gpu_chip", gpu ? llvm::json::Value(lowered.target.gpuChip) : nullptr},
      {"dtype", program.getElementType().isF32() ? "float32" : "float64"},
      {"layout", columnMajor ? "col-major" : "row-major"},
      {"distributed", distributed.empty()
                          ? llvm::json::Value(nullptr)
                          : llvm::json::Value(distributed.str())},
      {"sizes", std::move(sizes)},
      {"variables", std::move(variables)},
  };
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(description));
  return text;
}

/// The C compiler that links for `triple`: $CC, or for this machine's
/// triple cc, gcc or clang, or for another `<arch>-linux-gnu-gcc`.
static std::optional<std::string> findLinker(StringRef target,
                                             std::string &tried) {
  if (const char *given = std::getenv("CC"); given && *given) {
    tried = std::string("$CC (") + given + ")";
    auto found = llvm::sys::findProgramByName(given);
    if (found && llvm::sys::fs::can_execute(*found))
      return *found;
    return std::nullopt;
  }
  SmallVector<std::string> names;
  if (isHostTarget(target))
    names = {"cc", "gcc", "clang"};
  else
    names = {(llvm::Triple(target).getArchName() + "-linux-gnu-gcc").str()};
  tried = llvm::join(names, ", ");
  for (const std::string &name : names)
    if (auto found = llvm::sys::findProgramByName(name))
      return *found;
  return std::nullopt;
}

/// The static archive of the CUDA runtime (lib/Runtime): the build's, or
/// the one TENSORLANG_CUDA_RUNTIME_ARCHIVE names.
static std::string getCudaRuntimeArchive() {
  if (const char *given = std::getenv("TENSORLANG_CUDA_RUNTIME_ARCHIVE");
      given && *given)
    return given;
#ifdef TENSORLANG_CUDA_RUNTIME_ARCHIVE
  return TENSORLANG_CUDA_RUNTIME_ARCHIVE;
#else
  return "";
#endif
}

/// An error of the tools rather than of the program: not at a source
/// location.
static InFlightDiagnostic toolError(tl::ProgramOp program) {
  return emitError(UnknownLoc::get(program.getContext()));
}

LogicalResult tensorlang::linkSharedLibrary(tl::ProgramOp program,
                                            const LoweredProgram &lowered,
                                            const CompileOptions &options,
                                            StringRef objectPath,
                                            StringRef path) {
  std::string tried;
  std::optional<std::string> linker = findLinker(lowered.target.triple, tried);
  if (!linker)
    return toolError(program) << "no C compiler to link a shared library for '"
                              << lowered.target.triple << "' (tried " << tried
                              << "): set CC to one";

  SmallVector<std::string> arguments = {*linker, "-shared", "-o", "",
                                        objectPath.str()};
  if (!lowered.target.gpuChip.empty()) {
    // The runtime goes into the library, its references bound inside it
    // (-Bsymbolic): a process may load several kernels, and the JIT's own
    // runtime, without their errors and streams mixing.
    std::string archive = getCudaRuntimeArchive();
    if (archive.empty() || !llvm::sys::fs::exists(archive))
      return toolError(program)
             << "the CUDA runtime archive '" << archive
             << "' is missing: set TENSORLANG_CUDA_RUNTIME_ARCHIVE to "
                "libtensorlang_cuda.a";
    arguments.append({archive, "-Wl,-Bsymbolic", "-ldl", "-lpthread"});
  }
#ifdef TENSORLANG_OPENMP_LIBRARY
  // (Cross compilers bring their own OpenMP runtime.)
  if (options.threads > 1 && isHostTarget(lowered.target.triple)) {
    StringRef directory =
        llvm::sys::path::parent_path(TENSORLANG_OPENMP_LIBRARY);
    arguments.append(
        {"-L" + directory.str(), "-Wl,-rpath," + directory.str(), "-lomp"});
  }
#endif
  arguments.push_back("-lm");

  // Linked beside the destination and renamed over it: a failed link
  // leaves an existing library as it was.
  SmallString<128> temporary;
  SmallString<128> model(path);
  model += ".tmp%%%%%%";
  if (std::error_code error = llvm::sys::fs::createUniqueFile(model, temporary))
    return toolError(program)
           << "cannot write '" << path << "': " << error.message();
  arguments[3] = temporary.str().str();
  SmallString<128> log;
  if (llvm::sys::fs::createTemporaryFile("tl-link", "log", log)) {
    llvm::sys::fs::remove(temporary);
    return toolError(program)
           << "cannot create a temporary file for the linker";
  }
  std::optional<StringRef> redirects[] = {std::nullopt, log.str(), log.str()};
  SmallVector<StringRef> argumentRefs(arguments.begin(), arguments.end());
  std::string message;
  int status = llvm::sys::ExecuteAndWait(*linker, argumentRefs, std::nullopt,
                                         redirects, 0, 0, &message);
  std::string output;
  if (auto buffer = llvm::MemoryBuffer::getFile(log))
    output = (*buffer)->getBuffer().trim().str();
  llvm::sys::fs::remove(log);
  if (status != 0) {
    llvm::sys::fs::remove(temporary);
    return toolError(program)
           << "linking '" << path << "' with " << *linker << " failed"
           << (message.empty() ? "" : ": " + message)
           << (output.empty() ? "" : ":\n" + output);
  }
  if (std::error_code error = llvm::sys::fs::rename(temporary, path)) {
    llvm::sys::fs::remove(temporary);
    return toolError(program)
           << "cannot write '" << path << "': " << error.message();
  }
  return success();
}
