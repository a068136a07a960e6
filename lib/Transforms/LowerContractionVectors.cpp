//===- LowerContractionVectors.cpp - Register tiles to FMAs ---------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The second half of tl-tile-contractions, on buffers: every
// vector.contract of a register tile becomes one broadcast and FMA per row
// (the outer-product lowering), the tile's transfers become one per row,
// and since those no longer depend on the reduction loop once subviews are
// folded into them, hoisting keeps each row in a register across it.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Transforms/Passes.h"

#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace tensorlang {
#define GEN_PASS_DEF_LOWERCONTRACTIONVECTORS
#include "tensorlang/Transforms/Passes.h.inc"
} // namespace tensorlang

using namespace mlir;

/// Carries each row of a 2-D vector that `loop` carries as a vector of its
/// own, where the loop body only reads it by rows (as the outer-product
/// lowering does). A 2-D vector carried whole is reassembled element by
/// element each iteration once canonicalization turns the chain of row
/// insertions into vector.from_elements: shuffles and spills wherever a row
/// is not a power of two wide (p = 11).
static void splitCarriedTiles(RewriterBase &rewriter, scf::ForOp loop) {
  for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i) {
    BlockArgument carried = loop.getRegionIterArg(i);
    auto type = dyn_cast<VectorType>(carried.getType());
    if (!type || type.getRank() != 2 || type.isScalable())
      continue;
    bool byRows = llvm::all_of(carried.getUsers(), [](Operation *user) {
      auto extract = dyn_cast<vector::ExtractOp>(user);
      return extract && extract.getStaticPosition().size() == 1 &&
             !ShapedType::isDynamic(extract.getStaticPosition()[0]);
    });
    if (!byRows || carried.use_empty())
      continue;
    int64_t numRows = type.getDimSize(0);
    Location loc = loop.getLoc();
    rewriter.setInsertionPoint(loop);
    SmallVector<Value> inits;
    for (int64_t row = 0; row < numRows; ++row)
      inits.push_back(
          vector::ExtractOp::create(rewriter, loc, loop.getInitArgs()[i], row));
    Value yielded = loop.getYieldedValues()[i];
    FailureOr<LoopLikeOpInterface> replaced =
        cast<LoopLikeOpInterface>(loop.getOperation())
            .replaceWithAdditionalYields(
                rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
                [&](OpBuilder &b, Location loc, ArrayRef<BlockArgument>) {
                  SmallVector<Value> rows;
                  for (int64_t row = 0; row < numRows; ++row)
                    rows.push_back(
                        vector::ExtractOp::create(b, loc, yielded, row));
                  return rows;
                });
    if (failed(replaced))
      continue;
    loop = cast<scf::ForOp>(replaced->getOperation());
    carried = loop.getRegionIterArg(i);
    unsigned first = loop.getNumRegionIterArgs() - numRows;
    for (Operation *user : llvm::make_early_inc_range(carried.getUsers())) {
      auto extract = cast<vector::ExtractOp>(user);
      rewriter.replaceOp(extract, loop.getRegionIterArg(
                                      first + extract.getStaticPosition()[0]));
    }
    // The whole tile is no longer needed in the loop: carry it unchanged
    // (canonicalization drops it), and rebuild it from the rows after.
    rewriter.modifyOpInPlace(loop, [&] {
      loop.getYieldedValuesMutable()->drop_front(i).front().set(carried);
    });
    rewriter.setInsertionPointAfter(loop);
    Value tile = loop.getInitArgs()[i];
    for (int64_t row = 0; row < numRows; ++row)
      tile = vector::InsertOp::create(rewriter, loc,
                                      loop.getResult(first + row), tile, row);
    rewriter.replaceAllUsesWith(loop.getResult(i), tile);
  }
}

/// The buffer a memref value is a view of.
static Value rootBuffer(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  return memref;
}

/// Whether nothing in `loop` other than `read` and `write` may touch the
/// buffer they access. Distinct buffers do not alias: allocations, and the
/// arguments of a statement's function, which are distinct variables (read
/// `restrict`, see TLToLinalg).
static bool onlyAccessesOfBuffer(scf::ForOp loop, Value buffer,
                                 Operation *read, Operation *write) {
  if (!buffer.getDefiningOp<memref::AllocOp>() &&
      !(isa<BlockArgument>(buffer) &&
        isa<FunctionOpInterface>(
            cast<BlockArgument>(buffer).getOwner()->getParentOp())))
    return false;
  WalkResult result = loop.getBody()->walk([&](Operation *op) {
    if (op == read || op == write)
      return WalkResult::advance();
    if (isa<ViewLikeOpInterface>(op) || isMemoryEffectFree(op))
      return WalkResult::advance();
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects && !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::interrupt();
    for (Value operand : op->getOperands())
      if (isa<BaseMemRefType>(operand.getType()) &&
          rootBuffer(operand) == buffer)
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

/// Whether `fill` writes exactly the elements `read` reads: a unit-stride
/// subview of the read's buffer at the read's indices, of unit sizes but
/// for the vector's trailing ones.
static bool fillsExactlyTheTile(linalg::FillOp fill,
                                vector::TransferReadOp read) {
  auto subview = fill.getDpsInits().front().getDefiningOp<memref::SubViewOp>();
  if (!subview || subview.getSource() != read.getBase() || read.getMask() ||
      !read.getPermutationMap().isMinorIdentity() ||
      !llvm::all_of(read.getInBoundsValues(), [](bool b) { return b; }))
    return false;
  ArrayRef<int64_t> shape = read.getVectorType().getShape();
  SmallVector<OpFoldResult> offsets = subview.getMixedOffsets();
  SmallVector<OpFoldResult> sizes = subview.getMixedSizes();
  SmallVector<OpFoldResult> strides = subview.getMixedStrides();
  if (offsets.size() != read.getIndices().size() ||
      offsets.size() < shape.size())
    return false;
  size_t leading = offsets.size() - shape.size();
  for (size_t i = 0; i < offsets.size(); ++i) {
    int64_t size = i < leading ? 1 : shape[i - leading];
    if (!isConstantIntValue(strides[i], 1) ||
        !isConstantIntValue(sizes[i], size) ||
        !isEqualConstantIntOrValue(offsets[i],
                                   getAsOpFoldResult(read.getIndices()[i])))
      return false;
  }
  return true;
}

/// A tile read (hoisted before its loop) right after a fill of exactly its
/// elements, as tl-tile-contractions zeroes each register tile's slice of
/// the result, starts from the fill value in registers instead: the write
/// after the loop covers the same elements, so neither the fill's stores
/// nor the read's loads are needed. A result much larger than the caches
/// is then only written, never read (TCCG ccsd_t0: 302 MB).
static void startFromFill(RewriterBase &rewriter,
                          vector::TransferReadOp read) {
  Operation *previous = read->getPrevNode();
  while (previous && isMemoryEffectFree(previous))
    previous = previous->getPrevNode();
  auto fill = dyn_cast_or_null<linalg::FillOp>(previous);
  Attribute value;
  if (!fill || !fill.hasPureBufferSemantics() ||
      !fillsExactlyTheTile(fill, read) ||
      !matchPattern(fill.getInputs().front(), m_Constant(&value)))
    return;
  rewriter.setInsertionPoint(read);
  Value splat = arith::ConstantOp::create(
      rewriter, read.getLoc(),
      DenseElementsAttr::get(read.getVectorType(), value));
  rewriter.replaceOp(read, splat);
  rewriter.eraseOp(fill);
}

/// Keeps a register tile in registers across `loop`: a transfer_read and a
/// transfer_write of the same loop-invariant place, with nothing else in
/// the loop touching that buffer, become a read before the loop, a carried
/// vector and a write after it. Returns whether it hoisted a pair.
static bool hoistTilePair(RewriterBase &rewriter, scf::ForOp &loop) {
  for (auto read : loop.getBody()->getOps<vector::TransferReadOp>()) {
    if (!loop.isDefinedOutsideOfLoop(read.getBase()) ||
        !llvm::all_of(read.getIndices(), [&](Value index) {
          return loop.isDefinedOutsideOfLoop(index);
        }) ||
        read.getMask())
      continue;
    vector::TransferWriteOp write;
    for (auto candidate : loop.getBody()->getOps<vector::TransferWriteOp>())
      if (candidate.getBase() == read.getBase() &&
          candidate.getIndices() == read.getIndices() &&
          candidate.getVectorType() == read.getVectorType() &&
          candidate.getPermutationMap() == read.getPermutationMap() &&
          candidate.getInBoundsAttr() == read.getInBoundsAttr() &&
          !candidate.getMask() && read->isBeforeInBlock(candidate))
        write = candidate;
    if (!write || !onlyAccessesOfBuffer(loop, rootBuffer(read.getBase()),
                                        read, write))
      continue;
    rewriter.moveOpBefore(read, loop);
    FailureOr<LoopLikeOpInterface> replaced =
        cast<LoopLikeOpInterface>(loop.getOperation())
            .replaceWithAdditionalYields(
                rewriter, read.getResult(),
                /*replaceInitOperandUsesInLoop=*/true,
                [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
                  return SmallVector<Value>{write.getVector()};
                });
    if (failed(replaced))
      return false;
    loop = cast<scf::ForOp>(replaced->getOperation());
    rewriter.moveOpAfter(write, loop);
    rewriter.modifyOpInPlace(write, [&] {
      write.getValueToStoreMutable().assign(loop.getResults().back());
    });
    startFromFill(rewriter, read);
    return true;
  }
  return false;
}

namespace {
struct LowerContractionVectorsPass
    : public tensorlang::impl::LowerContractionVectorsBase<
          LowerContractionVectorsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    bool hasContractions = func.walk([](vector::ContractionOp) {
                                 return WalkResult::interrupt();
                               }).wasInterrupted();
    if (!hasContractions)
      return;
    // The accumulator tile's read and write no longer depend on the
    // reduction loop once subviews are folded into them: hoisting carries
    // the tile through the loop as one 2-D vector, innermost loops first
    // (upstream's hoistRedundantVectorTransfers gives up on a function
    // argument that a fill's subview also uses).
    IRRewriter rewriter(&getContext());
    SmallVector<scf::ForOp> innermostFirst;
    func.walk([&](scf::ForOp loop) { innermostFirst.push_back(loop); });
    for (scf::ForOp loop : innermostFirst) {
      // The tile's indices are computed in the loop body, from outer
      // induction variables.
      moveLoopInvariantCode(cast<LoopLikeOpInterface>(loop.getOperation()));
      while (hoistTilePair(rewriter, loop)) {
      }
    }

    MLIRContext *context = &getContext();
    RewritePatternSet lowering(context);
    vector::populateVectorContractLoweringPatterns(
        lowering, vector::VectorContractLowering::OuterProduct);
    vector::populateVectorOuterProductLoweringPatterns(lowering);
    vector::populateVectorTransferPermutationMapLoweringPatterns(lowering);
    vector::populateVectorMultiReductionLoweringPatterns(
        lowering, vector::VectorMultiReductionLowering::InnerParallel);
    vector::populateVectorShapeCastLoweringPatterns(lowering);
    vector::populateVectorTransposeLoweringPatterns(
        lowering, vector::VectorTransposeLowering::Shuffle1D);
    vector::populateVectorBroadcastLoweringPatterns(lowering);
    if (failed(applyPatternsGreedily(func, std::move(lowering))))
      return signalPassFailure();

    SmallVector<scf::ForOp> loops;
    func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      splitCarriedTiles(rewriter, loop);

    // Transfers of register tiles become one per row; the rows then come
    // straight from the carried vectors (extract-of-insert folding).
    RewritePatternSet rows(context);
    populateVectorToSCFConversionPatterns(
        rows, VectorTransferToSCFOptions().enableFullUnroll().setTargetRank(1));
    vector::TransferReadOp::getCanonicalizationPatterns(rows, context);
    vector::TransferWriteOp::getCanonicalizationPatterns(rows, context);
    scf::ForOp::getCanonicalizationPatterns(rows, context);
    if (failed(applyPatternsGreedily(func, std::move(rows))))
      return signalPassFailure();
  }
};
} // namespace
