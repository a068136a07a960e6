//===- StridedCopiesToLoops.cpp - memref.copy of views as linalg.copy -----===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

namespace tensorlang {
#define GEN_PASS_DEF_STRIDEDCOPIESTOLOOPS
#include "tensorlang/Transforms/Passes.h.inc"
} // namespace tensorlang

using namespace mlir;

static bool hasIdentityLayout(Value memref) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  return type && type.getLayout().isIdentity();
}

/// Whether `value` is a buffer with a dynamic extent that is not defined
/// at the top level of its function (whose extents affine loops cannot
/// take as bounds).
static bool isSizedViewInRegion(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  return type && !type.hasStaticShape() && !affine::isTopLevelValue(value);
}

/// The static extent of `memref`'s last dimension where its elements are
/// adjacent (stride 1), or std::nullopt.
static std::optional<int64_t> contiguousLastExtent(Value memref) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type || type.getRank() == 0 || type.isDynamicDim(type.getRank() - 1))
    return std::nullopt;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.back() != 1)
    return std::nullopt;
  return type.getShape().back();
}

/// The most elements of a run copied as one vector: four registers of
/// 512 bits of f64 (the width of a panel of a sized tile's columns is 16).
constexpr int64_t kMaxCopiedRunElements = 32;

/// Replaces `op`, a linalg.copy, linalg.transpose or linalg.fill of
/// buffers whose last dimensions are the same loop, of a static extent,
/// with their elements adjacent, by scf loops over the other dimensions
/// that move each run as one vector (loads and stores of whole registers,
/// where scalar loops copied an element at a time: the panels of a sized
/// tile are such copies). The loops follow the source's layout, which
/// then is read line after line.
static LogicalResult copyRunsAsVectors(RewriterBase &rewriter,
                                       linalg::LinalgOp op) {
  if (!isa<linalg::CopyOp, linalg::TransposeOp, linalg::FillOp>(op) ||
      !op.hasPureBufferSemantics() || op.getNumDpsInits() != 1)
    return failure();
  Value target = op.getDpsInits().front();
  auto targetType = cast<MemRefType>(target.getType());
  Type element = targetType.getElementType();
  // Whole bytes: a vector of i1 is packed bits in LLVM, a buffer of i1 a
  // byte per element.
  std::optional<int64_t> run = contiguousLastExtent(target);
  if (!run || *run < 2 || *run > kMaxCopiedRunElements ||
      !element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
    return failure();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap targetMap = maps.back();
  if (!targetMap.isPermutation())
    return failure();
  unsigned runDim = targetMap.getDimPosition(targetMap.getNumResults() - 1);
  Value source;
  AffineMap sourceMap;
  if (!isa<linalg::FillOp>(op)) {
    source = op.getDpsInputs().front();
    sourceMap = maps.front();
    auto sourceType = dyn_cast<MemRefType>(source.getType());
    if (!sourceType || sourceType.getElementType() != element ||
        !sourceMap.isPermutation() ||
        sourceMap.getDimPosition(sourceMap.getNumResults() - 1) != runDim ||
        contiguousLastExtent(source) != run)
      return failure();
  }
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  // The loops other than the run's, in the source's order (the target's
  // for a fill), each up to the target's extent of it.
  AffineMap orderMap = source ? sourceMap : targetMap;
  SmallVector<unsigned> loopDims;
  for (AffineExpr result : orderMap.getResults().drop_back())
    loopDims.push_back(cast<AffineDimExpr>(result).getPosition());
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  SmallVector<Value> lowerBounds(loopDims.size(), zero),
      steps(loopDims.size(), one), upperBounds;
  for (unsigned dim : loopDims)
    upperBounds.push_back(rewriter.createOrFold<memref::DimOp>(
        loc, target,
        *targetMap.getResultPosition(rewriter.getAffineDimExpr(dim))));
  auto vectorType = VectorType::get({*run}, element);
  Value filling;
  if (auto fill = dyn_cast<linalg::FillOp>(op.getOperation()))
    filling = vector::BroadcastOp::create(rewriter, loc, vectorType,
                                          fill.getInputs().front());
  scf::buildLoopNest(
      rewriter, loc, lowerBounds, upperBounds, steps,
      [&](OpBuilder &builder, Location loc, ValueRange ivs) {
        SmallVector<Value> loopIndex(targetMap.getNumDims(), zero);
        for (auto [dim, iv] : llvm::zip_equal(loopDims, ivs))
          loopIndex[dim] = iv;
        auto indicesOf = [&](AffineMap map) {
          return llvm::map_to_vector(map.getResults(), [&](AffineExpr e) {
            return loopIndex[cast<AffineDimExpr>(e).getPosition()];
          });
        };
        Value value = filling;
        if (source)
          value = vector::LoadOp::create(builder, loc, vectorType, source,
                                         indicesOf(sourceMap));
        vector::StoreOp::create(builder, loc, value, target,
                                indicesOf(targetMap));
      });
  rewriter.eraseOp(op);
  return success();
}

namespace {
struct StridedCopiesToLoopsPass
    : public tensorlang::impl::StridedCopiesToLoopsBase<
          StridedCopiesToLoopsPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      if (!hasIdentityLayout(copy.getSource()) ||
          !hasIdentityLayout(copy.getTarget()))
        copies.push_back(copy);
    });
    IRRewriter rewriter(&getContext());
    for (memref::CopyOp copy : copies) {
      // The edge of a sized contraction's tile, inside scf loops: its
      // extents are no affine symbols, so the copy is scf loops already.
      bool sizedInLoops =
          copy->getParentOfType<scf::ForOp>() &&
          !cast<MemRefType>(copy.getTarget().getType()).hasStaticShape();
      rewriter.setInsertionPoint(copy);
      auto linalgCopy = rewriter.replaceOpWithNewOp<linalg::CopyOp>(
          copy, copy.getSource(), copy.getTarget());
      if (sizedInLoops &&
          succeeded(linalg::linalgOpToLoops(rewriter, linalgCopy)))
        rewriter.eraseOp(linalgCopy);
    }
    // In a version of a contraction chosen at run time (an scf.if), a view
    // made in the version has extents that are no affine symbols there:
    // the statements over such views become scf loops.
    // So have the statements over views made in the loops of a sized
    // contraction's tiles: the starts of the accumulators of its register
    // tiles at its edges (fillInFirstDepthBlock), the copies of its blocks
    // into panels.
    SmallVector<linalg::LinalgOp> inVersions;
    getOperation().walk([&](linalg::LinalgOp op) {
      if ((op->getParentOfType<scf::IfOp>() ||
           op->getParentOfType<scf::ForOp>()) &&
          llvm::any_of(op->getOperands(), isSizedViewInRegion))
        inVersions.push_back(op);
    });
    for (linalg::LinalgOp op : inVersions) {
      if (succeeded(copyRunsAsVectors(rewriter, op)))
        continue;
      rewriter.setInsertionPoint(op);
      if (succeeded(linalg::linalgOpToLoops(rewriter, op)))
        rewriter.eraseOp(op);
    }
  }
};
} // namespace
