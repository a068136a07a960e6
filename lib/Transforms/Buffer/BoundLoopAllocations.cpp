//===- BoundLoopAllocations.cpp - Allocations in loops at their bounds ----===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Gives an allocation in a loop whose extents are bounded by constants a
// buffer of the bounds, viewed at the extents (see the pass description).
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

namespace tensorlang {
#define GEN_PASS_DEF_BOUNDLOOPALLOCATIONS
#include "tensorlang/Transforms/Passes.h.inc"
} // namespace tensorlang

using namespace mlir;

/// Replaces `alloc` by a buffer of `bounds` elements in each dimension
/// (flat), reinterpreted at the allocation's extents in its row-major
/// layout.
static void allocateAtBounds(RewriterBase &rewriter, memref::AllocOp alloc,
                             ArrayRef<int64_t> bounds) {
  MemRefType type = alloc.getType();
  Location loc = alloc.getLoc();
  rewriter.setInsertionPoint(alloc);
  int64_t elements = 1;
  for (int64_t bound : bounds)
    elements *= bound;
  auto flatType =
      MemRefType::get({elements}, type.getElementType(),
                      MemRefLayoutAttrInterface(), type.getMemorySpace());
  auto buffer = memref::AllocOp::create(rewriter, loc, flatType, ValueRange{},
                                        alloc.getAlignmentAttr());
  SmallVector<OpFoldResult> sizes = alloc.getMixedSizes();
  // Row-major strides of the extents, innermost first.
  SmallVector<OpFoldResult> strides(sizes.size());
  AffineExpr d0 = rewriter.getAffineDimExpr(0),
             d1 = rewriter.getAffineDimExpr(1);
  OpFoldResult stride = rewriter.getIndexAttr(1);
  for (int64_t dim = sizes.size() - 1; dim >= 0; --dim) {
    strides[dim] = stride;
    stride = affine::makeComposedFoldedAffineApply(rewriter, loc, d0 * d1,
                                                   {stride, sizes[dim]});
  }
  Value view = memref::ReinterpretCastOp::create(
      rewriter, loc, type, buffer, rewriter.getIndexAttr(0), sizes, strides);
  // A deallocation frees the buffer itself.
  for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
    if (auto dealloc = dyn_cast<memref::DeallocOp>(user))
      rewriter.modifyOpInPlace(dealloc,
                               [&] { dealloc.getMemrefMutable().set(buffer); });
  rewriter.replaceOp(alloc, view);
}

namespace {
struct BoundLoopAllocationsPass
    : public tensorlang::impl::BoundLoopAllocationsBase<
          BoundLoopAllocationsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::pair<memref::AllocOp, SmallVector<int64_t>>> bounded;
    getOperation().walk([&](memref::AllocOp alloc) {
      MemRefType type = alloc.getType();
      if (type.hasStaticShape() || !type.getLayout().isIdentity() ||
          !alloc->getParentOfType<scf::ForOp>())
        return;
      SmallVector<int64_t> bounds;
      int64_t bytes = type.getElementTypeBitWidth() / 8;
      for (OpFoldResult size : alloc.getMixedSizes()) {
        FailureOr<int64_t> bound =
            ValueBoundsConstraintSet::computeConstantBound(
                presburger::BoundType::UB,
                ValueBoundsConstraintSet::Variable(size),
                /*stopCondition=*/nullptr, /*closedUB=*/true);
        if (failed(bound) || *bound <= 0 ||
            llvm::MulOverflow(bytes, *bound, bytes) || bytes > maxBytes)
          return;
        bounds.push_back(*bound);
      }
      bounded.push_back({alloc, bounds});
    });
    IRRewriter rewriter(&getContext());
    for (auto &[alloc, bounds] : bounded)
      allocateAtBounds(rewriter, alloc, bounds);
  }
};
} // namespace
