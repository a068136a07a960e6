//===- LowerContractionVectors.cpp - Register tiles to FMAs ---------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The second half of tl-tile-contractions, on buffers: the accumulator
// tile's transfers no longer depend on the reduction loop once subviews are
// folded into them, so hoisting keeps the tile in registers across it; then
// every vector.contract of a register tile becomes one broadcast and FMA
// per row and vector (the outer-product lowering).
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tensorlang {
#define GEN_PASS_DEF_LOWERCONTRACTIONVECTORS
#include "tensorlang/Transforms/Passes.h.inc"
} // namespace tensorlang

using namespace mlir;

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
    linalg::hoistRedundantVectorTransfers(func);

    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    vector::populateVectorContractLoweringPatterns(
        patterns, vector::VectorContractLowering::OuterProduct);
    vector::populateVectorOuterProductLoweringPatterns(patterns);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorMultiReductionLoweringPatterns(
        patterns, vector::VectorMultiReductionLowering::InnerParallel);
    vector::populateVectorTransferLoweringPatterns(patterns,
                                                   /*maxTransferRank=*/1);
    vector::populateVectorShapeCastLoweringPatterns(patterns);
    vector::populateVectorTransposeLoweringPatterns(
        patterns, vector::VectorTransposeLowering::Shuffle1D);
    vector::populateVectorBroadcastLoweringPatterns(patterns);
    vector::TransferReadOp::getCanonicalizationPatterns(patterns, context);
    vector::TransferWriteOp::getCanonicalizationPatterns(patterns, context);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
