//===- GPUTensorCoreOccupancy.cpp - Registers for tensor-core kernels -----===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// ptxas sizes a kernel's registers for as many blocks per multiprocessor as
// it sees fit; for the contraction kernels on sm_90's f64 tensor-core
// shapes (inline PTX) it aimed at 64 or 80 registers and spilled. Asking
// for two blocks per multiprocessor (.minnctapersm 2) lets it use up to 128
// registers for 256 threads, which most of those kernels fit.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace tensorlang {
#define GEN_PASS_DEF_GPUTENSORCOREOCCUPANCY
#include "tensorlang/Transforms/Passes.h.inc"
} // namespace tensorlang

using namespace mlir;

namespace {
struct GPUTensorCoreOccupancyPass
    : public tensorlang::impl::GPUTensorCoreOccupancyBase<
          GPUTensorCoreOccupancyPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([&](gpu::GPUFuncOp kernel) {
      if (!kernel.isKernel())
        return;
      // (The m8n8k4 kernels, nvgpu.mma.sync, fit ptxas's own choice.)
      bool usesTensorCores = false;
      kernel.walk([&](LLVM::InlineAsmOp assembly) {
        usesTensorCores |= assembly.getAsmString().starts_with("mma.sync");
      });
      if (usesTensorCores)
        kernel->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                        IntegerAttr::get(IntegerType::get(&getContext(), 32),
                                         blocksPerMultiprocessor));
    });
  }
};
} // namespace
