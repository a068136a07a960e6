//===- FuzzIR.cpp - tl IR: parse, verify, interpret, pad, lower -----------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "tensorlang/Compiler/Compiler.h"
#include "tensorlang/Dialect/TL/Transforms/Passes.h"
#include "tensorlang/Interpreter/SemanticCheck.h"
#include "tensorlang/Pipelines/Pipelines.h"
#include "tensorlang/Interpreter/Interpreter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

using namespace tensorlang;

/// Keeps each input cheap: small stores only.
static bool isSmall(tl::ProgramOp program) {
  int64_t elements = 0;
  for (tl::VarOp var : program.getVars())
    elements += var.getType().getNumElements();
  return elements <= 4096;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz::Session session(data, size, "fuzz.mlir");
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(session.sourceMgr,
                                            &session.context);
  if (!module)
    return 0;
  for (tl::ProgramOp program : module->getOps<tl::ProgramOp>()) {
    // A program with sizes is interpreted at one value of them (its
    // meaning there), and compiled as it is: the code takes the sizes.
    mlir::OwningOpRef<tl::ProgramOp> bound;
    tl::ProgramOp concrete = program;
    if (!program.getSizes().empty()) {
      bound = mlir::cast<tl::ProgramOp>(program->clone());
      llvm::StringMap<int64_t> values;
      for (tl::SizeOp sizeOp : program.getSizes())
        values[sizeOp.getSymName()] = 3;
      if (mlir::failed(tl::bindSizes(*bound, values)))
        continue;
      concrete = *bound;
    }
    if (!isSmall(concrete))
      continue;
    mlir::FailureOr<double> work = estimateWork(concrete);
    if (mlir::succeeded(work) && *work < 1e6) {
      mlir::FailureOr<Store> store = makeUndefinedStore(concrete);
      if (mlir::succeeded(store)) {
        InterpreterOptions options;
        options.maxWork = 1e6;
        (void)interpret(concrete, *store, options);
      }
    }
    // The tl-level passes keep the meaning (checked by the interpreter).
    if (mlir::succeeded(work) && *work < 1e5) {
      mlir::OwningOpRef<tl::ProgramOp> copy(
          mlir::cast<tl::ProgramOp>(program->clone()));
      mlir::PassManager pm(&session.context, tl::ProgramOp::getOperationName());
      SemanticCheckOptions options;
      options.maxWork = 1e5;
      std::shared_ptr<bool> broken = addSemanticCheck(pm, options);
      LoweringOptions lowering;
      buildTLOptimizationPipeline(pm, lowering);
      if (mlir::succeeded(pm.run(*copy)) && *broken)
        fuzz::fail("a tl pass changed the meaning of a program");
    }
    (void)lowerToLLVM(program, CompileOptions());
    if (mlir::succeeded(tl::padProgram(program, 3))) {
      if (mlir::failed(mlir::verify(program)))
        fuzz::fail("padding produced IR that does not verify");
      (void)lowerToLLVM(program, CompileOptions());
    }
  }
  return 0;
}
