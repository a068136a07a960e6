//===- TileTranspositions.cpp - Transposed copies in squares of vectors ---===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// tl-tile-transpositions: a copy that moves the contiguous dimension is
// done a square of vector-lanes x vector-lanes elements at a time, a vector
// per row in and out and a transpose in registers between. As scalar loops
// the same copy runs at a load per element (TCCG abcde-ecbfa-fd: its 906 MB
// operand, rows 18 MB apart, copied at about 1 GB/s).
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Dialect/TL/IR/TLAttributes.h"
#include "tensorlang/Transforms/Passes.h"

#include "../Loops/NonTemporalStores.h"
#include "ContractionUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace tensorlang {
#define GEN_PASS_DEF_TILETRANSPOSITIONS
#include "tensorlang/Transforms/Passes.h.inc"
} // namespace tensorlang

using namespace mlir;
using namespace tensorlang;

namespace {
/// The two loop dimensions a square spans: the result's last dimension
/// (a vector per result row) and the input's (a vector per input row).
struct Square {
  unsigned resultLast = 0, inputLast = 0;
};
} // namespace

/// The square of `op` when it copies its one input through permutations
/// and moves the contiguous dimension.
static std::optional<Square> matchTransposition(linalg::LinalgOp op) {
  if (!isa<linalg::TransposeOp, linalg::GenericOp>(op.getOperation()) ||
      !(op.hasPureTensorSemantics() || op.hasPureBufferSemantics()) ||
      op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 0 || op.getNumLoops() < 2)
    return std::nullopt;
  Block *body = op.getBlock();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  if (body->getOperations().size() != 1 ||
      yield.getValues().front() != body->getArgument(0))
    return std::nullopt;
  auto type = cast<ShapedType>(op.getDpsInits().front().getType());
  if (!VectorType::isValidElementType(type.getElementType()))
    return std::nullopt;
  AffineMap input = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap result = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!input.isPermutation() || !result.isPermutation())
    return std::nullopt;
  unsigned rank = op.getNumLoops();
  Square square{result.getDimPosition(rank - 1),
                input.getDimPosition(rank - 1)};
  if (square.resultLast == square.inputLast)
    return std::nullopt;
  // An extent of one moves no element across a row: the copy is a reshape.
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  if (extents[square.resultLast] == 1 || extents[square.inputLast] == 1)
    return std::nullopt;
  return square;
}

/// Whether `tensor` (or buffer) is a slice of a function argument's
/// memory: through slices and the iteration arguments of loops, a
/// `bufferization.to_tensor` (a program's variable; temporaries are
/// `tensor.empty`); through views, a buffer argument of the function
/// (temporaries are allocations).
static bool isViewOfArgument(Value tensor) {
  while (tensor) {
    if (tensor.getDefiningOp<bufferization::ToTensorOp>())
      return true;
    if (auto slice = tensor.getDefiningOp<tensor::ExtractSliceOp>()) {
      tensor = slice.getSource();
      continue;
    }
    if (auto view = tensor.getDefiningOp<ViewLikeOpInterface>()) {
      tensor = view.getViewSource();
      continue;
    }
    auto argument = dyn_cast<BlockArgument>(tensor);
    if (argument && isa<BaseMemRefType>(argument.getType()) &&
        isa<FunctionOpInterface>(argument.getOwner()->getParentOp()))
      return true;
    auto loop =
        argument
            ? dyn_cast<LoopLikeOpInterface>(argument.getOwner()->getParentOp())
            : nullptr;
    OpOperand *init = loop ? loop.getTiedLoopInit(argument) : nullptr;
    tensor = init ? init->get() : Value();
  }
  return false;
}

/// Tiles `op` by `sizes` with loops of `loopType` in `order`.
static FailureOr<linalg::GenericOp>
tileCopy(RewriterBase &rewriter, linalg::GenericOp op, ArrayRef<int64_t> sizes,
         ArrayRef<int64_t> order, scf::SCFTilingOptions::LoopType loopType) {
  rewriter.setInsertionPoint(op);
  return tile(rewriter, op, sizes, order, loopType);
}

/// The extent of `tensor` along `dim` where it is a constant: from its type,
/// or from the constant size of the slice it is (through the slices and
/// dimensions that dropping unit dimensions and peeling leave around a
/// square whose type is dynamic).
static std::optional<int64_t> constantExtent(Value tensor, int64_t dim) {
  auto type = cast<ShapedType>(tensor.getType());
  if (!type.isDynamicDim(dim))
    return type.getDimSize(dim);
  // The slice's size of result dimension `dim` (a rank-reducing slice
  // drops some of its sizes).
  llvm::SmallBitVector dropped;
  SmallVector<OpFoldResult> sizes;
  if (auto slice = tensor.getDefiningOp<tensor::ExtractSliceOp>()) {
    dropped = slice.getDroppedDims();
    sizes = slice.getMixedSizes();
  } else if (auto view = tensor.getDefiningOp<memref::SubViewOp>()) {
    dropped = view.getDroppedDims();
    sizes = view.getMixedSizes();
  } else {
    return std::nullopt;
  }
  int64_t position = 0;
  for (int64_t result = -1; position < int64_t(sizes.size()); ++position)
    if (!dropped.test(position) && ++result == dim)
      break;
  if (position == int64_t(sizes.size()))
    return std::nullopt;
  OpFoldResult size = sizes[position];
  if (std::optional<int64_t> constant = getConstantIntValue(size))
    return constant;
  auto value = dyn_cast<Value>(size);
  if (!value)
    return std::nullopt;
  if (auto apply = value.getDefiningOp<affine::AffineApplyOp>())
    if (apply.getAffineMap().isSingleConstant())
      return apply.getAffineMap().getSingleConstantResult();
  if (auto dimOp = value.getDefiningOp<tensor::DimOp>())
    if (std::optional<int64_t> index = dimOp.getConstantIndex())
      return constantExtent(dimOp.getSource(), *index);
  if (auto dimOp = value.getDefiningOp<memref::DimOp>())
    if (std::optional<int64_t> index = dimOp.getConstantIndex())
      return constantExtent(dimOp.getSource(), *index);
  return std::nullopt;
}

/// The columns of the square whose rows are `rows` (vectors of
/// `squareType`'s side). A side that is a power of two is transposed in
/// log2(side) rounds of two-input shuffles of rows: round `bit` swaps, in
/// each pair of rows `bit` apart, the elements of the first whose column
/// has that bit with those of the second whose column lacks it (a
/// transposition swaps the bits of row and column, a round one of them).
/// Each shuffle is one instruction where the target permutes across two
/// registers (x86's unpcklpd, vpermt2pd, vshuff64x2; AArch64's trn, zip):
/// 24 for 8 x 8 doubles, where a vector.transpose, lowered as one shuffle
/// of all 64 elements, left LLVM over 100, most of them reloads of index
/// vectors it had no registers for. Other sides take the vector.transpose.
static SmallVector<Value> transposeRows(OpBuilder &builder, Location loc,
                                        ArrayRef<Value> rows,
                                        VectorType squareType) {
  int64_t side = rows.size();
  SmallVector<Value> result(rows);
  if (!llvm::isPowerOf2_64(side)) {
    Value square = arith::ConstantOp::create(builder, loc, squareType,
                                             builder.getZeroAttr(squareType));
    for (auto [position, row] : llvm::enumerate(rows))
      square = vector::InsertOp::create(builder, loc, row, square,
                                        int64_t(position));
    Value transposed = vector::TransposeOp::create(builder, loc, square,
                                                   ArrayRef<int64_t>{1, 0});
    for (int64_t row = 0; row < side; ++row)
      result[row] = vector::ExtractOp::create(builder, loc, transposed, row);
    return result;
  }
  for (int64_t bit = 1; bit < side; bit *= 2) {
    SmallVector<int64_t> first, second;
    for (int64_t column = 0; column < side; ++column) {
      bool set = column & bit;
      first.push_back(set ? side + column - bit : column);
      second.push_back(set ? side + column : column + bit);
    }
    for (int64_t row = 0; row < side; ++row) {
      if (row & bit)
        continue;
      Value upper = result[row], lower = result[row | bit];
      result[row] =
          vector::ShuffleOp::create(builder, loc, upper, lower, first);
      result[row | bit] =
          vector::ShuffleOp::create(builder, loc, upper, lower, second);
    }
  }
  return result;
}

/// The extent of dimension `dim` of `shaped`, a tensor or a buffer.
static Value createDim(OpBuilder &builder, Location loc, Value shaped,
                       int64_t dim) {
  if (isa<RankedTensorType>(shaped.getType()))
    return tensor::DimOp::create(builder, loc, shaped, dim);
  return memref::DimOp::create(builder, loc, shaped, dim);
}

/// Drops the unit dimensions of a square's copy (all but the square's two)
/// and vectorizes it, with masks where its extents are not static.
static LogicalResult vectorizeSquare(RewriterBase &rewriter,
                                     linalg::GenericOp tileOp, Square square,
                                     int64_t lanes) {
  linalg::GenericOp copy = tileOp;
  Value input = copy.getDpsInputs().front();
  Value result = copy.getDpsInits().front();
  if (tileOp.getNumLoops() > 2 && tileOp.hasPureBufferSemantics()) {
    // The square's two dimensions of each buffer, through a rank-reducing
    // view.
    rewriter.setInsertionPoint(tileOp);
    auto isKept = [&](AffineMap map, int64_t position) {
      unsigned dim = map.getDimPosition(position);
      return dim == square.resultLast || dim == square.inputLast;
    };
    AffineMap inputMap =
        tileOp.getMatchingIndexingMap(tileOp.getDpsInputOperand(0));
    AffineMap resultMap =
        tileOp.getMatchingIndexingMap(tileOp.getDpsInitOperand(0));
    for (auto [buffer, map] :
         {std::pair(input, inputMap), std::pair(result, resultMap)}) {
      auto type = cast<MemRefType>(buffer.getType());
      for (int64_t position = 0; position < type.getRank(); ++position)
        if (!isKept(map, position) && type.getDimSize(position) != 1)
          return failure();
    }
    auto squareView = [&](Value buffer, AffineMap map) -> Value {
      auto type = cast<MemRefType>(buffer.getType());
      int64_t rank = type.getRank();
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
      SmallVector<OpFoldResult> sizes =
          memref::getMixedSizes(rewriter, tileOp.getLoc(), buffer);
      SmallVector<int64_t> shape;
      for (int64_t position = 0; position < rank; ++position)
        if (isKept(map, position))
          shape.push_back(type.getDimSize(position));
      auto viewType = memref::SubViewOp::inferRankReducedResultType(
          shape, type, offsets, sizes, strides);
      return memref::SubViewOp::create(rewriter, tileOp.getLoc(),
                                       cast<MemRefType>(viewType), buffer,
                                       offsets, sizes, strides);
    };
    input = squareView(input, inputMap);
    result = squareView(result, resultMap);
  } else if (tileOp.getNumLoops() > 2) {
    linalg::ControlDropUnitDims control;
    control.rankReductionStrategy =
        linalg::ControlDropUnitDims::RankReductionStrategy::ExtractInsertSlice;
    SmallVector<unsigned> droppable;
    for (unsigned dim = 0; dim < tileOp.getNumLoops(); ++dim)
      if (dim != square.resultLast && dim != square.inputLast)
        droppable.push_back(dim);
    control.controlFn = [droppable](Operation *) { return droppable; };
    rewriter.setInsertionPoint(tileOp);
    FailureOr<linalg::DropUnitDimsResult> dropped =
        linalg::dropUnitDims(rewriter, tileOp, control);
    if (failed(dropped))
      return failure();
    rewriter.replaceOp(tileOp, dropped->replacements);
    copy = cast<linalg::GenericOp>(dropped->resultOp.getOperation());
    if (copy.getNumLoops() != 2)
      return failure();
    input = copy.getDpsInputs().front();
    result = copy.getDpsInits().front();
  }
  // The square is built here rather than by linalg::vectorize, which reads
  // the input through a transposing permutation map: once the slices fold
  // into their tensors' indices (after bufferization) no pattern turns
  // such a read of rows far apart into row reads, and it is lowered an
  // element at a time. Here each row of the input is read as it lies (a
  // 1-d transfer along its contiguous dimension), the square transposed in
  // registers, and each row of the result written: 1-d transfers, whose
  // masks stay right when the slices fold into the indices (a 2-d masked
  // transfer through a rank-reducing view gets a mask of the wrong shape
  // from MLIR 22's vector-to-scf).
  auto inputType = cast<ShapedType>(input.getType());
  auto resultType = cast<ShapedType>(result.getType());
  Type element = inputType.getElementType();
  auto squareType = VectorType::get({lanes, lanes}, element);
  auto rowType = VectorType::get({lanes}, element);
  auto maskType = VectorType::get({lanes}, rewriter.getI1Type());
  for (ShapedType type : {inputType, resultType})
    for (int64_t extent : type.getShape())
      if (extent > lanes)
        return failure();
  Location loc = copy.getLoc();
  rewriter.setInsertionPoint(copy);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value padding = arith::ConstantOp::create(rewriter, loc, element,
                                            rewriter.getZeroAttr(element));
  ArrayAttr inBounds = rewriter.getBoolArrayAttr({true});

  // Row `row` of a square cut short by the ends of `tensor`'s extents: the
  // row it reads or writes (row 0, an address inside the tensor, for a row
  // past the end) and the mask of its elements that exist; no mask for a
  // whole square. std::nullopt: a row statically past the end.
  struct Row {
    Value index, mask;
  };
  auto rowOf = [&](Value tensor, std::optional<int64_t> rowCount,
                   std::optional<int64_t> columnCount,
                   int64_t row) -> std::optional<Row> {
    Value index = arith::ConstantIndexOp::create(rewriter, loc, row);
    if (rowCount == lanes && columnCount == lanes)
      return Row{index, Value()};
    if (rowCount && row >= *rowCount)
      return std::nullopt;
    Value columns = columnCount ? arith::ConstantIndexOp::create(rewriter, loc,
                                                                 *columnCount)
                                      .getResult()
                                : createDim(rewriter, loc, tensor, 1);
    if (rowCount)
      return Row{index, vector::CreateMaskOp::create(rewriter, loc, maskType,
                                                     ValueRange{columns})};
    Value rows = createDim(rewriter, loc, tensor, 0);
    Value exists = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ult, index, rows);
    Value count = arith::SelectOp::create(rewriter, loc, exists, columns, zero);
    return Row{arith::SelectOp::create(rewriter, loc, exists, index, zero),
               vector::CreateMaskOp::create(rewriter, loc, maskType,
                                            ValueRange{count})};
  };

  std::optional<int64_t> inputRows = constantExtent(input, 0);
  std::optional<int64_t> inputColumns = constantExtent(input, 1);
  std::optional<int64_t> resultRows = constantExtent(result, 0);
  std::optional<int64_t> resultColumns = constantExtent(result, 1);
  // Rows past the end of the input are zeros.
  Value zeroRow = arith::ConstantOp::create(rewriter, loc, rowType,
                                            rewriter.getZeroAttr(rowType));
  SmallVector<Value> rows(lanes, zeroRow);
  auto identity = AffineMapAttr::get(
      AffineMap::getMinorIdentityMap(2, 1, rewriter.getContext()));
  for (int64_t row = 0; row < lanes; ++row) {
    std::optional<Row> at = rowOf(input, inputRows, inputColumns, row);
    if (!at)
      break;
    rows[row] = vector::TransferReadOp::create(
        rewriter, loc, rowType, input, ValueRange{at->index, zero}, identity,
        padding, at->mask, inBounds);
  }
  // The input and the result have the square's two dimensions in opposite
  // orders (each has its own last).
  SmallVector<Value> columns = transposeRows(rewriter, loc, rows, squareType);
  // (A tensor's rows are written one after the other; a buffer's in
  // place.)
  Value written = result;
  for (int64_t row = 0; row < lanes; ++row) {
    std::optional<Row> at = rowOf(result, resultRows, resultColumns, row);
    if (!at)
      break;
    auto write = vector::TransferWriteOp::create(
        rewriter, loc, columns[row], written, ValueRange{at->index, zero},
        identity, at->mask, inBounds);
    if (write->getNumResults() == 1)
      written = write.getResult();
  }
  if (copy->getNumResults() == 1)
    rewriter.replaceOp(copy, written);
  else
    rewriter.eraseOp(copy);
  return success();
}

/// Marks a square's copy while the loops around it are peeled.
static constexpr llvm::StringLiteral kSquareMarker = "__tl_square";

/// Peels the last, partial square off the loops of the square's two
/// dimensions around `square` (the innermost two, of `lanes` steps), so
/// that all squares but those at the ends of the extents are whole and
/// copied without masks: with sizes, or extents that `lanes` does not
/// divide, every square would be masked. The inner loop is peeled in the
/// outer one's whole steps only, which makes three copies of the square
/// rather than four. Returns the copies.
static SmallVector<linalg::GenericOp>
peelPartialSquares(RewriterBase &rewriter, linalg::GenericOp square,
                   int64_t lanes) {
  auto inner = dyn_cast<scf::ForOp>(square->getParentOp());
  auto outer = inner ? dyn_cast<scf::ForOp>(inner->getParentOp()) : nullptr;
  if (!outer || getConstantIntValue(inner.getStep()) != lanes ||
      getConstantIntValue(outer.getStep()) != lanes)
    return {square};
  square->setAttr(kSquareMarker, rewriter.getUnitAttr());
  for (scf::ForOp loop : {outer, inner}) {
    scf::ForOp partial;
    rewriter.setInsertionPoint(loop);
    (void)scf::peelForLoopAndSimplifyBounds(rewriter, loop, partial);
  }
  // The copies are in `outer` and the partial steps after it.
  SmallVector<linalg::GenericOp> squares;
  for (Operation *op = outer; op; op = op->getNextNode())
    op->walk([&](linalg::GenericOp copy) {
      if (copy->removeAttr(kSquareMarker))
        squares.push_back(copy);
    });
  return squares;
}

namespace {
struct TileTranspositionsPass
    : public tensorlang::impl::TileTranspositionsBase<TileTranspositionsPass> {
  using TileTranspositionsBase::TileTranspositionsBase;

  /// Whether the squares of `copy` go along the result's rows rather than
  /// the input's. Along the input's, each step writes a vector into each of
  /// the square's result rows, walking down the result; where the result's
  /// lines come from memory and are not streamed, each is first read for
  /// ownership, and the core holds few such missing stores in flight, so
  /// the squares go along the result's rows and the misses are the
  /// input's, loads (tl-streaming-stores prefetches the rows for writing).
  /// That is for a result larger than the L2 cache that tl-streaming-stores
  /// does not stream (static: below `streamMinBytes`, or rows that are not
  /// whole lines); of run-time extents, a temporary copied whole, outside
  /// any loop (a block copied inside the tiles' loops is sized for the
  /// caches, a program's variable streams where it can).
  bool goesAlongResultRows(linalg::GenericOp copy) const {
    Value init = copy.getDpsInits().front();
    auto type = cast<ShapedType>(init.getType());
    if (!type.getElementType().isIntOrFloat() ||
        type.getElementTypeBitWidth() % 8 != 0)
      return false;
    if (!type.hasStaticShape())
      return !copy->getParentOfType<LoopLikeOpInterface>() &&
             !isViewOfArgument(init);
    TargetDescription target = tl::getTargetDescription(copy);
    // (A copy shared among threads streams only with x86's sfence.)
    bool streamed = (!parallel || target.x86Sfence) &&
                    hasStreamableRows(type, streamMinBytes);
    int64_t bytes = type.getNumElements() * type.getElementTypeBitWidth() / 8;
    return !streamed && bytes > target.l2CacheBytes;
  }

  void runOnOperation() override {
    if (vectorLanes < 2)
      return;
    SmallVector<std::pair<linalg::LinalgOp, Square>> copies;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (std::optional<Square> square = matchTransposition(op))
        copies.push_back({op, *square});
    });
    IRRewriter rewriter(&getContext());
    for (auto [op, square] : copies)
      if (failed(tileTransposition(rewriter, op, square)))
        return signalPassFailure();
  }

  LogicalResult tileTransposition(RewriterBase &rewriter, linalg::LinalgOp op,
                                  Square square) {
    Location loc = op.getLoc();
    int64_t lanes = vectorLanes;
    linalg::GenericOp generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!generic) {
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::GenericOp> generalized =
          linalg::generalizeNamedOp(rewriter, op);
      if (failed(generalized))
        return emitError(loc, "tl-tile-transpositions: cannot generalize");
      generic = *generalized;
    }
    // The result's dimensions in its order, the square's two innermost:
    // the input's last innermost, so that each input row is read on from
    // where the last square left it, unless the result's rows go first
    // (goesAlongResultRows).
    bool alongResultRows = goesAlongResultRows(generic);
    AffineMap result =
        generic.getMatchingIndexingMap(generic.getDpsInitOperand(0));
    SmallVector<int64_t> order, sizes(generic.getNumLoops(), 1);
    for (AffineExpr expr : result.getResults()) {
      unsigned dim = cast<AffineDimExpr>(expr).getPosition();
      if (dim != square.resultLast && dim != square.inputLast)
        order.push_back(dim);
    }
    if (alongResultRows) {
      order.push_back(square.inputLast);
      order.push_back(square.resultLast);
    } else {
      order.push_back(square.resultLast);
      order.push_back(square.inputLast);
    }
    sizes[square.resultLast] = lanes;
    sizes[square.inputLast] = lanes;

    if (parallel && !generic->getParentOfType<scf::ForallOp>()) {
      SmallVector<int64_t> outer(sizes.size(), 0);
      outer[order.front()] = sizes[order.front()];
      FailureOr<linalg::GenericOp> distributed =
          tileCopy(rewriter, generic, outer, {},
                   scf::SCFTilingOptions::LoopType::ForallOp);
      if (failed(distributed))
        return emitError(loc, "tl-tile-transpositions: distributing over "
                              "threads failed");
      generic = *distributed;
      sizes[order.front()] = 0;
    }
    FailureOr<linalg::GenericOp> tiled = tileCopy(
        rewriter, generic, sizes, order, scf::SCFTilingOptions::LoopType::ForOp);
    if (failed(tiled))
      return emitError(loc, "tl-tile-transpositions: tiling failed");
    // A square the vectorizer rejects stays a correct scalar loop nest,
    // counted and reported rather than failing the compilation.
    bool vectorized = true;
    for (linalg::GenericOp copy : peelPartialSquares(rewriter, *tiled, lanes))
      vectorized &= succeeded(vectorizeSquare(rewriter, copy, square, lanes));
    if (!vectorized) {
      ++numFallbacks;
      if (emitRemarks)
        emitRemark(loc) << "transposition left scalar: vectorizing its "
                           "squares failed";
      return success();
    }
    ++numTiled;
    if (emitRemarks)
      emitRemark(loc) << "transposition copied in squares of " << lanes << "x"
                      << lanes << ": result dimension d" << square.resultLast
                      << " by input dimension d" << square.inputLast
                      << ", along the "
                      << (alongResultRows ? "result's" : "input's") << " rows";
    return success();
  }
};
} // namespace
