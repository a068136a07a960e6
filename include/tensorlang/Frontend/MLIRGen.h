//===- MLIRGen.h - Import source programs into the tl dialect ---*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_FRONTEND_MLIRGEN_H
#define TENSORLANG_FRONTEND_MLIRGEN_H

#include "tensorlang/Frontend/SourceSyntax.h"
#include "tensorlang/Support/ElementKind.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"

#include <string>

namespace tensorlang {

struct ImportOptions {
  /// The element type of every variable.
  ElementKind elementType = ElementKind::F64;
  /// The symbol name of the tl.program.
  std::string programName = "main";
  SourceSyntax syntax = SourceSyntax::TensorLang;
  /// Report unused statements and inputs (tl::checkUnusedValues) as errors
  /// rather than warnings (--Werror).
  bool warningsAreErrors = false;
};

/// Parses and type-checks the main buffer of `sourceMgr` and returns a module
/// holding one verified tl.program. On error, reports every problem found
/// through the context's diagnostic engine (file:line:col locations) and
/// returns null. Warnings (unused statements and inputs) go to the same
/// engine. Loads the tl dialect into `context`.
mlir::OwningOpRef<mlir::ModuleOp>
importSource(const llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context,
             const ImportOptions &options = {});

} // namespace tensorlang

#endif // TENSORLANG_FRONTEND_MLIRGEN_H
