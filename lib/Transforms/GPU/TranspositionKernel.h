//===- TranspositionKernel.h - A transposition as a GPU kernel --*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// tl-gpu-map-loops' kernel for a statement that copies its input into its
// output with the loops permuted: tiles of both operands' stride-1 loops
// staged in shared memory, read along one and written along the other.
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_TRANSFORMS_GPU_TRANSPOSITIONKERNEL_H
#define TENSORLANG_TRANSFORMS_GPU_TRANSPOSITIONKERNEL_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>
#include <string>

namespace tensorlang {

/// The loops of a transposition's kernel: the tile is readLoop (the
/// input's stride-1 loop) x writeLoop (the output's); the other loops go to
/// the grid.
struct GPUTranspositionPlan {
  unsigned readLoop = 0, writeLoop = 0;
  llvm::SmallVector<unsigned> otherLoops;
  /// Elements of the tile along each of its loops, and the rows of the
  /// block's threads (each thread stages and stores tile / threadRows
  /// elements).
  static constexpr int64_t kTile = 32, kThreadRows = 8;
  /// How `--remarks` describes the plan.
  std::string describe() const;
};

/// The plan of `op`'s kernel, or none where `op` is not a transposition on
/// buffers whose input and output have different stride-1 loops, each of
/// at least half a tile (or of an extent known at run time only).
std::optional<GPUTranspositionPlan>
planGPUTransposition(mlir::linalg::GenericOp op);

/// Replaces `op` with its kernel: an scf.parallel over blocks (block_x)
/// holding one over kTile x kThreadRows threads (thread_x). With
/// `barriers` the tile is in shared memory between a gpu.barrier; without
/// (the mapped IR run on the CPU), each thread stages every thread's share
/// into a tile of its own.
void emitGPUTranspositionKernel(mlir::RewriterBase &rewriter,
                                mlir::linalg::GenericOp op,
                                const GPUTranspositionPlan &plan,
                                bool barriers);

} // namespace tensorlang

#endif // TENSORLANG_TRANSFORMS_GPU_TRANSPOSITIONKERNEL_H
