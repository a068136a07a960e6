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
// dialect schedules of upstream MLIR do) is two levels of tiles: a cache
// tile whose operand blocks stay in L1/L2 while it runs, and inside it a
// register tile of the result, rows x columns, that accumulates in vector
// registers over the whole reduction: per reduction step one vector load
// per column vector, one broadcast per row, one FMA per row and vector.
//
// The "columns" of a contraction are its result's last dimension, which
// must also be the last (unit-stride) dimension of every operand that uses
// it (small operands are transposed to make it so); the "rows" a result
// dimension that only the other operand uses (else the result's
// second-to-last). Every other result dimension is a loop of single steps
// around the tiles.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Transforms/Passes.h"

#include "Divisors.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tensorlang {
#define GEN_PASS_DEF_TILECONTRACTIONS
#include "tensorlang/Transforms/Passes.h.inc"
} // namespace tensorlang

using namespace mlir;
using tensorlang::largestDivisorAtMost;

namespace {

/// Where the loops of one contraction go.
struct TilingPlan {
  unsigned rowDim = 0, columnDim = 0, depthDim = 0;
  bool hasRows = false;
  /// Where the columns are split in two contractions first (0: they are
  /// not): the extent has no power-of-two register width.
  int64_t columnSplit = 0;
  /// Per loop dimension; 0 leaves the dimension untiled at that level.
  SmallVector<int64_t> cacheTiles, registerTiles;
  /// Loop order of each level, outermost first.
  SmallVector<int64_t> cacheOrder, registerOrder;
};

} // namespace

/// Whether the body is `out + in0 * in1`: what a vector contraction of the
/// register tile computes (the others keep the generic loop lowering).
static bool isMultiplyAccumulate(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return false;
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value acc = body.getArgument(2);
  Value product = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  if (add.getLhs() != acc && add.getRhs() != acc)
    return false;
  auto mul = product.getDefiningOp<arith::MulFOp>();
  if (!mul || &body.front() != mul.getOperation() ||
      body.getOperations().size() != 3)
    return false;
  Value a = body.getArgument(0), b = body.getArgument(1);
  return (mul.getLhs() == a && mul.getRhs() == b) ||
         (mul.getLhs() == b && mul.getRhs() == a);
}

/// The largest multiple of `step` that divides `extent` and is at most
/// `preferred` (at least `step`, which divides `extent`).
static int64_t largestMultipleDividing(int64_t extent, int64_t step,
                                       int64_t preferred) {
  int64_t best = step;
  for (int64_t size = step; size <= std::min(extent, preferred); size += step)
    if (extent % size == 0)
      best = size;
  return best;
}

/// The register tile's width along the columns: the preferred width; or,
/// where that is two vector registers of `lanes`, three that divide the
/// extent; or the widest power of two down to a quarter of the preferred
/// width that divides it; all of an extent shorter than half of it (one
/// vector, p = 5 or 7); 0 where the extent has to be split first.
static int64_t columnWidth(int64_t columns, int64_t preferred,
                           int64_t lanes) {
  if (columns % preferred == 0)
    return preferred;
  // 72 = 3 x 24 rather than 64 + 8 (a second pass over the operand without
  // the columns, and a part of one vector per row: as many broadcasts as
  // FMAs); 24 = 24 rather than 3 x 8. Rows of three registers still leave
  // room for the broadcasts among AVX-512's 32 at three quarters of
  // register-rows (6; see planTiling); tl-lower-contraction-vectors unrolls
  // them to one register each.
  if (lanes > 1 && preferred == 2 * lanes && columns % (3 * lanes) == 0)
    return 3 * lanes;
  // Above the preferred width, the bulk gets the preferred width (split
  // off first: 72 = 64 + 8 rather than nine tiles of 8, which halves the
  // FMAs per broadcast).
  if (columns > preferred)
    return 0;
  for (int64_t width = preferred / 2;
       width >= std::max<int64_t>(1, preferred / 4); width /= 2)
    if (columns % width == 0 && (width & (width - 1)) == 0)
      return width;
  if (columns <= std::max<int64_t>(1, preferred / 2))
    return columns;
  return 0;
}

/// Reductions other than the depth longer than this are blocked for the
/// caches, in blocks of at most kOtherReductionBlock steps.
static constexpr int64_t kMaxWholeOtherReduction = 16;
static constexpr int64_t kOtherReductionBlock = 8;

/// Uses of each element of an operand from which on it is worth copying it
/// (into the layout the register tiles want) or reading it a second time
/// (the split-off columns).
static constexpr int64_t kManyUses = 256;

/// Operands up to this size (32K doubles: L1/L2-resident) are copied into
/// the layout the register tiles want when they have another.
static constexpr int64_t kMaxTransposedElements = 1 << 15;

static int64_t elementBytes(linalg::GenericOp op) {
  auto type = cast<ShapedType>(op.getDpsInits().front().getType());
  return std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
}

static bool isReduction(linalg::GenericOp op, unsigned dim) {
  return linalg::isReductionIterator(op.getIteratorTypesArray()[dim]);
}

/// The loop extents of `op` when all are static and every indexing map is a
/// projected permutation: the loop nests the rewrites here understand.
static std::optional<SmallVector<int64_t>>
staticLoopExtents(linalg::GenericOp op) {
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  if (llvm::any_of(extents, ShapedType::isDynamic) ||
      llvm::any_of(op.getIndexingMapsArray(),
                   [](AffineMap map) { return !map.isProjectedPermutation(); }))
    return std::nullopt;
  return extents;
}

/// The iterations of `op` (all loops) or, with `reductionsOnly`, the terms
/// each element of its result sums.
static int64_t productOfExtents(linalg::GenericOp op,
                                ArrayRef<int64_t> extents,
                                bool reductionsOnly) {
  int64_t product = 1;
  for (auto [dim, extent] : llvm::enumerate(extents))
    if (!reductionsOnly || isReduction(op, dim))
      product *= extent;
  return product;
}

/// How many times `op` uses each element of `input`, on average.
static int64_t usesPerElement(int64_t iterations, OpOperand *input) {
  int64_t elements =
      cast<RankedTensorType>(input->get().getType()).getNumElements();
  return iterations / std::max<int64_t>(1, elements);
}

static std::optional<TilingPlan>
planTiling(linalg::GenericOp op,
           const tensorlang::TileContractionsOptions &options) {
  if (!op.hasPureTensorSemantics() || op.getNumReductionLoops() == 0 ||
      !isMultiplyAccumulate(op))
    return std::nullopt;
  std::optional<SmallVector<int64_t>> staticExtents = staticLoopExtents(op);
  if (!staticExtents)
    return std::nullopt;
  ArrayRef<int64_t> extents = *staticExtents;
  AffineMap result = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  unsigned resultRank = result.getNumResults();
  if (resultRank == 0)
    return std::nullopt;

  TilingPlan plan;
  plan.columnDim = result.getDimPosition(resultRank - 1);
  // Each operand reads a register tile's columns as one contiguous vector,
  // or not at all (it is broadcast along them). An operand that has them
  // elsewhere is transposed first where that is cheap: it is small (a
  // matrix of the CFD kernels), or each of its elements is used many times
  // (TCCG ccsd_t0: a 1.7 MB operand used 4096 times per element).
  int64_t iterations = productOfExtents(op, extents, /*reductionsOnly=*/false);
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    int64_t elements =
        cast<RankedTensorType>(input->get().getType()).getNumElements();
    if (map.isFunctionOfDim(plan.columnDim) &&
        map.getDimPosition(map.getNumResults() - 1) != plan.columnDim &&
        elements > kMaxTransposedElements &&
        usesPerElement(iterations, input) < kManyUses)
      return std::nullopt;
  }
  // Rows: a register tile is an outer product of a column of one operand
  // (its rows) with a row of the other (its columns). So the rows are
  // preferably a result dimension that only an operand without the columns
  // uses, the innermost such; else the result's second-to-last dimension.
  for (int position = resultRank - 2; position >= 0 && !plan.hasRows;
       --position) {
    unsigned dim = result.getDimPosition(position);
    unsigned users = 0;
    bool userHasColumns = false;
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      if (!map.isFunctionOfDim(dim))
        continue;
      ++users;
      userHasColumns |= map.isFunctionOfDim(plan.columnDim);
    }
    if (users == 1 && !userHasColumns) {
      plan.hasRows = true;
      plan.rowDim = dim;
    }
  }
  if (!plan.hasRows && resultRank >= 2) {
    plan.hasRows = true;
    plan.rowDim = result.getDimPosition(resultRank - 2);
  }
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  plan.depthDim = *llvm::max_element(
      reductions, [&](unsigned a, unsigned b) { return extents[a] < extents[b]; });

  int64_t columns = extents[plan.columnDim];
  int64_t registerColumns =
      columnWidth(columns, options.registerColumns, options.vectorLanes);
  // Splitting off the remainder reads the operands without the columns a
  // second time. That pays where each of their elements is used many
  // times (TCCG ccsd6: 1600), not where the contraction streams them
  // (intensli0: 24 uses of a 240 MB operand, 25% slower split); there a
  // narrower width that divides is kept.
  int64_t half = options.registerColumns / 2;
  if (registerColumns == 0 && columns > options.registerColumns &&
      half >= 2 && columns % half == 0 && (half & (half - 1)) == 0) {
    int64_t largestInput = 1;
    for (OpOperand *input : op.getDpsInputOperands())
      largestInput = std::max<int64_t>(
          largestInput,
          cast<RankedTensorType>(input->get().getType()).getNumElements());
    if (iterations / largestInput < kManyUses)
      registerColumns = half;
  }
  if (registerColumns == 0) {
    // p = 11: 8 columns, then 3. A vector of 11 (or 13, ...) would be
    // widened to 16 lanes by LLVM, and every load, store and loop-carried
    // copy of it assembled lane by lane.
    int64_t unit = columns > options.registerColumns
                       ? options.registerColumns
                       : options.registerColumns / 2;
    if (unit < 2 || columns % unit == columns)
      return std::nullopt;
    plan.columnSplit = columns - columns % unit;
    return plan;
  }
  // Rows: a divisor of the extent, or all of a short odd extent (p = 11
  // rows of two vectors still fit AVX-512's 32 registers; rows of three
  // vectors do not).
  int64_t registerRows = 1;
  if (plan.hasRows) {
    int64_t rows = extents[plan.rowDim];
    bool threeVectors = registerColumns > options.registerColumns;
    int64_t maxRows = threeVectors ? std::max<int64_t>(
                                         1, options.registerRows * 3 / 4)
                                   : options.registerRows;
    int64_t allRowsUpTo = threeVectors ? maxRows : maxRows * 3 / 2;
    registerRows = rows <= allRowsUpTo ? rows
                                       : largestDivisorAtMost(rows, maxRows);
  }

  unsigned numLoops = op.getNumLoops();
  plan.cacheTiles.assign(numLoops, 0);
  plan.registerTiles.assign(numLoops, 1);
  auto cacheTile = [&](unsigned dim, int64_t tile) {
    plan.cacheTiles[dim] = tile == extents[dim] ? 0 : tile;
  };
  cacheTile(plan.columnDim, largestMultipleDividing(columns, registerColumns,
                                                    options.cacheColumns));
  plan.registerTiles[plan.columnDim] = registerColumns;
  if (plan.hasRows) {
    cacheTile(plan.rowDim,
              largestMultipleDividing(extents[plan.rowDim], registerRows,
                                      options.cacheRows));
    plan.registerTiles[plan.rowDim] = registerRows;
  }
  // The depth is blocked so that the panel of the columns' operand (depth x
  // columns) stays in L2; a panel that fits whole (TCCG intensli0: 312 x 24
  // doubles) is not, so that each register tile holds its whole reduction
  // and starts from zeros (no fill of the result, no second pass over it).
  int64_t depth = extents[plan.depthDim];
  if (depth * columns * elementBytes(op) > options.wholeDepthPanelBytes)
    cacheTile(plan.depthDim, largestDivisorAtMost(depth, options.cacheDepth));
  // The other reductions in blocks of (at most) 8 as well: each register
  // tile otherwise runs through all of them, over operand slices that
  // leave L2 (TCCG ccsd6 at 72: two 3 MB slices per tile; 10.2 s, 6.8 s
  // blocked).
  for (unsigned dim = 0; dim < op.getNumLoops(); ++dim)
    if (isReduction(op, dim) && dim != plan.depthDim &&
        extents[dim] > kMaxWholeOtherReduction)
      cacheTile(dim, largestDivisorAtMost(extents[dim], kOtherReductionBlock));

  // Cache level: other dimensions, column blocks, depth blocks, row blocks.
  // Register level: other dimensions, rows, columns, then the reductions,
  // innermost, so that the accumulator tile stays in registers.
  auto isTileDim = [&](unsigned dim) {
    return dim == plan.columnDim || dim == plan.depthDim ||
           (plan.hasRows && dim == plan.rowDim);
  };
  for (unsigned dim = 0; dim < numLoops; ++dim)
    if (!isTileDim(dim))
      plan.cacheOrder.push_back(dim);
  plan.cacheOrder.push_back(plan.columnDim);
  plan.cacheOrder.push_back(plan.depthDim);
  if (plan.hasRows)
    plan.cacheOrder.push_back(plan.rowDim);

  for (unsigned dim = 0; dim < numLoops; ++dim)
    if (!isTileDim(dim) && !isReduction(op, dim))
      plan.registerOrder.push_back(dim);
  if (plan.hasRows)
    plan.registerOrder.push_back(plan.rowDim);
  plan.registerOrder.push_back(plan.columnDim);
  for (unsigned dim = 0; dim < numLoops; ++dim)
    if (isReduction(op, dim) && dim != plan.depthDim)
      plan.registerOrder.push_back(dim);
  plan.registerOrder.push_back(plan.depthDim);
  return plan;
}

/// Makes `op` read `input` through a copy with its dimensions permuted
/// (dimension i of the copy is dimension perm[i] of the operand), and
/// updates its indexing map in `maps` (set on `op` by the caller). The copy
/// is made once, where the operand is defined: not in every iteration of
/// the batch loops around the contraction (tl-fuse-batches).
static void readPermutedCopy(RewriterBase &rewriter, linalg::GenericOp op,
                             OpOperand *input, ArrayRef<int64_t> perm,
                             SmallVectorImpl<AffineMap> &maps) {
  AffineMap map = maps[input->getOperandNumber()];
  auto type = cast<RankedTensorType>(input->get().getType());
  SmallVector<int64_t> shape;
  SmallVector<AffineExpr> results;
  for (int64_t i : perm) {
    shape.push_back(type.getDimSize(i));
    results.push_back(map.getResult(i));
  }
  OpBuilder::InsertionGuard guard(rewriter);
  if (auto argument = dyn_cast<BlockArgument>(input->get()))
    rewriter.setInsertionPointToStart(argument.getOwner());
  else
    rewriter.setInsertionPointAfter(input->get().getDefiningOp());
  Location loc = op.getLoc();
  Value init =
      tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
  Value copy = linalg::TransposeOp::create(rewriter, loc, input->get(), init,
                                           perm)
                   ->getResult(0);
  rewriter.modifyOpInPlace(op, [&] { input->set(copy); });
  maps[input->getOperandNumber()] =
      AffineMap::get(map.getNumDims(), 0, results, op.getContext());
}

/// Copies each input that uses the column dimension other than as its last
/// dimension into a transposed tensor where it is last (planTiling admits
/// only small or much reused ones), and reads that instead.
static void transposeForColumns(RewriterBase &rewriter, linalg::GenericOp op,
                                unsigned columnDim) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  bool changed = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
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

static FailureOr<linalg::GenericOp>
tile(RewriterBase &rewriter, linalg::GenericOp op, ArrayRef<int64_t> sizes,
     ArrayRef<int64_t> order,
     scf::SCFTilingOptions::LoopType loopType =
         scf::SCFTilingOptions::LoopType::ForOp) {
  scf::SCFTilingOptions tiling;
  tiling.setLoopType(loopType);
  tiling.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
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

/// Whether the accumulator of `op` is a fill (of zeros), and the tiles
/// `sizes` leave every reduction whole: each tile then sums its elements
/// from start to end, and can fill its own slice first.
static bool canFillPerTile(linalg::GenericOp op, ArrayRef<int64_t> sizes) {
  if (!op.getDpsInits().front().getDefiningOp<linalg::FillOp>())
    return false;
  for (unsigned dim = 0; dim < op.getNumLoops(); ++dim)
    if (isReduction(op, dim) && sizes[dim] != 0)
      return false;
  return true;
}

/// Tiles `op` like tile(), and fuses the fill of its accumulator into the
/// tile loops (canFillPerTile must hold): each tile zeroes its own slice
/// just before summing into it, while it is in cache, instead of the whole
/// result being zeroed first and every tile reading its zeros back from
/// memory (TCCG ccsd_t0: a 302 MB result).
static FailureOr<scf::SCFTileAndFuseResult>
tileAndFuseFill(RewriterBase &rewriter, linalg::GenericOp op,
                ArrayRef<int64_t> sizes, ArrayRef<int64_t> order) {
  scf::SCFTileAndFuseOptions options;
  options.tilingOptions.setTileSizes(
      getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  options.tilingOptions.setInterchange(order);
  options.setFusionControlFn(
      [](tensor::ExtractSliceOp, OpResult producer, bool)
          -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (isa<linalg::FillOp>(producer.getOwner()))
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

static FailureOr<linalg::GenericOp>
tileFillingPerTile(RewriterBase &rewriter, linalg::GenericOp op,
                   ArrayRef<int64_t> sizes, ArrayRef<int64_t> order) {
  FailureOr<scf::SCFTileAndFuseResult> fused =
      tileAndFuseFill(rewriter, op, sizes, order);
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
             const TilingPlan &plan) {
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

/// A contraction of at most this many terms per element computes straight
/// into the layout of the transposition that is its only use.
static constexpr int64_t kMaxSummandsToFoldTransposition = kManyUses;

/// A contraction that sums few terms per element, and whose only use
/// transposes it, computes straight into the transposed layout (an output
/// indexing map) where that layout can be tiled too. Otherwise it writes a
/// temporary that a second loop nest transposes: on TCCG ccsd_t0, 24
/// multiply-adds per element, writing and transposing the 302 MB temporary
/// took three times as long as the sums (0.31 s; folded 0.09 s). With many
/// terms per element (ccsd6: 5184) the transposition costs nothing next to
/// the sums, and the layout the contraction had is kept.
static void
foldTranspositionsIntoContractions(RewriterBase &rewriter,
                                   FunctionOpInterface func,
                                   const tensorlang::TileContractionsOptions
                                       &options) {
  SmallVector<linalg::GenericOp> copies;
  func.walk([&](linalg::GenericOp op) {
    if (isPermutationCopy(op))
      copies.push_back(op);
  });
  for (linalg::GenericOp copy : copies) {
    auto contraction =
        copy.getDpsInputs().front().getDefiningOp<linalg::GenericOp>();
    if (!contraction || contraction->getNumResults() != 1 ||
        !contraction->getResult(0).hasOneUse() ||
        contraction.getNumReductionLoops() == 0 ||
        !isMultiplyAccumulate(contraction))
      continue;
    auto fill = contraction.getDpsInits().front().getDefiningOp<linalg::FillOp>();
    std::optional<SmallVector<int64_t>> extents = staticLoopExtents(contraction);
    if (!fill || !extents ||
        productOfExtents(contraction, *extents, /*reductionsOnly=*/true) >
            kMaxSummandsToFoldTransposition)
      continue;

    // Result index of the contraction -> iteration of the copy -> index of
    // the copy's result.
    SmallVector<AffineMap> maps = contraction.getIndexingMapsArray();
    AffineMap copyInput = copy.getIndexingMapsArray()[0];
    AffineMap copyOutput = copy.getIndexingMapsArray()[1];
    maps.back() =
        copyOutput.compose(inversePermutation(copyInput).compose(maps.back()));
    rewriter.setInsertionPoint(copy);
    auto init = linalg::FillOp::create(rewriter, fill.getLoc(),
                                       fill.getInputs(), copy.getDpsInits());
    auto folded = linalg::GenericOp::create(
        rewriter, contraction.getLoc(), copy->getResultTypes(),
        contraction.getDpsInputs(), init->getResults(), maps,
        contraction.getIteratorTypesArray());
    rewriter.cloneRegionBefore(contraction.getRegion(), folded.getRegion(),
                               folded.getRegion().end());
    if (!planTiling(folded, options)) {
      rewriter.eraseOp(folded);
      rewriter.eraseOp(init);
      continue;
    }
    rewriter.replaceOp(copy, folded->getResults());
    rewriter.eraseOp(contraction);
    if (fill->use_empty())
      rewriter.eraseOp(fill);
  }
}

/// A contraction over several reductions, each of whose elements sums many
/// terms, becomes a matrix product over one long reduction: its operands
/// are copied so that the reductions are adjacent, in loop order (the
/// columns, where an operand has them last, stay last), and the reductions
/// collapse into one (`linalg::collapseOpIterationDims`). The copies are
/// read once; the contraction then tiles like a matrix product, with one
/// depth of cache blocks, instead of running every register tile through
/// blocks of the second reduction (TCCG ccsd6 at 72: two reductions of 72,
/// 5184 terms per element; Eigen does the same shuffle to a GEMM).
static void collapseReductions(RewriterBase &rewriter, FunctionOpInterface func) {
  SmallVector<linalg::GenericOp> candidates;
  func.walk([&](linalg::GenericOp op) {
    if (op.hasPureTensorSemantics() && op.getNumReductionLoops() >= 2 &&
        op.getNumDpsInits() == 1 && isMultiplyAccumulate(op))
      candidates.push_back(op);
  });
  for (linalg::GenericOp op : candidates) {
    std::optional<SmallVector<int64_t>> extents = staticLoopExtents(op);
    if (!extents)
      continue;
    SmallVector<unsigned> reductions;
    op.getReductionDims(reductions);
    int64_t summands = productOfExtents(op, *extents, /*reductionsOnly=*/true);
    bool consecutive = true;
    for (size_t i = 1; i < reductions.size(); ++i)
      consecutive &= reductions[i] == reductions[i - 1] + 1;
    if (!consecutive || summands < kManyUses)
      continue;
    AffineMap result = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    if (result.getNumResults() == 0)
      continue;
    unsigned columnDim = result.getDimPosition(result.getNumResults() - 1);
    // A copy pays only where each element is used many times (not in the
    // trace of a product: once).
    int64_t iterations =
        productOfExtents(op, *extents, /*reductionsOnly=*/false);
    bool muchReused = llvm::all_of(op.getDpsInputOperands(), [&](OpOperand *input) {
      return usesPerElement(iterations, input) >= kManyUses;
    });
    if (!muchReused)
      continue;
    // Every input reads all the reductions (or none of them).
    bool readsAllOrNone = llvm::all_of(op.getDpsInputOperands(), [&](OpOperand *input) {
      AffineMap map = op.getMatchingIndexingMap(input);
      unsigned count = llvm::count_if(reductions, [&](unsigned dim) {
        return map.isFunctionOfDim(dim);
      });
      return count == 0 || count == reductions.size();
    });
    if (!readsAllOrNone)
      continue;

    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = maps[input->getOperandNumber()];
      if (!map.isFunctionOfDim(reductions.front()))
        continue;
      unsigned rank = map.getNumResults();
      auto positionOf = [&](unsigned dim) {
        unsigned position = 0;
        while (map.getDimPosition(position) != dim)
          ++position;
        return position;
      };
      bool columnsLast = map.getDimPosition(rank - 1) == columnDim;
      // Result dimension i of the copy is operand dimension perm[i].
      SmallVector<int64_t> perm;
      for (unsigned i = 0; i < rank; ++i) {
        unsigned dim = map.getDimPosition(i);
        if (!llvm::is_contained(reductions, dim) &&
            !(columnsLast && i == rank - 1))
          perm.push_back(i);
      }
      for (unsigned dim : reductions)
        perm.push_back(positionOf(dim));
      if (columnsLast)
        perm.push_back(rank - 1);
      if (!llvm::equal(perm, llvm::seq<int64_t>(0, rank)))
        readPermutedCopy(rewriter, op, input, perm, maps);
    }
    rewriter.modifyOpInPlace(op, [&] {
      op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
    ReassociationIndices folded;
    for (unsigned dim : reductions)
      folded.push_back(dim);
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::CollapseResult> collapsed =
        linalg::collapseOpIterationDims(
            cast<linalg::LinalgOp>(op.getOperation()), {folded}, rewriter);
    if (failed(collapsed))
      continue;
    rewriter.replaceOp(op, collapsed->results);
  }
}

/// Lines of doubles: a sum to a scalar that reads an operand across its
/// rows steps this far along that operand's rows at a time.
static constexpr int64_t kLineElements = 8;

/// A sum to a scalar (the trace of a product, `sum_ij A[i,j] B[j,i]`) that
/// reads an operand across its rows (B: each term from another line) is
/// tiled along that operand's contiguous dimension, a line at a time: the
/// lines of B then stay in cache while the inner loop runs over the block's
/// other rows of A, and memory is read once instead of a line per term.
/// It changes the order of the sum (as any tiling of a reduction), not
/// which terms it adds.
static void blockStridedSums(RewriterBase &rewriter, FunctionOpInterface func) {
  SmallVector<linalg::GenericOp> sums;
  func.walk([&](linalg::GenericOp op) {
    if (op.hasPureTensorSemantics() && op.getNumDpsInits() == 1 &&
        op.getNumParallelLoops() == 0 && op.getNumLoops() >= 2 &&
        isMultiplyAccumulate(op) &&
        op.getMatchingIndexingMap(op.getDpsInitOperand(0)).getNumResults() ==
            0)
      sums.push_back(op);
  });
  for (linalg::GenericOp op : sums) {
    std::optional<SmallVector<int64_t>> extents = staticLoopExtents(op);
    if (!extents)
      continue;
    unsigned innermost = op.getNumLoops() - 1;
    SmallVector<int64_t> sizes(op.getNumLoops(), 0);
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      if (map.getNumResults() == 0)
        continue;
      unsigned contiguous = map.getDimPosition(map.getNumResults() - 1);
      int64_t extent = (*extents)[contiguous];
      if (contiguous != innermost && extent > kLineElements &&
          extent % kLineElements == 0)
        sizes[contiguous] = kLineElements;
    }
    if (llvm::all_of(sizes, [](int64_t size) { return size == 0; }))
      continue;
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::GenericOp> block = tile(rewriter, op, sizes, {});
    if (failed(block))
      continue;
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
    (void)linalg::interchangeGenericOp(rewriter, *block, order);
  }
}

/// Gives every contraction its own zero-filled accumulator. CSE merges
/// identical fills of identical empty tensors, so that consecutive
/// statements share one; bufferization then keeps a zeroed copy for the
/// second, and with the columns split (or in a batch loop) copies strided
/// blocks of it at run time.
static void unshareAccumulatorFills(RewriterBase &rewriter,
                                    FunctionOpInterface func) {
  SmallVector<linalg::FillOp> shared;
  func.walk([&](linalg::FillOp fill) {
    if (fill.hasPureTensorSemantics() && !fill->getResult(0).hasOneUse())
      shared.push_back(fill);
  });
  for (linalg::FillOp fill : shared) {
    // An accumulator of undefined initial value (an empty tensor, or a slice
    // of one, as batch fusion leaves it) gets an empty tensor of its own.
    Value init = fill.getDpsInitOperand(0)->get();
    while (auto slice = init.getDefiningOp<tensor::ExtractSliceOp>())
      init = slice.getSource();
    auto type = cast<RankedTensorType>(fill->getResult(0).getType());
    bool fresh = init.getDefiningOp<tensor::EmptyOp>() && type.hasStaticShape();
    for (OpOperand &use :
         llvm::make_early_inc_range(llvm::drop_begin(fill->getResult(0).getUses()))) {
      auto user = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
      if (!user || !user.isDpsInit(&use))
        continue;
      rewriter.setInsertionPoint(user);
      Operation *copy = rewriter.clone(*fill);
      if (fresh) {
        rewriter.setInsertionPoint(copy);
        Value empty = tensor::EmptyOp::create(rewriter, fill.getLoc(),
                                              type.getShape(),
                                              type.getElementType());
        rewriter.modifyOpInPlace(copy, [&] {
          cast<linalg::FillOp>(copy).getDpsInitOperand(0)->set(empty);
        });
      }
      rewriter.modifyOpInPlace(user, [&] { use.set(copy->getResult(0)); });
    }
  }
}

namespace {
struct TileContractionsPass
    : public tensorlang::impl::TileContractionsBase<TileContractionsPass> {
  using Base::Base;

  /// Tiles the columns of `op` by `plan.columnSplit` (a multiple of the
  /// vector width) and peels the last, partial tile: two contractions.
  LogicalResult splitColumns(RewriterBase &rewriter, linalg::GenericOp op,
                             const TilingPlan &plan) {
    SmallVector<int64_t> sizes(op.getNumLoops(), 0);
    sizes[plan.columnDim] = plan.columnSplit;
    Operation *loop;
    // The fill goes into the loop with the parts, so that they can each
    // fill per tile in turn (canFillPerTile).
    if (canFillPerTile(op, sizes)) {
      FailureOr<scf::SCFTileAndFuseResult> fused =
          tileAndFuseFill(rewriter, op, sizes, {});
      if (failed(fused) || fused->loops.size() != 1)
        return failure();
      loop = fused->loops.front();
    } else {
      scf::SCFTilingOptions tiling;
      tiling.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
      FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
          rewriter, cast<TilingInterface>(op.getOperation()), tiling);
      if (failed(tiled) || tiled->loops.size() != 1)
        return failure();
      rewriter.replaceOp(op, tiled->replacements);
      loop = tiled->loops.front();
    }
    scf::ForOp partial;
    return scf::peelForLoopAndSimplifyBounds(rewriter, cast<scf::ForOp>(loop),
                                             partial);
  }

  /// What the canonicalize pass does: folds the peeled loops' bounds into
  /// static slice and operand types.
  LogicalResult canonicalize() {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    for (Dialect *dialect : context->getLoadedDialects())
      dialect->getCanonicalizationPatterns(patterns);
    for (RegisteredOperationName op : context->getRegisteredOperations())
      op.getCanonicalizationPatterns(patterns, context);
    return applyPatternsGreedily(getOperation(), std::move(patterns));
  }

  /// Cache tiles, register tiles, and a vector contraction per register
  /// tile; a step that fails leaves the (correct) scalar loops.
  void tileAndVectorize(RewriterBase &rewriter, linalg::GenericOp op,
                        TilingPlan plan) {
    rewriter.setInsertionPoint(op);
    if (parallel && !op->getParentOfType<scf::ForallOp>()) {
      // Threads share the outermost parallel loop of cache tiles: a
      // dimension without cache tiles (a batch, tiles of one) or the
      // column blocks; unless they share a loop around it already
      // (tl-fuse-batches).
      unsigned dim = plan.cacheOrder.front();
      int64_t size = dim == plan.columnDim ? plan.cacheTiles[dim] : 1;
      if (size > 0 && !isReduction(op, dim) &&
          op.getStaticLoopRanges()[dim] > size) {
        SmallVector<int64_t> sizes(op.getNumLoops(), 0);
        sizes[dim] = size;
        FailureOr<linalg::GenericOp> distributed =
            tile(rewriter, op, sizes, {},
                 scf::SCFTilingOptions::LoopType::ForallOp);
        if (failed(distributed))
          return;
        op = *distributed;
        plan.cacheTiles[dim] = 0;
        rewriter.setInsertionPoint(op);
      }
    }
    // Where the cache tiles leave every reduction whole, each register
    // tile sums its elements from start to end: it zeroes its own slice of
    // the result, in cache, right before (the fill is fused into the loops
    // of the cache tiles, then into those of the register tiles, which are
    // tiled in two steps for it: the result's dimensions, then the
    // reductions inside).
    bool fillsPerTile = canFillPerTile(op, plan.cacheTiles);
    FailureOr<linalg::GenericOp> cacheTile =
        fillsPerTile
            ? tileFillingPerTile(rewriter, op, plan.cacheTiles, plan.cacheOrder)
            : tile(rewriter, op, plan.cacheTiles, plan.cacheOrder);
    if (failed(cacheTile))
      return;
    rewriter.setInsertionPoint(*cacheTile);
    FailureOr<linalg::GenericOp> registerTile;
    if (fillsPerTile) {
      SmallVector<int64_t> resultTiles = plan.registerTiles;
      SmallVector<int64_t> reductionTiles(resultTiles.size(), 0);
      for (unsigned dim = 0; dim < resultTiles.size(); ++dim)
        if (isReduction(*cacheTile, dim))
          std::swap(resultTiles[dim], reductionTiles[dim]);
      FailureOr<linalg::GenericOp> resultTile = tileFillingPerTile(
          rewriter, *cacheTile, resultTiles, plan.registerOrder);
      if (failed(resultTile))
        return;
      rewriter.setInsertionPoint(*resultTile);
      registerTile =
          tile(rewriter, *resultTile, reductionTiles, plan.registerOrder);
    } else {
      registerTile = tile(rewriter, *cacheTile, plan.registerTiles,
                          plan.registerOrder);
    }
    if (failed(registerTile))
      return;
    rewriter.setInsertionPoint(*registerTile);
    FailureOr<linalg::GenericOp> matmul =
        toMatmulForm(rewriter, *registerTile, plan);
    if (failed(matmul))
      return;
    rewriter.setInsertionPoint(*matmul);
    // A failure leaves the scalar register tile, which is still correct.
    FailureOr<linalg::VectorizationResult> vectorized =
        linalg::vectorize(rewriter, *matmul);
    if (succeeded(vectorized))
      rewriter.replaceOp(*matmul, vectorized->replacements);
  }

  void runOnOperation() override {
    if (registerRows < 1 || registerColumns < 1 || cacheRows < 1 ||
        cacheColumns < 1 || cacheDepth < 1) {
      getOperation().emitError("tl-tile-contractions: tile sizes must be "
                               "positive");
      return signalPassFailure();
    }
    std::vector<std::pair<linalg::GenericOp, TilingPlan>> work;
    tensorlang::TileContractionsOptions options{
        registerRows, registerColumns,      cacheRows,   cacheColumns,
        cacheDepth,   wholeDepthPanelBytes, parallel,    vectorLanes};
    IRRewriter rewriter(&getContext());
    foldTranspositionsIntoContractions(rewriter, getOperation(), options);
    collapseReductions(rewriter, getOperation());
    blockStridedSums(rewriter, getOperation());
    getOperation().walk([&](linalg::GenericOp op) {
      if (std::optional<TilingPlan> plan = planTiling(op, options))
        work.emplace_back(op, std::move(*plan));
    });
    if (work.empty())
      return;

    unshareAccumulatorFills(rewriter, getOperation());
    // Columns without a power-of-two register width (p = 11) are split
    // first: one vector's width of columns per step of a loop whose last,
    // partial step is peeled off, so that both parts have static widths (8,
    // then 3). Then every contraction, parts included, is planned again.
    // A remainder may need a split of its own (13 = 8 + 5 = 8 + 4 + 1):
    // each round halves the width, so a few rounds finish.
    for (unsigned round = 0; round < 4; ++round) {
      bool split = false;
      for (auto &[op, plan] : work) {
        if (!plan.columnSplit)
          continue;
        rewriter.setInsertionPoint(op);
        transposeForColumns(rewriter, op, plan.columnDim);
        split |= succeeded(splitColumns(rewriter, op, plan));
      }
      if (!split)
        break;
      if (failed(canonicalize()))
        return signalPassFailure();
      work.clear();
      getOperation().walk([&](linalg::GenericOp op) {
        if (std::optional<TilingPlan> plan = planTiling(op, options))
          work.emplace_back(op, std::move(*plan));
      });
    }
    for (auto &[op, plan] : work) {
      if (plan.columnSplit)
        continue;
      rewriter.setInsertionPoint(op);
      transposeForColumns(rewriter, op, plan.columnDim);
      tileAndVectorize(rewriter, op, plan);
    }

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
