//===- tl-compile.cpp - Compile programs to object files and C headers ----===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
//   tl-compile PROGRAM -o FILE.o [--header FILE.h] [--name NAME] [--pad=M]
//              [--element-type=f64|f32] [--cpu=host|NAME] [--vector-bits=N]
//              [--target=TRIPLE|cuda] [--shared]
//
// Turns a .tl (or .mlir) program into an object file defining
//   void NAME(double *A, double *B, ...);
// one pointer per variable in declaration order, and a C header declaring
// it. Link the object into any C, C++ or Fortran application, or ask for a
// shared library (--shared).
//
//===----------------------------------------------------------------------===//

#include "tensorlang/API/CommandLine.h"
#include "tensorlang/API/Program.h"
#include "tensorlang/Support/AtomicOutput.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
using namespace tensorlang;
namespace cl = llvm::cl;

namespace {
cl::OptionCategory category("tl-compile options");
cl::opt<std::string> programPath(cl::Positional, cl::Required,
                                 cl::desc("<program.tl | program.mlir>"),
                                 cl::cat(category));
cl::opt<std::string> objectPath(
    "o", cl::Required,
    cl::desc("Object file to write (with --shared, the shared library)"),
    cl::value_desc("FILE.o"), cl::cat(category));
cl::opt<bool> sharedLibrary(
    "shared",
    cl::desc("Write a shared library, linked by the C compiler ($CC or cc), "
             "that describes its interface (tensorlang_interface(), for "
             "Python's tensorlang.load) and, for --target=cuda, holds the "
             "CUDA runtime: it needs only the C library and the NVIDIA "
             "driver where it runs"),
    cl::cat(category));
cl::opt<std::string> headerPath("header", cl::desc("C header to write"),
                                cl::value_desc("FILE.h"), cl::cat(category));
cl::opt<std::string> fortranPath(
    "fortran",
    cl::desc("Fortran module to write: an ISO_C_BINDING interface for the "
             "function"),
    cl::value_desc("FILE.f90"), cl::cat(category));
cl::opt<std::string> functionName(
    "name",
    cl::desc("Name of the C function (default: the program file's stem)"),
    cl::cat(category));

} // namespace

static LogicalResult error(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "tl-compile") << message << "\n";
  return failure();
}

static bool isCIdentifier(llvm::StringRef name) {
  if (name.empty() || !(std::isalpha(name[0]) || name[0] == '_'))
    return false;
  return llvm::all_of(name, [](char c) { return std::isalnum(c) || c == '_'; });
}

/// The C name: --name, or for a .tl file its stem with other characters
/// replaced by '_', or for a .mlir file the program's symbol name.
static std::string chooseName(tl::ProgramOp program) {
  if (!functionName.empty())
    return functionName;
  if (llvm::sys::path::extension(programPath) == ".mlir")
    return program.getSymName().str();
  std::string stem = llvm::sys::path::stem(programPath).str();
  for (char &c : stem)
    if (!std::isalnum(c) && c != '_')
      c = '_';
  if (!stem.empty() && std::isdigit(stem[0]))
    stem = "_" + stem;
  return stem;
}

static LogicalResult compile() {
  llvm::Expected<ProgramOptions> options = getProgramOptionsFromCL();
  if (!options)
    return error(llvm::toString(options.takeError()));
  Program program(*options,
                  [](const std::string &message) { (void)error(message); });
  SourceMgrDiagnosticHandler diagnostics(program.getSourceMgr(),
                                         &program.getContext());
  MachineErrorHandler machineErrors(
      program.getContext(),
      [](const std::string &message) { (void)error(message); });
  if (failed(program.loadFile(programPath)))
    return failure();

  std::string name = chooseName(program.getOp());
  if (!isCIdentifier(name) || name == "main")
    return error("'" + name +
                 "' cannot be the name of the C function; choose one with "
                 "--name");
  if (failed(program.setName(name)))
    return failure();

  // The Fortran interface first: a name Fortran cannot have fails before
  // anything is written.
  FailureOr<std::string> fortran;
  if (!fortranPath.empty() && failed(fortran = program.emitFortranInterface()))
    return failure();
  // One lowering gives the object and the header's byte counts.
  FailureOr<std::string> header = sharedLibrary
                                      ? program.emitSharedLibrary(objectPath)
                                      : program.emitObjectFile(objectPath);
  if (failed(header))
    return failure();
  auto write = [](llvm::StringRef path, llvm::StringRef text) {
    if (llvm::Error err = writeFileAtomically(
            path, [&](llvm::raw_pwrite_stream &os) -> llvm::Error {
              os << text;
              return llvm::Error::success();
            }))
      return error(llvm::toString(std::move(err)));
    return success();
  };
  if (!headerPath.empty() && failed(write(headerPath, *header)))
    return failure();
  if (!fortranPath.empty() && failed(write(fortranPath, *fortran)))
    return failure();
  return success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerProgramCLOptions(category, /*withRunFlags=*/false);
  if (llvm::Error threadsError = takeThreadsFlag(argc, argv)) {
    (void)error(llvm::toString(std::move(threadsError)));
    return 1;
  }
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "Compile a tensor language program to an object file and a C header\n");
  return succeeded(compile()) ? 0 : 1;
}
