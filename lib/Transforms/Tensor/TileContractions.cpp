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
// a ContractionPlanner (ContractionPlan.h) and carried out by the rewrites
// of TileContractions.h. Each step is a pass of its own, and
// tl-tile-contractions runs them all in order; the plan travels from one to
// the next on the ops as `tl.contraction_plan`.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Transforms/TileContractions.h"
#include "tensorlang/Dialect/TL/IR/TLAttributes.h"
#include "tensorlang/Transforms/Passes.h"

#include "ContractionUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tl-tile-contractions"

namespace tensorlang {
#define GEN_PASS_DEF_TILECONTRACTIONS
#define GEN_PASS_DEF_FOLDTRANSPOSITIONS
#define GEN_PASS_DEF_COLLAPSECONTRACTIONREDUCTIONS
#define GEN_PASS_DEF_BLOCKSTRIDEDSUMS
#define GEN_PASS_DEF_VERSIONFORSHORTSIZES
#define GEN_PASS_DEF_VERSIONFORWIDECOLUMNS
#define GEN_PASS_DEF_SPLITCONTRACTIONS
#define GEN_PASS_DEF_PLANCONTRACTIONS
#define GEN_PASS_DEF_TILECONTRACTIONSFORCACHES
#define GEN_PASS_DEF_TILECONTRACTIONSFORREGISTERS
#define GEN_PASS_DEF_VECTORIZEREGISTERTILES
#include "tensorlang/Transforms/Passes.h.inc"
} // namespace tensorlang

using namespace mlir;
using namespace tensorlang;

tl::ContractionPlanAttr
tensorlang::getContractionPlanAttr(MLIRContext *context,
                                   const ContractionTilingPlan &plan) {
  return tl::ContractionPlanAttr::get(
      context, plan.hasRows ? int64_t(plan.rowDim) : -1, plan.columnDim,
      plan.depthDim, plan.cacheTiles, plan.registerTiles, plan.cacheOrder,
      plan.registerOrder, plan.copiedBlockInput, plan.packedInput,
      plan.packedDim, plan.panelInput, plan.rowPanelInput,
      plan.sizedPanelInput < 0 && plan.sizedRowPanelInput < 0
          ? SmallVector<int64_t>()
          : SmallVector<int64_t>{plan.sizedPanelInput, plan.sizedRowPanelInput},
      plan.threadColumns);
}

ContractionTilingPlan
tensorlang::getContractionTilingPlan(tl::ContractionPlanAttr attr) {
  ContractionTilingPlan plan;
  plan.hasRows = attr.getRows() >= 0;
  plan.rowDim = plan.hasRows ? attr.getRows() : 0;
  plan.columnDim = attr.getColumns();
  plan.depthDim = attr.getDepth();
  plan.cacheTiles.assign(attr.getCacheTiles().begin(),
                         attr.getCacheTiles().end());
  plan.registerTiles.assign(attr.getRegisterTiles().begin(),
                            attr.getRegisterTiles().end());
  plan.cacheOrder.assign(attr.getCacheOrder().begin(),
                         attr.getCacheOrder().end());
  plan.registerOrder.assign(attr.getRegisterOrder().begin(),
                            attr.getRegisterOrder().end());
  plan.copiedBlockInput = attr.getCopiedBlockInput();
  plan.packedInput = attr.getPackedInput();
  plan.packedDim = attr.getPackedDim();
  plan.panelInput = attr.getPanelInput();
  plan.rowPanelInput = attr.getRowPanelInput();
  if (ArrayRef<int64_t> sized = attr.getSizedPanelInputs(); !sized.empty()) {
    plan.sizedPanelInput = sized[0];
    plan.sizedRowPanelInput = sized[1];
  }
  plan.threadColumns = attr.getThreadColumns();
  return plan;
}

/// The element width of the function's contractions (a program has one
/// element type): the first floating-point result of a linalg.generic with
/// a reduction; 8 bytes if there is none.
static int64_t contractionElementBytes(func::FuncOp function) {
  int64_t bytes = 8;
  function.walk([&](linalg::GenericOp op) {
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

/// Rounds of splits before tiling: the columns (75 = 64 + 11, then 8 + 3
/// peeled) and a packed dimension each split a few times at most.
constexpr unsigned kMaxSplitRounds = 10;

/// What the steps count (the passes' statistics).
struct StepCounts {
  int64_t tiled = 0, vectorized = 0, split = 0, fallbacks = 0;
};

/// The steps of tl-tile-contractions on one function. The steps that plan
/// take the planner; the others read the plans on the ops.
class ContractionTilingSteps {
public:
  /// What the steps run so far counted.
  StepCounts counts;

  /// `target` and `elementBytes`, what `planner` was made for, are for the
  /// remark of the target.
  ContractionTilingSteps(func::FuncOp function,
                         const ContractionPlanner *planner, bool emitRemarks,
                         TargetDescription target = {},
                         int64_t elementBytes = 8)
      : function(function), planner(planner), emitRemarks(emitRemarks),
        target(std::move(target)), elementBytes(elementBytes),
        fallbackRemarks(emitRemarks),
        rewriter(function.getContext(), &fallbackRemarks) {}

  /// Folds each transposition of a contraction into it where the planner
  /// says it pays; with remarks, says which were folded and why the others
  /// were not (the choice between computing into the transposed layout
  /// and TTGT).
  void foldTranspositions() {
    SmallVector<linalg::GenericOp> copies;
    function.walk([&](linalg::GenericOp op) {
      if (getTransposedContraction(op))
        copies.push_back(op);
    });
    for (linalg::GenericOp copy : copies) {
      std::string reason;
      ReasonRecorder recorder(reason);
      IRRewriter foldRewriter(function.getContext(), &recorder);
      Location loc = copy.getLoc();
      bool atRunTime = false;
      bool folded = succeeded(foldTranspositionIntoContraction(
          foldRewriter, copy, *planner, &atRunTime));
      // A rewriter of its own: its reasons must not replace the fold's.
      IRRewriter relayoutRewriter(function.getContext());
      bool relaid = !folded && !atRunTime &&
                    succeeded(relayoutTransposedContraction(relayoutRewriter,
                                                            copy, *planner));
      if (!emitRemarks)
        continue;
      if (relaid)
        emitRemark(loc) << "transposition kept after its contraction ("
                        << reason
                        << "); the contraction computes into the layout "
                           "that reads its largest input in place for its "
                           "columns";
      else if (atRunTime)
        emitRemark(loc) << "transposition folded into its contraction or "
                           "kept after it, as the sizes' values weigh the "
                           "copies at run time";
      else if (folded)
        emitRemark(loc) << "transposition folded into its contraction";
      else
        emitRemark(loc) << "transposition kept after its contraction: "
                        << reason;
    }
  }

  /// Calls `version` on each contraction without `versionedAttr`, one at a
  /// time, until it has failed on all that are left: versioning a
  /// contraction in a transposition's versions replaces the other
  /// contraction there too, and the versions made carry `versionedAttr`.
  /// `version` returns whether it versioned the contraction.
  void
  versionEachContraction(StringRef versionedAttr,
                         llvm::function_ref<bool(linalg::GenericOp)> version) {
    llvm::SmallPtrSet<Operation *, 8> refused;
    while (true) {
      linalg::GenericOp contraction;
      function.walk([&](linalg::GenericOp op) {
        if (op.getNumReductionLoops() == 0 || refused.contains(op) ||
            op->hasAttr(versionedAttr))
          return WalkResult::advance();
        contraction = op;
        return WalkResult::interrupt();
      });
      if (!contraction)
        break;
      if (!version(contraction))
        refused.insert(contraction);
    }
  }

  /// Gives each sized contraction whose plan for short sizes differs from
  /// its plan for long ones a version for short sizes, chosen at run time;
  /// with remarks, says which.
  void versionForShortSizes() {
    versionEachContraction(
        kPlanningExtentAttrName, [&](linalg::GenericOp contraction) {
          Location loc = contraction.getLoc();
          IRRewriter versionRewriter(function.getContext());
          if (failed(versionContractionForShortSizes(versionRewriter,
                                                     contraction, *planner)))
            return false;
          if (emitRemarks)
            emitRemark(loc)
                << "planned for short sizes (each as "
                << kShortPlanningExtentOfSize << ") where every size "
                << "of its loops is at most "
                << planner->getConfig().maxShortSize
                << " at run time, and for long ones (each as "
                << kPlanningExtentOfSize << ") otherwise";
          return true;
        });
  }

  /// Gives each sized contraction whose plan takes register tiles of three
  /// vectors of columns where the sizes are multiples of them a version so
  /// planned, chosen at run time (versionContractionForWideColumns); with
  /// remarks, says which.
  void versionForWideColumns() {
    versionEachContraction(
        kColumnsVersionedAttrName, [&](linalg::GenericOp contraction) {
          Location loc = contraction.getLoc();
          auto planned =
              contraction->getAttrOfType<IntegerAttr>(kPlanningExtentAttrName);
          int64_t extent = planned ? planned.getInt() : kPlanningExtentOfSize;
          IRRewriter versionRewriter(function.getContext());
          if (failed(versionContractionForWideColumns(versionRewriter,
                                                      contraction, *planner)))
            return false;
          int64_t lanes = planner->getConfig().vectorLanes;
          if (emitRemarks)
            emitRemark(loc)
                << "planned with register tiles of " << 3 * lanes
                << " columns (each size as "
                << getWidePlanningExtentOfSize(extent, lanes)
                << ") where the columns' sizes are multiples of " << 3 * lanes
                << " at run time, and as before otherwise";
          return true;
        });
  }

  void collapseReductions() {
    walkAndApply([&](RewritePatternSet &patterns) {
      populateCollapseContractionReductionsPatterns(patterns,
                                                    planner->getConfig());
    });
  }

  void blockStridedSums() {
    walkAndApply([&](RewritePatternSet &patterns) {
      populateBlockStridedSumPatterns(patterns, planner->getConfig());
    });
  }

  /// Gives every planned contraction its own accumulator, and splits those
  /// whose plan says so, in rounds, planning the parts again after each.
  LogicalResult splitContractions() {
    std::vector<PlannedContraction> work = planAll();
    if (work.empty())
      return success();
    remarkTargetOnce();
    walkAndApply(populateUnshareAccumulatorFillPatterns);
    // Each round cuts every contraction that needs it along one loop. A
    // contraction splits at most once per dimension, the columns a few
    // times (13 = 8 + 5 = 8 + 4 + 1).
    for (unsigned round = 0; round < kMaxSplitRounds; ++round) {
      bool split = false;
      for (auto &[op, plan] : work) {
        if (!plan.splitAt)
          continue;
        remarkPlan(op, plan);
        rewriter.setInsertionPoint(op);
        transposeForColumns(rewriter, op, plan.columnDim, plan.packedInput);
        if (succeeded(
                splitContraction(rewriter, op, plan, planner->getConfig()))) {
          ++counts.split;
          split = true;
        }
      }
      if (!split)
        break;
      if (failed(canonicalize()))
        return failure();
      work = planAll();
    }
    return success();
  }

  /// Puts its plan on every contraction the planner tiles; with remarks,
  /// says why each other linalg.generic with a reduction is not tiled.
  void planContractions() {
    std::vector<Refusal> refusals;
    std::vector<PlannedContraction> work = planAll(&refusals);
    if (!work.empty())
      remarkTargetOnce();
    if (emitRemarks)
      for (auto &[op, whyNot] : refusals)
        op->emitRemark() << "not tiled: " << whyNot;
    for (auto &[op, plan] : work) {
      if (plan.splitAt) {
        // Still to split after the last round: the scalar loops stay.
        ++counts.fallbacks;
        (void)rewriter.notifyMatchFailure(
            op, "still to split after " + Twine(kMaxSplitRounds) + " rounds");
        continue;
      }
      remarkPlan(op, plan);
      op->setAttr(tl::kContractionPlanAttrName,
                  getContractionPlanAttr(function.getContext(), plan));
    }
  }

  /// The cache tiles of every planned contraction (the plan moves onto
  /// them), their partial last steps peeled.
  LogicalResult tileForCaches() {
    for (auto [op, plan] : takePlanned()) {
      rewriter.setInsertionPoint(op);
      transposeForColumns(rewriter, op, plan.columnDim, plan.packedInput);
      FailureOr<SmallVector<linalg::GenericOp, 2>> cacheTiles =
          tensorlang::tileForCaches(rewriter, op, plan, planner->getConfig());
      if (failed(cacheTiles)) {
        ++counts.fallbacks;
        continue;
      }
      ++counts.tiled;
      for (linalg::GenericOp cacheTile : *cacheTiles)
        cacheTile->setAttr(tl::kContractionPlanAttrName,
                           getContractionPlanAttr(function.getContext(), plan));
    }
    return peelPlanned();
  }

  /// The register tiles of every planned (cache) tile, peeled likewise.
  LogicalResult tileForRegisters() {
    SmallVector<ColumnPanels> packedPanels;
    for (auto [cacheTile, plan] : takePlanned()) {
      if (!staticLoopExtents(cacheTile)) {
        FailureOr<SmallVector<linalg::GenericOp>> registerTiles =
            tensorlang::tileSizedForRegisters(rewriter, cacheTile, plan,
                                              packedPanels);
        if (failed(registerTiles)) {
          ++counts.fallbacks;
          continue;
        }
        for (linalg::GenericOp registerTile : *registerTiles)
          registerTile->setAttr(
              tl::kContractionPlanAttrName,
              getContractionPlanAttr(function.getContext(), plan));
        continue;
      }
      FailureOr<linalg::GenericOp> registerTile =
          tensorlang::tileForRegisters(rewriter, cacheTile, plan, packedPanels);
      if (failed(registerTile)) {
        ++counts.fallbacks;
        continue;
      }
      (*registerTile)
          ->setAttr(tl::kContractionPlanAttrName,
                    getContractionPlanAttr(function.getContext(), plan));
    }
    return peelPlanned();
  }

  /// A vector contraction of every planned (register) tile; the plans are
  /// gone after it.
  LogicalResult vectorizeRegisterTiles() {
    for (auto [registerTile, plan] : takePlanned()) {
      Location loc = registerTile.getLoc();
      FailureOr<TiledContraction> tiled =
          vectorizeRegisterTile(rewriter, registerTile, plan);
      if (succeeded(tiled) && tiled->vectorized) {
        ++counts.vectorized;
        continue;
      }
      ++counts.fallbacks;
      if (succeeded(tiled))
        (void)rewriter.notifyMatchFailure(loc,
                                          "the register tile stays scalar: "
                                          "vectorization failed");
    }
    // Multiply-and-reduce becomes vector.contract; slices of slices fold.
    RewritePatternSet patterns(function.getContext());
    vector::populateVectorReductionToContractPatterns(patterns);
    // Broadcasting reads become reads and broadcasts, which the contraction
    // absorbs into its indexing maps.
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    // The masked reads of a sized contraction's edges take their masks as
    // operands (bufferization does not see through vector.mask).
    vector::populateVectorMaskLoweringPatternsForSideEffectingOps(patterns);
    linalg::populateLinalgTilingCanonicalizationPatterns(patterns);
    tensor::populateFoldTensorEmptyPatterns(patterns);
    return applyPatternsGreedily(function, std::move(patterns));
  }

private:
  struct PlannedContraction {
    linalg::GenericOp op;
    ContractionTilingPlan plan;
  };

  /// A linalg.generic with a reduction that the planner does not tile, and
  /// why.
  struct Refusal {
    linalg::GenericOp op;
    std::string whyNot;
  };

  /// Plans every contraction of the function; collects the refusals in
  /// `refusals` where given.
  std::vector<PlannedContraction>
  planAll(std::vector<Refusal> *refusals = nullptr) {
    std::vector<PlannedContraction> work;
    function.walk([&](linalg::GenericOp op) {
      std::string whyNot;
      FailureOr<ContractionTilingPlan> plan = planner->plan(op, &whyNot);
      if (succeeded(plan)) {
        work.push_back({op, std::move(*plan)});
        return;
      }
      LLVM_DEBUG(llvm::dbgs() << "not planned: " << whyNot << "\n");
      if (refusals && op.getNumReductionLoops() > 0)
        refusals->push_back({op, std::move(whyNot)});
    });
    return work;
  }

  /// The ops that carry a plan and their plans, the plans removed.
  std::vector<PlannedContraction> takePlanned() {
    std::vector<PlannedContraction> planned;
    function.walk([&](linalg::GenericOp op) {
      if (auto attr = op->getAttrOfType<tl::ContractionPlanAttr>(
              tl::kContractionPlanAttrName)) {
        op->removeAttr(tl::kContractionPlanAttrName);
        planned.push_back({op, getContractionTilingPlan(attr)});
      }
    });
    return planned;
  }

  /// Peels the partial last steps of the loops around the tiles that carry
  /// a plan and folds the peeled bounds into static sizes (as well as those
  /// of tiles larger than what is left of their extent: 5 rows in register
  /// tiles of 8).
  LogicalResult peelPlanned() {
    peelPartialTiles(rewriter, function, [](Operation *op) {
      return op->hasAttr(tl::kContractionPlanAttrName);
    });
    return canonicalize();
  }

  /// Upstream's canonicalization patterns, with the greedy driver's
  /// default (bottom-up) traversal.
  LogicalResult canonicalize() {
    MLIRContext *context = function.getContext();
    RewritePatternSet patterns(context);
    for (Dialect *dialect : context->getLoadedDialects())
      dialect->getCanonicalizationPatterns(patterns);
    for (RegisteredOperationName op : context->getRegisteredOperations())
      op.getCanonicalizationPatterns(patterns, context);
    return applyPatternsGreedily(function, std::move(patterns));
  }

  /// Applies the patterns that `populate` adds in one walk of the function.
  template <typename PopulateFn> void walkAndApply(PopulateFn populate) {
    RewritePatternSet patterns(function.getContext());
    populate(patterns);
    walkAndApplyPatterns(function, std::move(patterns));
  }

  /// The target and what the planner derived from it, at the first step
  /// that plans a contraction.
  void remarkTargetOnce() {
    if (!emitRemarks || targetRemarked)
      return;
    targetRemarked = true;
    std::string described;
    llvm::raw_string_ostream(described) << target;
    const TileContractionsConfig &config = planner->getConfig();
    emitRemark(function.getLoc())
        << "target: " << described << "; planner " << planner->getName()
        << ", for " << elementBytes * 8
        << "-bit elements: " << config.vectorLanes << " lanes, register tile "
        << config.registerRows << "x" << config.registerColumns
        << ", cache tile " << config.cacheRows << "x" << config.cacheColumns
        << "x" << config.cacheDepth << ", whole depth up to "
        << config.wholeDepthPanelBytes << " B";
  }

  void remarkPlan(linalg::GenericOp op, const ContractionTilingPlan &plan) {
    LLVM_DEBUG(llvm::dbgs() << "plan: " << plan << "\n");
    if (!emitRemarks)
      return;
    std::string summary;
    llvm::raw_string_ostream stream(summary);
    stream << plan;
    // Loops over sizes: planned as long ones, their edges padded.
    SmallVector<std::string> sized;
    for (auto [dim, extent] : llvm::enumerate(op.getStaticLoopRanges()))
      if (ShapedType::isDynamic(extent))
        sized.push_back("d" + std::to_string(dim));
    if (!sized.empty()) {
      stream << " sized=" << llvm::join(sized, ",") << " (edges padded";
      // The version for short sizes (versionForShortSizes) says so.
      if (auto extent = op->getAttrOfType<IntegerAttr>(kPlanningExtentAttrName);
          extent && extent.getInt() != kPlanningExtentOfSize)
        stream << "; planned as " << extent.getInt();
      stream << ")";
    }
    op->emitRemark() << "tiling plan: " << summary;
  }

  func::FuncOp function;
  const ContractionPlanner *planner;
  bool emitRemarks;
  TargetDescription target;
  int64_t elementBytes;
  bool targetRemarked = false;
  FallbackRemarks fallbackRemarks;
  IRRewriter rewriter;
};

/// Runs the steps of a pass with the planner options (a friend of each
/// such pass: the generated options are protected).
struct PlannedSteps {
  /// The planner of `pass`: the module's target (tl.target) with the nonzero
  /// target options over it, the planner the `planner` option names (else
  /// the target's), and the nonzero size options over its derived
  /// configuration. Null, with an error on the function, where the planner
  /// is unknown or a size is not positive.
  template <typename PassT>
  static std::unique_ptr<ContractionPlanner>
  createPlanner(PassT &pass, int64_t elementBytes, TargetDescription &target) {
    func::FuncOp function = pass.getOperation();
    StringRef name = pass.getArgument();
    target = tl::getTargetDescription(function);
    if (pass.vectorLanes > 0)
      target.vectorBits = pass.vectorLanes * elementBytes * 8;
    override(target.vectorRegisters, pass.vectorRegisters);
    override(target.l1CacheBytes, pass.l1CacheBytes);
    override(target.l2CacheBytes, pass.l2CacheBytes);
    override(target.l3CacheBytes, pass.l3CacheBytes);
    std::unique_ptr<ContractionPlanner> planner =
        createContractionPlanner(pass.plannerName, target, elementBytes);
    if (!planner) {
      function.emitError() << name << ": no planner '" << pass.plannerName
                           << "' (known: "
                           << llvm::join(getContractionPlannerNames(), ", ")
                           << ")";
      return nullptr;
    }
    TileContractionsConfig &config = planner->getConfig();
    override(config.registerRows, pass.registerRows);
    override(config.registerColumns, pass.registerColumns);
    override(config.cacheRows, pass.cacheRows);
    override(config.cacheColumns, pass.cacheColumns);
    override(config.cacheDepth, pass.cacheDepth);
    override(config.wholeDepthPanelBytes, pass.wholeDepthPanelBytes);
    override(config.l2BlockBytes, pass.l2BlockBytes);
    if (pass.maxShortSize >= 0)
      config.maxShortSize = pass.maxShortSize;
    config.wideColumnVersions = pass.wideColumnVersions;
    // Unknown lanes (no option, no tl.target): no register tiles three
    // vectors wide.
    if (pass.vectorLanes == 0 && !tl::getTargetAttr(function))
      config.vectorLanes = 0;
    config.parallel = pass.parallel;
    config.threads = pass.threads;
    if (config.threads < 0) {
      function.emitError() << name << ": threads must not be negative, got "
                           << config.threads;
      return nullptr;
    }
    if (!target.isValid() || !config.hasPositiveSizes() ||
        config.wholeDepthPanelBytes < 0) {
      function.emitError() << name
                           << ": the target's sizes and the tile sizes must "
                              "be positive";
      return nullptr;
    }
    return planner;
  }

  /// Runs `runSteps` on the steps with the planner of `pass`.
  template <typename PassT, typename RunFn>
  static void run(PassT &pass, RunFn runSteps) {
    int64_t elementBytes = contractionElementBytes(pass.getOperation());
    TargetDescription target;
    std::unique_ptr<ContractionPlanner> planner =
        PlannedSteps::createPlanner(pass, elementBytes, target);
    if (!planner)
      return pass.signalPassFailure();
    ContractionTilingSteps steps(pass.getOperation(), planner.get(),
                                 pass.emitRemarks, target, elementBytes);
    if (failed(runSteps(steps)))
      pass.signalPassFailure();
  }
};

struct TileContractionsPass
    : public tensorlang::impl::TileContractionsBase<TileContractionsPass> {
  using Base::Base;
  // PlannedSteps reads the generated options, which are protected.
  friend struct PlannedSteps;
  void runOnOperation() override {
    PlannedSteps::run(*this, [&](ContractionTilingSteps &steps) {
      // Each rewrite in a walk of its own, in this order: a transposition
      // folds only into a contraction whose reductions are not collapsed
      // yet.
      steps.foldTranspositions();
      steps.collapseReductions();
      steps.blockStridedSums();
      steps.versionForShortSizes();
      steps.versionForWideColumns();
      LogicalResult result = steps.splitContractions();
      if (succeeded(result)) {
        steps.planContractions();
        result = success(succeeded(steps.tileForCaches()) &&
                         succeeded(steps.tileForRegisters()) &&
                         succeeded(steps.vectorizeRegisterTiles()));
      }
      numTiled += steps.counts.tiled;
      numVectorized += steps.counts.vectorized;
      numSplit += steps.counts.split;
      numFallbacks += steps.counts.fallbacks;
      return result;
    });
  }
};

struct FoldTranspositionsPass
    : public tensorlang::impl::FoldTranspositionsBase<FoldTranspositionsPass> {
  using Base::Base;
  // PlannedSteps reads the generated options, which are protected.
  friend struct PlannedSteps;
  void runOnOperation() override {
    PlannedSteps::run(*this, [](ContractionTilingSteps &steps) {
      steps.foldTranspositions();
      return success();
    });
  }
};

struct CollapseContractionReductionsPass
    : public tensorlang::impl::CollapseContractionReductionsBase<
          CollapseContractionReductionsPass> {
  using Base::Base;
  // PlannedSteps reads the generated options, which are protected.
  friend struct PlannedSteps;
  void runOnOperation() override {
    PlannedSteps::run(*this, [](ContractionTilingSteps &steps) {
      steps.collapseReductions();
      return success();
    });
  }
};

struct BlockStridedSumsPass
    : public tensorlang::impl::BlockStridedSumsBase<BlockStridedSumsPass> {
  using Base::Base;
  // PlannedSteps reads the generated options, which are protected.
  friend struct PlannedSteps;
  void runOnOperation() override {
    PlannedSteps::run(*this, [](ContractionTilingSteps &steps) {
      steps.blockStridedSums();
      return success();
    });
  }
};

struct VersionForShortSizesPass
    : public tensorlang::impl::VersionForShortSizesBase<
          VersionForShortSizesPass> {
  using Base::Base;
  // PlannedSteps reads the generated options, which are protected.
  friend struct PlannedSteps;
  void runOnOperation() override {
    PlannedSteps::run(*this, [](ContractionTilingSteps &steps) {
      steps.versionForShortSizes();
      return success();
    });
  }
};

struct VersionForWideColumnsPass
    : public tensorlang::impl::VersionForWideColumnsBase<
          VersionForWideColumnsPass> {
  using Base::Base;
  // PlannedSteps reads the generated options, which are protected.
  friend struct PlannedSteps;
  void runOnOperation() override {
    PlannedSteps::run(*this, [](ContractionTilingSteps &steps) {
      steps.versionForWideColumns();
      return success();
    });
  }
};

struct SplitContractionsPass
    : public tensorlang::impl::SplitContractionsBase<SplitContractionsPass> {
  using Base::Base;
  // PlannedSteps reads the generated options, which are protected.
  friend struct PlannedSteps;
  void runOnOperation() override {
    PlannedSteps::run(*this, [&](ContractionTilingSteps &steps) {
      LogicalResult result = steps.splitContractions();
      numSplit += steps.counts.split;
      return result;
    });
  }
};

struct PlanContractionsPass
    : public tensorlang::impl::PlanContractionsBase<PlanContractionsPass> {
  using Base::Base;
  // PlannedSteps reads the generated options, which are protected.
  friend struct PlannedSteps;
  void runOnOperation() override {
    PlannedSteps::run(*this, [&](ContractionTilingSteps &steps) {
      steps.planContractions();
      numFallbacks += steps.counts.fallbacks;
      return success();
    });
  }
};

struct TileContractionsForCachesPass
    : public tensorlang::impl::TileContractionsForCachesBase<
          TileContractionsForCachesPass> {
  using Base::Base;
  // PlannedSteps reads the generated options, which are protected.
  friend struct PlannedSteps;
  void runOnOperation() override {
    PlannedSteps::run(*this, [&](ContractionTilingSteps &steps) {
      LogicalResult result = steps.tileForCaches();
      numTiled += steps.counts.tiled;
      numFallbacks += steps.counts.fallbacks;
      return result;
    });
  }
};

struct TileContractionsForRegistersPass
    : public tensorlang::impl::TileContractionsForRegistersBase<
          TileContractionsForRegistersPass> {
  using Base::Base;
  void runOnOperation() override {
    ContractionTilingSteps steps(getOperation(), /*planner=*/nullptr,
                                 emitRemarks);
    if (failed(steps.tileForRegisters()))
      signalPassFailure();
    numFallbacks += steps.counts.fallbacks;
  }
};

struct VectorizeRegisterTilesPass
    : public tensorlang::impl::VectorizeRegisterTilesBase<
          VectorizeRegisterTilesPass> {
  using Base::Base;
  void runOnOperation() override {
    ContractionTilingSteps steps(getOperation(), /*planner=*/nullptr,
                                 emitRemarks);
    if (failed(steps.vectorizeRegisterTiles()))
      signalPassFailure();
    numVectorized += steps.counts.vectorized;
    numFallbacks += steps.counts.fallbacks;
  }
};

} // namespace
