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
#include "tensorlang/Interpreter/SemanticCheck.h"
#include "tensorlang/Support/AtomicOutput.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

namespace tensorlang::test {
void registerTestPasses();
} // namespace tensorlang::test

static llvm::cl::opt<bool> checkSemantics(
    "tl-check-semantics",
    llvm::cl::desc("Run every tl.program through the reference interpreter "
                   "before and after each pass, on seeded random inputs, "
                   "and report the first pass that changes its meaning"),
    llvm::cl::init(false));
static llvm::cl::opt<uint64_t> checkSemanticsSeed(
    "tl-check-semantics-seed",
    llvm::cl::desc("Seed of the inputs of --tl-check-semantics"),
    llvm::cl::init(tensorlang::SemanticCheckOptions().seed));

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  tensorlang::test::registerTestPasses();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates kernels to LLVM IR (the GPU target).
  mlir::registerAllGPUToLLVMIRTranslations(registry);
  tensorlang::registerTensorLangDialects(registry);
  tensorlang::registerTensorLangPasses();
  return tensorlang::runWithAtomicOutput(argc, argv, [&](int argc, char **argv) {
    auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
        argc, argv, "TensorLang optimizer driver\n", registry);
    mlir::MlirOptMainConfig config =
        mlir::MlirOptMainConfig::createFromCLOptions();
    std::shared_ptr<bool> changedMeaning;
    // The configuration's own callback adds the passes named on the
    // command line.
    mlir::MlirOptMainConfig fromCommandLine = config;
    config.setPassPipelineSetupFn([&](mlir::PassManager &pm) {
      if (mlir::failed(fromCommandLine.setupPassPipeline(pm)))
        return mlir::failure();
      if (checkSemantics) {
        tensorlang::SemanticCheckOptions options;
        options.seed = checkSemanticsSeed;
        changedMeaning = tensorlang::addSemanticCheck(pm, options);
      }
      return mlir::success();
    });
    std::string error;
    std::unique_ptr<llvm::MemoryBuffer> input =
        mlir::openInputFile(inputFilename, &error);
    if (!input) {
      llvm::errs() << error << "\n";
      return 1;
    }
    std::unique_ptr<llvm::ToolOutputFile> output =
        mlir::openOutputFile(outputFilename, &error);
    if (!output) {
      llvm::errs() << error << "\n";
      return 1;
    }
    if (mlir::failed(mlir::MlirOptMain(output->os(), std::move(input),
                                       registry, config)))
      return 1;
    if (changedMeaning && *changedMeaning)
      return 1;
    output->keep();
    return 0;
  });
}
