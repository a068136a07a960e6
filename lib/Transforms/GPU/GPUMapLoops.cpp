//===- GPUMapLoops.cpp - Bufferized linalg to loops mapped to a GPU -------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// One thread per element of each statement's result, the reductions summed
// inside the thread in the program's order: the plainest mapping that is
// right for every statement the language has. upstream's
// gpu-map-parallel-loops puts threadIdx.x on the outermost dimension (a
// stride of a row: uncoalesced) and leaves dimensions past the third
// sequential; collapsing each nest to one row-major dimension first avoids
// both.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Transforms/Passes.h"

#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"

namespace tensorlang {
#define GEN_PASS_DEF_GPUMAPLOOPS
#include "tensorlang/Transforms/Passes.h.inc"
} // namespace tensorlang

using namespace mlir;

/// Moves the parallel dimensions of `op` first, keeping their order and the
/// reductions' order.
static FailureOr<linalg::GenericOp>
parallelDimensionsFirst(RewriterBase &rewriter, linalg::GenericOp op) {
  SmallVector<unsigned> order;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (auto [dim, iterator] : llvm::enumerate(iterators))
    if (iterator == utils::IteratorType::parallel)
      order.push_back(dim);
  for (auto [dim, iterator] : llvm::enumerate(iterators))
    if (iterator != utils::IteratorType::parallel)
      order.push_back(dim);
  if (llvm::equal(order, llvm::seq<unsigned>(0, order.size())))
    return op;
  return linalg::interchangeGenericOp(rewriter, op, order);
}

/// Puts the ops from `first` up to (not including) `end` in an scf.parallel
/// of one iteration, so that they run as one GPU thread.
static scf::ParallelOp wrapInOneIteration(RewriterBase &rewriter,
                                          Operation *first, Operation *end) {
  Location loc = first->getLoc();
  rewriter.setInsertionPoint(first);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  auto loop = scf::ParallelOp::create(rewriter, loc, ValueRange{zero},
                                      ValueRange{one}, ValueRange{one});
  Operation *terminator = loop.getBody()->getTerminator();
  for (Operation *op = first; op != end;) {
    Operation *next = op->getNextNode();
    rewriter.moveOpBefore(op, terminator);
    op = next;
  }
  return loop;
}

namespace {
struct GPUMapLoopsPass
    : public tensorlang::impl::GPUMapLoopsBase<GPUMapLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (threadsPerBlock < 1 || threadsPerBlock > 1024) {
      func.emitError("tl-gpu-map-loops: threads-per-block must be from 1 "
                     "to 1024");
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    SmallVector<memref::CopyOp> copies;
    func.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    }

    SmallVector<linalg::LinalgOp> linalgOps;
    func.walk([&](linalg::LinalgOp op) { linalgOps.push_back(op); });
    SmallVector<scf::ParallelOp> nests;
    for (linalg::LinalgOp op : linalgOps) {
      if (!op.hasPureBufferSemantics()) {
        op->emitError("tl-gpu-map-loops: expected bufferized linalg");
        return signalPassFailure();
      }
      if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation())) {
        FailureOr<linalg::GenericOp> reordered =
            parallelDimensionsFirst(rewriter, generic);
        if (failed(reordered)) {
          op->emitError("tl-gpu-map-loops: cannot reorder the loops");
          return signalPassFailure();
        }
        op = *reordered;
      }
      bool hasParallelLoop = op.getNumParallelLoops() > 0;
      Operation *previous = op->getPrevNode();
      Block *block = op->getBlock();
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::LinalgLoops> loops =
          linalg::linalgOpToParallelLoops(rewriter, op);
      if (failed(loops)) {
        op->emitError("tl-gpu-map-loops: cannot lower to loops");
        return signalPassFailure();
      }
      Operation *first = previous ? previous->getNextNode() : &block->front();
      Operation *end = op.getOperation();
      if (hasParallelLoop) {
        for (Operation *generated = first; generated != end;
             generated = generated->getNextNode())
          if (auto nest = dyn_cast<scf::ParallelOp>(generated))
            nests.push_back(nest);
      } else if (first != end) {
        nests.push_back(wrapInOneIteration(rewriter, first, end));
      }
      rewriter.eraseOp(op);
    }

    MLIRContext *context = &getContext();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(1, context);
    auto mapping = [&](gpu::Processor processor) {
      return gpu::ParallelLoopDimMappingAttr::get(context, processor, identity,
                                                  identity);
    };
    for (scf::ParallelOp nest : nests) {
      // Row-major: the last dimension varies fastest along the threads.
      unsigned rank = nest.getNumLoops();
      if (rank > 1) {
        std::vector<unsigned> all(rank);
        std::iota(all.begin(), all.end(), 0u);
        rewriter.setInsertionPoint(nest);
        Block *block = nest->getBlock();
        Operation *after = nest->getNextNode();
        collapseParallelLoops(rewriter, nest, {all});
        auto collapsed = dyn_cast_or_null<scf::ParallelOp>(
            after ? after->getPrevNode() : &block->back());
        if (!collapsed) {
          func.emitError("tl-gpu-map-loops: the collapsed loop is not where "
                         "it was");
          return signalPassFailure();
        }
        nest = collapsed;
      }
      // Fewer threads for fewer elements. The last block's threads past the
      // end are masked (noMinMaxBounds): the block size stays a constant,
      // which the launch needs.
      int64_t blockSize = threadsPerBlock;
      std::optional<int64_t> lower =
          getConstantIntValue(nest.getLowerBound()[0]);
      std::optional<int64_t> upper =
          getConstantIntValue(nest.getUpperBound()[0]);
      std::optional<int64_t> step = getConstantIntValue(nest.getStep()[0]);
      if (lower && upper && step && *step > 0)
        blockSize = std::clamp<int64_t>((*upper - *lower + *step - 1) / *step,
                                        1, threadsPerBlock);
      auto [blocks, threads] =
          scf::tileParallelLoop(nest, {blockSize}, /*noMinMaxBounds=*/true);
      if (failed(
              gpu::setMappingAttr(blocks, {mapping(gpu::Processor::BlockX)})) ||
          failed(gpu::setMappingAttr(threads,
                                     {mapping(gpu::Processor::ThreadX)}))) {
        blocks->emitError("tl-gpu-map-loops: cannot map the loops");
        return signalPassFailure();
      }
    }
  }
};
} // namespace
