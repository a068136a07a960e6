//===- tl-lsp-server.cpp - Language server for tl dialect IR --------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// MLIR's language server with the tl dialect and every upstream dialect:
// editors get diagnostics (the tl verifiers, so the report's typing rules),
// hover and navigation for .mlir files holding tl programs.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/InitAllDialects.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Tools/mlir-lsp-server/MlirLspServerMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  tensorlang::registerTensorLangDialects(registry);
  return mlir::failed(mlir::MlirLspServerMain(argc, argv, registry));
}
