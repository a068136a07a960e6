//===- TileContractions.cpp - Cache and register tiles for contractions ---===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A contraction lowered as one loop nest streams its operands from memory
// once per result element and keeps nothing in registers: it runs at a few
// GFLOP/s. The classic answer (Goto's GEMM, and what IREE and the transform
// dialect schedules of upstream MLIR do) is two levels of tiles, planned by
// planContractionTiling (ContractionPlan.cpp) and carried out by the
// rewrites of TileContractions.h. This pass only wires its options to them
// and runs them in order.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Transforms/TileContractions.h"
#include "tensorlang/Dialect/TL/IR/TLAttributes.h"
#include "tensorlang/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tl-tile-contractions"

namespace tensorlang {
#define GEN_PASS_DEF_TILECONTRACTIONS
#include "tensorlang/Transforms/Passes.h.inc"
} // namespace tensorlang

using namespace mlir;
using namespace tensorlang;

namespace {

/// Says, as a remark, why a step failed after planning (with
/// `emit-remarks`; always under -debug-only=tl-tile-contractions).
struct FallbackRemarks : RewriterBase::Listener {
  explicit FallbackRemarks(bool emit) : emit(emit) {}
  void notifyMatchFailure(
      Location loc, function_ref<void(Diagnostic &)> reasonCallback) override {
    Diagnostic reason(loc, DiagnosticSeverity::Remark);
    reasonCallback(reason);
    LLVM_DEBUG(llvm::dbgs() << "step failed: " << reason << "\n");
    if (emit)
      emitRemark(loc) << "left untiled: " << reason.str();
  }
  bool emit;
};

/// Marks, with the index of their plan, the cache tiles and then the
/// register tiles between the steps of tiling: the canonicalizer that
/// folds the peeled loops' bounds replaces ops, so that no handle on them
/// lasts.
constexpr StringLiteral kCacheTileAttr = "tl.cache_tile";
constexpr StringLiteral kRegisterTileAttr = "tl.register_tile";

/// Rounds of splits before tiling: the columns (75 = 64 + 11, then 8 + 3
/// peeled) and a packed dimension each split a few times at most.
constexpr unsigned kMaxSplitRounds = 10;

/// Keeps the reason of the last failed step.
struct ReasonRecorder : RewriterBase::Listener {
  explicit ReasonRecorder(std::string &reason) : reason(reason) {}
  void
  notifyMatchFailure(Location loc,
                     function_ref<void(Diagnostic &)> reasonCallback) override {
    Diagnostic diagnostic(loc, DiagnosticSeverity::Remark);
    reasonCallback(diagnostic);
    reason = diagnostic.str();
  }
  std::string &reason;
};

struct PlannedContraction {
  linalg::GenericOp op;
  ContractionTilingPlan plan;
};

/// A tile marked with the index of its plan.
struct MarkedTile {
  linalg::GenericOp op;
  IntegerAttr planIndex;
};

struct TileContractionsPass
    : public tensorlang::impl::TileContractionsBase<TileContractionsPass> {
  using Base::Base;

  /// The element width of the function's contractions (a program has
  /// one element type): the first floating-point result of a
  /// linalg.generic with a reduction; 8 bytes if there is none.
  int64_t contractionElementBytes() {
    int64_t bytes = 8;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.getNumReductionLoops() == 0 || op.getNumDpsInits() != 1)
        return WalkResult::advance();
      Type element = getElementTypeOrSelf(op.getDpsInits()[0].getType());
      if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8)
        return WalkResult::advance();
      bytes = element.getIntOrFloatBitWidth() / 8;
      return WalkResult::interrupt();
    });
    return bytes;
  }

  /// `value`, or `option` where it is given (nonzero).
  static void override(int64_t &value, int64_t option) {
    if (option != 0)
      value = option;
  }

  /// The module's target (tl.target) with the nonzero options over it.
  TargetDescription getTarget(int64_t elementBytes) {
    TargetDescription target = tl::getTargetDescription(getOperation());
    if (vectorLanes > 0)
      target.vectorBits = vectorLanes * elementBytes * 8;
    override(target.vectorRegisters, vectorRegisters);
    override(target.l1CacheBytes, l1CacheBytes);
    override(target.l2CacheBytes, l2CacheBytes);
    return target;
  }

  /// The derived configuration, with the nonzero size options over it.
  TileContractionsConfig getConfig(const TargetDescription &target,
                                   int64_t elementBytes) {
    TileContractionsConfig config =
        deriveTileContractionsConfig(target, elementBytes);
    override(config.registerRows, registerRows);
    override(config.registerColumns, registerColumns);
    override(config.cacheRows, cacheRows);
    override(config.cacheColumns, cacheColumns);
    override(config.cacheDepth, cacheDepth);
    override(config.wholeDepthPanelBytes, wholeDepthPanelBytes);
    override(config.l2BlockBytes, l2BlockBytes);
    // Unknown lanes (no option, no tl.target): no register tiles three
    // vectors wide.
    if (vectorLanes == 0 && !tl::getTargetAttr(getOperation()))
      config.vectorLanes = 0;
    config.parallel = parallel;
    return config;
  }

  /// With `emit-remarks`, the target and what the cost model derived from
  /// it, once per function that has contractions to plan.
  void remarkTarget(const TargetDescription &target,
                    const TileContractionsConfig &config,
                    int64_t elementBytes) {
    if (!emitRemarks)
      return;
    std::string described;
    llvm::raw_string_ostream(described) << target;
    emitRemark(getOperation().getLoc())
        << "target: " << described << "; for " << elementBytes * 8
        << "-bit elements: " << config.vectorLanes << " lanes, register tile "
        << config.registerRows << "x" << config.registerColumns
        << ", cache tile " << config.cacheRows << "x" << config.cacheColumns
        << "x" << config.cacheDepth << ", whole depth up to "
        << config.wholeDepthPanelBytes << " B";
  }

  /// Plans every contraction of the function. With `remarkRefusals`, says
  /// why each other linalg.generic with a reduction is not tiled.
  std::vector<PlannedContraction>
  planAll(const TileContractionsConfig &config, bool remarkRefusals) {
    std::vector<PlannedContraction> work;
    getOperation().walk([&](linalg::GenericOp op) {
      std::string whyNot;
      FailureOr<ContractionTilingPlan> plan =
          planContractionTiling(op, config, &whyNot);
      if (succeeded(plan)) {
        work.push_back({op, std::move(*plan)});
        return;
      }
      LLVM_DEBUG(llvm::dbgs() << "not planned: " << whyNot << "\n");
      if (remarkRefusals && emitRemarks && op.getNumReductionLoops() > 0)
        op->emitRemark() << "not tiled: " << whyNot;
    });
    return work;
  }

  void remarkPlan(linalg::GenericOp op, const ContractionTilingPlan &plan) {
    LLVM_DEBUG(llvm::dbgs() << "plan: " << plan << "\n");
    if (!emitRemarks)
      return;
    std::string summary;
    llvm::raw_string_ostream(summary) << plan;
    op->emitRemark() << "tiling plan: " << summary;
  }

  /// Folds the split parts' peeled loop bounds into static slices and
  /// operand types: upstream's canonicalizer, with the greedy driver's
  /// default (bottom-up) traversal that this pass has always used here.
  LogicalResult canonicalize() {
    OpPassManager pipeline(getOperation()->getName());
    pipeline.addPass(createCanonicalizerPass(GreedyRewriteConfig()));
    return runPipeline(pipeline, getOperation());
  }

  /// Folds each transposition of a contraction into it where that pays
  /// (foldTranspositionIntoContraction); with `emit-remarks`, says which
  /// were folded and why the others were not (the choice between
  /// computing into the transposed layout and TTGT).
  void foldTranspositions(const TileContractionsConfig &config) {
    SmallVector<linalg::GenericOp> copies;
    getOperation().walk([&](linalg::GenericOp op) {
      if (getTransposedContraction(op))
        copies.push_back(op);
    });
    for (linalg::GenericOp copy : copies) {
      std::string reason;
      ReasonRecorder recorder(reason);
      IRRewriter rewriter(&getContext(), &recorder);
      rewriter.setInsertionPoint(copy);
      Location loc = copy.getLoc();
      bool folded =
          succeeded(foldTranspositionIntoContraction(rewriter, copy, config));
      if (!emitRemarks)
        continue;
      if (folded)
        emitRemark(loc) << "transposition folded into its contraction";
      else
        emitRemark(loc) << "transposition kept after its contraction: "
                        << reason;
    }
  }

  /// Applies the patterns that `populate` adds in one walk of the function.
  template <typename PopulateFn>
  void walkAndApply(PopulateFn populate) {
    RewritePatternSet patterns(&getContext());
    populate(patterns);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }

  /// The cache tiles of one planned contraction; the cache tile is marked
  /// with the index of its plan in `plans` for the steps after peeling.
  void tileOneForCaches(RewriterBase &rewriter, PlannedContraction planned,
                        const TileContractionsConfig &config,
                        std::vector<ContractionTilingPlan> &plans) {
    auto &[op, plan] = planned;
    if (plan.splitAt) {
      // Still to split after the last round: the scalar loops stay.
      ++numFallbacks;
      (void)rewriter.notifyMatchFailure(
          op, "still to split after " + Twine(kMaxSplitRounds) + " rounds");
      return;
    }
    remarkPlan(op, plan);
    rewriter.setInsertionPoint(op);
    transposeForColumns(rewriter, op, plan.columnDim, plan.packedInput);
    FailureOr<SmallVector<linalg::GenericOp, 2>> cacheTiles =
        tileForCaches(rewriter, op, plan, config);
    if (failed(cacheTiles)) {
      ++numFallbacks;
      return;
    }
    ++numTiled;
    for (linalg::GenericOp cacheTile : *cacheTiles)
      cacheTile->setAttr(kCacheTileAttr,
                         rewriter.getI64IntegerAttr(plans.size()));
    plans.push_back(plan);
  }

  /// The ops marked `marker`, the marks removed.
  std::vector<MarkedTile> collectMarked(StringRef marker) {
    std::vector<MarkedTile> marked;
    getOperation().walk([&](linalg::GenericOp op) {
      if (auto index = op->getAttrOfType<IntegerAttr>(marker)) {
        op->removeAttr(marker);
        marked.push_back({op, index});
      }
    });
    return marked;
  }

  /// Peels the partial last steps of the loops around the ops marked
  /// `marker` and folds the peeled bounds into static sizes (as well as
  /// those of tiles larger than what is left of their extent: 5 rows in
  /// register tiles of 8).
  LogicalResult peelAround(RewriterBase &rewriter, StringRef marker) {
    peelPartialTiles(rewriter, getOperation(),
                     [&](Operation *op) { return op->hasAttr(marker); });
    return canonicalize();
  }

  /// Cache tiles, peeled; register tiles in each, peeled; a vector
  /// contraction of each register tile.
  LogicalResult tileAll(RewriterBase &rewriter,
                        const std::vector<PlannedContraction> &work,
                        const TileContractionsConfig &config) {
    std::vector<ContractionTilingPlan> plans;
    for (const PlannedContraction &planned : work)
      tileOneForCaches(rewriter, planned, config, plans);
    if (failed(peelAround(rewriter, kCacheTileAttr)))
      return failure();
    SmallVector<ColumnPanels> packedPanels;
    for (auto [cacheTile, index] : collectMarked(kCacheTileAttr)) {
      FailureOr<linalg::GenericOp> registerTile = tileForRegisters(
          rewriter, cacheTile, plans[index.getInt()], packedPanels);
      if (failed(registerTile)) {
        ++numFallbacks;
        continue;
      }
      (*registerTile)->setAttr(kRegisterTileAttr, index);
    }
    if (failed(peelAround(rewriter, kRegisterTileAttr)))
      return failure();
    for (auto [registerTile, index] : collectMarked(kRegisterTileAttr)) {
      Location loc = registerTile.getLoc();
      FailureOr<TiledContraction> tiled =
          vectorizeRegisterTile(rewriter, registerTile, plans[index.getInt()]);
      if (succeeded(tiled) && tiled->vectorized) {
        ++numVectorized;
        continue;
      }
      ++numFallbacks;
      if (succeeded(tiled))
        (void)rewriter.notifyMatchFailure(loc,
                                          "the register tile stays scalar: "
                                          "vectorization failed");
    }
    return success();
  }

  void runOnOperation() override {
    int64_t elementBytes = contractionElementBytes();
    TargetDescription target = getTarget(elementBytes);
    TileContractionsConfig config = getConfig(target, elementBytes);
    if (!target.isValid() || !config.hasPositiveSizes() ||
        config.wholeDepthPanelBytes < 0) {
      getOperation().emitError("tl-tile-contractions: the target's sizes "
                               "and the tile sizes must be positive");
      return signalPassFailure();
    }
    // Each rewrite in a walk of its own, in this order: a transposition
    // folds only into a contraction whose reductions are not collapsed yet.
    foldTranspositions(config);
    walkAndApply([&](RewritePatternSet &patterns) {
      populateCollapseContractionReductionsPatterns(patterns, config);
    });
    walkAndApply([&](RewritePatternSet &patterns) {
      populateBlockStridedSumPatterns(patterns, config);
    });
    std::vector<PlannedContraction> work = planAll(config, false);
    if (work.empty()) {
      planAll(config, /*remarkRefusals=*/true);
      return;
    }
    remarkTarget(target, config, elementBytes);
    walkAndApply(populateUnshareAccumulatorFillPatterns);

    FallbackRemarks fallbacks(emitRemarks);
    IRRewriter rewriter(&getContext(), &fallbacks);
    // Each round cuts every contraction that needs it along one loop; the
    // parts are planned again after each. A contraction splits at most once
    // per dimension, the columns a few times (13 = 8 + 5 = 8 + 4 + 1).
    for (unsigned round = 0; round < kMaxSplitRounds; ++round) {
      bool split = false;
      for (auto &[op, plan] : work) {
        if (!plan.splitAt)
          continue;
        remarkPlan(op, plan);
        rewriter.setInsertionPoint(op);
        transposeForColumns(rewriter, op, plan.columnDim, plan.packedInput);
        if (succeeded(splitContraction(rewriter, op, plan, config))) {
          ++numSplit;
          split = true;
        }
      }
      if (!split)
        break;
      if (failed(canonicalize()))
        return signalPassFailure();
      work = planAll(config, /*remarkRefusals=*/false);
    }
    planAll(config, /*remarkRefusals=*/true);
    if (failed(tileAll(rewriter, work, config)))
      return signalPassFailure();

    // Multiply-and-reduce becomes vector.contract; slices of slices fold.
    RewritePatternSet patterns(&getContext());
    vector::populateVectorReductionToContractPatterns(patterns);
    // Broadcasting reads become reads and broadcasts, which the contraction
    // absorbs into its indexing maps.
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    linalg::populateLinalgTilingCanonicalizationPatterns(patterns);
    tensor::populateFoldTensorEmptyPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
