//===- ContractionRewrites.cpp - Contractions reshaped for tiling ---------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The rewrites tl-tile-contractions runs before it plans: a transposition
// folded into the contraction it copies, reductions collapsed into one, and
// sums to a scalar blocked a cache line at a time; and the transposed
// operand copies the register tiles want.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Transforms/TileContractions.h"

#include "ContractionUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tl-tile-contractions"

using namespace mlir;
using namespace tensorlang;

/// Marks a transposition that a sized contraction keeps in one of the
/// versions foldAtRunTime makes: it is not weighed again.
static constexpr llvm::StringLiteral kKeptTranspositionMarker =
    "tl.kept_transposition";

/// Whether `op` only copies its one input, permuted: what
/// --convert-tl-to-linalg makes of a transposition of a contraction.
static bool isPermutationCopy(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 1 ||
      op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 0)
    return false;
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  return body.getOperations().size() == 1 &&
         yield.getValues().front() == body.getArgument(0) &&
         llvm::all_of(op.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isPermutation(); });
}

// Otherwise the contraction writes a temporary that a second loop nest
// transposes, which can take longer than the sums when they are few per
// element; with many, only the copies the two layouts need decide.
linalg::GenericOp tensorlang::getTransposedContraction(linalg::GenericOp copy) {
  if (!isPermutationCopy(copy) || copy->hasAttr(kKeptTranspositionMarker))
    return nullptr;
  auto contraction =
      copy.getDpsInputs().front().getDefiningOp<linalg::GenericOp>();
  if (!contraction || contraction->getNumResults() != 1 ||
      !contraction->getResult(0).hasOneUse() ||
      contraction.getNumReductionLoops() == 0 ||
      !isMultiplyAccumulate(contraction))
    return nullptr;
  return contraction;
}

/// The result map of the contraction that `copy` transposes, computed
/// straight into `copy`'s layout: result index of the contraction ->
/// iteration of the copy -> index of the copy's result.
static AffineMap foldedResultMap(linalg::GenericOp copy, AffineMap resultMap) {
  AffineMap copyInput = copy.getIndexingMapsArray()[0];
  AffineMap copyOutput = copy.getIndexingMapsArray()[1];
  return copyOutput.compose(inversePermutation(copyInput).compose(resultMap));
}

/// The elements of tensor `value`, at run time.
static Value elementsAtRunTime(OpBuilder &builder, Location loc, Value value) {
  Value count = arith::ConstantIndexOp::create(builder, loc, 1);
  for (OpFoldResult size : tensor::getMixedSizes(builder, loc, value))
    count = arith::MulIOp::create(
        builder, loc, count,
        getValueOrCreateConstantIndexOp(builder, loc, size));
  return count;
}

/// The extent of loop `dim` of `contraction`, at run time: read from an
/// input that has it (defined before a version choice around the
/// contraction, unlike its accumulator), else from the accumulator; 1 for
/// a loop no operand indexes.
static Value loopExtentAtRunTime(OpBuilder &builder, Location loc,
                                 linalg::GenericOp contraction, unsigned dim) {
  AffineExpr loop = getAffineDimExpr(dim, contraction.getContext());
  for (OpOperand &operand : contraction->getOpOperands())
    if (std::optional<unsigned> position =
            contraction.getMatchingIndexingMap(&operand).getResultPosition(
                loop))
      return getValueOrCreateConstantIndexOp(
          builder, loc,
          tensor::getMixedSize(builder, loc, operand.get(), *position));
  return arith::ConstantIndexOp::create(builder, loc, 1);
}

/// Whether folding the transposition pays, computed at run time from the
/// extents as ContractionPlanner::shouldFoldTransposition computes it at
/// compile time (there, the comments say why), in halves of elements.
/// `resultElements` are the transposition's.
static Value
foldPaysAtRunTime(OpBuilder &builder, Location loc,
                  linalg::GenericOp contraction, Value resultElements,
                  const ContractionPlanner::TranspositionFoldWeights &weights,
                  const TileContractionsConfig &config) {
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  auto add = [&](Value lhs, Value rhs) -> Value {
    return arith::AddIOp::create(builder, loc, lhs, rhs);
  };
  auto multiply = [&](Value lhs, Value rhs) -> Value {
    return arith::MulIOp::create(builder, loc, lhs, rhs);
  };
  auto compare = [&](arith::CmpIPredicate predicate, Value lhs, Value rhs) {
    return arith::CmpIOp::create(builder, loc, predicate, lhs, rhs).getResult();
  };
  auto inputElements = [&](unsigned input) {
    return elementsAtRunTime(builder, loc, contraction.getDpsInputs()[input]);
  };
  Value terms = constant(1);
  for (unsigned dim = 0; dim < contraction.getNumLoops(); ++dim)
    if (isReduction(contraction, dim))
      terms =
          multiply(terms, loopExtentAtRunTime(builder, loc, contraction, dim));
  Value manyTerms = compare(arith::CmpIPredicate::ugt, terms,
                            constant(config.maxSummandsToFoldTransposition));
  Value always = arith::ConstantIntOp::create(builder, loc, 1, 1);
  auto negate = [&](Value condition) -> Value {
    return arith::XOrIOp::create(builder, loc, condition, always);
  };
  if (!weights.ownTiles)
    return negate(manyTerms);
  Value two = constant(2);
  Value foldedCopies = constant(0);
  for (unsigned input : weights.foldedCopies)
    foldedCopies = add(foldedCopies, multiply(two, inputElements(input)));
  if (weights.foldedPacked >= 0)
    foldedCopies = add(foldedCopies, inputElements(weights.foldedPacked));
  Value ownCopies = resultElements;
  for (unsigned input : weights.ownCopies)
    ownCopies = add(ownCopies, inputElements(input));
  ownCopies = multiply(two, ownCopies);
  Value pays = compare(arith::CmpIPredicate::ule, foldedCopies,
                       multiply(two, ownCopies));
  Value refusedForTerms =
      compare(arith::CmpIPredicate::uge, foldedCopies, ownCopies);
  if (weights.foldedLosesPanels()) {
    refusedForTerms = always;
  } else if (weights.foldedMayLoseRowPanels()) {
    // Each layout has the rows' panels where its columns are many enough
    // (rowPanelInput), which the sizes decide.
    auto hasRowPanels =
        [&](const ContractionPlanner::TranspositionFoldWeights::RowPanelColumns
                &columns) {
          Value extent = constant(1);
          for (unsigned loop : columns.loops)
            extent = multiply(
                extent, loopExtentAtRunTime(builder, loc, contraction, loop));
          return compare(arith::CmpIPredicate::uge, extent,
                         constant(columns.minColumns));
        };
    Value losesRowPanels = arith::AndIOp::create(
        builder, loc, hasRowPanels(*weights.ownRowPanelColumns),
        negate(hasRowPanels(*weights.foldedRowPanelColumns)));
    refusedForTerms =
        arith::OrIOp::create(builder, loc, refusedForTerms, losesRowPanels);
  }
  Value refused =
      arith::AndIOp::create(builder, loc, manyTerms, refusedForTerms);
  return arith::AndIOp::create(builder, loc, pays, negate(refused));
}

/// `contraction` computed into the layout of `copy` (the transposition
/// that is its only use), with indexing maps `maps` and its accumulator
/// filled as `fill` fills the contraction's, built at the builder's
/// insertion point.
static linalg::GenericOp buildFolded(OpBuilder &builder,
                                     linalg::GenericOp contraction,
                                     linalg::GenericOp copy,
                                     linalg::FillOp fill,
                                     ArrayRef<AffineMap> maps) {
  auto init = linalg::FillOp::create(builder, fill.getLoc(), fill.getInputs(),
                                     copy.getDpsInits());
  auto folded = linalg::GenericOp::create(
      builder, contraction.getLoc(), copy->getResultTypes(),
      contraction.getDpsInputs(), init->getResults(), maps,
      contraction.getIteratorTypesArray());
  IRMapping mapping;
  contraction.getRegion().cloneInto(&folded.getRegion(), mapping);
  return folded;
}

/// Replaces `copy` with `contraction` computed into its layout
/// (buildFolded), and erases what that leaves unused.
static linalg::GenericOp replaceWithFolded(RewriterBase &rewriter,
                                           linalg::GenericOp contraction,
                                           linalg::GenericOp copy,
                                           linalg::FillOp fill,
                                           ArrayRef<AffineMap> maps) {
  rewriter.setInsertionPoint(copy);
  linalg::GenericOp folded =
      buildFolded(rewriter, contraction, copy, fill, maps);
  rewriter.replaceOp(copy, folded->getResults());
  rewriter.eraseOp(contraction);
  if (fill->use_empty())
    rewriter.eraseOp(fill);
  LLVM_DEBUG(llvm::dbgs() << "folded a transposition: " << folded << "\n");
  return folded;
}

/// Whether folding pays whatever the sizes: it copies no operand and loses
/// no panels.
static bool
foldAlwaysPays(const ContractionPlanner::TranspositionFoldWeights &weights) {
  return weights.ownTiles && weights.foldedCopies.empty() &&
         weights.foldedPacked < 0 && !weights.foldedLosesPanels() &&
         !weights.foldedMayLoseRowPanels();
}

// Over sizes, which layout pays depends on the extents: both are
// compiled, and the extents choose at run time (`scf.if`), each version
// planned and tiled as it would be alone.
static linalg::GenericOp
foldAtRunTime(RewriterBase &rewriter, linalg::GenericOp contraction,
              linalg::GenericOp copy, linalg::FillOp fill,
              ArrayRef<AffineMap> maps,
              const ContractionPlanner::TranspositionFoldWeights &weights,
              const TileContractionsConfig &config) {
  Location loc = copy.getLoc();
  rewriter.setInsertionPoint(copy);
  Value pays = foldPaysAtRunTime(
      rewriter, loc, contraction,
      elementsAtRunTime(rewriter, loc, copy.getDpsInits()[0]), weights, config);
  linalg::GenericOp folded;
  auto choice = scf::IfOp::create(
      rewriter, loc, pays,
      [&](OpBuilder &builder, Location loc) {
        folded = buildFolded(builder, contraction, copy, fill, maps);
        scf::YieldOp::create(builder, loc, folded->getResults());
      },
      [&](OpBuilder &builder, Location loc) {
        IRMapping mapping;
        builder.clone(*fill, mapping);
        builder.clone(*contraction, mapping);
        Operation *kept = builder.clone(*copy, mapping);
        kept->setAttr(kKeptTranspositionMarker, builder.getUnitAttr());
        scf::YieldOp::create(builder, loc, kept->getResults());
      });
  choice->setAttr(kVersionChoiceAttrName, rewriter.getUnitAttr());
  rewriter.replaceOp(copy, choice->getResults());
  rewriter.eraseOp(contraction);
  if (fill->use_empty())
    rewriter.eraseOp(fill);
  return folded;
}

/// What folding transposition `copy` into its contraction takes: the
/// contraction, the fill of its accumulator, and its indexing maps with
/// the result's folded.
struct TranspositionFold {
  linalg::GenericOp contraction;
  linalg::FillOp fill;
  SmallVector<AffineMap> maps;
};

static FailureOr<TranspositionFold>
matchTranspositionFold(RewriterBase &rewriter, linalg::GenericOp copy) {
  linalg::GenericOp contraction = getTransposedContraction(copy);
  if (!contraction)
    return rewriter.notifyMatchFailure(
        copy, "not a transposition of a contraction used only there");
  auto fill = contraction.getDpsInits().front().getDefiningOp<linalg::FillOp>();
  if (!fill)
    return rewriter.notifyMatchFailure(copy, "the contraction has no filled "
                                             "accumulator");
  SmallVector<AffineMap> maps = contraction.getIndexingMapsArray();
  maps.back() = foldedResultMap(copy, maps.back());
  return TranspositionFold{contraction, fill, std::move(maps)};
}

FailureOr<linalg::GenericOp> tensorlang::foldTranspositionIntoContraction(
    RewriterBase &rewriter, linalg::GenericOp copy,
    const ContractionPlanner &planner, bool *atRunTime) {
  if (atRunTime)
    *atRunTime = false;
  FailureOr<TranspositionFold> match = matchTranspositionFold(rewriter, copy);
  if (failed(match))
    return failure();
  auto &[contraction, fill, maps] = *match;
  ContractionShape own = ContractionShape::get(contraction);
  ContractionShape folded = own.withResultMap(
      maps.back(), cast<ShapedType>(copy->getResult(0).getType()).getShape());
  // A choice that depends on sizes is made at run time; one that does not
  // (folding copies no operand and loses no panels) is made here.
  if (own.hasSizedExtents() && fill->hasOneUse()) {
    ContractionPlanner::TranspositionFoldWeights weights =
        planner.weighTranspositionFold(own, folded);
    if (weights.foldedTiles && !foldAlwaysPays(weights)) {
      if (atRunTime)
        *atRunTime = true;
      return foldAtRunTime(rewriter, contraction, copy, fill, maps, weights,
                           planner.getConfig());
    }
  }
  std::string whyNot;
  if (!planner.shouldFoldTransposition(own, folded, &whyNot))
    return rewriter.notifyMatchFailure(copy, whyNot);
  return replaceWithFolded(rewriter, contraction, copy, fill, maps);
}

FailureOr<linalg::GenericOp>
tensorlang::foldTranspositionIntoContractionAlways(RewriterBase &rewriter,
                                                   linalg::GenericOp copy) {
  FailureOr<TranspositionFold> match = matchTranspositionFold(rewriter, copy);
  if (failed(match))
    return failure();
  return replaceWithFolded(rewriter, match->contraction, copy, match->fill,
                           match->maps);
}

/// The plan `planner` makes for `shape` with its sizes planned as
/// `extent`, printed; empty where it plans none.
static std::string planForSizesOf(const ContractionPlanner &planner,
                                  ContractionShape shape, int64_t extent) {
  shape.planningExtentOfSize = extent;
  FailureOr<ContractionTilingPlan> plan = planner.plan(shape);
  std::string printed;
  if (succeeded(plan))
    llvm::raw_string_ostream(printed) << *plan;
  return printed;
}

/// Where loop `dim` of `contraction` reads its extent at run time: an input
/// that `versioned` (the contraction, or a version choice around it) does
/// not define, and its dimension; std::nullopt where none reads it.
static std::optional<std::pair<Value, unsigned>>
getSizeOutside(linalg::GenericOp contraction, Operation *versioned,
               unsigned dim) {
  for (OpOperand *input : contraction.getDpsInputOperands()) {
    Value value = input->get();
    if (versioned->isAncestor(value.getParentRegion()->getParentOp()))
      continue;
    AffineMap map = contraction.getMatchingIndexingMap(input);
    if (std::optional<unsigned> position = map.getResultPosition(
            getAffineDimExpr(dim, contraction.getContext())))
      return std::make_pair(value, *position);
  }
  return std::nullopt;
}

/// Where each sized loop of `contraction` reads its extent at run time
/// (getSizeOutside). std::nullopt where a sized loop is in no such input
/// (the operands of a collapsed contraction are copies made in the
/// versions).
static std::optional<SmallVector<std::pair<Value, unsigned>>>
getSizesOutside(linalg::GenericOp contraction, Operation *versioned) {
  SmallVector<std::pair<Value, unsigned>> sizes;
  for (auto [dim, extent] :
       llvm::enumerate(contraction.getStaticLoopRanges())) {
    if (!ShapedType::isDynamic(extent))
      continue;
    std::optional<std::pair<Value, unsigned>> found =
        getSizeOutside(contraction, versioned, dim);
    if (!found)
      return std::nullopt;
    sizes.push_back(*found);
  }
  return sizes;
}

/// Whether every one of `sizes` (getSizesOutside) is at most `maxShort`,
/// at run time.
static Value sizesAtMostAtRunTime(OpBuilder &builder, Location loc,
                                  ArrayRef<std::pair<Value, unsigned>> sizes,
                                  int64_t maxShort) {
  Value bound = arith::ConstantIndexOp::create(builder, loc, maxShort);
  Value atMost = arith::ConstantIntOp::create(builder, loc, 1, 1);
  for (auto [tensor, dim] : sizes) {
    Value size = tensor::DimOp::create(builder, loc, tensor, dim);
    Value isShort = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::ule, size, bound);
    atMost = arith::AndIOp::create(builder, loc, atMost, isShort);
  }
  return atMost;
}

/// Marks every contraction in `op` (`op` included) as planned with its
/// sizes as `extent`.
static void setPlanningExtent(Operation *op, int64_t extent) {
  op->walk([&](linalg::GenericOp generic) {
    if (generic.getNumReductionLoops() > 0)
      generic->setAttr(
          kPlanningExtentAttrName,
          IntegerAttr::get(IndexType::get(op->getContext()), extent));
  });
}

/// Computes the condition of each choice between a transposition folded
/// and kept (foldAtRunTime) in `version` again, from the weights of the
/// plans its contractions now carry (setPlanningExtent): the choice was
/// weighed with plans for long sizes, whose copies and panels may not be a
/// version's (TCCG abcd-dbea-ec: A copied whole for long sizes, packed
/// block by block for short ones, which the fixed program folds).
static void reweighFoldChoices(RewriterBase &rewriter, Operation *version,
                               const ContractionPlanner &planner) {
  auto findContraction = [](Block *block) {
    linalg::GenericOp found;
    for (auto generic : block->getOps<linalg::GenericOp>())
      if (generic.getNumReductionLoops() > 0)
        found = generic;
    return found;
  };
  SmallVector<scf::IfOp> choices;
  version->walk([&](scf::IfOp choice) {
    if (choice->hasAttr(kVersionChoiceAttrName) && choice.elseBlock())
      choices.push_back(choice);
  });
  for (scf::IfOp choice : choices) {
    linalg::GenericOp folded = findContraction(choice.thenBlock());
    linalg::GenericOp kept = findContraction(choice.elseBlock());
    linalg::GenericOp copy;
    for (auto generic : choice.elseBlock()->getOps<linalg::GenericOp>())
      if (generic->hasAttr(kKeptTranspositionMarker))
        copy = generic;
    if (!folded || !kept || !copy)
      continue;
    ContractionPlanner::TranspositionFoldWeights weights =
        planner.weighTranspositionFold(ContractionShape::get(kept),
                                       ContractionShape::get(folded));
    Location loc = choice.getLoc();
    rewriter.setInsertionPoint(choice);
    Value pays;
    if (!weights.foldedTiles || foldAlwaysPays(weights))
      pays = arith::ConstantIntOp::create(rewriter, loc,
                                          weights.foldedTiles ? 1 : 0, 1);
    else
      pays = foldPaysAtRunTime(
          rewriter, loc, kept,
          elementsAtRunTime(rewriter, loc, copy.getDpsInits()[0]), weights,
          planner.getConfig());
    rewriter.modifyOpInPlace(
        choice, [&] { choice.getConditionMutable().assign(pays); });
  }
}

/// Replaces `versioned` (a contraction, or a version choice around one)
/// by an `scf.if` on `condition` between two copies of it, whose
/// contractions are planned with their sizes as `thenExtent` and
/// `elseExtent`, and, with `markColumnsVersioned`, carry
/// kColumnsVersionedAttrName. A fill of the contraction's accumulator used
/// only there goes into each version with it, as the accumulator of a
/// folded transposition does (foldAtRunTime): each version then has its
/// own, in place.
static scf::IfOp buildPlannedVersions(RewriterBase &rewriter, Location loc,
                                      Operation *versioned, Value condition,
                                      int64_t thenExtent, int64_t elseExtent,
                                      bool markColumnsVersioned,
                                      const ContractionPlanner &planner) {
  linalg::FillOp fill;
  if (auto contraction = dyn_cast<linalg::GenericOp>(versioned)) {
    fill = contraction.getDpsInits().front().getDefiningOp<linalg::FillOp>();
    if (fill && !fill->hasOneUse())
      fill = nullptr;
  }
  auto buildVersion = [&](OpBuilder &builder, Location loc, int64_t extent) {
    IRMapping mapping;
    if (fill)
      builder.clone(*fill, mapping);
    Operation *version = builder.clone(*versioned, mapping);
    setPlanningExtent(version, extent);
    if (markColumnsVersioned)
      version->walk([&](linalg::GenericOp generic) {
        if (generic.getNumReductionLoops() > 0)
          generic->setAttr(kColumnsVersionedAttrName, builder.getUnitAttr());
      });
    scf::YieldOp::create(builder, loc, version->getResults());
  };
  auto choice = scf::IfOp::create(
      rewriter, loc, condition,
      [&](OpBuilder &builder, Location loc) {
        buildVersion(builder, loc, thenExtent);
      },
      [&](OpBuilder &builder, Location loc) {
        buildVersion(builder, loc, elseExtent);
      });
  reweighFoldChoices(rewriter, choice, planner);
  rewriter.replaceOp(versioned, choice->getResults());
  if (fill && fill->use_empty())
    rewriter.eraseOp(fill);
  return choice;
}

FailureOr<scf::IfOp>
tensorlang::versionContractionForShortSizes(RewriterBase &rewriter,
                                            linalg::GenericOp contraction,
                                            const ContractionPlanner &planner) {
  if (!contraction.hasPureTensorSemantics() ||
      contraction->getNumResults() != 1)
    return rewriter.notifyMatchFailure(contraction, "not one tensor result");
  if (contraction->hasAttr(kPlanningExtentAttrName))
    return rewriter.notifyMatchFailure(contraction, "versioned already");
  if (planner.getConfig().maxShortSize <= 0)
    return rewriter.notifyMatchFailure(contraction,
                                       "no version for short sizes");
  ContractionShape shape = ContractionShape::get(contraction);
  if (!shape.hasSizedExtents())
    return rewriter.notifyMatchFailure(contraction, "no extent is a size");
  if (shape.getNumLoops() > kMaxLoopsOfShortVersion)
    return rewriter.notifyMatchFailure(
        contraction, "more loops than a version for short sizes pays for");
  // Several reductions collapse into one loop whose extent is a product of
  // sizes, short only where the sizes are tiny; and with versions, TCCG
  // ccsd6's result (215 MB) was no longer bufferized in place: a
  // temporary more, 7-12% slower.
  if (contraction.getNumReductionLoops() > 1 ||
      llvm::any_of(
          contraction->getUsers(),
          [](Operation *user) { return isa<tensor::ExpandShapeOp>(user); }) ||
      llvm::any_of(contraction.getDpsInputs(), [](Value input) {
        return input.getDefiningOp<tensor::CollapseShapeOp>();
      }))
    return rewriter.notifyMatchFailure(
        contraction, "several reductions, collapsed or to collapse");
  std::string longPlan = planForSizesOf(planner, shape, kPlanningExtentOfSize);
  std::string shortPlan =
      planForSizesOf(planner, shape, kShortPlanningExtentOfSize);
  if (longPlan.empty() || shortPlan.empty() || longPlan == shortPlan)
    return rewriter.notifyMatchFailure(
        contraction, "the plans for short and long sizes do not differ");

  // A contraction in a version of a transposition folded or kept
  // (foldAtRunTime) is versioned with the whole choice: a choice inside
  // each version makes four versions nested in one function, whose
  // bufferization took 5 to 8 times as long as the two alone.
  Operation *versioned = contraction;
  auto foldChoice = dyn_cast<scf::IfOp>(contraction->getParentOp());
  if (foldChoice && foldChoice->hasAttr(kVersionChoiceAttrName))
    versioned = foldChoice;
  // The sizes of every contraction the versions plan for short sizes, so
  // that none of them (a collapsed one in the other version included) is
  // planned so for longer ones.
  SmallVector<std::pair<Value, unsigned>> sizes;
  WalkResult outside = versioned->walk([&](linalg::GenericOp generic) {
    if (generic.getNumReductionLoops() == 0)
      return WalkResult::advance();
    std::optional<SmallVector<std::pair<Value, unsigned>>> found =
        getSizesOutside(generic, versioned);
    if (!found)
      return WalkResult::interrupt();
    llvm::append_range(sizes, *found);
    return WalkResult::advance();
  });
  if (outside.wasInterrupted())
    return rewriter.notifyMatchFailure(
        contraction, "a sized loop is in no input defined outside the "
                     "versions");
  Location loc = contraction.getLoc();
  rewriter.setInsertionPoint(versioned);
  Value isShort = sizesAtMostAtRunTime(rewriter, loc, sizes,
                                       planner.getConfig().maxShortSize);

  return buildPlannedVersions(rewriter, loc, versioned, isShort,
                              kShortPlanningExtentOfSize, kPlanningExtentOfSize,
                              /*markColumnsVersioned=*/false, planner);
}

/// Whether every one of `sizes` (getSizesOutside) is a multiple of
/// `multiple`, at run time.
static Value sizesMultiplesAtRunTime(OpBuilder &builder, Location loc,
                                     ArrayRef<std::pair<Value, unsigned>> sizes,
                                     int64_t multiple) {
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value step = arith::ConstantIndexOp::create(builder, loc, multiple);
  Value all = arith::ConstantIntOp::create(builder, loc, 1, 1);
  for (auto [tensor, dim] : sizes) {
    Value size = tensor::DimOp::create(builder, loc, tensor, dim);
    Value rest = arith::RemUIOp::create(builder, loc, size, step);
    Value isMultiple = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::eq, rest, zero);
    all = arith::AndIOp::create(builder, loc, all, isMultiple);
  }
  return all;
}

/// The register tile's width along the columns in `plan`; 0 for a plan
/// that splits the contraction (its parts have the tiles).
static int64_t getRegisterColumns(const ContractionTilingPlan &plan) {
  if (plan.columnDim >= plan.registerTiles.size())
    return 0;
  return plan.registerTiles[plan.columnDim];
}

FailureOr<scf::IfOp> tensorlang::versionContractionForWideColumns(
    RewriterBase &rewriter, linalg::GenericOp contraction,
    const ContractionPlanner &planner) {
  if (!contraction.hasPureTensorSemantics() ||
      contraction->getNumResults() != 1)
    return rewriter.notifyMatchFailure(contraction, "not one tensor result");
  if (contraction->hasAttr(kColumnsVersionedAttrName))
    return rewriter.notifyMatchFailure(contraction, "versioned already");
  auto planned =
      contraction->getAttrOfType<IntegerAttr>(kPlanningExtentAttrName);
  // The long version of a contraction versioned for short sizes runs
  // where some size is long: its columns are then long too, or short
  // beside a long size (rarer), and tiles of two vectors leave at most
  // one vector of them to the edge (TCCG abc-bda-dc with a version more
  // compiled 2.4 times as long).
  if (planned && planned.getInt() == kPlanningExtentOfSize)
    return rewriter.notifyMatchFailure(
        contraction, "the long version of one for short sizes");
  int64_t extent = planned ? planned.getInt() : kPlanningExtentOfSize;
  if (!planner.getConfig().wideColumnVersions)
    return rewriter.notifyMatchFailure(contraction,
                                       "no versions for wide columns");
  int64_t lanes = planner.getConfig().vectorLanes;
  if (lanes <= 1)
    return rewriter.notifyMatchFailure(contraction, "no vector lanes known");
  ContractionShape shape = ContractionShape::get(contraction);
  if (!shape.hasSizedExtents())
    return rewriter.notifyMatchFailure(contraction, "no extent is a size");
  // TCCG's ccsd_t contractions (seven loops) ran 5% faster with a version
  // for wide columns, and compiled 2.5 times as long.
  if (shape.getNumLoops() > kMaxLoopsOfShortVersion)
    return rewriter.notifyMatchFailure(
        contraction, "more loops than a version for wide columns pays for");

  // As versionContractionForShortSizes: a contraction in a version of a
  // transposition folded or kept is versioned with the whole choice.
  Operation *versioned = contraction;
  auto foldChoice = dyn_cast<scf::IfOp>(contraction->getParentOp());
  if (foldChoice && foldChoice->hasAttr(kVersionChoiceAttrName))
    versioned = foldChoice;
  int64_t wideColumns = 3 * lanes;
  int64_t wideExtent = getWidePlanningExtentOfSize(extent, lanes);
  // The columns' sizes of every contraction in the versions whose plan
  // takes three vectors of them planned so and not otherwise: each must be
  // a multiple of three vectors for the version to run, or its tiles would
  // have edges of part of a vector.
  SmallVector<std::pair<Value, unsigned>> columnSizes;
  WalkResult outside = versioned->walk([&](linalg::GenericOp generic) {
    if (generic.getNumReductionLoops() == 0)
      return WalkResult::advance();
    ContractionShape versionShape = ContractionShape::get(generic);
    versionShape.planningExtentOfSize = extent;
    FailureOr<ContractionTilingPlan> ownPlan = planner.plan(versionShape);
    versionShape.planningExtentOfSize = wideExtent;
    FailureOr<ContractionTilingPlan> widePlan = planner.plan(versionShape);
    if (failed(ownPlan) || failed(widePlan) ||
        getRegisterColumns(*widePlan) != wideColumns ||
        getRegisterColumns(*ownPlan) == wideColumns ||
        !ShapedType::isDynamic(
            generic.getStaticLoopRanges()[widePlan->columnDim]))
      return WalkResult::advance();
    std::optional<std::pair<Value, unsigned>> size =
        getSizeOutside(generic, versioned, widePlan->columnDim);
    if (!size)
      return WalkResult::interrupt();
    columnSizes.push_back(*size);
    return WalkResult::advance();
  });
  if (outside.wasInterrupted())
    return rewriter.notifyMatchFailure(
        contraction, "the columns' size is in no input defined outside the "
                     "versions");
  if (columnSizes.empty())
    return rewriter.notifyMatchFailure(
        contraction, "no plan takes columns of three vectors for sizes");

  Location loc = contraction.getLoc();
  rewriter.setInsertionPoint(versioned);
  Value isWide =
      sizesMultiplesAtRunTime(rewriter, loc, columnSizes, wideColumns);
  return buildPlannedVersions(rewriter, loc, versioned, isWide, wideExtent,
                              extent, /*markColumnsVersioned=*/true, planner);
}

FailureOr<linalg::GenericOp>
tensorlang::relayoutTransposedContraction(RewriterBase &rewriter,
                                          linalg::GenericOp copy,
                                          const ContractionPlanner &planner) {
  linalg::GenericOp contraction = getTransposedContraction(copy);
  if (!contraction)
    return rewriter.notifyMatchFailure(
        copy, "not a transposition of a contraction used only there");
  auto fill = contraction.getDpsInits().front().getDefiningOp<linalg::FillOp>();
  if (!fill || !fill->hasOneUse())
    return rewriter.notifyMatchFailure(
        copy, "the contraction has no accumulator filled for it alone");
  ContractionShape own = ContractionShape::get(contraction);
  if (own.hasSizedExtents())
    return rewriter.notifyMatchFailure(copy, "the contraction is sized");
  unsigned largest = 0;
  for (unsigned input = 1; input < own.getNumInputs(); ++input)
    if (own.getInputElements(input) > own.getInputElements(largest))
      largest = input;
  AffineMap inputMap = own.getInputMap(largest);
  if (inputMap.getNumResults() == 0)
    return rewriter.notifyMatchFailure(copy, "the largest input is a scalar");
  unsigned last = inputMap.getDimPosition(inputMap.getNumResults() - 1);
  AffineMap resultMap = own.getResultMap();
  MLIRContext *context = copy.getContext();
  std::optional<unsigned> position =
      resultMap.getResultPosition(getAffineDimExpr(last, context));
  unsigned rank = resultMap.getNumResults();
  if (!position || *position == rank - 1)
    return rewriter.notifyMatchFailure(
        copy, "the largest input's last dimension is not a result dimension "
              "before the last");
  // The transposition's layout with it last is folding's choice.
  if (foldedResultMap(copy, resultMap).getDimPosition(rank - 1) == last)
    return rewriter.notifyMatchFailure(
        copy, "the transposition's layout has that dimension last already");

  // The positions of the own layout, in the relaid order.
  AffineMap copyInput = copy.getIndexingMapsArray()[0];
  AffineMap copyOutput = copy.getIndexingMapsArray()[1];
  SmallVector<unsigned> order;
  for (unsigned i = 0; i < rank; ++i)
    if (i != *position)
      order.push_back(i);
  order.push_back(*position);
  ArrayRef<int64_t> ownShape = own.operandShapes.back();
  SmallVector<AffineExpr> relaidResults, copyInputResults;
  SmallVector<int64_t> relaidShape;
  for (unsigned i : order) {
    relaidResults.push_back(resultMap.getResult(i));
    copyInputResults.push_back(copyInput.getResult(i));
    relaidShape.push_back(ownShape[i]);
  }
  AffineMap relaidMap =
      AffineMap::get(resultMap.getNumDims(), 0, relaidResults, context);
  ContractionShape relaid = own.withResultMap(relaidMap, relaidShape);
  std::string whyNot;
  if (!planner.shouldRelayoutTransposedContraction(own, relaid, largest,
                                                   &whyNot))
    return rewriter.notifyMatchFailure(copy, whyNot);

  Location loc = contraction.getLoc();
  rewriter.setInsertionPoint(contraction);
  Type elementType = getElementTypeOrSelf(contraction->getResult(0).getType());
  Value empty =
      tensor::EmptyOp::create(rewriter, loc, relaidShape, elementType);
  auto init =
      linalg::FillOp::create(rewriter, fill.getLoc(), fill.getInputs(), empty);
  SmallVector<AffineMap> maps = contraction.getIndexingMapsArray();
  maps.back() = relaidMap;
  auto relaidOp = linalg::GenericOp::create(
      rewriter, loc, init->getResultTypes(), contraction.getDpsInputs(),
      init->getResults(), maps, contraction.getIteratorTypesArray());
  IRMapping mapping;
  contraction.getRegion().cloneInto(&relaidOp.getRegion(), mapping);
  AffineMap relaidCopyInput =
      AffineMap::get(copyInput.getNumDims(), 0, copyInputResults, context);
  rewriter.modifyOpInPlace(copy, [&] {
    copy.getDpsInputOperand(0)->set(relaidOp->getResult(0));
    copy.setIndexingMapsAttr(
        rewriter.getAffineMapArrayAttr({relaidCopyInput, copyOutput}));
    copy->setAttr(kKeptTranspositionMarker, rewriter.getUnitAttr());
  });
  rewriter.eraseOp(contraction);
  rewriter.eraseOp(fill);
  return relaidOp;
}

// The copy is made once, where the operand is defined: not in every
// iteration of the batch loops around the contraction (tl-fuse-batches).
void tensorlang::readPermutedCopy(RewriterBase &rewriter, linalg::GenericOp op,
                                  OpOperand *input, ArrayRef<int64_t> perm,
                                  SmallVectorImpl<AffineMap> &maps) {
  AffineMap map = maps[input->getOperandNumber()];
  auto type = cast<RankedTensorType>(input->get().getType());
  OpBuilder::InsertionGuard guard(rewriter);
  if (auto argument = dyn_cast<BlockArgument>(input->get()))
    rewriter.setInsertionPointToStart(argument.getOwner());
  else
    rewriter.setInsertionPointAfter(input->get().getDefiningOp());
  // Not out of a version chosen at run time (foldAtRunTime): the other
  // version does not read the copy.
  auto choice = op->getParentOfType<scf::IfOp>();
  if (choice &&
      !choice->isAncestor(input->get().getParentRegion()->getParentOp())) {
    Region *version = choice.getThenRegion().isAncestor(op->getParentRegion())
                          ? &choice.getThenRegion()
                          : &choice.getElseRegion();
    rewriter.setInsertionPointToStart(&version->front());
  }
  Location loc = op.getLoc();
  // Sized extents are the operand's, permuted.
  SmallVector<OpFoldResult> sizes =
      tensor::getMixedSizes(rewriter, loc, input->get());
  SmallVector<OpFoldResult> permutedSizes;
  for (int64_t i : perm)
    permutedSizes.push_back(sizes[i]);
  Value init = tensor::EmptyOp::create(rewriter, loc, permutedSizes,
                                       type.getElementType());
  Value copy = linalg::TransposeOp::create(rewriter, loc, input->get(), init,
                                           perm)
                   ->getResult(0);
  rewriter.modifyOpInPlace(op, [&] { input->set(copy); });
  maps[input->getOperandNumber()] = permutedOperandMap(map, perm);
}

AffineMap tensorlang::permutedOperandMap(AffineMap map,
                                         ArrayRef<int64_t> perm) {
  SmallVector<AffineExpr> results;
  for (int64_t i : perm)
    results.push_back(map.getResult(i));
  return AffineMap::get(map.getNumDims(), 0, results, map.getContext());
}

void tensorlang::transposeForColumns(RewriterBase &rewriter,
                                     linalg::GenericOp op, unsigned columnDim,
                                     int packedInput) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  bool changed = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    if (int(input->getOperandNumber()) == packedInput)
      continue;
    AffineMap map = maps[input->getOperandNumber()];
    unsigned rank = map.getNumResults();
    if (!map.isFunctionOfDim(columnDim) ||
        map.getDimPosition(rank - 1) == columnDim)
      continue;
    unsigned position = 0;
    while (map.getDimPosition(position) != columnDim)
      ++position;
    // Result dimension i of linalg.transpose is input dimension perm[i].
    SmallVector<int64_t> perm;
    for (unsigned i = 0; i < rank; ++i)
      if (i != position)
        perm.push_back(i);
    perm.push_back(position);
    readPermutedCopy(rewriter, op, input, perm, maps);
    changed = true;
  }
  if (changed)
    rewriter.modifyOpInPlace(op, [&] {
      op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
}

FailureOr<linalg::GenericOp> tensorlang::collapseContractionReductions(
    RewriterBase &rewriter, linalg::GenericOp op,
    const TileContractionsConfig &config) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      !isMultiplyAccumulate(op))
    return rewriter.notifyMatchFailure(op, "not a multiply-accumulate");
  std::string whyNot;
  FailureOr<ReductionCollapse> collapse =
      planReductionCollapse(ContractionShape::get(op), config, &whyNot);
  if (failed(collapse))
    return rewriter.notifyMatchFailure(op, whyNot);

  SmallVector<AffineMap> permutedMaps = op.getIndexingMapsArray();
  for (auto &[input, perm] : collapse->copies)
    readPermutedCopy(rewriter, op, op.getDpsInputOperand(input), perm,
                     permutedMaps);
  rewriter.modifyOpInPlace(op, [&] {
    op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(collapse->maps));
  });
  rewriter.setInsertionPoint(op);
  // Its preconditions (groups of distinct loops, each adjacent in every
  // operand, static ranges) hold: it cannot fail after the copies.
  FailureOr<linalg::CollapseResult> collapsed = linalg::collapseOpIterationDims(
      cast<linalg::LinalgOp>(op.getOperation()), collapse->groups, rewriter);
  if (failed(collapsed))
    llvm::report_fatal_error("collapseContractionReductions: "
                             "collapseOpIterationDims failed on loops "
                             "checked collapsible");
  rewriter.replaceOp(op, collapsed->results);
  auto generic = cast<linalg::GenericOp>(collapsed->collapsedOp.getOperation());
  LLVM_DEBUG(llvm::dbgs() << "collapsed reductions: " << generic << "\n");
  return generic;
}

// A sum to a scalar (the trace of a product, `sum_ij A[i,j] B[j,i]`) that
// reads B across its rows (each term from another line) is tiled along
// B's contiguous dimension: the lines of B then stay in cache while the
// inner loop runs over the block's other rows of A, and memory is read
// once instead of a line per term. It changes the order of the sum (as any
// tiling of a reduction), not which terms it adds.
FailureOr<linalg::GenericOp>
tensorlang::blockStridedSum(RewriterBase &rewriter, linalg::GenericOp op,
                            const TileContractionsConfig &config) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumParallelLoops() != 0 || op.getNumLoops() < 2 ||
      !isMultiplyAccumulate(op) ||
      op.getMatchingIndexingMap(op.getDpsInitOperand(0)).getNumResults() != 0)
    return rewriter.notifyMatchFailure(op, "not a sum to a scalar");
  std::optional<SmallVector<int64_t>> extents = staticLoopExtents(op);
  if (!extents)
    return rewriter.notifyMatchFailure(op, "not static");
  int64_t line = config.lineElements(elementBytes(op));
  unsigned innermost = op.getNumLoops() - 1;
  SmallVector<int64_t> sizes(op.getNumLoops(), 0);
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (map.getNumResults() == 0)
      continue;
    unsigned contiguous = map.getDimPosition(map.getNumResults() - 1);
    int64_t extent = (*extents)[contiguous];
    if (contiguous != innermost && extent > line && extent % line == 0)
      sizes[contiguous] = line;
  }
  if (llvm::all_of(sizes, [](int64_t size) { return size == 0; }))
    return rewriter.notifyMatchFailure(op, "no operand read across its rows");
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::GenericOp> block = tile(rewriter, op, sizes, {});
  if (failed(block))
    return failure();
  // Within a block, the line-wide dimensions innermost: each step of the
  // others then reads one line of that operand and a few contiguous
  // streams of the rest (a handful of pages, not one per term).
  SmallVector<unsigned> order;
  for (unsigned dim = 0; dim < sizes.size(); ++dim)
    if (sizes[dim] == 0)
      order.push_back(dim);
  for (unsigned dim = 0; dim < sizes.size(); ++dim)
    if (sizes[dim] != 0)
      order.push_back(dim);
  rewriter.setInsertionPoint(*block);
  FailureOr<linalg::GenericOp> interchanged =
      linalg::interchangeGenericOp(rewriter, *block, order);
  // Not interchanged, the blocks are still correct, only slower.
  return succeeded(interchanged) ? *interchanged : *block;
}

namespace {
/// One of the functions above as a pattern on linalg.generic.
template <FailureOr<linalg::GenericOp> (*rewrite)(
    RewriterBase &, linalg::GenericOp, const TileContractionsConfig &)>
struct GenericRewritePattern : OpRewritePattern<linalg::GenericOp> {
  GenericRewritePattern(MLIRContext *context,
                        const TileContractionsConfig &config)
      : OpRewritePattern(context), config(config) {}
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    return success(succeeded(rewrite(rewriter, op, config)));
  }
  TileContractionsConfig config;
};

/// foldTranspositionIntoContraction as a pattern on the transposition.
struct FoldTranspositionPattern : OpRewritePattern<linalg::GenericOp> {
  FoldTranspositionPattern(MLIRContext *context,
                           const ContractionPlanner &planner)
      : OpRewritePattern(context), planner(planner) {}
  LogicalResult matchAndRewrite(linalg::GenericOp copy,
                                PatternRewriter &rewriter) const override {
    return success(
        succeeded(foldTranspositionIntoContraction(rewriter, copy, planner)));
  }
  const ContractionPlanner &planner;
};
} // namespace

void tensorlang::populateFoldTranspositionIntoContractionPatterns(
    RewritePatternSet &patterns, const ContractionPlanner &planner) {
  patterns.add<FoldTranspositionPattern>(patterns.getContext(), planner);
}

void tensorlang::populateCollapseContractionReductionsPatterns(
    RewritePatternSet &patterns, const TileContractionsConfig &config) {
  patterns.add<GenericRewritePattern<collapseContractionReductions>>(
      patterns.getContext(), config);
}

void tensorlang::populateBlockStridedSumPatterns(
    RewritePatternSet &patterns, const TileContractionsConfig &config) {
  patterns.add<GenericRewritePattern<blockStridedSum>>(patterns.getContext(),
                                                       config);
}
