//===- Lowering.cpp - tl to the LLVM dialect ------------------------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Compiler/Compiler.h"
#include "tensorlang/Conversion/Passes.h"
#include "tensorlang/Dialect/TL/IR/TLAttributes.h"
#include "tensorlang/Pipelines/Pipelines.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

using namespace mlir;
using namespace tensorlang;

/// A module holding a clone of `program` and compiled for `target`, in a
/// context that knows every dialect and interface model the lowering goes
/// through.
static OwningOpRef<ModuleOp> cloneIntoModule(tl::ProgramOp program,
                                             const TargetDescription &target) {
  MLIRContext *context = program.getContext();
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  // gpu-module-to-binary translates the kernels of the GPU target.
  registerAllGPUToLLVMIRTranslations(registry);
  context->appendDialectRegistry(registry);
  OwningOpRef<ModuleOp> module = ModuleOp::create(program.getLoc());
  tl::setTargetDescription(*module, target);
  OpBuilder builder(context);
  builder.setInsertionPointToEnd(module->getBody());
  builder.clone(*program.getOperation());
  return module;
}

/// The pass pipelines' options for compiling `program` with `options`
/// (pipeline options cannot be copied, so they are filled in place).
static void setLoweringOptions(LoweringOptions &lowering, tl::ProgramOp program,
                               const TargetDescription &target,
                               const CompileOptions &options) {
  lowering.vectorLanes = target.lanes(program.getElementType().getWidth() / 8);
  lowering.optimize = options.optimize;
  lowering.tileContractions = options.tileContractions;
  lowering.fuseBatchesMinBytes = options.fuseBatchesMinBytes;
  lowering.streamingMinBytes = options.streamingMinBytes;
  lowering.prefetchMinSliceBytes = options.prefetchMinSliceBytes;
  lowering.prefetchStridedSteps = options.prefetchStridedSteps;
  lowering.maxShortSize = options.maxShortSize;
  lowering.wideColumnVersions = options.wideColumnVersions;
  lowering.interlaceBatches = options.interlaceBatches;
  lowering.threads = options.threads;
  lowering.remarks = options.remarks;
  lowering.distribute = options.distribute;
  lowering.gpuRegisterTile = options.gpuRegisterTile;
  lowering.gpuDepthStep = options.gpuDepthStep;
  lowering.gpuBlocksPerSM = options.gpuBlocksPerSM;
  lowering.gpuAsyncStages = options.gpuAsyncStages;
  lowering.gpuTileGroupRows = options.gpuTileGroupRows;
  lowering.gpuDepthContiguousTiles = options.gpuDepthContiguousTiles;
  lowering.gpuF64Mma = options.gpuF64Mma;
  // The GPU target maps statements to threads itself: the CPU's cache and
  // register tiles do not apply.
  if (options.gpuMappingOnCPU) {
    lowering.gpuMappingOnCPU = true;
    lowering.tileContractions = false;
  }
  if (!target.gpuChip.empty()) {
    lowering.targetsGPU = true;
    lowering.gpuChip = target.gpuChip;
    // (Where none is found, kernels that call libdevice are refused after
    // the lowering, which sees the calls.)
    lowering.gpuToolkit = getCudaToolkit();
    lowering.tileContractions = false;
  }
}

FailureOr<std::string> tensorlang::printStage(tl::ProgramOp program,
                                              StringRef stage,
                                              const CompileOptions &options) {
  llvm::Expected<TargetDescription> target = resolveTarget(options);
  if (!target)
    return program.emitError(llvm::toString(target.takeError()));
  OwningOpRef<ModuleOp> module = cloneIntoModule(program, *target);
  PassManager pm(program.getContext());
  LoweringOptions lowering;
  setLoweringOptions(lowering, program, *target, options);
  if (stage == "tl") {
  } else if (stage == "linalg") {
    buildDistributePipeline(pm, lowering);
    buildTLOptimizationPipeline(pm, lowering);
    buildDistributePipeline(pm, lowering);
    pm.addPass(createConvertTLToLinalg());
  } else if (stage == "loops") {
    buildTLToBuffersPipeline(pm, lowering);
    // (The GPU target's loops are its statements mapped to blocks and
    // threads.)
    if (lowering.targetsGPU)
      buildMapToGPUPipeline(pm, lowering);
    else
      buildLowerToLoopsPipeline(pm, lowering);
  } else if (stage == "llvm") {
    if (lowering.targetsGPU) {
      buildTLToBuffersPipeline(pm, lowering);
      buildLowerToGPUPipeline(pm, lowering);
    } else {
      buildTLToLLVMPipeline(pm, lowering);
    }
  } else {
    return program.emitError("unknown stage '")
           << stage << "' (expected tl, linalg, loops or llvm)";
  }
  if (failed(pm.run(*module)))
    return program.emitError("lowering to stage '") << stage << "' failed";
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

FailureOr<LoweredProgram> tensorlang::lowerToLLVM(tl::ProgramOp program,
                                                  const CompileOptions &options) {
  MLIRContext *context = program.getContext();
  LoweredProgram lowered;
  lowered.functionName = program.getSymName().str();
  if (!options.distribute.empty())
    lowered.functionName += "_mpi";
  llvm::Expected<TargetDescription> target = resolveTarget(options);
  if (!target)
    return program.emitError(llvm::toString(target.takeError()));
  lowered.target = *target;
  lowered.module = cloneIntoModule(program, *target);
  LoweringOptions lowering;
  setLoweringOptions(lowering, program, *target, options);

  // Up to bufferization first, to learn the temporaries' sizes.
  PassManager bufferize(context);
  buildTLToBuffersPipeline(bufferize, lowering);
  if (failed(bufferize.run(*lowered.module)))
    return program.emitError("lowering to linalg and bufferizing failed");
  lowered.module->walk([&](memref::AllocOp alloc) {
    MemRefType type = alloc.getType();
    lowered.hasSizedTemporaries |= !type.hasStaticShape();
    if (type.hasStaticShape())
      lowered.temporaryBytes +=
          type.getNumElements() * type.getElementTypeBitWidth() / 8;
  });

  if (!lowered.target.gpuChip.empty()) {
    PassManager gpu(context);
    buildLowerToGPUPipeline(gpu, lowering);
    if (failed(gpu.run(*lowered.module)))
      return program.emitError("lowering for the GPU failed");
    // Without libdevice, kernels that call exp, log or abs keep them as
    // undefined functions, which no driver can load.
    WalkResult unresolved = lowered.module->walk([](gpu::BinaryOp binary) {
      for (Attribute object : binary.getObjects())
        for (StringRef line : llvm::split(
                 cast<gpu::ObjectAttr>(object).getObject().getValue(), '\n'))
          if (line.starts_with(".extern .func") && line.contains(" __nv_"))
            return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (unresolved.wasInterrupted())
      return program.emitError(
          "the GPU kernels call CUDA's libdevice (exp, log, abs, ...), and "
          "no CUDA toolkit was found to link it: set CUDA_HOME to one "
          "(nvvm/libdevice/libdevice.10.bc)");
    // No workspace variant: the temporaries are in device memory.
    lowered.workspaceBytes = -1;
    return lowered;
  }

  PassManager loops(context);
  buildLowerToLoopsPipeline(loops, lowering);
  if (failed(loops.run(*lowered.module)))
    return program.emitError("lowering to loops failed");
  // The constant tl-workspace's size function returns, if it returns one;
  // and whether the workspace variant still allocates sized temporaries
  // (the plain function's allocation is its workspace).
  if (auto size = lowered.module->lookupSymbol<func::FuncOp>(
          lowered.functionName + "_workspace_size")) {
    size.walk([&](func::ReturnOp ret) {
      auto constant = ret.getOperand(0).getDefiningOp<arith::ConstantIntOp>();
      lowered.workspaceBytes = constant ? constant.value() : -1;
      lowered.workspaceGrowsWithSizes = !constant;
    });
    lowered.hasSizedTemporaries = false;
    lowered.module->walk([&](memref::AllocOp alloc) {
      auto func = alloc->getParentOfType<func::FuncOp>();
      if (func && func.getSymName() != lowered.functionName)
        lowered.hasSizedTemporaries |= !alloc.getType().hasStaticShape();
    });
  }

  PassManager rest(context);
  buildLowerToLLVMPipeline(rest, lowering);
  if (failed(rest.run(*lowered.module)))
    return program.emitError("lowering to the LLVM dialect failed");
  return lowered;
}
