//===- tl-opt.cpp - The TensorLang optimizer driver -----------------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// mlir-opt with the tl dialect and its passes, plus every upstream dialect,
// extension and pass (the lowering pipeline goes through many of them, and
// users debug it stage by stage).
//
//===----------------------------------------------------------------------===//

#include "tensorlang/InitAll.h"
#include "tensorlang/Support/AtomicOutput.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  tensorlang::registerTensorLangDialects(registry);
  tensorlang::registerTensorLangPasses();
  return tensorlang::runWithAtomicOutput(argc, argv, [&](int argc, char **argv) {
    return mlir::asMainReturnCode(mlir::MlirOptMain(
        argc, argv, "TensorLang optimizer driver\n", registry));
  });
}
