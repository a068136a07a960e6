//===- ExpandShapesToCasts.cpp - Expansions as reinterpret casts ---------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tensorlang {
#define GEN_PASS_DEF_EXPANDSHAPESTOCASTS
#include "tensorlang/Transforms/Passes.h.inc"
} // namespace tensorlang

using namespace mlir;

/// Whether some reassociation group of `op` expands into more than one
/// dynamic size: what MLIR 22's expand-strided-metadata cannot lower.
static bool hasGroupOfSeveralSizes(memref::ExpandShapeOp op) {
  MemRefType type = op.getResultType();
  return llvm::any_of(op.getReassociationIndices(),
                      [&](const ReassociationIndices &group) {
                        return llvm::count_if(group, [&](int64_t dim) {
                                 return type.isDynamicDim(dim);
                               }) > 1;
                      });
}

namespace {
/// `memref.expand_shape %src [[0, 1], ...] output_shape [%a, %b, ...]` as
/// `memref.reinterpret_cast` of %src's base buffer, at its offset, with
/// sizes [%a, %b, ...] and, within each group, strides that are the
/// group's source stride times the sizes after it.
struct ExpandShapeToCast : OpRewritePattern<memref::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(memref::ExpandShapeOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasGroupOfSeveralSizes(op))
      return rewriter.notifyMatchFailure(op, "MLIR lowers it as it is");
    MemRefType resultType = op.getResultType();
    auto [resultStrides, resultOffset] = resultType.getStridesAndOffset();
    Location loc = op.getLoc();
    auto metadata =
        memref::ExtractStridedMetadataOp::create(rewriter, loc, op.getSrc());
    auto multiply = [&](OpFoldResult lhs, OpFoldResult rhs) -> OpFoldResult {
      std::optional<int64_t> left = getConstantIntValue(lhs);
      std::optional<int64_t> right = getConstantIntValue(rhs);
      if (left && right)
        return rewriter.getIndexAttr(*left * *right);
      if (left == 1)
        return rhs;
      if (right == 1)
        return lhs;
      return arith::MulIOp::create(
                 rewriter, loc,
                 getValueOrCreateConstantIndexOp(rewriter, loc, lhs),
                 getValueOrCreateConstantIndexOp(rewriter, loc, rhs))
          .getResult();
    };
    SmallVector<OpFoldResult> sizes = op.getMixedOutputShape();
    SmallVector<OpFoldResult> strides(sizes.size());
    MemRefType sourceType = op.getSrcType();
    auto [sourceStrides, sourceOffset] = sourceType.getStridesAndOffset();
    for (auto [sourceDim, group] :
         llvm::enumerate(op.getReassociationIndices())) {
      OpFoldResult stride =
          ShapedType::isDynamic(sourceStrides[sourceDim])
              ? OpFoldResult(metadata.getStrides()[sourceDim])
              : rewriter.getIndexAttr(sourceStrides[sourceDim]);
      for (int64_t dim : llvm::reverse(group)) {
        // A stride the result's type states is taken as stated: the
        // verifier compares the two.
        strides[dim] = ShapedType::isDynamic(resultStrides[dim])
                           ? stride
                           : rewriter.getIndexAttr(resultStrides[dim]);
        stride = multiply(stride, sizes[dim]);
      }
    }
    OpFoldResult offset = ShapedType::isDynamic(resultOffset)
                              ? OpFoldResult(metadata.getOffset())
                              : rewriter.getIndexAttr(resultOffset);
    rewriter.replaceOpWithNewOp<memref::ReinterpretCastOp>(
        op, resultType, metadata.getBaseBuffer(), offset, sizes, strides);
    return success();
  }
};

struct ExpandShapesToCastsPass
    : public tensorlang::impl::ExpandShapesToCastsBase<
          ExpandShapesToCastsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandShapeToCast>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
