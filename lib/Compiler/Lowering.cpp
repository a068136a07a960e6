//===- Lowering.cpp - tl to the LLVM dialect ------------------------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Compiler/Compiler.h"
#include "tensorlang/Conversion/Passes.h"
#include "tensorlang/Pipelines/Pipelines.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace tensorlang;

unsigned tensorlang::getHostVectorBits() {
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  if (features.lookup("avx512f"))
    return 512;
  if (features.lookup("avx"))
    return 256;
  return 128;
}

FailureOr<LoweredProgram> tensorlang::lowerToLLVM(tl::ProgramOp program,
                                                  const CompileOptions &options) {
  MLIRContext *context = program.getContext();
  // The lowering goes through many upstream dialects, and bufferization
  // needs their external interface models.
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  context->appendDialectRegistry(registry);

  LoweredProgram lowered;
  lowered.functionName = program.getSymName().str();
  lowered.module = ModuleOp::create(program.getLoc());
  OpBuilder builder(context);
  builder.setInsertionPointToEnd(lowered.module->getBody());
  builder.clone(*program.getOperation());

  unsigned bits = options.vectorBits ? options.vectorBits : getHostVectorBits();
  LoweringOptions lowering;
  lowering.vectorLanes = bits / program.getElementType().getWidth();

  // Up to bufferization first, to learn the temporaries' sizes.
  PassManager bufferize(context);
  bufferize.addPass(createConvertTLToLinalg());
  buildBufferizePipeline(bufferize);
  if (failed(bufferize.run(*lowered.module)))
    return program.emitError("lowering to linalg and bufferizing failed");
  lowered.module->walk([&](memref::AllocOp alloc) {
    MemRefType type = alloc.getType();
    if (type.hasStaticShape())
      lowered.temporaryBytes +=
          type.getNumElements() * type.getElementTypeBitWidth() / 8;
  });

  PassManager rest(context);
  buildLowerToLoopsPipeline(rest, lowering);
  buildLowerToLLVMPipeline(rest);
  if (failed(rest.run(*lowered.module)))
    return program.emitError("lowering to the LLVM dialect failed");
  return lowered;
}
