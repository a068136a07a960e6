//===- FuzzFrontend.cpp - Source text: import, verify, export, re-import --===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Any bytes: the import either fails with diagnostics or yields verified IR
// whose export imports again to the same IR; the language server's index
// of them (SourceIndex.h) holds ranges inside the text, and every
// reference names a symbol.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "tensorlang/Frontend/Export.h"
#include "tensorlang/Frontend/MLIRGen.h"
#include "tensorlang/Frontend/SourceIndex.h"

#include "mlir/IR/Verifier.h"

using namespace tensorlang;

static std::string print(mlir::ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

/// Imports the input with `syntax`; exporting and re-importing it as this
/// language must give the same IR (for CFDlang, that is the translation).
static void checkRoundTrip(const uint8_t *data, size_t size,
                           SourceSyntax syntax) {
  fuzz::Session session(data, size);
  ImportOptions options;
  options.syntax = syntax;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      importSource(session.sourceMgr, &session.context, options);
  if (!module)
    return;
  if (mlir::failed(mlir::verify(*module)))
    fuzz::fail("the frontend produced IR that does not verify");
  std::string exported;
  llvm::raw_string_ostream os(exported);
  if (mlir::failed(exportSource(*module, os)))
    return; // e.g. too large to print as text
  fuzz::Session again(reinterpret_cast<const uint8_t *>(exported.data()),
                      exported.size());
  mlir::OwningOpRef<mlir::ModuleOp> reimported =
      importSource(again.sourceMgr, &again.context);
  if (!reimported)
    fuzz::fail("exported source does not import");
  if (print(*module) != print(*reimported))
    fuzz::fail("import(export(import(x))) differs from import(x)");
}

/// What tl-language-server answers from: ranges within the buffer.
static void checkIndex(const uint8_t *data, size_t size) {
  fuzz::Session session(data, size);
  SourceIndex index = indexSource(session.sourceMgr, &session.context);
  llvm::StringRef buffer =
      session.sourceMgr.getMemoryBuffer(session.sourceMgr.getMainFileID())
          ->getBuffer();
  auto inside = [&](llvm::SMRange range) {
    return buffer.begin() <= range.Start.getPointer() &&
           range.Start.getPointer() <= range.End.getPointer() &&
           range.End.getPointer() <= buffer.end();
  };
  for (const SourceIndex::Symbol &symbol : index.symbols)
    if (!inside(symbol.nameRange) || !inside(symbol.range))
      fuzz::fail("a symbol's range lies outside the source");
  for (const SourceIndex::Reference &reference : index.references)
    if (!inside(reference.range) || reference.symbol >= index.symbols.size())
      fuzz::fail("a reference lies outside the source or names no symbol");
  for (const SourceIndex::TypeAt &type : index.types)
    if (!inside(type.range) || type.type.empty())
      fuzz::fail("a type lies outside the source or is empty");
}

// libFuzzer's entry point has its own name.
extern "C" int LLVMFuzzerTestOneInput( // NOLINT(readability-identifier-naming)
    const uint8_t *data, size_t size) {
  checkRoundTrip(data, size, SourceSyntax::TensorLang);
  checkRoundTrip(data, size, SourceSyntax::CFDlang);
  checkIndex(data, size);
  return 0;
}
