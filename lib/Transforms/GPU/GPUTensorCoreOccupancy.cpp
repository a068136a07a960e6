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

#include "ContractionKernel.h"
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
      // (The m8n8k4 kernels, nvgpu.mma.sync, fit ptxas's own choice.) The
      // contraction kernels say what they need; the fewest asked wins.
      std::optional<int64_t> blocks;
      kernel.walk([&](LLVM::InlineAsmOp assembly) {
        if (!assembly.getAsmString().starts_with("mma.sync"))
          return;
        int64_t asked = blocksPerMultiprocessor;
        if (auto attr = assembly->getAttrOfType<IntegerAttr>(
                tensorlang::kBlocksPerMultiprocessorAttrName))
          asked = attr.getInt();
        assembly->removeAttr(tensorlang::kBlocksPerMultiprocessorAttrName);
        blocks = std::min(blocks.value_or(asked), asked);
      });
      if (blocks)
        kernel->setAttr(
            NVVM::NVVMDialect::getMinctasmAttrName(),
            IntegerAttr::get(IntegerType::get(&getContext(), 32), *blocks));
    });
  }
};
} // namespace
