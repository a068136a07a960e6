//===- TileAndVectorize.cpp - Cache tiles, register tiles, vectors --------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Carries out a ContractionTilingPlan: cache tiles, register tiles inside
// them, and a vector contraction per register tile (per reduction step one
// vector load per column vector, one broadcast per row, one FMA per row and
// vector, after tl-lower-contraction-vectors).
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Transforms/TileContractions.h"

#include "ContractionUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/Transforms/Transforms.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/IR/TensorTilingInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

using namespace mlir;
using namespace tensorlang;

FailureOr<linalg::GenericOp>
tensorlang::tile(RewriterBase &rewriter, linalg::GenericOp op,
                 ArrayRef<int64_t> sizes, ArrayRef<int64_t> order,
                 scf::SCFTilingOptions::LoopType loopType) {
  return tile(rewriter, op,
              getAsIndexOpFoldResult(rewriter.getContext(), sizes), order,
              loopType);
}

FailureOr<linalg::GenericOp>
tensorlang::tile(RewriterBase &rewriter, linalg::GenericOp op,
                 ArrayRef<OpFoldResult> sizes, ArrayRef<int64_t> order,
                 scf::SCFTilingOptions::LoopType loopType) {
  scf::SCFTilingOptions tiling;
  tiling.setLoopType(loopType);
  tiling.setTileSizes(sizes);
  tiling.setInterchange(order);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), tiling);
  if (failed(tiled))
    return failure();
  rewriter.replaceOp(op, tiled->replacements);
  auto generic = dyn_cast<linalg::GenericOp>(tiled->tiledOps.back());
  if (!generic)
    return failure();
  return generic;
}

/// Whether the accumulator of `op` is started by fillInFirstDepthBlock.
static bool startsInFirstDepthBlock(linalg::GenericOp op) {
  Operation *producer = op.getDpsInits().front().getDefiningOp();
  return producer && producer->hasAttr(kFirstDepthBlockStartAttrName);
}

bool tensorlang::canFillPerTile(linalg::GenericOp op, ArrayRef<int64_t> sizes) {
  if (!op.getDpsInits().front().getDefiningOp<linalg::FillOp>())
    return false;
  for (unsigned dim = 0; dim < op.getNumLoops(); ++dim)
    if (isReduction(op, dim) && sizes[dim] != 0)
      return false;
  return true;
}

// Each tile zeroes its own slice just before summing into it, while it is
// in cache, instead of the whole result being zeroed first and every tile
// reading its zeros back from memory (TCCG ccsd_t0: a 302 MB result).
FailureOr<scf::SCFTileAndFuseResult>
tensorlang::tileAndFuseFill(RewriterBase &rewriter, linalg::GenericOp op,
                            ArrayRef<int64_t> sizes, ArrayRef<int64_t> order,
                            scf::SCFTilingOptions::LoopType loopType) {
  return tileAndFuseFill(rewriter, op,
                         getAsIndexOpFoldResult(rewriter.getContext(), sizes),
                         order, loopType);
}

FailureOr<scf::SCFTileAndFuseResult> tensorlang::tileAndFuseFill(
    RewriterBase &rewriter, linalg::GenericOp op, ArrayRef<OpFoldResult> sizes,
    ArrayRef<int64_t> order, scf::SCFTilingOptions::LoopType loopType) {
  scf::SCFTileAndFuseOptions options;
  options.tilingOptions.setLoopType(loopType);
  options.tilingOptions.setTileSizes(sizes);
  options.tilingOptions.setInterchange(order);
  options.setFusionControlFn(
      [](tensor::ExtractSliceOp, OpResult producer,
         bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (isa<linalg::FillOp>(producer.getOwner()) ||
            producer.getOwner()->hasAttr(kFirstDepthBlockStartAttrName))
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        return std::nullopt;
      });
  FailureOr<scf::SCFTileAndFuseResult> fused =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(fused))
    return failure();
  for (OpResult result : op->getResults())
    if (Value replacement = fused->replacements.lookup(result))
      rewriter.replaceAllUsesWith(result, replacement);
  if (op->use_empty())
    rewriter.eraseOp(op);
  return fused;
}

FailureOr<linalg::GenericOp>
tensorlang::tileFillingPerTile(RewriterBase &rewriter, linalg::GenericOp op,
                               ArrayRef<int64_t> sizes, ArrayRef<int64_t> order,
                               scf::SCFTilingOptions::LoopType loopType) {
  return tileFillingPerTile(
      rewriter, op, getAsIndexOpFoldResult(rewriter.getContext(), sizes), order,
      loopType);
}

FailureOr<linalg::GenericOp> tensorlang::tileFillingPerTile(
    RewriterBase &rewriter, linalg::GenericOp op, ArrayRef<OpFoldResult> sizes,
    ArrayRef<int64_t> order, scf::SCFTilingOptions::LoopType loopType) {
  FailureOr<scf::SCFTileAndFuseResult> fused =
      tileAndFuseFill(rewriter, op, sizes, order, loopType);
  if (failed(fused))
    return failure();
  auto tiled = dyn_cast<linalg::GenericOp>(fused->tiledAndFusedOps.front());
  if (!tiled)
    return failure();
  return tiled;
}

/// Drops the register tile's unit dimensions other than the depth (a
/// contraction needs one), and orders the rest as a matrix product expects:
/// rows, columns, depth.
static FailureOr<linalg::GenericOp>
toMatmulForm(RewriterBase &rewriter, linalg::GenericOp tileOp,
             const ContractionTilingPlan &plan) {
  linalg::ControlDropUnitDims control;
  control.rankReductionStrategy =
      linalg::ControlDropUnitDims::RankReductionStrategy::ExtractInsertSlice;
  SmallVector<int64_t> extents = tileOp.getStaticLoopRanges();
  SmallVector<unsigned> droppable;
  for (unsigned dim = 0; dim < tileOp.getNumLoops(); ++dim)
    if (dim != plan.depthDim && dim != plan.columnDim &&
        !(plan.hasRows && dim == plan.rowDim && extents[dim] != 1))
      droppable.push_back(dim);
  control.controlFn = [droppable](Operation *) { return droppable; };
  linalg::GenericOp matmul = tileOp;
  if (llvm::any_of(droppable,
                   [&](unsigned dim) { return extents[dim] == 1; })) {
    FailureOr<linalg::DropUnitDimsResult> dropped =
        linalg::dropUnitDims(rewriter, tileOp, control);
    if (failed(dropped))
      return failure();
    rewriter.replaceOp(tileOp, dropped->replacements);
    matmul = cast<linalg::GenericOp>(dropped->resultOp.getOperation());
  }
  // Rows, columns (the result's last dimension, which need not be the last
  // loop: a contraction folded into a transposition), then the depth.
  AffineMap result = matmul.getMatchingIndexingMap(matmul.getDpsInitOperand(0));
  unsigned columns = result.getDimPosition(result.getNumResults() - 1);
  SmallVector<unsigned> order;
  for (unsigned dim = 0; dim < matmul.getNumLoops(); ++dim)
    if (!isReduction(matmul, dim) && dim != columns)
      order.push_back(dim);
  order.push_back(columns);
  for (unsigned dim = 0; dim < matmul.getNumLoops(); ++dim)
    if (isReduction(matmul, dim))
      order.push_back(dim);
  if (!llvm::equal(order, llvm::seq<unsigned>(0, order.size()))) {
    FailureOr<linalg::GenericOp> interchanged =
        linalg::interchangeGenericOp(rewriter, matmul, order);
    if (failed(interchanged))
      return failure();
    matmul = *interchanged;
  }
  // The outer-product lowering of vector.contract reads the rows from its
  // left operand; given them on the right it transposes the accumulator,
  // element by element. So the operand with the rows goes first.
  if (matmul.getNumParallelLoops() < 2 ||
      matmul.getMatchingIndexingMap(matmul.getDpsInputOperand(0))
          .isFunctionOfDim(0))
    return matmul;
  SmallVector<AffineMap> maps = matmul.getIndexingMapsArray();
  std::swap(maps[0], maps[1]);
  Value lhs = matmul.getDpsInputs()[0], rhs = matmul.getDpsInputs()[1];
  rewriter.setInsertionPoint(matmul);
  auto swapped = linalg::GenericOp::create(
      rewriter, matmul.getLoc(), matmul->getResultTypes(), ValueRange{rhs, lhs},
      matmul.getDpsInits(), maps, matmul.getIteratorTypesArray(),
      [](OpBuilder &b, Location loc, ValueRange args) {
        // isMultiplyAccumulate: the same sum and product, which commute
        // exactly.
        Value product = arith::MulFOp::create(b, loc, args[0], args[1]);
        Value sum = arith::AddFOp::create(b, loc, args[2], product);
        linalg::YieldOp::create(b, loc, sum);
      });
  rewriter.replaceOp(matmul, swapped->getResults());
  return swapped;
}

/// Moves the ops that `op`'s enclosing loops do not depend on out of them,
/// up to the threads' loop: a tensor from outside an scf.forall that its
/// body writes (the empty destination of a copied block) is copied into
/// a buffer of its own at every step by bufferization.
static void hoistOutOfLoops(Operation *op) {
  for (Operation *parent = op->getParentOp();
       parent && !isa<FunctionOpInterface, scf::ForallOp>(parent);
       parent = parent->getParentOp())
    if (auto loop = dyn_cast<LoopLikeOpInterface>(parent))
      moveLoopInvariantCode(loop);
}

/// Copies the block of input `plan.copiedBlockInput` (or
/// `plan.packedInput`, with the columns moved last) that `cacheTile` reads
/// into a contiguous tensor, and hoists the copy out of the loops it does
/// not depend on (the row blocks): each element is copied once per block
/// of columns and depth.
static void copyBlockOfInput(RewriterBase &rewriter,
                             linalg::GenericOp cacheTile,
                             const ContractionTilingPlan &plan) {
  int operand =
      plan.packedInput >= 0 ? plan.packedInput : plan.copiedBlockInput;
  if (operand < 0)
    return;
  OpOperand &input = cacheTile->getOpOperand(operand);
  auto blockType = cast<RankedTensorType>(input.get().getType());
  // A sized block is packed (its columns are elsewhere than last), never
  // copied only to be contiguous.
  if (!blockType.hasStaticShape() && operand != plan.packedInput)
    return;
  // The block's dimensions in the input's order, the columns moved last.
  AffineMap map = cacheTile.getMatchingIndexingMap(&input);
  SmallVector<int64_t> permutation;
  for (unsigned i = 0; i < map.getNumResults(); ++i)
    if (map.getDimPosition(i) != plan.columnDim)
      permutation.push_back(i);
  if (permutation.size() + 1 == map.getNumResults())
    for (unsigned i = 0; i < map.getNumResults(); ++i)
      if (map.getDimPosition(i) == plan.columnDim)
        permutation.push_back(i);
  if (permutation.size() != map.getNumResults())
    return;
  Location loc = cacheTile.getLoc();
  rewriter.setInsertionPoint(cacheTile);
  SmallVector<OpFoldResult> blockSizes =
      tensor::getMixedSizes(rewriter, loc, input.get());
  SmallVector<OpFoldResult> shape;
  SmallVector<AffineExpr> results;
  for (int64_t i : permutation) {
    shape.push_back(blockSizes[i]);
    results.push_back(map.getResult(i));
  }
  Value block =
      tensor::EmptyOp::create(rewriter, loc, shape, blockType.getElementType());
  Value copy =
      llvm::equal(permutation, llvm::seq<int64_t>(0, permutation.size()))
          ? linalg::CopyOp::create(rewriter, loc, input.get(), block)
                .getResult(0)
          : linalg::TransposeOp::create(rewriter, loc, input.get(), block,
                                        permutation)
                ->getResult(0);
  SmallVector<AffineMap> maps = cacheTile.getIndexingMapsArray();
  maps[operand] =
      AffineMap::get(map.getNumDims(), 0, results, cacheTile.getContext());
  rewriter.modifyOpInPlace(cacheTile, [&] {
    input.set(copy);
    cacheTile.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
  });
  hoistOutOfLoops(cacheTile);
}

/// Whether `a` and `b` are the same index: the same value or constant, or
/// the same result of two identical side-effect-free operations on the
/// same operands (the extents of a sized tile, an affine.apply each, which
/// no CSE merges before bufferization).
static bool isSameIndex(OpFoldResult a, OpFoldResult b) {
  if (isEqualConstantIntOrValue(a, b))
    return true;
  auto resultA = dyn_cast_if_present<OpResult>(dyn_cast<Value>(a));
  auto resultB = dyn_cast_if_present<OpResult>(dyn_cast<Value>(b));
  if (!resultA || !resultB ||
      resultA.getResultNumber() != resultB.getResultNumber())
    return false;
  Operation *opA = resultA.getOwner(), *opB = resultB.getOwner();
  return isPure(opA) && opA->getNumRegions() == 0 &&
         OperationEquivalence::isEquivalentTo(
             opA, opB, OperationEquivalence::exactValueMatch,
             /*markEquivalent=*/nullptr, OperationEquivalence::IgnoreLocations);
}

/// Whether `a` and `b` are the same value, or the same slice of the same
/// value or slice.
static bool isSameSlice(Value a, Value b) {
  if (a == b)
    return true;
  auto sliceA = a.getDefiningOp<tensor::ExtractSliceOp>();
  auto sliceB = b.getDefiningOp<tensor::ExtractSliceOp>();
  auto sameIndices = [](ArrayRef<OpFoldResult> indicesA,
                        ArrayRef<OpFoldResult> indicesB) {
    return llvm::equal(indicesA, indicesB, isSameIndex);
  };
  return sliceA && sliceB && sliceA.getType() == sliceB.getType() &&
         isSameSlice(sliceA.getSource(), sliceB.getSource()) &&
         sameIndices(sliceA.getMixedOffsets(), sliceB.getMixedOffsets()) &&
         sameIndices(sliceA.getMixedSizes(), sliceB.getMixedSizes()) &&
         sameIndices(sliceA.getMixedStrides(), sliceB.getMixedStrides());
}

/// The static shape of `sizes`: their constants, dynamic elsewhere.
static SmallVector<int64_t> staticShapeOf(ArrayRef<OpFoldResult> sizes) {
  return llvm::map_to_vector(sizes, [](OpFoldResult size) {
    return getConstantIntValue(size).value_or(ShapedType::kDynamic);
  });
}

/// The block's dimensions other than `position` in the order that panels
/// of it keep them (copyIntoPanels): the block's, `innerPosition` (if not
/// -1) moved last, next to the panels' width.
static SmallVector<int64_t> panelOrder(int64_t rank, int64_t position,
                                       int64_t innerPosition) {
  SmallVector<int64_t> order;
  for (int64_t dim = 0; dim < rank; ++dim)
    if (dim != position && dim != innerPosition)
      order.push_back(dim);
  if (innerPosition >= 0 && innerPosition != position)
    order.push_back(innerPosition);
  return order;
}

/// Panels among `packedPanels` that dominate `user` and hold `wanted.block`
/// as copyIntoPanels would copy it for `wanted`: the same slice, width,
/// dimension and order, and the same last panel (padded alike, or none,
/// where the width divides the block's static extent). Null if none.
static Value findPackedPanels(ArrayRef<ColumnPanels> packedPanels,
                              const ColumnPanels &wanted, Operation *user) {
  auto blockType = dyn_cast<RankedTensorType>(wanted.block.getType());
  if (!blockType || wanted.position < 0)
    return {};
  int64_t rank = blockType.getRank();
  int64_t extent = blockType.getDimSize(wanted.position);
  bool noLastPanel =
      !ShapedType::isDynamic(extent) && extent % wanted.width == 0;
  DominanceInfo dominance;
  for (const ColumnPanels &packed : packedPanels)
    if (packed.width == wanted.width && packed.position == wanted.position &&
        panelOrder(rank, packed.position, packed.innerPosition) ==
            panelOrder(rank, wanted.position, wanted.innerPosition) &&
        (noLastPanel || packed.zeroPadded == wanted.zeroPadded) &&
        isSameSlice(packed.block, wanted.block) &&
        dominance.properlyDominates(packed.panels, user))
      return packed.panels;
  return {};
}

/// `block` copied into panels of `width` steps of its dimension `position`,
/// one after the other: [tile][the block's other dimensions][width], the
/// last panel filled only as far as that dimension goes (83 = 5 x 16 + 3
/// columns; 67 = 8 x 8 + 3 rows). With `zeroPadded`, the last panel's
/// other steps are zeros, so that a tile at the edge reads whole panels
/// (there is always such a panel then, of zeros alone where `width`
/// divides the extent and that is not known before run time). The other
/// dimensions are in panelOrder(..., `innerPosition`). Created at the
/// rewriter's insertion point.
static Value copyIntoPanels(RewriterBase &rewriter, Location loc, Value block,
                            int64_t position, int64_t width, bool zeroPadded,
                            int64_t innerPosition = -1) {
  auto blockType = cast<RankedTensorType>(block.getType());
  int64_t rank = blockType.getRank();
  Type element = blockType.getElementType();
  SmallVector<OpFoldResult> blockSizes =
      tensor::getMixedSizes(rewriter, loc, block);
  OpFoldResult extent = blockSizes[position];
  AffineExpr steps = rewriter.getAffineDimExpr(0);
  OpFoldResult whole = affine::makeComposedFoldedAffineApply(
      rewriter, loc, steps.floorDiv(width), {extent});
  OpFoldResult rest = affine::makeComposedFoldedAffineApply(
      rewriter, loc, steps % width, {extent});
  OpFoldResult bulkSteps = affine::makeComposedFoldedAffineApply(
      rewriter, loc, steps.floorDiv(width) * width, {extent});
  auto isZero = [](OpFoldResult value) { return isConstantIntValue(value, 0); };
  // A rest of 0 needs no last panel; one known only at run time gets a
  // padded one, which may be zeros alone.
  bool lastPanel = !isZero(rest);
  zeroPadded = lastPanel && (zeroPadded || !getConstantIntValue(rest));
  OpFoldResult count = affine::makeComposedFoldedAffineApply(
      rewriter, loc,
      zeroPadded ? steps.floorDiv(width) + 1 : steps.ceilDiv(width), {extent});
  // The block's sizes without the dimension cut into panels.
  SmallVector<int64_t> order = panelOrder(rank, position, innerPosition);
  SmallVector<OpFoldResult> others =
      llvm::map_to_vector(order, [&](int64_t dim) { return blockSizes[dim]; });
  SmallVector<OpFoldResult> shape{count};
  llvm::append_range(shape, others);
  shape.push_back(rewriter.getIndexAttr(width));

  OpFoldResult zero = rewriter.getIndexAttr(0), one = rewriter.getIndexAttr(1);
  Value panels = tensor::EmptyOp::create(rewriter, loc, shape, element);
  // The block's steps of the dimension from `first` on, `stepCount` of them.
  auto stepsOfBlock = [&](OpFoldResult first, OpFoldResult stepCount) -> Value {
    if (isZero(first) && stepCount == extent)
      return block;
    SmallVector<OpFoldResult> offsets(rank, zero), strides(rank, one);
    SmallVector<OpFoldResult> sizes(blockSizes);
    offsets[position] = first;
    sizes[position] = stepCount;
    return tensor::ExtractSliceOp::create(rewriter, loc, block, offsets, sizes,
                                          strides);
  };
  // Panels `first` on, `panelCount` of them, steps `firstStep` on,
  // `stepCount` of them, as slice offsets, sizes and strides of `panels`.
  auto panelSlice = [&](OpFoldResult first, OpFoldResult panelCount,
                        OpFoldResult firstStep, OpFoldResult stepCount) {
    SmallVector<OpFoldResult> offsets(rank + 1, zero), strides(rank + 1, one);
    SmallVector<OpFoldResult> sizes(shape);
    offsets.front() = first;
    sizes.front() = panelCount;
    offsets.back() = firstStep;
    sizes.back() = stepCount;
    return std::make_tuple(offsets, sizes, strides);
  };
  // The last panel's steps from `firstStep` on (its leading unit dimension
  // dropped), for `update` to write, inserted back into the panels.
  auto updateLastPanel = [&](OpFoldResult firstStep, OpFoldResult stepCount,
                             function_ref<Value(Value)> update) {
    auto [offsets, sizes, strides] =
        panelSlice(whole, one, firstStep, stepCount);
    SmallVector<OpFoldResult> restSizes(others);
    restSizes.push_back(stepCount);
    Value destination = tensor::ExtractSliceOp::create(
        rewriter, loc, RankedTensorType::get(staticShapeOf(restSizes), element),
        panels, offsets, sizes, strides);
    panels = tensor::InsertSliceOp::create(rewriter, loc, update(destination),
                                           panels, offsets, sizes, strides);
  };
  if (!isZero(whole)) {
    // [..., whole x width, ...] -> [..., whole, width, ...]
    //   -> [whole, ..., ..., width].
    SmallVector<OpFoldResult> expandedSizes(blockSizes);
    expandedSizes[position] = whole;
    expandedSizes.insert(expandedSizes.begin() + position + 1,
                         rewriter.getIndexAttr(width));
    SmallVector<ReassociationIndices> groups;
    for (int64_t dim = 0, expanded = 0; dim < rank; ++dim) {
      if (dim == position) {
        groups.push_back({expanded, expanded + 1});
        expanded += 2;
      } else {
        groups.push_back({expanded++});
      }
    }
    Value expanded = tensor::ExpandShapeOp::create(
        rewriter, loc,
        RankedTensorType::get(staticShapeOf(expandedSizes), element),
        stepsOfBlock(zero, bulkSteps), groups, expandedSizes);
    SmallVector<int64_t> permutation{position};
    for (int64_t dim : order)
      permutation.push_back(dim < position ? dim : dim + 1);
    permutation.push_back(position + 1);
    auto [offsets, sizes, strides] =
        panelSlice(zero, whole, zero, rewriter.getIndexAttr(width));
    Value destination =
        lastPanel ? tensor::ExtractSliceOp::create(rewriter, loc, panels,
                                                   offsets, sizes, strides)
                        .getResult()
                  : panels;
    Value transposed = linalg::TransposeOp::create(rewriter, loc, expanded,
                                                   destination, permutation)
                           ->getResult(0);
    panels = lastPanel ? tensor::InsertSliceOp::create(rewriter, loc,
                                                       transposed, panels,
                                                       offsets, sizes, strides)
                             .getResult()
                       : transposed;
  }
  if (!lastPanel)
    return panels;
  // The last steps into the last panel: copied where the dimension is
  // last, else transposed [..., rest, ...] -> [..., ..., rest].
  Value source = stepsOfBlock(bulkSteps, rest);
  updateLastPanel(zero, rest, [&](Value destination) -> Value {
    SmallVector<int64_t> permutation(order);
    permutation.push_back(position);
    if (llvm::equal(permutation, llvm::seq<int64_t>(0, rank)))
      return linalg::CopyOp::create(rewriter, loc, source, destination)
          .getResult(0);
    return linalg::TransposeOp::create(rewriter, loc, source, destination,
                                       permutation)
        ->getResult(0);
  });
  if (zeroPadded) {
    OpFoldResult padding = affine::makeComposedFoldedAffineApply(
        rewriter, loc, (steps % width) * -1 + width, {extent});
    updateLastPanel(rest, padding, [&](Value destination) -> Value {
      Value zeroElement = arith::ConstantOp::create(
          rewriter, loc, rewriter.getZeroAttr(element));
      return linalg::FillOp::create(rewriter, loc, zeroElement, destination)
          .getResult(0);
    });
  }
  return panels;
}

/// Copies the block of input `plan.panelInput` that `cacheTile` reads
/// (columns last) into panels of the register tile's width
/// (copyIntoPanels). The copy leaves the loops it does not depend on (the
/// row blocks). Returns the panels; null where the plan asks for none or
/// the block does not allow them (not static, columns not last).
static Value packColumnPanels(RewriterBase &rewriter,
                              linalg::GenericOp cacheTile,
                              const ContractionTilingPlan &plan,
                              SmallVectorImpl<ColumnPanels> &packedPanels) {
  if (plan.panelInput < 0)
    return {};
  OpOperand &input = cacheTile->getOpOperand(plan.panelInput);
  int64_t width = plan.registerTiles[plan.columnDim];
  auto blockType = dyn_cast<RankedTensorType>(input.get().getType());
  ColumnPanels wanted{input.get(),
                      Value(),
                      width,
                      blockType ? blockType.getRank() - 1 : -1,
                      /*innerPosition=*/-1,
                      /*zeroPadded=*/false};
  if (Value earlier = findPackedPanels(packedPanels, wanted, cacheTile))
    return earlier;
  AffineMap map = cacheTile.getMatchingIndexingMap(&input);
  if (!blockType || !blockType.hasStaticShape() || blockType.getRank() < 2 ||
      map.getDimPosition(map.getNumResults() - 1) != plan.columnDim) {
    (void)rewriter.notifyMatchFailure(cacheTile, "no panels: the block of "
                                                 "the columns' operand is "
                                                 "not static, columns last");
    return {};
  }
  rewriter.setInsertionPoint(cacheTile);
  Value panels = copyIntoPanels(rewriter, cacheTile.getLoc(), input.get(),
                                blockType.getRank() - 1, width,
                                /*zeroPadded=*/false);
  hoistOutOfLoops(cacheTile);
  wanted.panels = panels;
  packedPanels.push_back(wanted);
  return panels;
}

/// The position of loop `dim` in the block of operand `operand` that
/// `cacheTile` reads, or -1.
static int64_t positionInBlock(linalg::GenericOp cacheTile, int64_t operand,
                               unsigned dim) {
  AffineMap map =
      cacheTile.getMatchingIndexingMap(&cacheTile->getOpOperand(operand));
  std::optional<unsigned> position =
      map.getResultPosition(getAffineDimExpr(dim, map.getContext()));
  return position ? int64_t(*position) : -1;
}

/// Copies the block of input `plan.rowPanelInput` that `cacheTile` reads
/// into panels of the register tile's rows (copyIntoPanels). Each cache
/// tile copies its block once, as Goto's GEMM packs A once per block of
/// columns: the block changes with the row and depth blocks, inside the
/// column blocks' loop. Returns the panels; null where the plan asks for
/// none or the block does not allow them (not static).
static Value packRowPanels(RewriterBase &rewriter, linalg::GenericOp cacheTile,
                           const ContractionTilingPlan &plan) {
  if (plan.rowPanelInput < 0)
    return {};
  OpOperand &input = cacheTile->getOpOperand(plan.rowPanelInput);
  auto blockType = dyn_cast<RankedTensorType>(input.get().getType());
  int64_t position =
      positionInBlock(cacheTile, plan.rowPanelInput, plan.rowDim);
  if (!blockType || !blockType.hasStaticShape() || position < 0) {
    (void)rewriter.notifyMatchFailure(cacheTile, "no panels of rows: the "
                                                 "block of the rows' operand "
                                                 "is not static");
    return {};
  }
  rewriter.setInsertionPoint(cacheTile);
  Value panels =
      copyIntoPanels(rewriter, cacheTile.getLoc(), input.get(), position,
                     plan.registerTiles[plan.rowDim], /*zeroPadded=*/false);
  hoistOutOfLoops(cacheTile);
  return panels;
}

/// Makes `tiled`, whose dimension `position` of input `operand` is tiled
/// by the panels' width, read that input from `panels` (copyIntoPanels)
/// instead of `block`: its slice of the block at step i of that dimension
/// becomes one of panel i / width (at step i mod width of it, 0 where
/// `atPanelStart`), with that dimension last and the others in
/// panelOrder(..., `innerPosition`), and its indexing map of the operand
/// orders them so with it (the columns are last already: the map stays).
static LogicalResult readFromPanels(RewriterBase &rewriter,
                                    linalg::GenericOp tiled, unsigned operand,
                                    int64_t position, Value block, Value panels,
                                    int64_t width, bool atPanelStart = true,
                                    int64_t innerPosition = -1) {
  auto slice =
      tiled->getOperand(operand).getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice || slice.getSource() != block || !slice.hasUnitStride() ||
      slice.getSourceType().getRank() != slice.getResultType().getRank())
    return rewriter.notifyMatchFailure(tiled, "no panels: the register tile "
                                              "reads no slice of the block");
  SmallVector<OpFoldResult> offsets = slice.getMixedOffsets();
  SmallVector<OpFoldResult> sizes = slice.getMixedSizes();
  Location loc = slice.getLoc();
  rewriter.setInsertionPoint(tiled);
  AffineExpr step = rewriter.getAffineDimExpr(0);
  OpFoldResult panel = affine::makeComposedFoldedAffineApply(
      rewriter, loc, step.floorDiv(width), {offsets[position]});
  OpFoldResult stepInPanel =
      atPanelStart ? rewriter.getIndexAttr(0)
                   : affine::makeComposedFoldedAffineApply(
                         rewriter, loc, step % width, {offsets[position]});
  // [panel][the others in panelOrder][steps in the panel], the panel's
  // unit dimension dropped.
  SmallVector<int64_t> order =
      panelOrder(offsets.size(), position, innerPosition);
  order.push_back(position);
  SmallVector<OpFoldResult> panelOffsets{panel},
      panelSizes{rewriter.getIndexAttr(1)};
  SmallVector<int64_t> shape;
  ArrayRef<int64_t> sliceShape = slice.getResultType().getShape();
  SmallVector<AffineExpr> results;
  AffineMap map = tiled.getIndexingMapsArray()[operand];
  for (int64_t dim : order) {
    panelOffsets.push_back(dim == position ? stepInPanel : offsets[dim]);
    panelSizes.push_back(sizes[dim]);
    shape.push_back(sliceShape[dim]);
    results.push_back(map.getResult(dim));
  }
  auto type =
      RankedTensorType::get(shape, slice.getResultType().getElementType());
  SmallVector<OpFoldResult> strides(panelOffsets.size(),
                                    rewriter.getIndexAttr(1));
  Value read = tensor::ExtractSliceOp::create(
      rewriter, loc, type, panels, panelOffsets, panelSizes, strides);
  SmallVector<AffineMap> maps = tiled.getIndexingMapsArray();
  maps[operand] = AffineMap::get(maps[operand].getNumDims(), 0, results,
                                 tiled.getContext());
  rewriter.modifyOpInPlace(tiled, [&] {
    tiled->setOperand(operand, read);
    tiled.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
  });
  return success();
}

/// A sized cache tile's block of input `operand` copied into zero-padded
/// panels (copyIntoPanels) of the register tiles' steps, its depth next to
/// them (`copy.innerPosition`).
struct SizedPanels {
  unsigned operand;
  ColumnPanels copy;
};

/// The blocks of a sized cache tile that its register tiles read from
/// panels (the plan's sizedPanelInput and sizedRowPanelInput, or its
/// rowPanelInput where this cache tile's block of that input is static: the
/// last block of sized columns), copied into zero-padded ones before it,
/// out of the loops they do not depend on: the register tiles at the edges
/// read whole panels instead of padded copies of their slices. Panels of
/// the same block that an earlier cache tile made (`packedBefore`, which
/// gets the new ones) and that dominate this one are read instead.
static SmallVector<SizedPanels, 2>
packSizedPanels(RewriterBase &rewriter, linalg::GenericOp cacheTile,
                const ContractionTilingPlan &plan,
                SmallVectorImpl<ColumnPanels> &packedBefore) {
  SmallVector<SizedPanels, 2> packed;
  auto pack = [&](int64_t operand, unsigned dim) {
    int64_t position = positionInBlock(cacheTile, operand, dim);
    if (position < 0 ||
        cast<RankedTensorType>(cacheTile->getOperand(operand).getType())
                .getRank() < 2)
      return;
    Value block = cacheTile->getOperand(operand);
    // The depth next to the panels' width: the register tiles step through
    // it innermost.
    int64_t depthPosition = positionInBlock(cacheTile, operand, plan.depthDim);
    int64_t width = plan.registerTiles[dim];
    ColumnPanels wanted{block,    Value(),       width,
                        position, depthPosition, /*zeroPadded=*/true};
    wanted.panels = findPackedPanels(packedBefore, wanted, cacheTile);
    if (!wanted.panels) {
      rewriter.setInsertionPoint(cacheTile);
      wanted.panels =
          copyIntoPanels(rewriter, cacheTile.getLoc(), block, position, width,
                         /*zeroPadded=*/true, depthPosition);
      packedBefore.push_back(wanted);
    }
    packed.push_back({unsigned(operand), wanted});
  };
  if (plan.sizedPanelInput >= 0)
    pack(plan.sizedPanelInput, plan.columnDim);
  if (plan.sizedRowPanelInput >= 0)
    pack(plan.sizedRowPanelInput, plan.rowDim);
  else if (plan.rowPanelInput >= 0 &&
           cast<RankedTensorType>(
               cacheTile->getOperand(plan.rowPanelInput).getType())
               .hasStaticShape())
    pack(plan.rowPanelInput, plan.rowDim);
  if (!packed.empty())
    hoistOutOfLoops(cacheTile);
  return packed;
}

/// `operand`, a slice (of slices) of zero-padded panels, read with its
/// last dimension's extent `shape.back()` instead: a whole panel's worth
/// of steps, the panels holding zeros past the edge. Null, creating
/// nothing, where another dimension is to be padded, or `operand` reads
/// none of `zeroPaddedPanels`.
static Value readWholePanel(RewriterBase &rewriter, Location loc, Value operand,
                            ArrayRef<int64_t> shape,
                            ArrayRef<Value> zeroPaddedPanels) {
  auto type = cast<RankedTensorType>(operand.getType());
  int64_t rank = type.getRank();
  for (int64_t dim = 0; dim + 1 < rank; ++dim)
    if (shape[dim] != type.getDimSize(dim))
      return {};
  // Slices of slices down to the read of one panel (readFromPanels: the
  // panel's unit dimension dropped).
  SmallVector<tensor::ExtractSliceOp> slices;
  Value source = operand;
  tensor::ExtractSliceOp panelRead;
  while (!panelRead) {
    auto slice = source.getDefiningOp<tensor::ExtractSliceOp>();
    if (!slice || !slice.hasUnitStride() ||
        slice.getResultType().getRank() != rank)
      return {};
    if (llvm::is_contained(zeroPaddedPanels, slice.getSource())) {
      if (slice.getSourceType().getRank() != rank + 1 ||
          !isConstantIntValue(slice.getMixedSizes().front(), 1))
        return {};
      panelRead = slice;
    } else if (slice.getSourceType().getRank() != rank) {
      return {};
    } else {
      slices.push_back(slice);
    }
    source = slice.getSource();
  }
  AffineExpr sum = rewriter.getAffineDimExpr(0) + rewriter.getAffineDimExpr(1);
  SmallVector<OpFoldResult> offsets = panelRead.getMixedOffsets();
  for (tensor::ExtractSliceOp slice : slices)
    for (auto [offset, inner] : llvm::zip_equal(
             MutableArrayRef(offsets).drop_front(), slice.getMixedOffsets()))
      offset = affine::makeComposedFoldedAffineApply(rewriter, loc, sum,
                                                     {offset, inner});
  SmallVector<OpFoldResult> sizes{rewriter.getIndexAttr(1)};
  llvm::append_range(sizes, tensor::getMixedSizes(rewriter, loc, operand));
  sizes.back() = rewriter.getIndexAttr(shape.back());
  SmallVector<OpFoldResult> strides(rank + 1, rewriter.getIndexAttr(1));
  SmallVector<int64_t> readShape(type.getShape());
  readShape.back() = shape.back();
  return tensor::ExtractSliceOp::create(
      rewriter, loc, RankedTensorType::get(readShape, type.getElementType()),
      source, offsets, sizes, strides);
}

/// `op` cut in two along `dim` at `at` (linalg::splitOp): the same
/// contraction on the first `at` steps and on the rest. Where `op` sums into
/// a fill, each part gets its own fill of its slice, so that both can still
/// zero their tiles one at a time (canFillPerTile): the second part's slice
/// of the first part's result holds the fill's values, the parts being
/// disjoint.
static FailureOr<std::pair<linalg::GenericOp, linalg::GenericOp>>
splitInTwo(RewriterBase &rewriter, linalg::GenericOp op, unsigned dim,
           OpFoldResult at) {
  auto fill = op.getDpsInits().front().getDefiningOp<linalg::FillOp>();
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  auto [first, second] = linalg::splitOp(
      rewriter, cast<TilingInterface>(op.getOperation()), dim, at);
  auto firstPart = dyn_cast_if_present<linalg::GenericOp>(
      first ? first.getOperation() : nullptr);
  auto secondPart = dyn_cast_if_present<linalg::GenericOp>(
      second ? second.getOperation() : nullptr);
  if (!firstPart || !secondPart)
    return rewriter.notifyMatchFailure(loc, "splitting off the columns that "
                                            "no block divides failed");
  if (fill) {
    Value destination = fill.getDpsInitOperand(0)->get();
    for (linalg::GenericOp part : {firstPart, secondPart}) {
      OpOperand *init = part.getDpsInitOperand(0);
      auto slice = init->get().getDefiningOp<tensor::ExtractSliceOp>();
      if (!slice)
        continue;
      rewriter.setInsertionPoint(part);
      Value zeros = tensor::ExtractSliceOp::create(
          rewriter, slice.getLoc(), slice.getType(), destination,
          slice.getMixedOffsets(), slice.getMixedSizes(),
          slice.getMixedStrides());
      auto partFill = linalg::FillOp::create(rewriter, fill.getLoc(),
                                             fill.getInputs(), zeros);
      rewriter.modifyOpInPlace(part,
                               [&] { init->set(partFill->getResult(0)); });
    }
    // The parts cover the result: the first is inserted into the fill's
    // destination, not into a whole zeroed result (a pass over it on one
    // thread).
    for (OpOperand &use :
         llvm::make_early_inc_range(fill->getResult(0).getUses()))
      if (auto insert = dyn_cast<tensor::InsertSliceOp>(use.getOwner());
          insert && insert.getSource() == firstPart->getResult(0))
        rewriter.modifyOpInPlace(insert, [&] { use.set(destination); });
    if (fill->use_empty())
      rewriter.eraseOp(fill);
  }
  return std::make_pair(firstPart, secondPart);
}

/// With `config.parallel`, `op` on the threads: its outermost parallel loop
/// of cache tiles (a dimension without cache tiles, such as a batch, or the
/// column blocks, or the threads' shares of the columns) becomes an
/// scf.forall, unless threads share a loop around it already
/// (tl-fuse-batches). An scf.forall's last step cannot be peeled: where the
/// steps do not divide the columns, the rest is split off into a
/// contraction of its own after the forall, tiled with the same plan (the
/// same register tiles and blocks of the reductions, so that the sums, and
/// the results, are the same bits on any number of threads). Returns the
/// parts left to tile for the caches, with the plan's dimension untiled,
/// or, where the steps are shares, still in its blocks.
static FailureOr<SmallVector<linalg::GenericOp, 2>>
distributeOverThreads(RewriterBase &rewriter, linalg::GenericOp op,
                      ContractionTilingPlan &plan,
                      const TileContractionsConfig &config) {
  SmallVector<linalg::GenericOp, 2> parts = {op};
  if (!config.parallel || op->getParentOfType<scf::ForallOp>())
    return parts;
  // Shares of the columns where the plan has them (the dimensions before
  // them then stay whole); else the first dimension of the cache order.
  bool shares = plan.threadColumns != 0;
  unsigned dim = shares ? plan.columnDim : plan.cacheOrder.front();
  int64_t size = shares                  ? plan.threadColumns
                 : dim == plan.columnDim ? plan.cacheTiles[dim]
                                         : 1;
  int64_t extent = op.getStaticLoopRanges()[dim];
  if (isReduction(op, dim))
    return parts;
  SmallVector<OpFoldResult> sizes(op.getNumLoops(), rewriter.getIndexAttr(0));
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  if (ShapedType::isDynamic(extent)) {
    // A sized extent: single steps of a batch, or shares of the columns
    // computed from the size (each whole register tiles, at least one),
    // the columns after them a contraction of their own. Blocks of the
    // columns otherwise are peeled on one thread.
    bool batchSteps = dim != plan.columnDim;
    if (!batchSteps && plan.threadColumns != kThreadColumnsAtRunTime)
      return parts;
    if (batchSteps) {
      sizes[dim] = rewriter.getIndexAttr(1);
    } else {
      // The ops made here go right before `op`: where the split fails,
      // they are erased, and the IR is as it was.
      Operation *before = op->getPrevNode();
      Value columns = getValueOrCreateConstantIndexOp(
          rewriter, loc,
          cast<TilingInterface>(op.getOperation())
              .getIterationDomain(rewriter)[dim]
              .size);
      int64_t width = plan.registerTiles[dim];
      AffineExpr n = rewriter.getAffineSymbolExpr(0);
      OpFoldResult share = affine::makeComposedFoldedAffineMax(
          rewriter, loc,
          AffineMap::get(0, 1,
                         {n.floorDiv(config.threads * width) * width,
                          rewriter.getAffineConstantExpr(width)},
                         rewriter.getContext()),
          {OpFoldResult(columns)});
      Value shareValue = getValueOrCreateConstantIndexOp(rewriter, loc, share);
      Value count = arith::DivUIOp::create(rewriter, loc, columns, shareValue);
      OpFoldResult bulk =
          arith::MulIOp::create(rewriter, loc, count, shareValue).getResult();
      sizes[dim] = share;
      FailureOr<std::pair<linalg::GenericOp, linalg::GenericOp>> split =
          splitInTwo(rewriter, op, dim, bulk);
      if (failed(split)) {
        while (op->getPrevNode() != before)
          rewriter.eraseOp(op->getPrevNode());
        return failure();
      }
      parts = {split->first, split->second};
    }
  } else {
    int64_t staticBulk = size > 0 ? extent / size * size : 0;
    // Two blocks or more for the threads to share.
    if (size <= 0 || staticBulk < 2 * size)
      return parts;
    sizes[dim] = rewriter.getIndexAttr(size);
    // linalg::splitOp replaces `op`: only the parts are used after it.
    if (staticBulk < extent) {
      FailureOr<std::pair<linalg::GenericOp, linalg::GenericOp>> split =
          splitInTwo(rewriter, op, dim, rewriter.getIndexAttr(staticBulk));
      if (failed(split))
        return failure();
      parts = {split->first, split->second};
    }
  }
  // A fill the cache tiles would zero tile by tile goes into the threads'
  // loop with them: left outside, it would zero the whole result on one
  // thread first, and every tile read the zeros back from memory.
  rewriter.setInsertionPoint(parts.front());
  FailureOr<linalg::GenericOp> distributed =
      canFillPerTile(parts.front(), plan.cacheTiles)
          ? tileFillingPerTile(rewriter, parts.front(), sizes, {},
                               scf::SCFTilingOptions::LoopType::ForallOp)
          : tile(rewriter, parts.front(), sizes, {},
                 scf::SCFTilingOptions::LoopType::ForallOp);
  if (failed(distributed))
    return rewriter.notifyMatchFailure(parts.front(),
                                       "distributing over threads failed");
  parts.front() = *distributed;
  if (!shares || (size > 0 && plan.cacheTiles[dim] >= size))
    plan.cacheTiles[dim] = 0;
  return parts;
}

/// The scf.for loops around `op` that are not around `home`'s ops (those
/// a tiling of an op of `home` made), outermost first.
static SmallVector<scf::ForOp> loopsInside(Operation *op, Block *home) {
  SmallVector<scf::ForOp> loops;
  for (Operation *parent = op->getParentOp(); parent && op->getBlock() != home;
       op = parent, parent = parent->getParentOp())
    if (auto loop = dyn_cast<scf::ForOp>(parent))
      loops.push_back(loop);
  std::reverse(loops.begin(), loops.end());
  return loops;
}

/// Makes the tile sizes in `mainLoop` its step: affine.min(step, E - iv)
/// where E is at least the loop's upper bound. `mainLoop` must run whole
/// steps only: the bulk of a peeled loop, or a loop of single steps.
/// (Peeling simplifies only a minimum over the loop's own bound; tiling
/// composes the extent of a partial cache tile into it.)
static void simplifyTileSizesOfBulk(RewriterBase &rewriter,
                                    scf::ForOp mainLoop) {
  std::optional<int64_t> step = getConstantIntValue(mainLoop.getStep());
  if (!step)
    return;
  Value iv = mainLoop.getInductionVar();
  MLIRContext *context = rewriter.getContext();
  AffineMap difference = AffineMap::get(
      2, 0, getAffineDimExpr(0, context) - getAffineDimExpr(1, context));
  ValueBoundsConstraintSet::Variable remaining(
      difference, ValueRange{mainLoop.getUpperBound(), iv});
  SmallVector<affine::AffineMinOp> mins;
  mainLoop.getBody()->walk([&](affine::AffineMinOp min) {
    if (min.getMap().getNumResults() == 2 &&
        llvm::is_contained(min.getOperands(), iv))
      mins.push_back(min);
  });
  for (affine::AffineMinOp min : mins) {
    AffineMap map = min.getMap();
    for (unsigned constant = 0; constant < 2; ++constant) {
      auto value = dyn_cast<AffineConstantExpr>(map.getResult(constant));
      if (!value || value.getValue() != *step)
        continue;
      ValueBoundsConstraintSet::Variable other(map.getSubMap({1 - constant}),
                                               min.getOperands());
      if (!ValueBoundsConstraintSet::compare(
              other, ValueBoundsConstraintSet::ComparisonOperator::GE,
              remaining))
        continue;
      rewriter.setInsertionPoint(min);
      rewriter.replaceOpWithNewOp<arith::ConstantIndexOp>(min, *step);
      break;
    }
  }
}

/// Whether `loop` has constant bounds whose range its step does not
/// divide, and more than one step.
static bool hasPartialLastStep(scf::ForOp loop) {
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lower || !upper || !step || *step <= 0)
    return false;
  int64_t range = *upper - *lower;
  return range > *step && range % *step != 0;
}

void tensorlang::peelSizedLoops(RewriterBase &rewriter,
                                ArrayRef<scf::ForOp> loops,
                                bool partialConstantSteps) {
  // Innermost first: peeling an outer loop then copies inner loops that
  // are peeled already.
  for (scf::ForOp loop : llvm::reverse(loops)) {
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (!step || *step <= 1 ||
        (getConstantIntValue(loop.getLowerBound()) &&
         getConstantIntValue(loop.getUpperBound()) &&
         !(partialConstantSteps && hasPartialLastStep(loop))))
      continue;
    scf::ForOp partial;
    rewriter.setInsertionPoint(loop);
    if (succeeded(scf::peelForLoopAndSimplifyBounds(rewriter, loop, partial)))
      simplifyTileSizesOfBulk(rewriter, loop);
  }
}

/// Makes the loop bounds that the tiling of a padded op (padToBounds) read
/// from its operands `pads` read them from the pads' sources (dynamic
/// extents are those of loops not padded), and erases the pads that are
/// then unused: padSlicesInstead pads each reduction step's slices instead.
static void forgetPaddedOperands(RewriterBase &rewriter,
                                 ArrayRef<tensor::PadOp> pads) {
  for (tensor::PadOp pad : pads) {
    for (Operation *user : llvm::make_early_inc_range(pad->getUsers())) {
      auto dim = dyn_cast<tensor::DimOp>(user);
      std::optional<int64_t> index =
          dim ? dim.getConstantIndex() : std::nullopt;
      if (!index || !pad.getResultType().isDynamicDim(*index))
        continue;
      rewriter.setInsertionPoint(dim);
      rewriter.replaceOpWithNewOp<tensor::DimOp>(dim, pad.getSource(), *index);
    }
    if (pad->use_empty())
      rewriter.eraseOp(pad);
  }
}

/// Marks a tile while the loops around it are peeled.
static constexpr llvm::StringLiteral kPeeledTileMarker = "__tl_peeled_tile";

/// Peels the loops over sizes around `tile`, which a tiling of an op of
/// `home` made (peelSizedLoops). Returns `tile` and its copies, one per
/// combination of full and partial steps.
static SmallVector<linalg::GenericOp>
peelSizedTiles(RewriterBase &rewriter, linalg::GenericOp tile, Block *home,
               function_ref<bool(unsigned)> peelsLoop = {},
               bool partialConstantSteps = false) {
  SmallVector<scf::ForOp> loops = loopsInside(tile, home);
  if (peelsLoop) {
    SmallVector<scf::ForOp> peeled;
    for (auto [position, loop] : llvm::enumerate(loops))
      if (peelsLoop(position))
        peeled.push_back(loop);
    loops = std::move(peeled);
  }
  if (loops.empty())
    return {tile};
  Operation *outermost = loops.front();
  tile->setAttr(kPeeledTileMarker, rewriter.getUnitAttr());
  peelSizedLoops(rewriter, loops, partialConstantSteps);
  // The copies are in the outermost loop and the partial steps after it.
  SmallVector<linalg::GenericOp> tiles;
  for (Operation *op = outermost; op; op = op->getNextNode())
    op->walk([&](linalg::GenericOp copy) {
      if (copy->hasAttr(kPeeledTileMarker)) {
        copy->removeAttr(kPeeledTileMarker);
        tiles.push_back(copy);
      }
    });
  return tiles;
}

/// Where the cache tiles of a sized contraction block a reduction, the
/// fill of its result cannot go into the tiles (canFillPerTile): unfills
/// `op`'s accumulator and returns the fill's value, for
/// fillInFirstDepthBlock to start each cache tile's accumulator instead
/// (the register tiles take that in: each zeroes its own slice in the
/// first depth block), rather than the whole result being zeroed in a
/// pass of its own and read back (a sized ccsd_t contraction, whose depth
/// of 24 runs as one partial block: 302 MB). Returns null, changing
/// nothing, where the fill goes into the tiles, there is none, or the
/// contraction is static.
static Value unfillBlockedAccumulator(RewriterBase &rewriter,
                                      linalg::GenericOp op,
                                      const ContractionTilingPlan &plan) {
  auto fill = op.getDpsInits().front().getDefiningOp<linalg::FillOp>();
  if (!fill || !fill->hasOneUse() || canFillPerTile(op, plan.cacheTiles) ||
      !llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic))
    return nullptr;
  Value value = fill.getInputs().front();
  rewriter.modifyOpInPlace(
      op, [&] { op.getDpsInitOperand(0)->set(fill.getDpsInits().front()); });
  rewriter.eraseOp(fill);
  return value;
}

/// The counterpart of unfillBlockedAccumulator in one cache tile, which a
/// tiling of an op of `home` by `plan` made: its accumulator is first
/// replaced, element by element, by `value` where every reduction block is
/// the first (a select: a fill in an scf.if would bufferize to a fill of
/// a sized slice in the if's region, whose extents affine loops cannot
/// take as bounds).
static void fillInFirstDepthBlock(RewriterBase &rewriter,
                                  linalg::GenericOp cacheTile, Value value,
                                  Block *home,
                                  const ContractionTilingPlan &plan) {
  SmallVector<unsigned> tiledDims;
  for (int64_t dim : plan.cacheOrder)
    if (plan.cacheTiles[dim] != 0)
      tiledDims.push_back(dim);
  SmallVector<scf::ForOp> loops = loopsInside(cacheTile, home);
  assert(loops.size() == tiledDims.size() &&
         "one loop per tiled dimension of the cache tiles");
  Location loc = cacheTile.getLoc();
  rewriter.setInsertionPoint(cacheTile);
  Value first;
  for (auto [dim, loop] : llvm::zip_equal(tiledDims, loops)) {
    if (!isReduction(cacheTile, dim))
      continue;
    Value isFirst =
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                              loop.getInductionVar(), loop.getLowerBound());
    first =
        first ? arith::AndIOp::create(rewriter, loc, first, isFirst).getResult()
              : isFirst;
  }
  assert(first && "a reduction is blocked");
  OpOperand *init = cacheTile.getDpsInitOperand(0);
  auto type = cast<RankedTensorType>(init->get().getType());
  AffineMap identity = rewriter.getMultiDimIdentityMap(type.getRank());
  auto start = linalg::GenericOp::create(
      rewriter, loc, type, ValueRange{}, init->get(), identity,
      SmallVector<utils::IteratorType>(type.getRank(),
                                       utils::IteratorType::parallel),
      [&](OpBuilder &builder, Location loc, ValueRange arguments) {
        Value chosen =
            arith::SelectOp::create(builder, loc, first, value, arguments[0]);
        linalg::YieldOp::create(builder, loc, chosen);
      });
  start->setAttr(kFirstDepthBlockStartAttrName, rewriter.getUnitAttr());
  rewriter.modifyOpInPlace(cacheTile, [&] { init->set(start.getResult(0)); });
}

FailureOr<SmallVector<linalg::GenericOp, 2>>
tensorlang::tileForCaches(RewriterBase &rewriter, linalg::GenericOp op,
                          ContractionTilingPlan &plan,
                          const TileContractionsConfig &config) {
  Value unfilled = unfillBlockedAccumulator(rewriter, op, plan);
  FailureOr<SmallVector<linalg::GenericOp, 2>> parts =
      distributeOverThreads(rewriter, op, plan, config);
  if (failed(parts))
    return failure();
  // Where the cache tiles leave every reduction whole, each register
  // tile sums its elements from start to end: it zeroes its own slice of
  // the result, in cache, right before (the fill is fused into the loops
  // of the cache tiles, then into those of the register tiles, which are
  // tiled in two steps for it: the result's dimensions, then the
  // reductions inside).
  // Over sizes, the loops of the depth blocks (and, in a contraction of
  // three loops, of the column and row blocks) are peeled: the bulk of the
  // cache tiles then run their register tiles over a constant depth (and,
  // of a matrix product, are static: they copy panels as a fixed
  // program's do). Peeling every loop makes as many copies of the loop
  // nest as combinations of full and partial steps, which bufferization's
  // analyses take seconds over (10 s for the depth and columns of a
  // six-loop TCCG case); the register tiles of unpeeled loops are full all
  // the same (simplifyTileSizesOfBulk).
  SmallVector<bool> peeledDims;
  bool fewLoops = (*parts).front().getNumLoops() <= 3;
  for (int64_t dim : plan.cacheOrder)
    if (plan.cacheTiles[dim] != 0)
      peeledDims.push_back(
          dim == plan.depthDim ||
          (fewLoops &&
           (dim == plan.columnDim || (plan.hasRows && dim == plan.rowDim))));
  SmallVector<linalg::GenericOp, 2> cacheTiles;
  for (linalg::GenericOp part : *parts) {
    Location loc = part.getLoc();
    Block *home = part->getBlock();
    rewriter.setInsertionPoint(part);
    FailureOr<linalg::GenericOp> cacheTile =
        canFillPerTile(part, plan.cacheTiles)
            ? tileFillingPerTile(rewriter, part, plan.cacheTiles,
                                 plan.cacheOrder)
            : tile(rewriter, part, plan.cacheTiles, plan.cacheOrder);
    if (failed(cacheTile))
      return rewriter.notifyMatchFailure(loc, "cache tiling failed");
    if (unfilled)
      fillInFirstDepthBlock(rewriter, *cacheTile, unfilled, home, plan);
    // Over sizes: full cache tiles, and the partial ones at the edges.
    llvm::append_range(
        cacheTiles,
        peelSizedTiles(rewriter, *cacheTile, home, [&](unsigned position) {
          return position < peeledDims.size() && peeledDims[position];
        }));
  }
  return cacheTiles;
}

/// Pads each operand of `op` with zeros along the loops whose extent is
/// dynamic and `bounds` gives (nonzero), to that bound, and writes the
/// result back (a vector write that drops what is out of bounds): the
/// register tile at an edge of a sized contraction becomes a full one,
/// whose zero rows and columns add nothing to the others. An operand read
/// from `zeroPaddedPanels` reads whole panels instead of being padded.
/// Returns the padded op; fails, changing nothing, where the padded result
/// would not be static.
static FailureOr<linalg::GenericOp>
padToBounds(RewriterBase &rewriter, linalg::GenericOp op,
            ArrayRef<int64_t> bounds, ArrayRef<Value> zeroPaddedPanels) {
  Location loc = op.getLoc();
  Value init = op.getDpsInits().front();
  auto initType = cast<RankedTensorType>(init.getType());
  AffineMap initMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  for (unsigned position = 0; position < initType.getRank(); ++position)
    if (initType.isDynamicDim(position) &&
        bounds[initMap.getDimPosition(position)] <= 0)
      return rewriter.notifyMatchFailure(op, "the padded tile of the result "
                                             "would not be static");
  rewriter.setInsertionPoint(op);
  // A filled accumulator is filled padded instead (the fill of the edge's
  // slice would be a loop of run-time extent), and the tile written back
  // over the unfilled slice.
  Value destination = init;
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (fill && fill->hasOneUse())
    destination = fill.getDpsInits().front();
  SmallVector<Value> operands;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = cast<RankedTensorType>(operand.get().getType());
    AffineMap map = op.getMatchingIndexingMap(&operand);
    SmallVector<int64_t> shape(type.getShape());
    SmallVector<Value> dynamicSizes;
    bool padded = false;
    for (unsigned position = 0; position < shape.size(); ++position) {
      if (!ShapedType::isDynamic(shape[position]))
        continue;
      int64_t bound = bounds[map.getDimPosition(position)];
      if (bound > 0) {
        shape[position] = bound;
        padded = true;
      } else {
        dynamicSizes.push_back(
            tensor::DimOp::create(rewriter, loc, operand.get(), position));
      }
    }
    if (!padded) {
      operands.push_back(operand.get());
      continue;
    }
    if (op.isDpsInit(&operand) && destination != init) {
      Value empty =
          tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
      operands.push_back(
          linalg::FillOp::create(rewriter, loc, fill.getInputs(), empty)
              .getResult(0));
      continue;
    }
    if (Value whole = readWholePanel(rewriter, loc, operand.get(), shape,
                                     zeroPaddedPanels)) {
      operands.push_back(whole);
      continue;
    }
    Value zero = arith::ConstantOp::create(
        rewriter, loc, rewriter.getZeroAttr(type.getElementType()));
    operands.push_back(tensor::createPadHighOp(
        RankedTensorType::get(shape, type.getElementType()), operand.get(),
        zero, /*nofold=*/false, loc, rewriter, dynamicSizes));
  }
  auto paddedOp = cast<linalg::GenericOp>(rewriter.clone(*op));
  auto paddedType = cast<RankedTensorType>(operands.back().getType());
  rewriter.modifyOpInPlace(paddedOp, [&] {
    paddedOp->setOperands(operands);
    paddedOp->getResult(0).setType(paddedType);
  });
  // Written back into the accumulator itself (not a slice of the padded
  // tile), so that the loops' results stay in place.
  int64_t rank = paddedType.getRank();
  SmallVector<Value> origin(rank,
                            arith::ConstantIndexOp::create(rewriter, loc, 0));
  auto vectorType =
      VectorType::get(paddedType.getShape(), paddedType.getElementType());
  Value tile = vector::TransferReadOp::create(
      rewriter, loc, vectorType, paddedOp->getResult(0), origin,
      arith::ConstantOp::create(
          rewriter, loc, rewriter.getZeroAttr(paddedType.getElementType())),
      SmallVector<bool>(rank, true));
  auto written = vector::TransferWriteOp::create(
      rewriter, loc, tile, destination, origin, SmallVector<bool>(rank, false));
  rewriter.replaceOp(op, written.getResult());
  if (destination != init && fill->use_empty())
    rewriter.eraseOp(fill);
  return paddedOp;
}

/// Simplifies the minimums and maximums that clamp the slice of the padded
/// slice `padded` (tensor::bubbleUpPadSlice, maybe cast) to its source, by the
/// bounds of the loops around it: a reduction step of a sized depth block is
/// `min(extent - step, 1)` there, always 1 where the step loop runs, and
/// its padding then none (isZeroPadding), so that the rows alone are
/// padded (clampableRowsPosition).
static void simplifyPaddedSliceBounds(RewriterBase &rewriter, Value padded) {
  if (auto cast = padded.getDefiningOp<tensor::CastOp>())
    padded = cast.getSource();
  auto pad = padded.getDefiningOp<tensor::PadOp>();
  auto slice = pad ? pad.getSource().getDefiningOp<tensor::ExtractSliceOp>()
                   : tensor::ExtractSliceOp();
  if (!slice)
    return;
  SmallVector<Operation *> minMaxOps;
  SmallVector<Value> worklist(slice.getOffsets());
  llvm::append_range(worklist, slice.getSizes());
  llvm::append_range(worklist, pad.getHigh());
  llvm::SmallPtrSet<Operation *, 8> seen;
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val().getDefiningOp();
    if (!op ||
        !isa<affine::AffineMinOp, affine::AffineMaxOp, affine::AffineApplyOp>(
            op) ||
        !seen.insert(op).second)
      continue;
    if (!isa<affine::AffineApplyOp>(op))
      minMaxOps.push_back(op);
    llvm::append_range(worklist, op->getOperands());
  }
  // Each min or max whose simplification fails stays as it was.
  (void)affine::simplifyAffineMinMaxOps(rewriter, minMaxOps);
}

/// Makes each input of `registerTile` that is a slice of a padded tensor a
/// padded slice instead (static: one reduction step of a padded tile), so
/// that the padding of the whole depth is never built.
static void padSlicesInstead(RewriterBase &rewriter,
                             linalg::GenericOp registerTile) {
  for (OpOperand *input : registerTile.getDpsInputOperands()) {
    auto slice = input->get().getDefiningOp<tensor::ExtractSliceOp>();
    auto pad = slice ? slice.getSource().getDefiningOp<tensor::PadOp>()
                     : tensor::PadOp();
    if (!pad || !slice.hasUnitStride() ||
        slice.getSourceType().getRank() != slice.getResultType().getRank())
      continue;
    rewriter.setInsertionPoint(slice);
    FailureOr<TilingResult> swapped = tensor::bubbleUpPadSlice(
        rewriter, pad, slice.getMixedOffsets(), slice.getMixedSizes(),
        /*generateZeroSliceGuard=*/false);
    if (failed(swapped) || swapped->tiledValues.size() != 1 ||
        swapped->tiledValues.front().getType() != slice.getType())
      continue;
    rewriter.replaceOp(slice, swapped->tiledValues.front());
    simplifyPaddedSliceBounds(rewriter, swapped->tiledValues.front());
  }
}

/// The value of `size` where it is a constant, or an affine.apply of a
/// constant map (what peeling leaves before canonicalization).
static std::optional<int64_t> getConstantIndex(OpFoldResult size) {
  if (std::optional<int64_t> constant = getConstantIntValue(size))
    return constant;
  auto value = dyn_cast<Value>(size);
  auto apply = value ? value.getDefiningOp<affine::AffineApplyOp>()
                     : affine::AffineApplyOp();
  if (apply && apply.getAffineMap().isSingleConstant())
    return apply.getAffineMap().getSingleConstantResult();
  return std::nullopt;
}

/// The sizes of the result dimensions of the slice that `value` is (a read
/// from panels drops the panel's unit dimension); none where it is not one.
static SmallVector<OpFoldResult> getSliceResultSizes(Value value) {
  SmallVector<OpFoldResult> sizes;
  auto slice = value.getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice)
    return sizes;
  llvm::SmallBitVector dropped = slice.getDroppedDims();
  for (auto [position, size] : llvm::enumerate(slice.getMixedSizes()))
    if (!dropped.test(position))
      sizes.push_back(size);
  return sizes;
}

/// The extent of loop `dim` of `op` where it is known at compile time:
/// static in an operand's type, or a constant size of a slice that an
/// operand is (the peeling of a loop makes the sizes of its bulk's and its
/// last step's slices constants; their types become static only when
/// canonicalization folds them).
static std::optional<int64_t> getConstantExtent(linalg::GenericOp op,
                                                unsigned dim) {
  int64_t range = op.getStaticLoopRanges()[dim];
  if (!ShapedType::isDynamic(range))
    return range;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = cast<RankedTensorType>(operand.get().getType());
    SmallVector<OpFoldResult> sliceSizes = getSliceResultSizes(operand.get());
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (unsigned position = 0; position < map.getNumResults(); ++position) {
      if (map.getDimPosition(position) != dim)
        continue;
      if (!type.isDynamicDim(position))
        return type.getDimSize(position);
      if (position >= sliceSizes.size())
        continue;
      if (std::optional<int64_t> size = getConstantIndex(sliceSizes[position]))
        return size;
    }
  }
  return std::nullopt;
}

/// A constant upper bound of the extent of loop `dim` of `op`, from the
/// sizes of the slices its operands are.
static std::optional<int64_t> getConstantExtentBound(linalg::GenericOp op,
                                                     unsigned dim) {
  std::optional<int64_t> least;
  for (OpOperand &operand : op->getOpOperands()) {
    SmallVector<OpFoldResult> sliceSizes = getSliceResultSizes(operand.get());
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (unsigned position = 0; position < map.getNumResults(); ++position) {
      if (map.getDimPosition(position) != dim || position >= sliceSizes.size())
        continue;
      FailureOr<int64_t> bound = ValueBoundsConstraintSet::computeConstantBound(
          presburger::BoundType::UB, sliceSizes[position],
          /*stopCondition=*/nullptr, /*closedUB=*/true);
      if (succeeded(bound) && (!least || *bound < *least))
        least = *bound;
    }
  }
  return least;
}

FailureOr<SmallVector<linalg::GenericOp>>
tensorlang::tileSizedForRegisters(RewriterBase &rewriter,
                                  linalg::GenericOp cacheTile,
                                  const ContractionTilingPlan &plan,
                                  SmallVectorImpl<ColumnPanels> &packedPanels) {
  Location loc = cacheTile.getLoc();
  if (!cacheTile.hasPureTensorSemantics())
    return rewriter.notifyMatchFailure(loc, "the cache tile is not on tensors");
  SmallVector<int64_t> resultTiles = plan.registerTiles;
  SmallVector<int64_t> reductionTiles(resultTiles.size(), 0);
  for (unsigned dim = 0; dim < resultTiles.size(); ++dim)
    if (isReduction(cacheTile, dim))
      std::swap(resultTiles[dim], reductionTiles[dim]);
  // Edges are padded to full tiles: the plan's register tiles, along the
  // loops whose extent in the cache tile is a size (the others are peeled
  // into static tiles as in a static contraction).
  SmallVector<int64_t> bounds(resultTiles.size(), 0);
  SmallVector<int64_t> cacheExtents = cacheTile.getStaticLoopRanges();
  for (unsigned dim = 0; dim < bounds.size(); ++dim)
    if (ShapedType::isDynamic(cacheExtents[dim]))
      bounds[dim] = resultTiles[dim];
  copyBlockOfInput(rewriter, cacheTile, plan);
  SmallVector<SizedPanels, 2> panels =
      packSizedPanels(rewriter, cacheTile, plan, packedPanels);
  Block *home = cacheTile->getBlock();
  rewriter.setInsertionPoint(cacheTile);
  FailureOr<linalg::GenericOp> resultTile =
      canFillPerTile(cacheTile, plan.cacheTiles) ||
              startsInFirstDepthBlock(cacheTile)
          ? tileFillingPerTile(rewriter, cacheTile, resultTiles,
                               plan.registerOrder)
          : tile(rewriter, cacheTile, resultTiles, plan.registerOrder);
  if (failed(resultTile))
    return rewriter.notifyMatchFailure(loc, "register tiling failed");
  SmallVector<Value, 2> zeroPaddedPanels;
  for (const auto &[operand, copy] : panels)
    if (succeeded(readFromPanels(rewriter, *resultTile, operand, copy.position,
                                 copy.block, copy.panels, copy.width,
                                 /*atPanelStart=*/false, copy.innerPosition)))
      zeroPaddedPanels.push_back(copy.panels);
  // The full register tiles, and those at the edges of the sizes.
  SmallVector<linalg::GenericOp> resultTileOps =
      peelSizedTiles(rewriter, *resultTile, home, /*peelsLoop=*/{},
                     /*partialConstantSteps=*/true);
  // The columns at an edge in halves of the register tile's width (one
  // vector of the usual two), the rest padded to a half: padding wastes
  // less, and no masked access is wider than a vector register (LLVM 22
  // does not legalize SVE's fixed-length masked loads of two).
  SmallVector<std::pair<linalg::GenericOp, int64_t>> pieces;
  unsigned columns = plan.columnDim;
  int64_t half = bounds[columns] % 2 == 0 ? bounds[columns] / 2 : 0;
  for (linalg::GenericOp op : resultTileOps) {
    if (half == 0 || getConstantExtent(op, columns)) {
      pieces.push_back({op, bounds[columns]});
      continue;
    }
    SmallVector<int64_t> sizes(op.getNumLoops(), 0);
    sizes[columns] = half;
    Block *block = op->getBlock();
    rewriter.setInsertionPoint(op);
    // Each half takes its own slice of the start, so that the whole ones
    // start from it in registers (LowerContractionVectors).
    FailureOr<linalg::GenericOp> halves =
        canFillPerTile(op, sizes) || startsInFirstDepthBlock(op)
            ? tileFillingPerTile(rewriter, op, sizes, {})
            : tile(rewriter, op, sizes, {});
    if (failed(halves))
      return rewriter.notifyMatchFailure(loc, "register tiling failed");
    for (linalg::GenericOp piece : peelSizedTiles(rewriter, *halves, block))
      pieces.push_back({piece, half});
  }
  SmallVector<linalg::GenericOp> registerTiles;
  for (auto [piece, columnBound] : pieces) {
    linalg::GenericOp op = piece;
    SmallVector<int64_t> pieceBounds(bounds);
    pieceBounds[columns] = columnBound;
    bool atEdge = llvm::any_of(
        llvm::seq<unsigned>(0, op.getNumLoops()), [&](unsigned dim) {
          return pieceBounds[dim] > 0 && !getConstantExtent(op, dim);
        });
    // A loop of constant range that its register tile does not divide
    // (23 columns in tiles of 16) has a last step of constant extent, whose
    // type is still dynamic: it is padded to its bound, which keeps the
    // padded tile of the result static. Only the result's loops, and only
    // to a register tile's extent: a sized depth block, whose bound is the
    // block's (256), stays a loop over its run-time extent.
    if (atEdge)
      for (unsigned dim = 0; dim < op.getNumLoops(); ++dim)
        if (pieceBounds[dim] <= 0 && !isReduction(op, dim) &&
            ShapedType::isDynamic(op.getStaticLoopRanges()[dim]))
          if (std::optional<int64_t> bound = getConstantExtentBound(op, dim);
              bound && *bound <= resultTiles[dim])
            pieceBounds[dim] = *bound;
    linalg::GenericOp full = op;
    if (atEdge) {
      FailureOr<linalg::GenericOp> padded =
          padToBounds(rewriter, op, pieceBounds, zeroPaddedPanels);
      if (succeeded(padded))
        full = *padded;
    }
    SmallVector<tensor::PadOp> pads;
    for (Value operand : full->getOperands())
      if (auto pad = operand.getDefiningOp<tensor::PadOp>())
        pads.push_back(pad);
    rewriter.setInsertionPoint(full);
    Block *block = full->getBlock();
    FailureOr<linalg::GenericOp> registerTile =
        tile(rewriter, full, reductionTiles, plan.registerOrder);
    if (failed(registerTile))
      return rewriter.notifyMatchFailure(loc, "register tiling failed");
    // Steps of one over a sized reduction: each slice is one step (every
    // step of a loop of single steps is whole).
    for (scf::ForOp loop : loopsInside(*registerTile, block))
      simplifyTileSizesOfBulk(rewriter, loop);
    padSlicesInstead(rewriter, *registerTile);
    forgetPaddedOperands(rewriter, pads);
    registerTiles.push_back(*registerTile);
  }
  return registerTiles;
}

FailureOr<linalg::GenericOp>
tensorlang::tileForRegisters(RewriterBase &rewriter,
                             linalg::GenericOp cacheTile,
                             const ContractionTilingPlan &plan,
                             SmallVectorImpl<ColumnPanels> &packedPanels) {
  Location loc = cacheTile.getLoc();
  if (!cacheTile.hasPureTensorSemantics() || !staticLoopExtents(cacheTile))
    return rewriter.notifyMatchFailure(
        loc, "the cache tile's sizes are not static after peeling");
  copyBlockOfInput(rewriter, cacheTile, plan);
  Value panels = packColumnPanels(rewriter, cacheTile, plan, packedPanels);
  Value panelBlock = panels ? cacheTile->getOperand(plan.panelInput) : Value();
  int64_t columnPosition =
      panels ? cast<RankedTensorType>(panelBlock.getType()).getRank() - 1 : -1;
  Value rowPanels = packRowPanels(rewriter, cacheTile, plan);
  Value rowPanelBlock =
      rowPanels ? cacheTile->getOperand(plan.rowPanelInput) : Value();
  int64_t rowPanelPosition =
      rowPanels ? positionInBlock(cacheTile, plan.rowPanelInput, plan.rowDim)
                : -1;
  // The register tile, or its tile of the result that the reductions are
  // tiled in next, reads its columns and rows from the panels.
  auto readPanels = [&](linalg::GenericOp tiled) {
    if (panels)
      (void)readFromPanels(rewriter, tiled, plan.panelInput, columnPosition,
                           panelBlock, panels,
                           plan.registerTiles[plan.columnDim]);
    if (rowPanels)
      (void)readFromPanels(rewriter, tiled, plan.rowPanelInput,
                           rowPanelPosition, rowPanelBlock, rowPanels,
                           plan.registerTiles[plan.rowDim]);
  };
  rewriter.setInsertionPoint(cacheTile);
  FailureOr<linalg::GenericOp> registerTile;
  if (canFillPerTile(cacheTile, plan.cacheTiles)) {
    SmallVector<int64_t> resultTiles = plan.registerTiles;
    SmallVector<int64_t> reductionTiles(resultTiles.size(), 0);
    for (unsigned dim = 0; dim < resultTiles.size(); ++dim)
      if (isReduction(cacheTile, dim))
        std::swap(resultTiles[dim], reductionTiles[dim]);
    FailureOr<linalg::GenericOp> resultTile = tileFillingPerTile(
        rewriter, cacheTile, resultTiles, plan.registerOrder);
    if (failed(resultTile))
      return rewriter.notifyMatchFailure(loc, "register tiling failed");
    readPanels(*resultTile);
    rewriter.setInsertionPoint(*resultTile);
    registerTile =
        tile(rewriter, *resultTile, reductionTiles, plan.registerOrder);
  } else {
    registerTile =
        tile(rewriter, cacheTile, plan.registerTiles, plan.registerOrder);
    if (succeeded(registerTile))
      readPanels(*registerTile);
  }
  if (failed(registerTile))
    return rewriter.notifyMatchFailure(loc, "register tiling failed");
  return *registerTile;
}

/// The most elements of a padded slice of the rows' operand that
/// readClampedRows reads one at a time (a reduction step's rows).
static constexpr int64_t kMaxClampedElements = 32;

/// Whether the high padding `high` is none: a constant 0, or one that the
/// bounds of the loops around it fix at 0 (simplifyPaddedSliceBounds).
static bool isZeroPadding(OpFoldResult high) {
  if (std::optional<int64_t> constant = getConstantIntValue(high))
    return *constant == 0;
  FailureOr<int64_t> value = ValueBoundsConstraintSet::computeConstantBound(
      presburger::BoundType::EQ, high);
  return succeeded(value) && *value == 0;
}

/// The position of the rows in `pad`, a padded slice that the input
/// `operand` of `registerTile` reads, where the rows' padding is its only
/// one: the rows past the edge may read anything, since the rows are a
/// parallel loop of the result, so that only their own rows of it, which
/// the padded tile's write back drops, depend on them. (Only the rows'
/// operand, which lacks the columns, is read so: its rows are loaded one
/// at a time anyway.) None otherwise.
static std::optional<unsigned>
clampableRowsPosition(linalg::GenericOp registerTile, OpOperand &operand,
                      tensor::PadOp pad, const ContractionTilingPlan &plan) {
  if (!plan.hasRows || !registerTile.isDpsInput(&operand))
    return std::nullopt;
  AffineMap map = registerTile.getMatchingIndexingMap(&operand);
  if (!map.isProjectedPermutation() || map.isFunctionOfDim(plan.columnDim) ||
      pad.getResultType().getNumElements() > kMaxClampedElements)
    return std::nullopt;
  std::optional<unsigned> rows;
  for (auto [position, high] : llvm::enumerate(pad.getMixedHighPad())) {
    if (isZeroPadding(high) || pad.getSourceType().getDimSize(position) ==
                                   pad.getResultType().getDimSize(position))
      continue;
    if (rows || map.getDimPosition(position) != plan.rowDim)
      return std::nullopt;
    rows = position;
  }
  return rows;
}

/// The elements of `pad` with each row past the source's edge read from
/// the source's last row: one load per element, without a branch per row
/// (a masked read of rows lowers to one), as the rows of a register tile
/// in the bulk are read. The source has a row wherever the register tile
/// runs: rows are padded only where their loop's extent is a size, and the
/// peeled last step of that loop runs only where a row is left.
static Value readClampedRows(RewriterBase &rewriter, tensor::PadOp pad,
                             unsigned rowsPosition) {
  Location loc = pad.getLoc();
  RankedTensorType type = pad.getResultType();
  Value source = pad.getSource();
  Value rows = tensor::DimOp::create(rewriter, loc, source, rowsPosition);
  Value lastRow = arith::SubIOp::create(
      rewriter, loc, rows, arith::ConstantIndexOp::create(rewriter, loc, 1));
  SmallVector<int64_t> strides = computeStrides(type.getShape());
  SmallVector<Value> elements;
  for (int64_t linear = 0; linear < type.getNumElements(); ++linear) {
    SmallVector<Value> indices;
    for (auto [position, coordinate] :
         llvm::enumerate(delinearize(linear, strides))) {
      Value index = arith::ConstantIndexOp::create(rewriter, loc, coordinate);
      if (position == rowsPosition)
        index = arith::MinSIOp::create(rewriter, loc, index, lastRow);
      indices.push_back(index);
    }
    elements.push_back(
        tensor::ExtractOp::create(rewriter, loc, source, indices));
  }
  return vector::FromElementsOp::create(
      rewriter, loc, VectorType::get(type.getShape(), type.getElementType()),
      elements);
}

/// Vector reads, masked at the sizes' edges, for the padded operands of
/// a register tile at an edge of a sized contraction (tileSizedForRegisters):
/// its inputs' slices and its accumulator, which the reduction loops carry
/// from a padded tile. The rows' operand reads its rows past the edge from
/// the last row instead (readClampedRows).
static void vectorizePaddedOperands(RewriterBase &rewriter,
                                    linalg::GenericOp registerTile,
                                    const ContractionTilingPlan &plan) {
  SmallVector<std::pair<tensor::PadOp, std::optional<unsigned>>> pads;
  for (OpOperand &operand : registerTile->getOpOperands()) {
    Value value = operand.get();
    while (auto argument = dyn_cast<BlockArgument>(value)) {
      auto loop = dyn_cast<scf::ForOp>(argument.getOwner()->getParentOp());
      if (!loop || argument.getArgNumber() == 0)
        break;
      value = loop.getTiedLoopInit(argument)->get();
    }
    if (auto pad = value.getDefiningOp<tensor::PadOp>();
        pad && pad.getResultType().hasStaticShape())
      pads.push_back(
          {pad, clampableRowsPosition(registerTile, operand, pad, plan)});
  }
  // A read past the source's bounds gives the padding value: no masks
  // (rows past the edge, where they are not clamped, become branches
  // around whole rows, columns past it one masked load of a register).
  for (auto [pad, rowsPosition] : pads) {
    Value padding = pad.getConstantPaddingValue();
    if (!padding || !pad.hasZeroLowPad())
      continue;
    Location loc = pad.getLoc();
    RankedTensorType type = pad.getResultType();
    RankedTensorType sourceType = pad.getSourceType();
    rewriter.setInsertionPoint(pad);
    SmallVector<Value> origin(type.getRank(),
                              arith::ConstantIndexOp::create(rewriter, loc, 0));
    Value read;
    if (rowsPosition) {
      read = readClampedRows(rewriter, pad, *rowsPosition);
    } else {
      // In bounds along every dimension not padded (its extent is the
      // source's, whatever the source's type says).
      SmallVector<bool> inBounds;
      for (auto [dim, high] : llvm::enumerate(pad.getMixedHighPad()))
        inBounds.push_back(isZeroPadding(high) ||
                           sourceType.getDimSize(dim) == type.getDimSize(dim));
      read = vector::TransferReadOp::create(
          rewriter, loc,
          VectorType::get(type.getShape(), type.getElementType()),
          pad.getSource(), origin, padding, inBounds);
    }
    Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                          type.getElementType());
    Value written =
        vector::TransferWriteOp::create(rewriter, loc, read, empty, origin,
                                        SmallVector<bool>(type.getRank(), true))
            .getResult();
    rewriter.replaceOp(pad, written);
  }
}

FailureOr<TiledContraction>
tensorlang::vectorizeRegisterTile(RewriterBase &rewriter,
                                  linalg::GenericOp registerTile,
                                  const ContractionTilingPlan &plan) {
  Location loc = registerTile.getLoc();
  if (!staticLoopExtents(registerTile))
    return rewriter.notifyMatchFailure(
        loc, "the register tile's sizes are not static after peeling");
  vectorizePaddedOperands(rewriter, registerTile, plan);
  rewriter.setInsertionPoint(registerTile);
  FailureOr<linalg::GenericOp> matmul =
      toMatmulForm(rewriter, registerTile, plan);
  if (failed(matmul))
    return rewriter.notifyMatchFailure(
        loc, "the register tile has no matrix product form");
  rewriter.setInsertionPoint(*matmul);
  FailureOr<linalg::VectorizationResult> vectorized =
      linalg::vectorize(rewriter, *matmul);
  if (failed(vectorized))
    return TiledContraction{/*vectorized=*/false};
  rewriter.replaceOp(*matmul, vectorized->replacements);
  return TiledContraction{/*vectorized=*/true};
}

void tensorlang::peelPartialTiles(RewriterBase &rewriter, Operation *root,
                                  function_ref<bool(Operation *)> isTile) {
  // Peeling a loop copies the loops inside it into its last step; those
  // are peeled in the next round.
  for (bool peeled = true; peeled;) {
    peeled = false;
    SmallVector<scf::ForOp> loops;
    root->walk([&](scf::ForOp loop) {
      if (!hasPartialLastStep(loop))
        return;
      WalkResult found = loop.getBody()->walk([&](Operation *op) {
        return isTile(op) ? WalkResult::interrupt() : WalkResult::advance();
      });
      if (found.wasInterrupted())
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      scf::ForOp partial;
      rewriter.setInsertionPoint(loop);
      if (succeeded(scf::peelForLoopAndSimplifyBounds(rewriter, loop, partial)))
        peeled = true;
    }
  }
}
