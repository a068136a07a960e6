//===- Passes.h - TensorLang passes on upstream IR --------------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_TRANSFORMS_PASSES_H
#define TENSORLANG_TRANSFORMS_PASSES_H

#include "tensorlang/Dialect/TL/IR/TLDialect.h"
#include "tensorlang/Transforms/Defaults.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace tensorlang {

/// Marks a loop of tl-fuse-batches (for-gpu) over one batch index per
/// iteration, which tl-gpu-map-loops runs as one kernel: a block per index.
constexpr llvm::StringLiteral kBatchLoopAttrName = "tl.batch_loop";

/// Marks a loop of tl-fuse-batches over whole tiles of batch indices that
/// tl-interlace-batches computes with the batch dimension last.
constexpr llvm::StringLiteral kInterlaceBatchesAttrName =
    "tl.interlace_batches";

#define GEN_PASS_DECL
#include "tensorlang/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tensorlang/Transforms/Passes.h.inc"

} // namespace tensorlang

#endif // TENSORLANG_TRANSFORMS_PASSES_H
