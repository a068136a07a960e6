//===- FuzzFrontend.cpp - Source text: import, verify, export, re-import --===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Any bytes: the import either fails with diagnostics or yields verified IR
// whose export imports again to the same IR.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "tensorlang/Frontend/Export.h"
#include "tensorlang/Frontend/MLIRGen.h"

#include "mlir/IR/Verifier.h"

using namespace tensorlang;

static std::string print(mlir::ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz::Session session(data, size);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      importSource(session.sourceMgr, &session.context);
  if (!module)
    return 0;
  if (mlir::failed(mlir::verify(*module)))
    fuzz::fail("the frontend produced IR that does not verify");
  std::string exported;
  llvm::raw_string_ostream os(exported);
  if (mlir::failed(exportSource(*module, os)))
    return 0; // e.g. too large to print as text
  fuzz::Session again(reinterpret_cast<const uint8_t *>(exported.data()),
                      exported.size());
  mlir::OwningOpRef<mlir::ModuleOp> reimported =
      importSource(again.sourceMgr, &again.context);
  if (!reimported)
    fuzz::fail("exported source does not import");
  if (print(*module) != print(*reimported))
    fuzz::fail("import(export(import(x))) differs from import(x)");
  return 0;
}
