//===- VectorizeParallelLoops.cpp - Vectorize parallel affine loops -------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "AffineOffsets.h"

#include "tensorlang/Transforms/Passes.h"

#include "mlir/Dialect/Affine/Analysis/AffineAnalysis.h"
#include "mlir/Dialect/Affine/Analysis/LoopAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"

namespace tensorlang {
#define GEN_PASS_DEF_VECTORIZEPARALLELLOOPS
#include "tensorlang/Transforms/Passes.h.inc"
} // namespace tensorlang

using namespace mlir;

/// Whether every memref `loop` reads or writes has the identity layout. The
/// affine vectorizer cannot vectorize accesses to strided views (the slabs
/// of zeros that padding writes, for one) and reports an error on them, not
/// a failure to the caller.
static bool hasIdentityLayouts(affine::AffineForOp loop) {
  return !loop.getBody()
              ->walk([](Operation *op) {
                for (Value operand : op->getOperands())
                  if (auto type = dyn_cast<MemRefType>(operand.getType()))
                    if (!type.getLayout().isIdentity())
                      return WalkResult::interrupt();
                return WalkResult::advance();
              })
              .wasInterrupted();
}

/// Whether `type` is a strided view whose elements are contiguous, though
/// not at offset 0 (a batch index's slice of a buffer).
static bool isContiguousView(MemRefType type) {
  return !type.getLayout().isIdentity() &&
         type.areTrailingDimsContiguous(type.getRank());
}

/// Whether `type` is a strided view whose last dimension has a stride of
/// one, known at compile time: a block of a larger buffer (a cache tile's
/// block of an operand, its other strides and offset known at run time
/// only where the buffer is sized).
static bool isUnitStrideView(MemRefType type) {
  return !type.getLayout().isIdentity() && type.getRank() > 0 &&
         type.isLastDimUnitStride();
}

/// Whether `map`, the access map of a load or store in the loop of `iv`,
/// moves along the memref's last dimension only, one element per
/// iteration.
static bool movesAlongLastDimension(AffineMap map, ValueRange operands,
                                    Value iv) {
  std::optional<AffineExpr> ivExpr =
      tensorlang::getOperandExpr(map, operands, iv);
  if (!ivExpr || map.getNumResults() == 0)
    return false;
  return llvm::none_of(map.getResults().drop_back(),
                       [&](AffineExpr result) {
                         return tensorlang::refersTo(result, *ivExpr);
                       }) &&
         tensorlang::isOffsetOf(map.getResults().back(), *ivExpr, map);
}

/// Whether `loop` is an innermost loop of constant bounds and step 1 that
/// only loads, computes element-wise and stores, along the last dimension
/// of the memrefs it accesses, some of them views, which the affine
/// vectorizer refuses (it takes identity layouts only): the loops of an
/// element-wise statement inside a batch loop (K5H's product of D and the
/// first interpolation), over contiguous views; and copies of at least
/// `lanes` elements over views whose last stride is one (the packed panels
/// of tiled contractions, from blocks of an operand). LLVM vectorized such
/// copies only where it could tell the buffers apart: in a sized program,
/// whose temporaries lie in the workspace at offsets known at run time, a
/// panel's rows were copied one element at a time.
static bool isVectorizableLoopOverViews(affine::AffineForOp loop,
                                        int64_t lanes) {
  if (!loop.hasConstantBounds() || loop.getStepAsInt() != 1 ||
      loop.getNumIterOperands() != 0)
    return false;
  Value iv = loop.getInductionVar();
  // Views accessed, and whether some of them are not contiguous.
  bool readsView = false, readsGappedView = false, computes = false;
  // A load or store of an identity memref or a view whose last stride is
  // one, moving along its last dimension.
  auto isVectorizableAccess = [&](MemRefType type, AffineMap map,
                                  ValueRange operands) {
    bool view = isUnitStrideView(type);
    readsView |= view;
    readsGappedView |= view && !isContiguousView(type);
    return (view || type.getLayout().isIdentity()) &&
           movesAlongLastDimension(map, operands, iv);
  };
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (auto load = dyn_cast<affine::AffineLoadOp>(op)) {
      if (!isVectorizableAccess(load.getMemRefType(), load.getAffineMap(),
                                load.getMapOperands()))
        return false;
      continue;
    }
    if (auto store = dyn_cast<affine::AffineStoreOp>(op)) {
      if (!isVectorizableAccess(store.getMemRefType(), store.getAffineMap(),
                                store.getMapOperands()))
        return false;
      continue;
    }
    // (Not the induction variable itself: its vector is no load.)
    if (!OpTrait::hasElementwiseMappableTraits(&op) || op.getNumRegions() ||
        op.getNumResults() != 1 || llvm::is_contained(op.getOperands(), iv) ||
        !llvm::all_of(op.getOperandTypes(),
                      [](Type type) { return type.isIntOrIndexOrFloat(); }))
      return false;
    computes = true;
  }
  if (computes)
    return readsView && !readsGappedView;
  return readsView &&
         loop.getConstantUpperBound() - loop.getConstantLowerBound() >= lanes;
}

/// Vectorizes `loop` (isVectorizableLoopOverViews) by `lanes`: whole vectors
/// over the bulk, one shorter vector for the rest, every transfer in
/// bounds.
static void vectorizeElementwiseLoop(affine::AffineForOp loop, int64_t lanes) {
  int64_t lower = loop.getConstantLowerBound();
  int64_t trips = loop.getConstantUpperBound() - lower;
  int64_t bulk = trips / lanes * lanes;
  OpBuilder builder(loop);
  Location loc = loop.getLoc();
  // Emits the body at index `index` with vectors of `width`.
  auto emitBody = [&](OpBuilder &b, Value index, int64_t width) {
    IRMapping mapping;
    mapping.map(loop.getInductionVar(), index);
    auto indicesOf = [&](AffineMap map, ValueRange operands) {
      SmallVector<Value> mapped = llvm::map_to_vector(
          operands, [&](Value v) { return mapping.lookupOrDefault(v); });
      SmallVector<Value> indices;
      for (unsigned result : llvm::seq<unsigned>(0, map.getNumResults()))
        indices.push_back(affine::AffineApplyOp::create(
            b, loc, map.getSubMap({result}), mapped));
      return indices;
    };
    auto vectorOf = [&](Value scalar) -> Value {
      if (Value vector = mapping.lookupOrNull(scalar))
        return vector;
      return vector::BroadcastOp::create(
          b, loc, VectorType::get({width}, scalar.getType()), scalar);
    };
    for (Operation &op : loop.getBody()->without_terminator()) {
      if (auto load = dyn_cast<affine::AffineLoadOp>(op)) {
        Type element = load.getMemRefType().getElementType();
        Value padding =
            arith::ConstantOp::create(b, loc, element, b.getZeroAttr(element));
        auto read = vector::TransferReadOp::create(
            b, loc, VectorType::get({width}, element), load.getMemRef(),
            indicesOf(load.getAffineMap(), load.getMapOperands()), padding,
            ArrayRef<bool>{true});
        mapping.map(load.getResult(), read.getResult());
        continue;
      }
      if (auto store = dyn_cast<affine::AffineStoreOp>(op)) {
        vector::TransferWriteOp::create(
            b, loc, vectorOf(store.getValueToStore()), store.getMemRef(),
            indicesOf(store.getAffineMap(), store.getMapOperands()),
            ArrayRef<bool>{true});
        continue;
      }
      OperationState state(loc, op.getName());
      state.addAttributes(op.getAttrs());
      for (Value operand : op.getOperands())
        state.addOperands(vectorOf(operand));
      state.addTypes(VectorType::get({width}, op.getResult(0).getType()));
      mapping.map(op.getResult(0), b.create(state)->getResult(0));
    }
  };
  if (bulk > 0) {
    auto vectorLoop =
        affine::AffineForOp::create(builder, loc, lower, lower + bulk, lanes);
    OpBuilder bodyBuilder = OpBuilder::atBlockBegin(vectorLoop.getBody());
    emitBody(bodyBuilder, vectorLoop.getInductionVar(), lanes);
  }
  if (trips > bulk) {
    Value index = arith::ConstantIndexOp::create(builder, loc, lower + bulk);
    emitBody(builder, index, trips - bulk);
  }
  loop.erase();
}

/// Whether the vector that `transfer` moves along its memref's last
/// dimension stays within it: its index there is the induction variable of
/// a loop that steps by the vector's length from 0 up to a multiple of it
/// that is at most the dimension's size. The affine vectorizer leaves every
/// transfer unmarked, so that LLVM computes a mask each iteration.
template <typename TransferOp>
static bool staysInBounds(TransferOp transfer) {
  auto memref = dyn_cast<MemRefType>(transfer.getBase().getType());
  VectorType vector = transfer.getVectorType();
  if (!memref || vector.getRank() != 1 || vector.isScalable() ||
      !transfer.getPermutationMap().isMinorIdentity() || transfer.getMask() ||
      memref.getRank() == 0 || memref.isDynamicDim(memref.getRank() - 1))
    return false;
  affine::AffineForOp loop =
      affine::getForInductionVarOwner(transfer.getIndices().back());
  if (!loop || !loop.hasConstantBounds())
    return false;
  int64_t length = vector.getDimSize(0);
  int64_t lower = loop.getConstantLowerBound();
  int64_t upper = loop.getConstantUpperBound();
  return lower >= 0 && loop.getStepAsInt() == length &&
         (upper - lower) % length == 0 &&
         upper <= memref.getDimSize(memref.getRank() - 1);
}

/// Marks the vectorizer's transfers that provably stay in bounds.
static void markInBounds(Operation *root) {
  OpBuilder builder(root->getContext());
  root->walk([&](Operation *op) {
    auto mark = [&](auto transfer) {
      if (transfer.getInBoundsValues() == ArrayRef<bool>{true} ||
          !staysInBounds(transfer))
        return;
      transfer.setInBoundsAttr(builder.getBoolArrayAttr({true}));
    };
    if (auto read = dyn_cast<vector::TransferReadOp>(op))
      mark(read);
    else if (auto write = dyn_cast<vector::TransferWriteOp>(op))
      mark(write);
  });
}

namespace {
struct VectorizeParallelLoopsPass
    : public tensorlang::impl::VectorizeParallelLoopsBase<
          VectorizeParallelLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (vectorLanes < 2)
      return;
    llvm::DenseSet<Operation *> candidates;
    SmallVector<affine::AffineForOp> overViews;
    getOperation().walk([&](affine::AffineForOp loop) {
      bool innermost = loop.getBody()
                           ->walk([](affine::AffineForOp) {
                             return WalkResult::interrupt();
                           })
                           .wasInterrupted() == false;
      // A loop of one iteration is trivially parallel, but a store in it to
      // a location that does not depend on the induction variable would
      // become a broadcast store, which does not exist.
      std::optional<uint64_t> trips = affine::getConstantTripCount(loop);
      if (!innermost || !trips || *trips < 2 || !affine::isLoopParallel(loop))
        return;
      if (hasIdentityLayouts(loop))
        candidates.insert(loop);
      else if (isVectorizableLoopOverViews(loop, vectorLanes))
        overViews.push_back(loop);
    });
    for (affine::AffineForOp loop : overViews)
      vectorizeElementwiseLoop(loop, vectorLanes);
    if (candidates.empty())
      return;
    affine::vectorizeAffineLoops(getOperation(), candidates,
                                 {int64_t(vectorLanes)},
                                 /*fastestVaryingPattern=*/{});
    markInBounds(getOperation());
  }
};
} // namespace
