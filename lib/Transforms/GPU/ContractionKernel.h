//===- ContractionKernel.h - A contraction as a GPU kernel ------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// tl-gpu-map-loops' kernel for a contraction of two operands: a block per
// tile of the result, the operands' tiles staged in shared memory one depth
// step at a time, each thread summing a register tile of the result.
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_TRANSFORMS_GPU_CONTRACTIONKERNEL_H
#define TENSORLANG_TRANSFORMS_GPU_CONTRACTIONKERNEL_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include <array>
#include <optional>
#include <string>

namespace tensorlang {

/// What a contraction's kernel is made of: the loops of the generic split
/// by role, and the tiles.
struct GPUContractionPlan {
  /// The input whose tile is the rows of the block's tile (it does not
  /// depend on the column loops) and the one whose tile is the columns.
  unsigned rowInput = 0, columnInput = 1;
  /// Loops by role, each in the order its loops are collapsed (the last
  /// fastest): batch loops (both inputs or neither) go to the grid, row
  /// and column loops to the block's tile, depth loops (the reductions)
  /// are stepped through.
  llvm::SmallVector<unsigned> batchLoops, rowLoops, columnLoops, depthLoops;
  /// Whether each input's tile is loaded depth index fastest (its
  /// stride-1 index is a reduction), else row or column index fastest.
  bool rowInputDepthFastest = false, columnInputDepthFastest = false;
  /// Threads of a block, as a grid of threadRows x threadColumns, each
  /// summing registerRows x registerColumns elements of the result, strided
  /// by the thread grid (consecutive threads: consecutive columns).
  int64_t threadRows = 16, threadColumns = 16;
  int64_t registerRows = 1, registerColumns = 1;
  /// Reduction indices staged per step.
  int64_t depth = 16;
  /// Whether the tiles are multiplied on the f64 tensor cores
  /// (nvgpu.mma.sync [8, 8, 4], one warp per 8 x 8 x 4 product): the
  /// threads' registers then hold the elements the fragments give each
  /// lane, and the warps form a grid of warpRows x warpColumns, each with
  /// a tile of (blockRows / warpRows) x (blockColumns / warpColumns).
  bool tensorCores = false;
  /// Parts the depth is split into, each summed by blocks of their own
  /// into a buffer of partial sums, which a second statement adds up in
  /// order: for contractions with too few tiles of the result to fill the
  /// GPU (a few tiles, each with a long depth). The parts are whole steps.
  int64_t depthSplits = 1;
  int64_t depthPerSplit = 0;
  /// Stages of asynchronous copies (cp.async, sm_80 and later; 0: none):
  /// the tiles of that many depth steps in shared memory, each step's
  /// copied from device memory straight into its stage while earlier
  /// stages are multiplied, one barrier per step. Without, each step's
  /// loads go through registers into one pair of tiles between two
  /// barriers.
  int64_t asyncStages = 0;
  /// Blocks ordered in groups of this many tiles of rows, each group's
  /// blocks the rows fastest (0 or 1: the columns fastest throughout).
  int64_t tileGroupRows = 0;
  /// Whether the tensor cores' tile of an input loaded depth index fastest
  /// keeps the depth contiguous in shared memory too ([row][depth], each
  /// row padded to 4 modulo 16 elements), rather than [depth][row]: a
  /// warp's copies of 8 rows x 4 depth indices, 8 sectors, then take 2
  /// shared-memory wavefronts where [depth][row] takes 8 (ncu, TCCG
  /// ab-ac-cb on an H200), and the fragments' reads stay conflict-free.
  bool depthContiguousTiles = false;
  /// Blocks per multiprocessor ptxas sizes the kernel's registers for,
  /// where it multiplies in inline PTX (sm_90's shapes): each thread's
  /// sums must fit beside the staged loads.
  int64_t blocksPerMultiprocessor = 2;
  static constexpr int64_t kWarpSize = 32, kWarpRows = 2, kWarpColumns = 4;
  /// The tensor-core product's shape: m8n8k4 (nvgpu.mma.sync, the shape
  /// MLIR lowers for f64), or m16n8k4, m16n8k8, m16n8k16 (sm_90's f64
  /// shapes, which MLIR's NVVM dialect refuses: inline PTX). Every lane
  /// holds sums of rows 8 apart and pairs of adjacent columns either way.
  int64_t mmaRows = 8, mmaDepth = 4;
  static constexpr int64_t kMmaColumns = 8, kFragmentRows = 8;

  int64_t threads() const { return threadRows * threadColumns; }
  int64_t blockRows() const { return threadRows * registerRows; }
  int64_t blockColumns() const { return threadColumns * registerColumns; }
  int64_t warpTileRows() const { return blockRows() / kWarpRows; }
  int64_t warpTileColumns() const { return blockColumns() / kWarpColumns; }
  /// Elements between depth indices of the staged tiles: padded so that
  /// the reads of a step touch distinct shared-memory banks.
  int64_t rowTileStride() const;
  int64_t columnTileStride() const;
  /// Whether the tile of the rows' (or the columns') input is stored
  /// depth-contiguous (depthContiguousTiles).
  bool isDepthContiguous(bool rows) const;
  /// The shape of one stage of that tile: [depth][stride], or
  /// [rows or columns][padded depth] where it is depth-contiguous.
  std::array<int64_t, 2> tileShape(bool rows) const;
  /// How `--remarks` describes the plan.
  std::string describe() const;
};

/// The mapping of a one-dimensional scf.parallel to `processor`.
inline mlir::gpu::ParallelLoopDimMappingAttr
getProcessorMapping(mlir::MLIRContext *context,
                    mlir::gpu::Processor processor) {
  mlir::AffineMap identity =
      mlir::AffineMap::getMultiDimIdentityMap(1, context);
  return mlir::gpu::ParallelLoopDimMappingAttr::get(context, processor,
                                                    identity, identity);
}

/// An scf.parallel over as many blocks as the product of `basis`, and at
/// the start of its body the block's index along each of `basis` (the
/// last fastest); `builder`'s insertion point moves into the body. The
/// caller maps it to block_x once its body is built.
std::pair<mlir::scf::ParallelOp, llvm::SmallVector<mlir::Value>>
createBlockGrid(mlir::OpBuilder &builder, mlir::Location loc,
                llvm::ArrayRef<mlir::Value> basis);

/// Whether `op`'s body yields its one input unchanged into its one output
/// (a generalized copy or transposition; its maps say which).
bool isElementCopy(mlir::linalg::GenericOp op);

/// The loop of `map`'s last result (an operand's stride-1 index), if any.
inline std::optional<unsigned> getInnermostLoop(mlir::AffineMap map) {
  if (map.getNumResults() == 0)
    return std::nullopt;
  return map.getDimPosition(map.getNumResults() - 1);
}

/// The plan of `op`'s kernel, or none where it is not a contraction the
/// kernel computes exactly: two inputs and one output on buffers, f32 or
/// f64, indexed by projected permutations, at least one reduction, a loop
/// of rows and one of columns, and a body that adds the inputs' product to
/// the output (zeros staged past the edges then add nothing).
/// `maxRegisterTile` bounds registerRows and registerColumns, `depthStep`
/// (a multiple of 16) is the depth of a step; with
/// `tensorCores`, an f64 contraction whose block tile the warps divide
/// runs on the tensor cores; `blocksPerMultiprocessor` (0: the plan's)
/// sizes the registers of those on sm_90's shapes; those on the tensor
/// cores and of more than one step copy their tiles asynchronously in
/// `asyncStages` stages (0: none), fewer where that many do not fit
/// `sharedMemoryBytes` (a multiprocessor's for the kernel), none where two
/// do not; `tileGroupRows` orders the blocks in groups of rows;
/// `depthContiguousTiles` stores the tensor cores' tiles of inputs loaded
/// depth index fastest depth-contiguous.
std::optional<GPUContractionPlan>
planGPUContraction(mlir::linalg::GenericOp op, int64_t maxRegisterTile,
                   int64_t depthStep, bool tensorCores,
                   llvm::StringRef mmaShape = "m8n8k4",
                   int64_t blocksPerMultiprocessor = 0, int64_t asyncStages = 0,
                   int64_t sharedMemoryBytes = 0, int64_t tileGroupRows = 0,
                   bool depthContiguousTiles = false);

/// The attribute of a kernel's inline `mma.sync` that says how many blocks
/// per multiprocessor its registers are sized for
/// (tl-gpu-tensor-core-occupancy reads it).
inline constexpr llvm::StringLiteral kBlocksPerMultiprocessorAttrName =
    "tl.blocks_per_multiprocessor";

/// Where `op`'s output is a temporary that a transposition copies into
/// another buffer (and that nothing else reads), makes `op` write that
/// buffer through the composed indexing map instead, its fill too: one
/// pass over the result instead of three), where `accept` takes the
/// contraction so changed (a copy, erased after). Returns the contraction
/// (`op`, changed in place or not).
mlir::linalg::GenericOp foldOutputTransposition(
    mlir::RewriterBase &rewriter, mlir::linalg::GenericOp op,
    llvm::function_ref<bool(mlir::linalg::GenericOp)> accept);

/// Copies each input of `op` (planned as `plan`) whose stride-1 index is
/// neither the fastest of its own loops nor the fastest depth loop into a
/// temporary in the order the kernel loads it (its other loops, then the
/// depth loops in the plan's order), where the kernel would read it more
/// than once; `op` then reads the copies. Returns whether it copied any
/// (the plan must then be made again).
bool copyInputsIntoLoadOrder(mlir::RewriterBase &rewriter,
                             mlir::linalg::GenericOp op,
                             const GPUContractionPlan &plan);

/// Replaces `op` with its kernel: an scf.parallel over blocks (mapped to
/// block_x) holding one over threads (thread_x). With `barriers` the
/// operands' tiles are in shared memory, loaded by all threads between
/// gpu.barrier ops; without (the mapped IR run on the CPU), each thread
/// loads every thread's share of the tiles into a buffer of its own, which
/// runs the same index arithmetic with no barrier. With `initialValue`
/// (a fill of the output folded into the kernel), each sum starts from it
/// instead of the output's element. With depthSplits, `partialSums` (the
/// output's shape with the part first) takes each part's sums, from zero.
void emitGPUContractionKernel(mlir::RewriterBase &rewriter,
                              mlir::linalg::GenericOp op,
                              const GPUContractionPlan &plan, bool barriers,
                              mlir::Value initialValue = {},
                              mlir::Value partialSums = {});

} // namespace tensorlang

#endif // TENSORLANG_TRANSFORMS_GPU_CONTRACTIONKERNEL_H
