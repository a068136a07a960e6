//===- Registration.cpp - Register TensorLang's dialect and passes --------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Conversion/Passes.h"
#include "tensorlang/Dialect/TL/IR/TLDialect.h"
#include "tensorlang/Dialect/TL/Transforms/Passes.h"
#include "tensorlang/InitAll.h"
#include "tensorlang/Pipelines/Pipelines.h"
#include "tensorlang/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"

void tensorlang::registerTensorLangDialects(mlir::DialectRegistry &registry) {
  registry.insert<tl::TLDialect>();
}

void tensorlang::registerTensorLangPasses() {
  tl::registerTLPasses();
  registerConversionPasses();
  registerTransformsPasses();
  registerTensorLangPipelines();
}
