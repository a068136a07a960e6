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
//
// Turns a .tl (or .mlir) program into an object file defining
//   void NAME(double *A, double *B, ...);
// one pointer per variable in declaration order, and a C header declaring
// it. Link the object into any C, C++ or Fortran application.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Compiler/Compiler.h"
#include "tensorlang/Dialect/TL/Transforms/Passes.h"
#include "tensorlang/Frontend/LoadProgram.h"
#include "tensorlang/Support/AtomicOutput.h"
#include "tensorlang/Support/ThreadsFlag.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
using namespace tensorlang;
namespace cl = llvm::cl;

namespace {
cl::OptionCategory category("tl-compile options");
cl::opt<std::string> programPath(cl::Positional, cl::Required,
                                 cl::desc("<program.tl | program.mlir>"),
                                 cl::cat(category));
cl::opt<std::string> objectPath("o", cl::Required,
                                cl::desc("Object file to write"),
                                cl::value_desc("FILE.o"), cl::cat(category));
cl::opt<std::string> headerPath("header", cl::desc("C header to write"),
                                cl::value_desc("FILE.h"), cl::cat(category));
cl::opt<std::string> functionName(
    "name",
    cl::desc("Name of the C function (default: the program file's stem)"),
    cl::cat(category));
cl::opt<ElementType> elementType(
    "element-type", cl::desc("Element type of a .tl program"),
    cl::values(clEnumValN(ElementType::F64, "f64", "double"),
               clEnumValN(ElementType::F32, "f32", "float")),
    cl::init(ElementType::F64), cl::cat(category));
cl::opt<std::string> cpu("cpu",
                         cl::desc("CPU to generate code for: host, or an LLVM "
                                  "CPU name such as x86-64-v3"),
                         cl::init("host"), cl::cat(category));
cl::opt<unsigned> pad(
    "pad",
    cl::desc("Pad every extent to a multiple of M (0: none); the function "
             "then takes padded buffers whose padding is zero"),
    cl::value_desc("M"), cl::init(0), cl::cat(category));
cl::opt<unsigned> vectorBits(
    "vector-bits", cl::desc("Vector width in bits (0: the CPU's widest)"),
    cl::init(0), cl::cat(category));
unsigned threads = 1; // --threads, see ThreadsFlag.h
cl::extrahelp threadsHelp(kThreadsFlagHelp);
cl::opt<bool> noTile(
    "no-tile",
    cl::desc("Do not tile and vectorize contractions into register-blocked "
             "micro-kernels (tl-tile-contractions), and do not compute "
             "statement chains per batch slice (tl-fuse-batches); for "
             "comparisons"),
    cl::init(false), cl::cat(category));
cl::opt<bool> noOptimize(
    "no-optimize",
    cl::desc("Compile the program as written, without the tl-level "
             "optimizations (contraction order)"),
    cl::init(false), cl::cat(category));

LogicalResult error(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "tl-compile") << message << "\n";
  return failure();
}

bool isCIdentifier(llvm::StringRef name) {
  if (name.empty() || !(std::isalpha(name[0]) || name[0] == '_'))
    return false;
  return llvm::all_of(name, [](char c) { return std::isalnum(c) || c == '_'; });
}

/// The C name: --name, or for a .tl file its stem with other characters
/// replaced by '_', or for a .mlir file the program's symbol name.
std::string chooseName(tl::ProgramOp program) {
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
} // namespace

static LogicalResult compile() {
  MLIRContext context;
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

  std::string name = chooseName(program);
  if (!isCIdentifier(name) || name == "main")
    return error("'" + name +
                 "' cannot be the name of the C function; choose one with "
                 "--name");
  program.setSymName(name);
  if (pad != 0 && failed(tl::padProgram(program, pad)))
    return failure();

  CompileOptions options;
  options.cpu = cpu;
  options.vectorBits = vectorBits;
  options.optimize = !noOptimize;
  options.tileContractions = !noTile;
  options.threads = threads;
  if (failed(emitObjectFile(program, options, objectPath)))
    return failure();

  if (!headerPath.empty()) {
    // The header documents the temporaries the function allocates.
    FailureOr<LoweredProgram> lowered = lowerToLLVM(program, options);
    if (failed(lowered))
      return failure();
    std::string text = emitCHeader(program, lowered->temporaryBytes);
    if (llvm::Error err =
            writeFileAtomically(headerPath, [&](llvm::raw_pwrite_stream &os)
                                                -> llvm::Error {
              os << text;
              return llvm::Error::success();
            }))
      return error(llvm::toString(std::move(err)));
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
      "Compile a tensor language program to an object file and a C header\n");
  return succeeded(compile()) ? 0 : 1;
}
