//===- tl-translate.cpp - Source <-> tl dialect translation ---------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/InitAllTranslations.h"
#include "tensorlang/Support/AtomicOutput.h"

#include "mlir/Support/LogicalResult.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "llvm/Support/CommandLine.h"

int main(int argc, char **argv) {
  // --help shows the translations and mlir-translate's own options, not
  // the hundreds of LLVM's that linking registers (--help-hidden has them):
  // those are all registered by now, the tool's when its main runs.
  for (auto &option : llvm::cl::getRegisteredOptions())
    option.second->setHiddenFlag(llvm::cl::Hidden);
  tensorlang::registerTensorLangTranslations();
  return tensorlang::runWithAtomicOutput(argc, argv, [](int argc, char **argv) {
    return mlir::asMainReturnCode(mlir::mlirTranslateMain(
        argc, argv, "TensorLang source <-> tl dialect translation"));
  });
}
