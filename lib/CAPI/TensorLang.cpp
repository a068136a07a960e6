//===- TensorLang.cpp - C API of TensorLang -------------------------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang-c/TensorLang.h"
#include "tensorlang/Dialect/TL/IR/TLDialect.h"
#include "tensorlang/Frontend/MLIRGen.h"
#include "tensorlang/InitAllPasses.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(TL, tl, tensorlang::tl::TLDialect)

void tensorlangRegisterPasses(void) { tensorlang::registerTensorLangPasses(); }

MlirModule tensorlangImportSource(MlirContext context, MlirStringRef source,
                                  MlirStringRef filename) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(unwrap(source), unwrap(filename)),
      llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      tensorlang::importSource(sourceMgr, unwrap(context));
  return wrap(module.release());
}
