//===- LoadProgram.h - Read a program from a .tl or .mlir file --*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_FRONTEND_LOADPROGRAM_H
#define TENSORLANG_FRONTEND_LOADPROGRAM_H

#include "tensorlang/Dialect/TL/IR/TLOps.h"
#include "tensorlang/Frontend/MLIRGen.h"

namespace tensorlang {

/// A program read from a file, and the module that owns it.
struct LoadedProgram {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  tl::ProgramOp program;
};

/// Reads `path`: source text if it ends in `.tl` (imported with `options`),
/// tl dialect IR if it ends in `.mlir`; verifies it and finds its one
/// tl.program. Errors go to the context's diagnostic handler (with
/// `sourceMgr`'s locations) or, for problems with the file itself, are
/// returned as `error`.
mlir::FailureOr<LoadedProgram>
loadProgramFile(llvm::StringRef path, llvm::SourceMgr &sourceMgr,
                mlir::MLIRContext &context, const ImportOptions &options,
                std::string &error);

} // namespace tensorlang

#endif // TENSORLANG_FRONTEND_LOADPROGRAM_H
