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
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  tensorlang::registerTensorLangTranslations();
  return tensorlang::runWithAtomicOutput(argc, argv, [](int argc, char **argv) {
    return mlir::asMainReturnCode(mlir::mlirTranslateMain(
        argc, argv, "TensorLang source <-> tl dialect translation"));
  });
}
