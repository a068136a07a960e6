//===- LoadProgram.cpp - Read a program from a .tl or .mlir file ----------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Frontend/LoadProgram.h"

#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace tensorlang;

FailureOr<LoadedProgram>
tensorlang::loadProgramFile(StringRef path, llvm::SourceMgr &sourceMgr,
                            MLIRContext &context, const ImportOptions &options,
                            std::string &error) {
  context.loadDialect<tl::TLDialect>();
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(path, &error);
  if (!file)
    return failure();
  StringRef extension = llvm::sys::path::extension(path);
  if (extension != ".tl" && extension != ".mlir") {
    error = ("cannot tell the kind of '" + path +
             "': expected a .tl source file or a .mlir file")
                .str();
    return failure();
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  LoadedProgram loaded;
  loaded.module = extension == ".tl"
                      ? importSource(sourceMgr, &context, options)
                      : parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!loaded.module)
    return failure();
  SmallVector<tl::ProgramOp> programs(loaded.module->getOps<tl::ProgramOp>());
  if (programs.size() != 1) {
    error = (path + ": expected exactly one tl.program, found " +
             llvm::Twine(programs.size()))
                .str();
    return failure();
  }
  loaded.program = programs.front();
  return loaded;
}
