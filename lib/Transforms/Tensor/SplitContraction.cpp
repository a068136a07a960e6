//===- SplitContraction.cpp - Contractions cut in two along a loop --------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Most extents that no tile divides keep one loop nest, its last tiles
// peeled (peelPartialTiles). Columns whose rest after the register tiles
// is no whole vector (75 = 64 + 11: a vector of 11 is assembled lane by
// lane) are cut first instead: a loop of tiles of the bulk's size whose
// last, partial step is peeled off, so that both parts have static sizes
// (64 and 11) and are planned again. Each part needs its own accumulator
// for that, which CSE may have shared.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Transforms/TileContractions.h"

#include "ContractionUtils.h"

#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace tensorlang;

// CSE merges identical fills of identical empty tensors, so that
// consecutive statements share one; bufferization then keeps a zeroed copy
// for the second, and with the columns split (or in a batch loop) copies
// strided blocks of it at run time.
LogicalResult tensorlang::unshareAccumulatorFill(RewriterBase &rewriter,
                                                 linalg::FillOp fill) {
  if (!fill.hasPureTensorSemantics() || fill->getResult(0).hasOneUse())
    return rewriter.notifyMatchFailure(fill, "not a shared fill of a tensor");
  // An accumulator of undefined initial value (an empty tensor, or a slice
  // of one, as batch fusion leaves it) gets an empty tensor of its own.
  Value init = fill.getDpsInitOperand(0)->get();
  while (auto slice = init.getDefiningOp<tensor::ExtractSliceOp>())
    init = slice.getSource();
  auto type = cast<RankedTensorType>(fill->getResult(0).getType());
  bool fresh = init.getDefiningOp<tensor::EmptyOp>() && type.hasStaticShape();
  bool changed = false;
  for (OpOperand &use : llvm::make_early_inc_range(
           llvm::drop_begin(fill->getResult(0).getUses()))) {
    auto user = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
    if (!user || !user.isDpsInit(&use))
      continue;
    rewriter.setInsertionPoint(user);
    Operation *copy = rewriter.clone(*fill);
    if (fresh) {
      rewriter.setInsertionPoint(copy);
      Value empty = tensor::EmptyOp::create(
          rewriter, fill.getLoc(), type.getShape(), type.getElementType());
      rewriter.modifyOpInPlace(copy, [&] {
        cast<linalg::FillOp>(copy).getDpsInitOperand(0)->set(empty);
      });
    }
    rewriter.modifyOpInPlace(user, [&] { use.set(copy->getResult(0)); });
    changed = true;
  }
  return success(changed);
}

/// Moves `op` into loops of single steps over its parallel dimensions
/// that its register tiles do not span (neither rows nor columns: batch-like
/// dimensions), so that the parts of a split share them: each iteration
/// computes both parts on a slice that is still in cache, instead of each
/// part streaming every operand from memory in turn (TCCG abcd-ebad-ce at
/// 71: a 203 MB operand read once per part of its 71 = 64 + 7 columns).
/// With threads, the loops are an scf.forall that they share.
///
/// Only for contractions of few terms per element (`maxSummandsToShareLoops`):
/// those of many run as long GEMMs in each iteration, which then stream
/// their operand panels from L3 every time.
static FailureOr<linalg::GenericOp>
enterOuterLoops(RewriterBase &rewriter, linalg::GenericOp op,
                const ContractionTilingPlan &plan,
                const TileContractionsConfig &config) {
  std::optional<ContractionShape> planned =
      ContractionShape::get(op).withPlanningExtents();
  if (!planned)
    return op;
  SmallVector<int64_t> extents = *planned->getStaticLoopExtents();
  bool parallel = config.parallel;
  if (productOfExtents(op, extents, /*reductionsOnly=*/true) >
      config.maxSummandsToShareLoops)
    return op;
  SmallVector<int64_t> sizes(op.getNumLoops(), 0);
  bool any = false;
  for (unsigned dim = 0; dim < op.getNumLoops(); ++dim) {
    // A packed input's last dimension stays whole in each step: the parts
    // pack runs of it (ContractionTilingPlan::packedInput), not a single
    // element of each of its rows.
    if (isReduction(op, dim) || dim == plan.columnDim || dim == plan.splitDim ||
        (plan.hasRows && dim == plan.rowDim) || extents[dim] == 1 ||
        (plan.packedInput >= 0 && dim == plan.packedDim))
      continue;
    sizes[dim] = 1;
    any = true;
  }
  if (!any || (parallel && op->getParentOfType<scf::ForallOp>()))
    return op;
  auto loopType = parallel ? scf::SCFTilingOptions::LoopType::ForallOp
                           : scf::SCFTilingOptions::LoopType::ForOp;
  if (!canFillPerTile(op, sizes))
    return tile(rewriter, op, sizes, {}, loopType);
  return tileFillingPerTile(rewriter, op, sizes, {}, loopType);
}

LogicalResult
tensorlang::splitContraction(RewriterBase &rewriter, linalg::GenericOp op,
                             const ContractionTilingPlan &plan,
                             const TileContractionsConfig &config) {
  if (plan.splitAt <= 0)
    return rewriter.notifyMatchFailure(op, "the plan splits nothing");
  FailureOr<linalg::GenericOp> inner =
      enterOuterLoops(rewriter, op, plan, config);
  if (failed(inner))
    return rewriter.notifyMatchFailure(op, "tiling the dimensions around the "
                                           "split failed");
  op = *inner;
  rewriter.setInsertionPoint(op);
  SmallVector<int64_t> sizes(op.getNumLoops(), 0);
  sizes[plan.splitDim] = plan.splitAt;
  Operation *loop;
  // The fill goes into the loop with the parts, so that they can each
  // fill per tile in turn (canFillPerTile: not across a split reduction,
  // whose second part sums into the first's result).
  if (canFillPerTile(op, sizes)) {
    FailureOr<scf::SCFTileAndFuseResult> fused =
        tileAndFuseFill(rewriter, op, sizes, {});
    if (failed(fused) || fused->loops.size() != 1)
      return rewriter.notifyMatchFailure(op, "splitting with the fill of the "
                                             "accumulator failed");
    loop = fused->loops.front();
  } else {
    scf::SCFTilingOptions tiling;
    tiling.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
    FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(op.getOperation()), tiling);
    if (failed(tiled) || tiled->loops.size() != 1)
      return rewriter.notifyMatchFailure(op, "splitting failed");
    rewriter.replaceOp(op, tiled->replacements);
    loop = tiled->loops.front();
  }
  scf::ForOp partial;
  if (failed(scf::peelForLoopAndSimplifyBounds(rewriter, cast<scf::ForOp>(loop),
                                               partial)))
    return rewriter.notifyMatchFailure(loop->getLoc(),
                                       "peeling the partial tile failed");
  return success();
}

namespace {
struct UnshareAccumulatorFill : OpRewritePattern<linalg::FillOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::FillOp fill,
                                PatternRewriter &rewriter) const override {
    return unshareAccumulatorFill(rewriter, fill);
  }
};
} // namespace

void tensorlang::populateUnshareAccumulatorFillPatterns(
    RewritePatternSet &patterns) {
  patterns.add<UnshareAccumulatorFill>(patterns.getContext());
}
