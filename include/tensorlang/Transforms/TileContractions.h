//===- TileContractions.h - The rewrites of tl-tile-contractions -*- C++
//-*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The rewrite half of tl-tile-contractions (the plan is ContractionPlan.h),
// as functions a pass or a test can call one by one, and, where a rewrite
// stands alone, as patterns. The pass runs them in this order:
//
//   1. foldTranspositionIntoContraction, collapseContractionReductions,
//      blockStridedSum: reshape contractions so that they tile well (or,
//      for sums to a scalar, block them); versionContractionForShortSizes:
//      a second version of a sized contraction for short sizes;
//   2. unshareAccumulatorFill: one zero-filled accumulator per contraction;
//   3. splitContraction where the plan says so (columns whose rest is no
//      whole vector, a packed dimension the lanes do not divide), planning
//      the parts again;
//   4. tileForCaches, peelPartialTiles; tileForRegisters, peelPartialTiles;
//      vectorizeRegisterTile (each step on every contraction before the
//      next, with the canonicalizer between them).
//
// Every function says why it fails through `RewriterBase::notifyMatchFailure`
// (a listener on the rewriter hears it; tl-tile-contractions' `emit-remarks`
// turns it into a remark).
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_TRANSFORMS_TILECONTRACTIONS_H
#define TENSORLANG_TRANSFORMS_TILECONTRACTIONS_H

#include "tensorlang/Dialect/TL/IR/TLAttributes.h"
#include "tensorlang/Transforms/ContractionPlan.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace tensorlang {

/// Marks the statement that starts a sized cache tile's accumulator: zero
/// in the first depth block, the accumulator in the others. The register
/// tiles take it in as they take a fill; at the edges,
/// tl-strided-copies-to-loops makes it scf loops.
constexpr llvm::StringLiteral kFirstDepthBlockStartAttrName =
    "tl.first_depth_block_start";
/// Marks the `scf.if` between a transposition folded into a sized
/// contraction and kept after it (foldTranspositionIntoContraction), which
/// versionContractionForShortSizes versions as a whole.
constexpr llvm::StringLiteral kVersionChoiceAttrName = "tl.version_choice";

/// `plan` (which splits nothing) as the attribute that carries it from one
/// pass of tl-tile-contractions to the next, and back.
tl::ContractionPlanAttr
getContractionPlanAttr(mlir::MLIRContext *context,
                       const ContractionTilingPlan &plan);
ContractionTilingPlan getContractionTilingPlan(tl::ContractionPlanAttr attr);

/// Makes contraction `copy`'s producer compute straight into the layout of
/// `copy`, a transposition that is its only use, where `planner` says that
/// pays (ContractionPlanner::shouldFoldTransposition). Returns the folded
/// contraction that replaces `copy`. Over sizes, where that depends on the
/// extents, both layouts are kept, chosen at run time by an `scf.if` on
/// the same weights (`*atRunTime` is then set): the folded contraction is
/// the one in its first region.
mlir::FailureOr<mlir::linalg::GenericOp> foldTranspositionIntoContraction(
    mlir::RewriterBase &rewriter, mlir::linalg::GenericOp copy,
    const ContractionPlanner &planner, bool *atRunTime = nullptr);

/// Gives `contraction`, whose extents include sizes, of at most
/// kMaxLoopsOfShortVersion loops, a second version
/// planned with every size as kShortPlanningExtentOfSize, where `planner`
/// plans that differently: an `scf.if` runs it where every size of its
/// loops is at most `maxShortSize` of the planner's configuration, and the
/// contraction planned as before otherwise. A plan for long sizes blocks
/// extents of 24 to 312 into cache tiles of 64 x 256 x 256 with partial
/// edges, where a fixed program's plan takes them whole. A contraction in
/// the versions of a transposition folded or kept is versioned with that
/// whole choice. Each contraction of a version carries its planning extent
/// (kPlanningExtentAttrName). Returns the
/// `scf.if`; changes nothing where it fails.
mlir::FailureOr<mlir::scf::IfOp>
versionContractionForShortSizes(mlir::RewriterBase &rewriter,
                                mlir::linalg::GenericOp contraction,
                                const ContractionPlanner &planner);

/// Gives `contraction`, of at most kMaxLoopsOfShortVersion loops, whose
/// columns' extent is a size, planned as a long extent by itself or as the
/// short version of versionContractionForShortSizes (whose long version
/// keeps one plan), a second version planned with every size as
/// getWidePlanningExtentOfSize, where `planner` then takes register
/// tiles of three vectors of columns and otherwise does not: an `scf.if`
/// runs it where the columns' size of every contraction so planned is a
/// multiple of three vectors at run time. A fixed program's plan takes 24
/// x 6 tiles for TCCG's columns of 24 and 72, where a sized plan, not
/// knowing, takes 16 x 8 and the rest in tiles of 8 (half the FMAs per
/// broadcast). A contraction in the versions of a transposition folded or
/// kept is versioned with that whole choice. The contractions of both
/// versions carry kColumnsVersionedAttrName and their planning extent.
/// Returns the `scf.if`; changes nothing where it fails.
mlir::FailureOr<mlir::scf::IfOp>
versionContractionForWideColumns(mlir::RewriterBase &rewriter,
                                 mlir::linalg::GenericOp contraction,
                                 const ContractionPlanner &planner);

/// Makes contraction `copy`'s producer, whose transposition `copy` is not
/// folded into it, compute into the layout that reads its largest input in
/// place for its columns (the last dimension of that input moved last),
/// where `planner` says that pays
/// (ContractionPlanner::shouldRelayoutTransposedContraction); `copy` then
/// transposes that layout. Returns the new contraction; changes nothing
/// where it fails.
mlir::FailureOr<mlir::linalg::GenericOp>
relayoutTransposedContraction(mlir::RewriterBase &rewriter,
                              mlir::linalg::GenericOp copy,
                              const ContractionPlanner &planner);

/// The contraction that `copy` transposes, where `copy` is a permutation
/// copy and its only user; null otherwise.
mlir::linalg::GenericOp getTransposedContraction(mlir::linalg::GenericOp copy);

/// Makes contraction `copy`'s producer compute straight into the layout of
/// `copy` (a transposition that is its only use), whatever it costs on a
/// CPU: for the GPU target, where the folded contraction is one batch
/// index's statement (tl-fuse-batches{for-gpu}). Returns the folded
/// contraction that replaces `copy`; changes nothing where it fails.
mlir::FailureOr<mlir::linalg::GenericOp>
foldTranspositionIntoContractionAlways(mlir::RewriterBase &rewriter,
                                       mlir::linalg::GenericOp copy);

/// Collapses the consecutive reductions of a contraction whose operands
/// each are used many times per element into one, after copying the
/// operands so that the reductions are adjacent. Returns the contraction
/// that replaces `op`.
mlir::FailureOr<mlir::linalg::GenericOp>
collapseContractionReductions(mlir::RewriterBase &rewriter,
                              mlir::linalg::GenericOp op,
                              const TileContractionsConfig &config);

/// Tiles a sum to a scalar that reads an operand across its rows a cache
/// line of that operand at a time. Returns the sum inside the new loops.
mlir::FailureOr<mlir::linalg::GenericOp>
blockStridedSum(mlir::RewriterBase &rewriter, mlir::linalg::GenericOp op,
                const TileContractionsConfig &config);

/// Gives every user of `fill` but the first (as a destination) a fill of
/// its own.
mlir::LogicalResult unshareAccumulatorFill(mlir::RewriterBase &rewriter,
                                           mlir::linalg::FillOp fill);

/// Copies each input of `op` that uses `columnDim` other than as its last
/// dimension into a transposed tensor where it is last, and reads that
/// instead (the plan admits only small or much reused ones); all but input
/// `packedInput`, whose blocks the cache tiles copy (-1: none).
void transposeForColumns(mlir::RewriterBase &rewriter,
                         mlir::linalg::GenericOp op, unsigned columnDim,
                         int packedInput = -1);

/// Splits loop dimension `plan.splitDim` of `op` at `plan.splitAt` into two
/// contractions (a loop of tiles whose last, partial step is peeled), inside
/// loops of single steps over the dimensions that the register tiles do not
/// span (an scf.forall with `config.parallel`), which the parts share,
/// where it sums few terms per element. A split reduction gives two
/// contractions in sequence, the second summing into the first's result.
mlir::LogicalResult splitContraction(mlir::RewriterBase &rewriter,
                                     mlir::linalg::GenericOp op,
                                     const ContractionTilingPlan &plan,
                                     const TileContractionsConfig &config);

/// The loops of cache tiles around `op` that `plan` asks for; with
/// `config.parallel`, the outermost parallel one is an scf.forall (the plan
/// then records that dimension as untiled), and where its blocks do not
/// divide its extent, the rest is a second contraction after it with loops
/// of its own. Loops over sizes are peeled (peelSizedLoops). Returns the
/// cache tiles, one per part and per peeled copy: contractions whose
/// sizes are dynamic where a tile does not divide its extent, until
/// peelPartialTiles and the canonicalizer make the last, partial step a
/// static tile of its own.
mlir::FailureOr<llvm::SmallVector<mlir::linalg::GenericOp, 2>>
tileForCaches(mlir::RewriterBase &rewriter, mlir::linalg::GenericOp op,
              ContractionTilingPlan &plan,
              const TileContractionsConfig &config);

/// A block of an operand copied into panels `width` steps of its dimension
/// `position` wide (the columns of plan.panelInput, or of a sized tile's
/// panels), its dimension `innerPosition` (-1: none) next to them, a last
/// partial panel padded with zeros where `zeroPadded`.
struct ColumnPanels {
  mlir::Value block, panels;
  int64_t width, position, innerPosition;
  bool zeroPadded;
};

/// The loops of register tiles inside a static cache tile (its block of the
/// copied, packed or paneled input copied first, out of the loops it does
/// not depend on). Returns the register tile, dynamic where a register tile
/// does not divide the cache tile, as above. `packedPanels` holds the
/// panels made so far and gets this tile's: a cache tile whose block an
/// earlier one packed already (the bulk of the row blocks and their peeled
/// rest read the same block) reads those panels.
mlir::FailureOr<mlir::linalg::GenericOp>
tileForRegisters(mlir::RewriterBase &rewriter,
                 mlir::linalg::GenericOp cacheTile,
                 const ContractionTilingPlan &plan,
                 llvm::SmallVectorImpl<ColumnPanels> &packedPanels);

/// The register tiles inside a cache tile with extents that are sizes
/// (the partial tiles of a sized contraction, which tileForCaches peels off
/// its full ones): the tiles of the result with the fill of the
/// accumulator, their loops peeled (peelSizedLoops), those at the edges
/// padded with zeros to the plan's register tile, and inside each, the
/// loops of the reductions. Returns the register tiles, all static.
/// `packedPanels` holds the panels made so far and gets this tile's, as
/// for tileForRegisters: the bulk of the row blocks and their peeled rest
/// read the same panels, copied once.
mlir::FailureOr<llvm::SmallVector<mlir::linalg::GenericOp>>
tileSizedForRegisters(mlir::RewriterBase &rewriter,
                      mlir::linalg::GenericOp cacheTile,
                      const ContractionTilingPlan &plan,
                      llvm::SmallVectorImpl<ColumnPanels> &packedPanels);

/// Peels the last, partial step off each of `loops` (given outermost first)
/// whose bounds are not both constant, and with `partialConstantSteps`
/// also those whose constant range their step does not divide (the
/// register tiles of a sized contraction: the padded tiles at its edges
/// are then static): the bulk of such a loop runs full tiles, the rest one
/// partial tile.
void peelSizedLoops(mlir::RewriterBase &rewriter,
                    llvm::ArrayRef<mlir::scf::ForOp> loops,
                    bool partialConstantSteps = false);

/// Peels the last, partial step off every loop under `root` whose constant
/// range its step does not divide and that holds an op for which `isTile`
/// holds, and off the copies of inner loops that peeling makes: the bulk
/// keeps full tiles, and the rest of each extent becomes a smaller tile
/// inside the same loops (71 = 8 x 8 + 7 rows), still reading the blocks
/// of the operands the bulk has in cache. The canonicalizer then folds the
/// peeled bounds into static sizes.
void peelPartialTiles(mlir::RewriterBase &rewriter, mlir::Operation *root,
                      llvm::function_ref<bool(mlir::Operation *)> isTile);

/// What vectorizeRegisterTile made.
struct TiledContraction {
  /// Whether the register tile became a vector contraction; where it did
  /// not, it stays a (correct) scalar linalg.generic.
  bool vectorized = false;
};

/// A static register tile as a vector contraction (per reduction step one
/// vector load per column vector, one broadcast per row, one FMA per row
/// and vector, after tl-lower-contraction-vectors).
mlir::FailureOr<TiledContraction>
vectorizeRegisterTile(mlir::RewriterBase &rewriter,
                      mlir::linalg::GenericOp registerTile,
                      const ContractionTilingPlan &plan);

/// Patterns of the rewrites that stand alone: each of these populates one,
/// to be applied on its own (they interact: a transposition folds only into
/// a contraction whose reductions are not collapsed yet).
/// (`planner` must outlive the patterns.)
void populateFoldTranspositionIntoContractionPatterns(
    mlir::RewritePatternSet &patterns, const ContractionPlanner &planner);
void populateCollapseContractionReductionsPatterns(
    mlir::RewritePatternSet &patterns, const TileContractionsConfig &config);
void populateBlockStridedSumPatterns(mlir::RewritePatternSet &patterns,
                                     const TileContractionsConfig &config);
void populateUnshareAccumulatorFillPatterns(mlir::RewritePatternSet &patterns);

} // namespace tensorlang

#endif // TENSORLANG_TRANSFORMS_TILECONTRACTIONS_H
