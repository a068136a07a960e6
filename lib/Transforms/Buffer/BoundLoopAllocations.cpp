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
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace tensorlang {
#define GEN_PASS_DEF_BOUNDLOOPALLOCATIONS
#include "tensorlang/Transforms/Passes.h.inc"
} // namespace tensorlang

using namespace mlir;

/// The outermost scf.for around `op` (through scf.for and scf.if ops)
/// outside which each of `values` is defined; null where the innermost
/// one defines one of them.
static Operation *outermostInvariantLoop(Operation *op,
                                         ArrayRef<Value> values) {
  Operation *outermost = nullptr;
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp()) {
    if (isa<scf::IfOp>(parent))
      continue;
    auto loop = dyn_cast<scf::ForOp>(parent);
    if (!loop || !llvm::all_of(values, [&](Value value) {
          return loop.isDefinedOutsideOfLoop(value);
        }))
      break;
    outermost = loop;
  }
  return outermost;
}

/// Replaces `alloc` by a flat buffer of `bounds` elements in each dimension
/// (dynamic bounds: the allocation's own extent, which `invariantLoop`, the
/// outermost loop around it that the buffer may leave, does not define),
/// reinterpreted at the allocation's extents in its row-major layout.
static void allocateAtBounds(RewriterBase &rewriter, memref::AllocOp alloc,
                             ArrayRef<int64_t> bounds,
                             Operation *invariantLoop) {
  MemRefType type = alloc.getType();
  Location loc = alloc.getLoc();
  SmallVector<OpFoldResult> sizes = alloc.getMixedSizes();
  int64_t elements = 1;
  SmallVector<Value> invariantSizes;
  for (auto [bound, size] : llvm::zip_equal(bounds, sizes)) {
    if (ShapedType::isDynamic(bound))
      invariantSizes.push_back(cast<Value>(size));
    else
      elements *= bound;
  }
  // The buffer's length is computed before the loops, so that the buffer
  // can leave them.
  SmallVector<Value> length;
  if (!invariantSizes.empty()) {
    rewriter.setInsertionPoint(invariantLoop);
    Value product = arith::ConstantIndexOp::create(rewriter, loc, elements);
    for (Value size : invariantSizes)
      product = arith::MulIOp::create(rewriter, loc, product, size);
    length.push_back(product);
    elements = ShapedType::kDynamic;
  }
  rewriter.setInsertionPoint(alloc);
  auto flatType =
      MemRefType::get({elements}, type.getElementType(),
                      MemRefLayoutAttrInterface(), type.getMemorySpace());
  auto buffer = memref::AllocOp::create(rewriter, loc, flatType, length,
                                        alloc.getAlignmentAttr());
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

/// Whether `buffer`, or a view of it, leaves the block it is defined in
/// (yielded by a loop or branch, or returned).
static bool escapesItsBlock(Value buffer) {
  for (Operation *user : buffer.getUsers()) {
    if (user->hasTrait<OpTrait::IsTerminator>())
      return true;
    if (isa<ViewLikeOpInterface>(user) &&
        llvm::any_of(user->getResults(), escapesItsBlock))
      return true;
  }
  return false;
}

namespace {
struct BoundLoopAllocationsPass
    : public tensorlang::impl::BoundLoopAllocationsBase<
          BoundLoopAllocationsPass> {
  using Base::Base;

  void runOnOperation() override {
    struct Bounded {
      memref::AllocOp alloc;
      SmallVector<int64_t> bounds;
      Operation *invariantLoop;
    };
    SmallVector<Bounded> bounded;
    getOperation().walk([&](memref::AllocOp alloc) {
      MemRefType type = alloc.getType();
      if (type.hasStaticShape() || !type.getLayout().isIdentity() ||
          !alloc->getParentOfType<scf::ForOp>())
        return;
      // An extent with no constant bound that the loops do not define (a
      // size of the program) stays as it is: the buffer leaves the loops
      // that do not define it.
      SmallVector<int64_t> bounds;
      SmallVector<Value> unbounded;
      int64_t bytes = type.getElementTypeBitWidth() / 8;
      bool anyBounded = false;
      for (OpFoldResult size : alloc.getMixedSizes()) {
        FailureOr<int64_t> bound =
            ValueBoundsConstraintSet::computeConstantBound(
                presburger::BoundType::UB,
                ValueBoundsConstraintSet::Variable(size),
                /*stopCondition=*/nullptr, /*closedUB=*/true);
        if (succeeded(bound) && *bound > 0) {
          if (llvm::MulOverflow(bytes, *bound, bytes) || bytes > maxBytes)
            return;
          bounds.push_back(*bound);
          anyBounded |= !getConstantIntValue(size);
          continue;
        }
        if (!isa<Value>(size))
          return;
        bounds.push_back(ShapedType::kDynamic);
        unbounded.push_back(cast<Value>(size));
      }
      Operation *invariantLoop = nullptr;
      if (!unbounded.empty()) {
        invariantLoop = outermostInvariantLoop(alloc, unbounded);
        if (!invariantLoop || !anyBounded)
          return;
      }
      bounded.push_back({alloc, bounds, invariantLoop});
    });
    IRRewriter rewriter(&getContext());
    for (Bounded &allocation : bounded)
      allocateAtBounds(rewriter, allocation.alloc, allocation.bounds,
                       allocation.invariantLoop);
    // A static buffer in loops and branches moves before the outermost of
    // them: buffer-loop-hoisting stops at a branch, and a loop around it
    // would allocate and free the buffer at each step (the padded edge of
    // a sized tile, which the tile before overlaps where the extent spans
    // a tile).
    SmallVector<std::pair<memref::AllocOp, Operation *>> moves;
    getOperation().walk([&](memref::AllocOp alloc) {
      Operation *outermost = alloc;
      while (isa_and_nonnull<scf::ForOp, scf::IfOp>(outermost->getParentOp()))
        outermost = outermost->getParentOp();
      if (outermost != alloc && alloc.getType().hasStaticShape() &&
          !escapesItsBlock(alloc.getResult()) &&
          llvm::none_of(alloc->getUsers(), llvm::IsaPred<memref::DeallocOp>))
        moves.push_back({alloc, outermost});
    });
    for (auto [alloc, outermost] : moves)
      rewriter.moveOpBefore(alloc, outermost);
  }
};
} // namespace
