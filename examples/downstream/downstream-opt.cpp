//===- downstream-opt.cpp - A compiler that embeds the tl dialect ---------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Everything a downstream MLIR compiler needs to use tl: register the
// dialect and the passes, then run them like any other. With
// --import-source=FILE.tl it also shows the C++ import entry point. It also
// plugs in a contraction planner of its own, which
// tl-tile-contractions{planner=narrow} then uses without any change to the
// rewrites.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Frontend/MLIRGen.h"
#include "tensorlang/InitAll.h"
#include "tensorlang/Transforms/ContractionPlan.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/SourceMgr.h"

#include <cstring>

namespace {
/// A planner that plans as the target's own but with register tiles of two
/// rows (say, for a core with few registers).
class NarrowPlanner : public tensorlang::ContractionPlanner {
public:
  explicit NarrowPlanner(std::unique_ptr<tensorlang::ContractionPlanner> inner)
      : ContractionPlanner(inner->getConfig()), inner(std::move(inner)) {
    config.registerRows = 2;
  }
  llvm::StringRef getName() const override { return "narrow"; }
  mlir::FailureOr<tensorlang::ContractionTilingPlan>
  plan(const tensorlang::ContractionShape &contraction,
       std::string *whyNot) const override {
    inner->getConfig() = config;
    return inner->plan(contraction, whyNot);
  }
  using ContractionPlanner::plan;

private:
  std::unique_ptr<tensorlang::ContractionPlanner> inner;
};
} // namespace

int main(int argc, char **argv) {
  tensorlang::registerContractionPlanner(
      "narrow",
      [](const tensorlang::TargetDescription &target, int64_t elementBytes) {
        return std::make_unique<NarrowPlanner>(
            tensorlang::createContractionPlanner("cpu", target, elementBytes));
      });

  // downstream-opt --import-source FILE.tl: import and print.
  if (argc == 3 && std::strcmp(argv[1], "--import-source") == 0) {
    mlir::MLIRContext context;
    llvm::SourceMgr sourceMgr;
    auto file = llvm::MemoryBuffer::getFile(argv[2]);
    if (!file)
      return 1;
    sourceMgr.AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
    mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
    auto module = tensorlang::importSource(sourceMgr, &context);
    if (!module)
      return 1;
    module->print(llvm::outs());
    return 0;
  }

  mlir::registerAllPasses();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  tensorlang::registerTensorLangDialects(registry);
  tensorlang::registerTensorLangPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "A downstream compiler with tl\n", registry));
}
