//===- ParallelizeOuterLoops.cpp - Outer loops for threads ----------------===//
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

namespace tensorlang {
#define GEN_PASS_DEF_PARALLELIZEOUTERLOOPS
#include "tensorlang/Transforms/Passes.h.inc"
} // namespace tensorlang

using namespace mlir;

static bool hasInnerLoop(affine::AffineForOp loop) {
  return loop.getBody()
      ->walk([](affine::AffineForOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

namespace {
struct ParallelizeOuterLoopsPass
    : public tensorlang::impl::ParallelizeOuterLoopsBase<
          ParallelizeOuterLoopsPass> {
  void runOnOperation() override {
    SmallVector<affine::AffineForOp> outermost;
    getOperation().walk([&](affine::AffineForOp loop) {
      // Loops inside other loops (the batch loops of tl-fuse-batches, the
      // tiles of tl-tile-contractions) would start a parallel region per
      // iteration of the outer one.
      if (!loop->getParentOfType<LoopLikeOpInterface>())
        outermost.push_back(loop);
    });
    for (affine::AffineForOp loop : outermost) {
      std::optional<uint64_t> trips = affine::getConstantTripCount(loop);
      if (!hasInnerLoop(loop) || (trips && *trips < 2) ||
          loop.getNumIterOperands() != 0 || !affine::isLoopParallel(loop))
        continue;
      (void)affine::affineParallelize(loop);
    }
  }
};
} // namespace
