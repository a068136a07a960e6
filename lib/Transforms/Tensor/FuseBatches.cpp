//===- FuseBatches.cpp - Chains of statements one batch slice at a time ---===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The CFD kernels apply a small matrix along each dimension of E element
// tensors, one statement per dimension. Computed whole, each step writes an
// E x p^3 intermediate to memory and the next reads it back: the steps run
// at memory speed, and the intermediates are allocated on every call. The
// hand-written C loops instead run all steps for one element before the
// next, on p^3 temporaries that never leave L1. This pass does the same:
// it tiles the last statement of a chain along the leading (batch)
// dimension and fuses its producers into the loop.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Dialect/TL/IR/TLAttributes.h"
#include "tensorlang/Transforms/ContractionPlan.h"
#include "tensorlang/Transforms/Passes.h"
#include "tensorlang/Transforms/TileContractions.h"

#include "ContractionUtils.h"

#include "Divisors.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/MathExtras.h"

namespace tensorlang {
#define GEN_PASS_DEF_FUSEBATCHES
#include "tensorlang/Transforms/Passes.h.inc"
} // namespace tensorlang

using namespace mlir;
using tensorlang::largestDivisorAtMost;

/// The loop dimension of `op` that indexes the leading dimension of its
/// result, if the result has one and op is a linalg.generic on tensors
/// with one result whose indexing maps are projected permutations. Its
/// range and the others' may be static or sizes (K5's `[E p p p]`, K5L's
/// `[p p p E]`, a sized TCCG program's every extent).
static std::optional<unsigned> batchDim(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op->getNumResults() != 1 ||
      llvm::any_of(op.getIndexingMapsArray(),
                   [](AffineMap map) { return !map.isProjectedPermutation(); }))
    return std::nullopt;
  AffineMap result = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (result.getNumResults() == 0)
    return std::nullopt;
  return result.getDimPosition(0);
}

/// `extent`, or the extent sized contractions are planned for where it is
/// a size: what the sizes' values are weighed as.
static int64_t planningExtent(int64_t extent) {
  return ShapedType::isDynamic(extent) ? tensorlang::kPlanningExtentOfSize
                                       : extent;
}

/// Whether the batch loop of `op` has a range known only at run time.
static bool batchIsSized(linalg::GenericOp op) {
  return ShapedType::isDynamic(op.getStaticLoopRanges()[*batchDim(op)]);
}

/// Whether the batch loop of `op` has a range known only at run time and
/// every other loop a static one (K5's `[E p p p]`): one batch slice at a
/// time, the loops are static.
static bool hasSizedBatch(linalg::GenericOp op) {
  unsigned batch = *batchDim(op);
  for (auto [loop, range] : llvm::enumerate(op.getStaticLoopRanges()))
    if (ShapedType::isDynamic(range) != (loop == batch))
      return false;
  return true;
}

/// Whether the batch loop of `op` and another of its loops have ranges
/// known only at run time (a sized TCCG program).
static bool hasSizesBesideSizedBatch(linalg::GenericOp op) {
  return batchIsSized(op) && !hasSizedBatch(op);
}

/// The bytes of one index of `type`'s dimension of run-time extent (all of
/// it where it has none); none where more than one is dynamic.
static std::optional<int64_t> getBytesPerBatchIndex(ShapedType type) {
  int64_t elements = 1;
  int dynamic = 0;
  for (int64_t extent : type.getShape()) {
    if (ShapedType::isDynamic(extent))
      ++dynamic;
    else
      elements *= extent;
  }
  if (dynamic > 1)
    return std::nullopt;
  return elements * type.getElementTypeBitWidth() / 8;
}

/// Whether `copy`, a transposition of a contraction, writes a batch of
/// run-time extent (its result's leading dimension, its only dynamic one)
/// of which one index's slice, and each of the contraction's inputs', fit
/// a GPU block's shared memory: the CFD gradient's `D # u . [2 4] ^ [1
/// 2]`, whose contraction puts D's index first and the batch second.
/// Computed in the transposition's layout, the contraction is one batch
/// index's statement (a batch kernel), not a contraction kernel over all
/// the batches and a transposition after it, each a pass over memory.
static bool transposesPerBatchContraction(linalg::GenericOp copy) {
  linalg::GenericOp contraction = tensorlang::getTransposedContraction(copy);
  auto type = cast<ShapedType>(copy->getResult(0).getType());
  if (!contraction || type.getRank() < 2 || !type.isDynamicDim(0))
    return false;
  auto fits = [](ShapedType shaped) {
    std::optional<int64_t> bytes = getBytesPerBatchIndex(shaped);
    return bytes && *bytes <= tensorlang::kGPUSharedMemoryBytes;
  };
  return fits(type) && llvm::all_of(contraction.getDpsInputs(), [&](Value in) {
           auto shaped = dyn_cast<ShapedType>(in.getType());
           return shaped && fits(shaped);
         });
}

/// The loop of `op` whose range is known only at run time, if it has
/// exactly one and it is a parallel loop that indexes a dimension of the
/// result other than the leading one (the batch of batchDim), and op is a
/// linalg.generic on tensors with one result whose indexing maps are
/// projected permutations.
static std::optional<unsigned> innerSizedLoop(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op->getNumResults() != 1 ||
      llvm::any_of(op.getIndexingMapsArray(),
                   [](AffineMap map) { return !map.isProjectedPermutation(); }))
    return std::nullopt;
  std::optional<unsigned> sized;
  for (auto [loop, range] : llvm::enumerate(op.getStaticLoopRanges())) {
    if (!ShapedType::isDynamic(range))
      continue;
    if (sized)
      return std::nullopt;
    sized = loop;
  }
  AffineMap result = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!sized || result.getNumResults() < 2 ||
      result.getDimPosition(0) == *sized || !result.isFunctionOfDim(*sized) ||
      op.getIteratorTypesArray()[*sized] != utils::IteratorType::parallel)
    return std::nullopt;
  return sized;
}

/// The bytes of `value`, a tensor, with its sizes at their planning
/// extent (saturated).
static int64_t tensorBytes(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t bytes = std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  for (int64_t extent : type.getShape())
    if (llvm::MulOverflow(bytes, planningExtent(extent), bytes))
      return std::numeric_limits<int64_t>::max();
  return bytes;
}

/// The bytes of the results of `chain`, its intermediates (saturated).
static int64_t chainBytes(ArrayRef<linalg::GenericOp> chain) {
  int64_t bytes = 0;
  for (linalg::GenericOp producer : chain)
    if (llvm::AddOverflow(bytes, tensorBytes(producer->getResult(0)), bytes))
      return std::numeric_limits<int64_t>::max();
  return bytes;
}

namespace {
/// What one batch slice may read of an input that the batch does not index
/// (see streamsUnbatchedInput).
struct SliceBudget {
  /// Inputs up to this many bytes are read by every batch index freely (the
  /// largest power of two within L1, whatever tile-bytes says).
  int64_t unbatchedBytes = 0;
  /// A larger input's elements must each be used this many times per batch
  /// index (a register tile's rows).
  int64_t minUses = 0;
};
} // namespace

/// Whether computing `op`, a contraction, one batch index at a time would
/// stream an input that its batch loop does not index, larger than the
/// budget, with fewer uses of each element per batch index than the
/// budget asks: a contraction whose rows are the batch, as `A # u . [[2
/// 3]]` with u of 64^3 doubles, reads all of u for one row of A per index,
/// where whole, its register tiles use each load of u for 8 rows. An
/// element's uses are the result elements that read it (the parallel
/// loops it is not indexed by; the reductions sum into the same element).
/// A batch that is a size is weighed alike: whole, its contraction is
/// tiled as a sized one (a matrix product with its rows a size, one row
/// per index, read all of the other matrix for each row, untiled). An
/// element-wise statement gains nothing from being computed whole.
static bool streamsUnbatchedInput(linalg::GenericOp op,
                                  const SliceBudget &budget) {
  if (op.getNumReductionLoops() == 0)
    return false;
  unsigned batch = *batchDim(op);
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (map.isFunctionOfDim(batch) ||
        tensorBytes(input->get()) <= budget.unbatchedBytes)
      continue;
    int64_t uses = 1;
    for (auto [loop, range] : llvm::enumerate(ranges))
      if (loop != batch && iterators[loop] == utils::IteratorType::parallel &&
          !map.isFunctionOfDim(loop))
        if (llvm::MulOverflow(uses, planningExtent(range), uses))
          uses = std::numeric_limits<int64_t>::max();
    if (uses < budget.minUses)
      return true;
  }
  return false;
}

/// The producer of `operand` (an input of `consumer`, whose batch loop
/// dimension is `consumerBatch`) if computing it one batch slice at a time
/// inside the consumer's batch loop computes every element exactly once:
/// the consumer is its only user and reads it with its leading dimension on
/// the batch dimension, and nowhere else; and if its slices do not stream
/// a large input (streamsUnbatchedInput).
static linalg::GenericOp fusableProducer(linalg::GenericOp consumer,
                                         unsigned consumerBatch,
                                         OpOperand *operand,
                                         const SliceBudget &budget) {
  auto producer = operand->get().getDefiningOp<linalg::GenericOp>();
  if (!producer || !batchDim(producer) || !operand->get().hasOneUse())
    return {};
  AffineMap map = consumer.getMatchingIndexingMap(operand);
  if (map.getNumResults() == 0 || map.getDimPosition(0) != consumerBatch ||
      streamsUnbatchedInput(producer, budget))
    return {};
  return producer;
}

/// The generics that would be fused into the batch loop of `root`.
static SmallVector<linalg::GenericOp> collectChain(linalg::GenericOp root,
                                                   const SliceBudget &budget) {
  SmallVector<linalg::GenericOp> chain, worklist{root};
  while (!worklist.empty()) {
    linalg::GenericOp consumer = worklist.pop_back_val();
    unsigned consumerBatch = *batchDim(consumer);
    for (OpOperand *input : consumer.getDpsInputOperands())
      if (linalg::GenericOp producer =
              fusableProducer(consumer, consumerBatch, input, budget)) {
        chain.push_back(producer);
        worklist.push_back(producer);
      }
  }
  return chain;
}

/// The tile of a sized dimension that vectors run along: a multiple of
/// every vector's length (up to 64 lanes), so that full tiles need no
/// masks, and small, since the peeled remainder (up to 63 indices) runs
/// through the generic lowering.
constexpr int64_t kInnermostSizedTile = 64;

namespace {
struct FuseBatchesPass
    : public tensorlang::impl::FuseBatchesBase<FuseBatchesPass> {
  using Base::Base;

  /// tile-bytes, or the target's where it is 0.
  int64_t batchTileBytes = 0;
  SliceBudget sliceBudget;

  void runOnOperation() override {
    if (tileBytes < 0 || minIntermediateBytes < 0) {
      getOperation().emitError("tl-fuse-batches: tile-bytes and "
                               "min-intermediate-bytes must not be negative");
      return signalPassFailure();
    }
    // A batch tile's intermediates fit L1: a power of two of it (32 KiB of
    // 48).
    const tensorlang::TargetDescription &target =
        tensorlang::tl::getTargetDescription(getOperation());
    int64_t l1Tile = int64_t(1) << llvm::Log2_64(uint64_t(target.l1CacheBytes));
    batchTileBytes = tileBytes == 0 ? l1Tile : tileBytes;
    // (A block per batch index on the GPU reads shared inputs from L2
    // whatever it does with them: no budget there.)
    if (!forGPU) {
      sliceBudget.unbatchedBytes = l1Tile;
      // (The register tile's rows are those of doubles: no planner derives
      // fewer rows for narrower elements.)
      if (auto planner = tensorlang::createContractionPlanner("", target, 8))
        sliceBudget.minUses = planner->getConfig().registerRows;
    }
    IRRewriter rewriter(&getContext());
    if (forGPU) {
      SmallVector<linalg::GenericOp> copies;
      getOperation().walk([&](linalg::GenericOp op) {
        if (transposesPerBatchContraction(op))
          copies.push_back(op);
      });
      for (linalg::GenericOp copy : copies)
        (void)tensorlang::foldTranspositionIntoContractionAlways(rewriter,
                                                                 copy);
    }
    // Roots: generics that are not themselves fused into a consumer. Chains
    // are disjoint (every fused producer has one use), so each is tiled
    // once, from its last statement.
    SmallVector<std::pair<linalg::GenericOp, SmallVector<linalg::GenericOp>>>
        work;
    // A root whose batch is a size is tiled even alone: one batch slice at
    // a time, its loops are static, and the contraction tiler can take it.
    // Not, on the CPU, a transposition of a contraction alone, nor a
    // contraction alone whose only user transposes it: whole, the
    // transposition is folded into the contraction or kept after it by
    // tl-tile-contractions, as in a fixed program, where tiled, one of the
    // two would run an index at a time beside the other whole, and no fold
    // would be weighed. A root that streams an input is computed whole;
    // its producers are roots of their own (isFusedIntoItsUser).
    getOperation().walk([&](linalg::GenericOp op) {
      if (!batchDim(op) || isFusedIntoItsUser(op) ||
          streamsUnbatchedInput(op, sliceBudget))
        return;
      SmallVector<linalg::GenericOp> chain = collectChain(op, sliceBudget);
      bool leftToContractionTiler = !forGPU && chain.empty() &&
                                    (tensorlang::getTransposedContraction(op) ||
                                     isTransposedByItsUser(op));
      if (!chain.empty() || (hasSizedBatch(op) && !leftToContractionTiler))
        work.emplace_back(op, std::move(chain));
    });

    for (auto &[root, chain] : work)
      fuseChain(rewriter, root, chain);
    SmallVector<linalg::GenericOp> inner;
    getOperation().walk([&](linalg::GenericOp op) {
      // (A contraction is left whole to tl-tile-contractions, which tiles
      // sized contractions with the fixed ones' cache tiles; so is a
      // transposition of one, which it folds into the contraction or keeps
      // after it: tiled here, the contraction's result would be read only
      // by slices in a loop, and could no longer be computed in the
      // transposition's layout.)
      if (innerSizedLoop(op) && !forGPU && op.getNumReductionLoops() == 0 &&
          !tensorlang::getTransposedContraction(op))
        inner.push_back(op);
    });
    for (linalg::GenericOp op : inner)
      tileInnerSizedLoop(rewriter, op);
    // The originals are dead now (the fusion leaves them and the slices it
    // replaced), once a loop bound that reads a run-time extent off one of
    // them (tensor.dim) reads it off its operands instead.
    RewritePatternSet patterns(&getContext());
    memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }

  /// Whether `op` sums at least 256 terms into each element over several
  /// reductions: tl-tile-contractions collapses those into one depth, which
  /// a slice of it per batch index hides from it, and it is bound by its
  /// FMAs, so that its result's round trip through memory costs little.
  /// A single reduction stays fused.
  static bool collapsesManyTermsPerElement(linalg::GenericOp op) {
    // TileContractionsConfig::manyUses, the collapse's own threshold.
    return tensorlang::sumsManyTermsOverSeveralReductions(
        op, tensorlang::TileContractionsConfig().manyUses);
  }

  /// Whether the only user of `op`, a contraction, is a transposition of
  /// it (which tl-tile-contractions may fold into it).
  static bool isTransposedByItsUser(linalg::GenericOp op) {
    if (!op->getResult(0).hasOneUse())
      return false;
    auto user = dyn_cast<linalg::GenericOp>(*op->getResult(0).user_begin());
    return user && tensorlang::getTransposedContraction(user) == op;
  }

  bool isFusedIntoItsUser(linalg::GenericOp op) {
    if (!op->getResult(0).hasOneUse())
      return false;
    OpOperand &use = *op->getResult(0).getUses().begin();
    auto consumer = dyn_cast<linalg::GenericOp>(use.getOwner());
    if (!consumer || !consumer.isDpsInput(&use))
      return false;
    std::optional<unsigned> consumerBatch = batchDim(consumer);
    // (A consumer that streams an input is computed whole.)
    return consumerBatch && !streamsUnbatchedInput(consumer, sliceBudget) &&
           fusableProducer(consumer, *consumerBatch, &use, sliceBudget) == op;
  }

  /// The batch indices per slice at which tl-interlace-batches computes
  /// `root` and its `chain` with the batch last: the register tile's
  /// columns, where the chain holds two contractions or more, the
  /// elements' innermost extent fills fewer lanes than those columns and
  /// leaves some of its last vector idle, and every tensor's slice fits a
  /// quarter of L2. (With one contraction, the transpositions in and out
  /// cost about what the idle lanes do.)
  std::optional<int64_t> getInterlaceWidth(linalg::GenericOp root,
                                           ArrayRef<linalg::GenericOp> chain) {
    if (!interlace || forGPU)
      return std::nullopt;
    auto resultType = cast<RankedTensorType>(root->getResult(0).getType());
    if (resultType.getRank() < 2 ||
        ShapedType::isDynamic(resultType.getShape().back()) ||
        !isa<FloatType>(resultType.getElementType()))
      return std::nullopt;
    int64_t innermost = resultType.getShape().back();
    SmallVector<linalg::GenericOp> members(chain);
    members.push_back(root);
    // (tl-interlace-batches rotates only results of rank 2 or more, and
    // leaves a loop with any other member as it is.)
    if (llvm::any_of(members, [](linalg::GenericOp member) {
          return cast<ShapedType>(member->getResult(0).getType()).getRank() < 2;
        }))
      return std::nullopt;
    if (llvm::count_if(members, [](linalg::GenericOp op) {
          return op.getNumReductionLoops() > 0;
        }) < 2)
      return std::nullopt;
    const tensorlang::TargetDescription &target =
        tensorlang::tl::getTargetDescription(getOperation());
    int64_t bytes = tensorlang::elementBytes(root);
    std::unique_ptr<tensorlang::ContractionPlanner> planner =
        tensorlang::createContractionPlanner("", target, bytes);
    if (!planner)
      return std::nullopt;
    int64_t lanes = planner->getConfig().vectorLanes;
    int64_t width = planner->getConfig().registerColumns;
    if (lanes < 2 || innermost % lanes == 0 || innermost >= width)
      return std::nullopt;
    // Every batched tensor of the chain indexes the batch first.
    for (linalg::GenericOp member : members) {
      unsigned memberBatch = *batchDim(member);
      for (OpOperand &operand : member->getOpOperands()) {
        AffineMap map = member.getMatchingIndexingMap(&operand);
        if (!map.isFunctionOfDim(memberBatch))
          continue;
        auto type = cast<ShapedType>(operand.get().getType());
        if (map.getDimPosition(0) != memberBatch ||
            llvm::any_of(type.getShape().drop_front(), ShapedType::isDynamic))
          return std::nullopt;
        int64_t sliceBytes = width * bytes;
        for (int64_t extent : type.getShape().drop_front())
          sliceBytes *= extent;
        if (sliceBytes > int64_t(target.l2CacheBytes / 4))
          return std::nullopt;
      }
    }
    return width;
  }

  /// Tiles `root` and its `chain` by `width` batch indices (`batches`, or
  /// a run-time extent where 0) and marks the loop for
  /// tl-interlace-batches; the last, partial tile is peeled off, after the
  /// loop, and computed one batch index at a time.
  void tileForInterlacing(RewriterBase &rewriter, linalg::GenericOp root,
                          ArrayRef<linalg::GenericOp> chain, int64_t width,
                          int64_t batches) {
    FailureOr<linalg::GenericOp> tiled =
        tileAndFuse(rewriter, root, chain, rewriter.getIndexAttr(width),
                    scf::SCFTilingOptions::LoopType::ForOp);
    if (failed(tiled))
      return;
    auto loop = (*tiled)->getParentOfType<scf::ForOp>();
    if (!loop)
      return;
    loop->setAttr(tensorlang::kInterlaceBatchesAttrName,
                  rewriter.getUnitAttr());
    if (batches != 0 && batches % width == 0)
      return;
    scf::ForOp partial;
    if (failed(scf::peelForLoopAndSimplifyBounds(rewriter, loop, partial))) {
      // (Slices of a partial size cannot be rotated; the tiles stay.)
      loop->removeAttr(tensorlang::kInterlaceBatchesAttrName);
      return;
    }
    partial->removeAttr(tensorlang::kInterlaceBatchesAttrName);
    auto yield = cast<scf::YieldOp>(partial.getBody()->getTerminator());
    auto insert = yield.getOperand(0).getDefiningOp<tensor::InsertSliceOp>();
    auto restRoot = insert
                        ? insert.getSource().getDefiningOp<linalg::GenericOp>()
                        : linalg::GenericOp();
    if (restRoot && batchDim(restRoot))
      (void)tileAndFuse(rewriter, restRoot, collectChain(restRoot, sliceBudget),
                        rewriter.getIndexAttr(1),
                        scf::SCFTilingOptions::LoopType::ForOp);
    inlineSingleIteration(rewriter, partial);
  }

  void fuseChain(RewriterBase &rewriter, linalg::GenericOp root,
                 ArrayRef<linalg::GenericOp> chain) {
    // A sized batch with sizes beside it: a chain is computed one batch
    // slice at a time, as a fixed program's chain whose slices exceed
    // tile-bytes is (TCCG abcd-ebad-ce: its contraction's result in
    // slices of 1 MB, from L2 into the transposition after it, rather
    // than 72 MB through memory). The slices' sizes are unbounded: the
    // GPU keeps such chains whole.
    if (hasSizesBesideSizedBatch(root) &&
        (chain.empty() || forGPU || chainBytes(chain) < minIntermediateBytes ||
         llvm::any_of(chain, collapsesManyTermsPerElement)))
      return;
    // A batch of run-time extent: one slice per iteration, the only tile
    // that never leaves a partial one, so that everything inside is
    // static where the other loops are. Threads share the iterations.
    if (batchIsSized(root)) {
      SmallVector<linalg::GenericOp> innerChain(chain);
      if (threads > 1 && !forGPU) {
        // One share of ceil(E / threads) batch indices per thread, as for
        // a fixed batch, so that the slice loop inside each share keeps
        // its temporaries.
        rewriter.setInsertionPoint(root);
        Location loc = root.getLoc();
        Value extent = tensor::DimOp::create(
            rewriter, loc, root.getDpsInitOperand(0)->get(), 0);
        Value count = arith::ConstantIndexOp::create(rewriter, loc, threads);
        // At least one index: the loop's step, also where E is 0.
        Value share = arith::MaxUIOp::create(
            rewriter, loc,
            arith::CeilDivUIOp::create(rewriter, loc, extent, count),
            arith::ConstantIndexOp::create(rewriter, loc, 1));
        FailureOr<linalg::GenericOp> inner =
            tileAndFuse(rewriter, root, chain, share,
                        scf::SCFTilingOptions::LoopType::ForallOp);
        if (failed(inner))
          return;
        root = *inner;
        innerChain = collectChain(root, sliceBudget);
      }
      if (std::optional<int64_t> width = getInterlaceWidth(root, innerChain))
        return tileForInterlacing(rewriter, root, innerChain, *width, 0);
      (void)tileAndFuse(rewriter, root, innerChain, rewriter.getIndexAttr(1),
                        scf::SCFTilingOptions::LoopType::ForOp);
      return;
    }
    unsigned dim = *batchDim(root);
    int64_t batches = root.getStaticLoopRanges()[dim];
    int64_t bytes = chainBytes(chain);
    if (forGPU) {
      // One block per batch index keeps its slice of the chain on the
      // chip; where the slice does not fit a block's shared memory, each
      // statement is better off as a kernel of its own (contractions get
      // tiled kernels). A slice with sizes has no bound to fit.
      auto isStatic = [](linalg::GenericOp op) {
        return !ShapedType::isDynamicShape(op.getStaticLoopRanges());
      };
      if (!chain.empty() && batches >= 2 && isStatic(root) &&
          llvm::all_of(chain, isStatic) &&
          bytes / batches <= tensorlang::kGPUSharedMemoryBytes &&
          llvm::none_of(chain, collapsesManyTermsPerElement))
        (void)tileAndFuse(rewriter, root, chain, rewriter.getIndexAttr(1),
                          scf::SCFTilingOptions::LoopType::ForOp);
      return;
    }
    if (bytes < minIntermediateBytes || batches < 2 ||
        llvm::any_of(chain, collapsesManyTermsPerElement))
      return;
    int64_t bytesPerBatch = std::max<int64_t>(1, bytes / batches);
    // Threads take one contiguous share of the batches each (a forall of
    // that many steps), and run through their share sequentially: so that
    // the temporaries of the inner loop are allocated once per share, not
    // once per batch index by every thread. Without shares (a prime number
    // of batches), threads share the batch loop itself.
    auto loopType = scf::SCFTilingOptions::LoopType::ForOp;
    SmallVector<linalg::GenericOp> innerChain(chain);
    if (threads > 1) {
      int64_t share = largestDivisorAtMost(
          batches, (batches + int64_t(threads) - 1) / int64_t(threads));
      if (share == batches) {
        loopType = scf::SCFTilingOptions::LoopType::ForallOp;
      } else {
        FailureOr<linalg::GenericOp> inner =
            tileAndFuse(rewriter, root, chain, rewriter.getIndexAttr(share),
                        scf::SCFTilingOptions::LoopType::ForallOp);
        if (failed(inner))
          return;
        root = *inner;
        batches = share;
        innerChain = collectChain(root, sliceBudget);
      }
    }
    // (A loop of one whole tile would be folded away before
    // tl-interlace-batches finds it.)
    if (std::optional<int64_t> width = getInterlaceWidth(root, innerChain);
        width && loopType == scf::SCFTilingOptions::LoopType::ForOp &&
        batches >= 2 * *width)
      return tileForInterlacing(rewriter, root, innerChain, *width, batches);
    // The largest tile that divides the batches (no partial tiles), is
    // smaller than them, and keeps the intermediates within tile-bytes.
    int64_t tile = largestDivisorAtMost(
        batches, std::min(batches - 1, batchTileBytes / bytesPerBatch));
    if (batches > 1)
      (void)tileAndFuse(rewriter, root, innerChain, rewriter.getIndexAttr(tile),
                        loopType);
  }

  /// Tiles the inner sized loop of `op` (innerSizedLoop) by a static
  /// tile, and peels the last, partial tile: the full tiles are static, so
  /// the contraction tiler and vectorizer treat them as a fixed program's,
  /// and only fewer than `tile` indices run through the generic lowering.
  /// Along the result's last dimension, the one vectors run along, the
  /// tile is kInnermostSizedTile indices; elsewhere it holds at most
  /// tile-bytes of result (at least one index).
  void tileInnerSizedLoop(RewriterBase &rewriter, linalg::GenericOp op) {
    unsigned loop = *innerSizedLoop(op);
    auto resultType =
        cast<RankedTensorType>(op.getDpsInitOperand(0)->get().getType());
    AffineMap resultMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    int64_t tile = kInnermostSizedTile;
    if (resultMap.getDimPosition(resultMap.getNumResults() - 1) != loop) {
      int64_t bytesPerIndex =
          std::max<int64_t>(1, resultType.getElementTypeBitWidth() / 8);
      for (int64_t extent : resultType.getShape())
        if (!ShapedType::isDynamic(extent))
          bytesPerIndex *= extent;
      tile = std::max<int64_t>(1, batchTileBytes / bytesPerIndex);
    }
    SmallVector<OpFoldResult> sizes(op.getNumLoops(), rewriter.getIndexAttr(0));
    sizes[loop] = rewriter.getIndexAttr(tile);
    // The accumulator's fill goes into the loop, one tile at a time, so
    // that the result is written in one pass, as without a size.
    scf::SCFTileAndFuseOptions options;
    options.tilingOptions.setTileSizes(sizes);
    options.tilingOptions.setLoopType(scf::SCFTilingOptions::LoopType::ForOp);
    options.setFusionControlFn(
        [](tensor::ExtractSliceOp, OpResult producer,
           bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          if (isa<linalg::FillOp>(producer.getOwner()))
            return scf::SCFTileAndFuseOptions::ControlFnResult{};
          return std::nullopt;
        });
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTileAndFuseResult> tiled =
        scf::tileConsumerAndFuseProducersUsingSCF(
            rewriter, cast<TilingInterface>(op.getOperation()), options);
    if (failed(tiled))
      return;
    for (OpResult result : op->getResults())
      if (Value replacement = tiled->replacements.lookup(result))
        rewriter.replaceAllUsesWith(result, replacement);
    if (tile == 1 || tiled->loops.empty())
      return;
    auto forOp = dyn_cast<scf::ForOp>(tiled->loops.front().getOperation());
    scf::ForOp partial;
    if (forOp &&
        succeeded(scf::peelForLoopAndSimplifyBounds(rewriter, forOp, partial)))
      inlineSingleIteration(rewriter, partial);
  }

  /// Replaces `loop`, which runs once (the partial tile peeled off), by its
  /// body. Its extent then derives from the loop bounds outside any loop:
  /// values that the affine loops of the lowering may take as symbols,
  /// which a value computed inside an scf.for is not.
  static void inlineSingleIteration(RewriterBase &rewriter, scf::ForOp loop) {
    Block *body = loop.getBody();
    auto yield = cast<scf::YieldOp>(body->getTerminator());
    SmallVector<Value> results(yield.getOperands());
    SmallVector<Value> arguments{loop.getLowerBound()};
    llvm::append_range(arguments, loop.getInitArgs());
    rewriter.inlineBlockBefore(body, loop, arguments);
    rewriter.eraseOp(yield);
    rewriter.replaceOp(loop, results);
  }

  /// Tiles `root` by `tile` along its batch dimension and fuses `chain`
  /// and the accumulator fills into the loop; returns the tiled root.
  FailureOr<linalg::GenericOp>
  tileAndFuse(RewriterBase &rewriter, linalg::GenericOp root,
              ArrayRef<linalg::GenericOp> chain, OpFoldResult tile,
              scf::SCFTilingOptions::LoopType loopType) {
    SmallVector<OpFoldResult> sizes(root.getNumLoops(),
                                    rewriter.getIndexAttr(0));
    sizes[*batchDim(root)] = tile;
    scf::SCFTileAndFuseOptions options;
    options.tilingOptions.setTileSizes(sizes);
    options.tilingOptions.setLoopType(loopType);
    llvm::SmallPtrSet<Operation *, 8> members;
    for (linalg::GenericOp producer : chain)
      members.insert(producer);
    // The chain, and the fills of accumulators (recomputing a fill per
    // slice writes each element once, like the original).
    options.setFusionControlFn(
        [&](tensor::ExtractSliceOp, OpResult producer, bool)
            -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          Operation *op = producer.getOwner();
          if (members.contains(op) || isa<linalg::FillOp>(op))
            return scf::SCFTileAndFuseOptions::ControlFnResult{};
          return std::nullopt;
        });
    rewriter.setInsertionPoint(root);
    FailureOr<scf::SCFTileAndFuseResult> fused =
        scf::tileConsumerAndFuseProducersUsingSCF(
            rewriter, cast<TilingInterface>(root.getOperation()), options);
    if (failed(fused))
      return failure();
    for (OpResult result : root->getResults())
      if (Value replacement = fused->replacements.lookup(result))
        rewriter.replaceAllUsesWith(result, replacement);
    if (forGPU && !fused->loops.empty())
      fused->loops.front()->setAttr(tensorlang::kBatchLoopAttrName,
                                    rewriter.getUnitAttr());
    auto tiled = dyn_cast<linalg::GenericOp>(fused->tiledAndFusedOps.front());
    if (!tiled)
      return failure();
    return tiled;
  }
};
} // namespace
