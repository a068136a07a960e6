//===- VectorizeParallelLoops.cpp - Vectorize parallel affine loops -------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Transforms/Passes.h"

#include "mlir/Dialect/Affine/Analysis/AffineAnalysis.h"
#include "mlir/Dialect/Affine/Analysis/LoopAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
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
      if (innermost && trips && *trips > 1 && hasIdentityLayouts(loop) &&
          affine::isLoopParallel(loop))
        candidates.insert(loop);
    });
    if (candidates.empty())
      return;
    affine::vectorizeAffineLoops(getOperation(), candidates,
                                 {int64_t(vectorLanes)},
                                 /*fastestVaryingPattern=*/{});
    markInBounds(getOperation());
  }
};
} // namespace
