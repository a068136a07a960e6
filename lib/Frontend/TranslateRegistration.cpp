//===- TranslateRegistration.cpp - --import-tl and --export-tl ------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Dialect/TL/IR/TLDialect.h"
#include "tensorlang/Frontend/Export.h"
#include "tensorlang/Frontend/MLIRGen.h"
#include "tensorlang/InitAllDialects.h"
#include "tensorlang/InitAllTranslations.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"

using namespace mlir;
using namespace tensorlang;

void tensorlang::registerTensorLangTranslations() {
  static llvm::cl::opt<ElementKind> elementType(
      "element-type", llvm::cl::desc("Element type of imported programs"),
      llvm::cl::values(clEnumValN(ElementKind::F64, "f64", "64-bit floats"),
                       clEnumValN(ElementKind::F32, "f32", "32-bit floats")),
      llvm::cl::init(ElementKind::F64));
  static llvm::cl::opt<std::string> programName(
      "program-name",
      llvm::cl::desc("Symbol name of the imported tl.program"),
      llvm::cl::init("main"));
  static llvm::cl::opt<bool> warningsAreErrors(
      "Werror",
      llvm::cl::desc("Treat warnings of --import-tl (statements whose value "
                     "is never used, inputs never read) as errors"),
      llvm::cl::init(false));

  static TranslateToMLIRRegistration importTL(
      "import-tl", "Import tensor language source into the tl dialect",
      [](llvm::SourceMgr &sourceMgr, MLIRContext *context) {
        ImportOptions options;
        options.elementType = elementType;
        options.programName = programName;
        options.warningsAreErrors = warningsAreErrors;
        return OwningOpRef<Operation *>(
            importSource(sourceMgr, context, options).release());
      });

  static TranslateToMLIRRegistration importCFDlang(
      "import-cfdlang",
      "Import CFDlang source into the tl dialect (0-based indices, "
      "right-associative operators, its elem directive)",
      [](llvm::SourceMgr &sourceMgr, MLIRContext *context) {
        ImportOptions options;
        options.elementType = elementType;
        options.programName = programName;
        options.warningsAreErrors = warningsAreErrors;
        options.syntax = SourceSyntax::CFDlang;
        return OwningOpRef<Operation *>(
            importSource(sourceMgr, context, options).release());
      });

  static TranslateFromMLIRRegistration exportTL(
      "export-tl", "Export a tl.program as tensor language source",
      [](Operation *op, llvm::raw_ostream &os) {
        return exportSource(op, os);
      },
      registerTensorLangDialects);
}
