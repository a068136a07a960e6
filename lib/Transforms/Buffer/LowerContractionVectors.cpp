//===- LowerContractionVectors.cpp - Register tiles to FMAs ---------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The second half of tl-tile-contractions, on buffers: every
// vector.contract of a register tile becomes one broadcast and FMA per row
// (the outer-product lowering), the tile's transfers become one per row,
// and since those no longer depend on the reduction loop once subviews are
// folded into them, hoisting keeps each row in a register across it.
// Tiles three registers wide are unrolled into pieces one register wide
// first; rows summed over long loops are added to the result after them.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Dialect/TL/IR/TLAttributes.h"
#include "tensorlang/Transforms/Passes.h"
#include "tensorlang/Transforms/TileContractions.h"

#include "../Loops/AffineOffsets.h"
#include "../Loops/NonTemporalStores.h"

#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"
#include "llvm/Support/MathExtras.h"

namespace tensorlang {
#define GEN_PASS_DEF_LOWERCONTRACTIONVECTORS
#include "tensorlang/Transforms/Passes.h.inc"
} // namespace tensorlang

using namespace mlir;

/// Carries each row of a 2-D vector that `loop` carries as a vector of its
/// own, where the loop body only reads it by rows (as the outer-product
/// lowering does). A 2-D vector carried whole is reassembled element by
/// element each iteration once canonicalization turns the chain of row
/// insertions into vector.from_elements: shuffles and spills wherever a row
/// is not a power of two wide (p = 11).
static void splitCarriedTiles(RewriterBase &rewriter, scf::ForOp loop) {
  for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i) {
    BlockArgument carried = loop.getRegionIterArg(i);
    auto type = dyn_cast<VectorType>(carried.getType());
    if (!type || type.getRank() != 2 || type.isScalable())
      continue;
    bool byRows = llvm::all_of(carried.getUsers(), [](Operation *user) {
      auto extract = dyn_cast<vector::ExtractOp>(user);
      return extract && extract.getStaticPosition().size() == 1 &&
             !ShapedType::isDynamic(extract.getStaticPosition()[0]);
    });
    if (!byRows || carried.use_empty())
      continue;
    int64_t numRows = type.getDimSize(0);
    Location loc = loop.getLoc();
    rewriter.setInsertionPoint(loop);
    SmallVector<Value> inits;
    for (int64_t row = 0; row < numRows; ++row)
      inits.push_back(
          vector::ExtractOp::create(rewriter, loc, loop.getInitArgs()[i], row));
    Value yielded = loop.getYieldedValues()[i];
    FailureOr<LoopLikeOpInterface> replaced =
        cast<LoopLikeOpInterface>(loop.getOperation())
            .replaceWithAdditionalYields(
                rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
                [&](OpBuilder &b, Location loc, ArrayRef<BlockArgument>) {
                  SmallVector<Value> rows;
                  for (int64_t row = 0; row < numRows; ++row)
                    rows.push_back(
                        vector::ExtractOp::create(b, loc, yielded, row));
                  return rows;
                });
    if (failed(replaced))
      continue;
    loop = cast<scf::ForOp>(replaced->getOperation());
    carried = loop.getRegionIterArg(i);
    unsigned first = loop.getNumRegionIterArgs() - numRows;
    for (Operation *user : llvm::make_early_inc_range(carried.getUsers())) {
      auto extract = cast<vector::ExtractOp>(user);
      rewriter.replaceOp(extract, loop.getRegionIterArg(
                                      first + extract.getStaticPosition()[0]));
    }
    // The whole tile is no longer needed in the loop: carry it unchanged
    // (canonicalization drops it), and rebuild it from the rows after.
    rewriter.modifyOpInPlace(loop, [&] {
      loop.getYieldedValuesMutable()->drop_front(i).front().set(carried);
    });
    rewriter.setInsertionPointAfter(loop);
    Value tile = loop.getInitArgs()[i];
    for (int64_t row = 0; row < numRows; ++row)
      tile = vector::InsertOp::create(rewriter, loc,
                                      loop.getResult(first + row), tile, row);
    rewriter.replaceAllUsesWith(loop.getResult(i), tile);
  }
}

/// The buffer a memref value is a view of.
static Value rootBuffer(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  return memref;
}

/// Whether `op` is a transfer of the buffer `read` reads that provably
/// touches none of its elements (another piece of a tile several registers
/// wide, another row).
static bool isTransferElsewhere(Operation *op, vector::TransferReadOp read) {
  auto transfer = dyn_cast<VectorTransferOpInterface>(op);
  return transfer && transfer.getBase() == read.getBase() &&
         vector::isDisjointTransferSet(
             transfer, cast<VectorTransferOpInterface>(read.getOperation()),
             /*testDynamicValueUsingBounds=*/true);
}

/// Whether nothing in `loop` other than `read` and `write` may touch the
/// elements they access: nothing else touches their buffer, or only
/// transfers of elements provably elsewhere in it (the other pieces of a
/// tile of several registers' width). Distinct buffers do not alias:
/// allocations, and the arguments of a statement's function, which are
/// distinct variables (read `restrict`, see TLToLinalg).
static bool onlyAccessesOfBuffer(scf::ForOp loop, Value buffer,
                                 vector::TransferReadOp read,
                                 Operation *write) {
  if (!buffer.getDefiningOp<memref::AllocOp>() &&
      !(isa<BlockArgument>(buffer) &&
        isa<FunctionOpInterface>(
            cast<BlockArgument>(buffer).getOwner()->getParentOp())))
    return false;
  WalkResult result = loop.getBody()->walk([&](Operation *op) {
    if (op == read || op == write)
      return WalkResult::advance();
    if (isa<ViewLikeOpInterface>(op) || isMemoryEffectFree(op) ||
        isTransferElsewhere(op, read))
      return WalkResult::advance();
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects && !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::interrupt();
    for (Value operand : op->getOperands())
      if (isa<BaseMemRefType>(operand.getType()) &&
          rootBuffer(operand) == buffer)
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

namespace {
/// The fills whose zeros some tile reads were replaced by (startFromFill):
/// per fill, the boxes of elements those reads covered, as offsets from
/// the fill's (per dimension of the buffer) and sizes.
struct ForwardedFills {
  struct Box {
    SmallVector<int64_t> offsets, sizes;
  };
  llvm::MapVector<linalg::FillOp, SmallVector<Box>> boxes;
};
} // namespace

/// The elements `transfer` spans along each dimension of its buffer: the
/// vector's dimensions where its map (a projected permutation) puts them,
/// one elsewhere.
static SmallVector<int64_t>
transferLengths(VectorTransferOpInterface transfer) {
  SmallVector<int64_t> lengths(transfer.getIndices().size(), 1);
  ArrayRef<int64_t> shape = transfer.getVectorType().getShape();
  for (auto [i, result] :
       llvm::enumerate(transfer.getPermutationMap().getResults()))
    lengths[cast<AffineDimExpr>(result).getPosition()] = shape[i];
  return lengths;
}

/// The box of elements of a view of `read`'s buffer (`offsets`, `sizes`,
/// `strides` along each of the buffer's dimensions) that `read` reads,
/// relative to the view, where all of them are in it: a unit-stride view,
/// and indices at constant distances from its offsets (the pieces of a
/// tile several registers wide read parts of the tile that a fill zeroes).
static std::optional<ForwardedFills::Box>
boxWithinView(ArrayRef<OpFoldResult> offsets, ArrayRef<OpFoldResult> sizes,
              ArrayRef<OpFoldResult> strides, vector::TransferReadOp read) {
  AffineMap map = read.getPermutationMap();
  if (read.getMask() || !map.isProjectedPermutation() ||
      !llvm::all_of(read.getInBoundsValues(), [](bool b) { return b; }))
    return std::nullopt;
  ArrayRef<int64_t> shape = read.getVectorType().getShape();
  if (offsets.size() != read.getIndices().size() ||
      offsets.size() < shape.size())
    return std::nullopt;
  // The map reads the vector's dimensions in order (a tile whose rows and
  // columns are not adjacent in the result, TCCG abcdef-degc-gfab: rows at
  // dimension 3, columns at 5).
  for (unsigned i = 1; i < map.getNumResults(); ++i)
    if (map.getDimPosition(i) <= map.getDimPosition(i - 1))
      return std::nullopt;
  SmallVector<int64_t> readSizes =
      transferLengths(cast<VectorTransferOpInterface>(read.getOperation()));
  ForwardedFills::Box box;
  for (size_t i = 0; i < offsets.size(); ++i) {
    int64_t size = readSizes[i];
    std::optional<int64_t> fillSize = getConstantIntValue(sizes[i]);
    Value index = read.getIndices()[i];
    FailureOr<int64_t> delta = failure();
    std::optional<int64_t> constantIndex = getConstantIntValue(index);
    std::optional<int64_t> constantOffset = getConstantIntValue(offsets[i]);
    if (isEqualConstantIntOrValue(offsets[i], getAsOpFoldResult(index)))
      delta = 0;
    else if (constantIndex && constantOffset)
      delta = *constantIndex - *constantOffset;
    else if (auto offset = dyn_cast<Value>(offsets[i]))
      delta = ValueBoundsConstraintSet::computeConstantDelta(index, offset);
    if (!isConstantIntValue(strides[i], 1) || !fillSize || failed(delta) ||
        *delta < 0 || *delta + size > *fillSize)
      return std::nullopt;
    box.offsets.push_back(*delta);
    box.sizes.push_back(size);
  }
  return box;
}

/// The box of elements of `subview` that `read` reads, relative to the
/// subview (boxWithinView).
static std::optional<ForwardedFills::Box>
boxWithinSubview(memref::SubViewOp subview, vector::TransferReadOp read) {
  if (!subview || subview.getSource() != read.getBase())
    return std::nullopt;
  return boxWithinView(subview.getMixedOffsets(), subview.getMixedSizes(),
                       subview.getMixedStrides(), read);
}

/// The box of elements that `read` reads of what `fill` fills, relative to
/// it: a unit-stride subview of the read's buffer, or the whole buffer (the
/// padded accumulator of a register tile at an edge of the sizes).
static std::optional<ForwardedFills::Box>
boxWithinFill(linalg::FillOp fill, vector::TransferReadOp read) {
  Value filled = fill.getDpsInits().front();
  if (auto subview = filled.getDefiningOp<memref::SubViewOp>())
    return boxWithinSubview(subview, read);
  auto type = dyn_cast<MemRefType>(filled.getType());
  if (filled != read.getBase() || !type || !type.hasStaticShape() ||
      !type.getLayout().isIdentity())
    return std::nullopt;
  Builder builder(fill.getContext());
  SmallVector<OpFoldResult> offsets(type.getRank(), builder.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(type.getRank(), builder.getIndexAttr(1));
  SmallVector<OpFoldResult> sizes;
  for (int64_t size : type.getShape())
    sizes.push_back(builder.getIndexAttr(size));
  return boxWithinView(offsets, sizes, strides, read);
}

/// Whether two boxes of elements overlap.
static bool overlap(const ForwardedFills::Box &a,
                    const ForwardedFills::Box &b) {
  for (size_t i = 0; i < a.offsets.size(); ++i)
    if (a.offsets[i] + a.sizes[i] <= b.offsets[i] ||
        b.offsets[i] + b.sizes[i] <= a.offsets[i])
      return false;
  return true;
}

/// A tile read (hoisted before its loop) of elements that a fill just
/// before wrote, as tl-tile-contractions zeroes each register tile's slice
/// of the result, starts from the fill value in registers instead. Only
/// reads of other buffers may be between them (the tile's other pieces
/// were replaced already). The fill is erased by
/// eraseForwardedFills once the reads replaced cover it: the writes after
/// the loops then write all of its elements, so neither the fill's stores
/// nor the reads' loads are needed, and a result much larger than the
/// caches is only written, never read (TCCG ccsd_t0: 302 MB).
static void startFromFill(RewriterBase &rewriter, vector::TransferReadOp read,
                          ForwardedFills &forwarded) {
  Value buffer = rootBuffer(read.getBase());
  Operation *previous = read->getPrevNode();
  auto isReadOfOtherBuffer = [&](Operation *op) {
    auto other = dyn_cast<vector::TransferReadOp>(op);
    return other && rootBuffer(other.getBase()) != buffer;
  };
  while (previous &&
         (isMemoryEffectFree(previous) || isReadOfOtherBuffer(previous)))
    previous = previous->getPrevNode();
  auto fill = dyn_cast_or_null<linalg::FillOp>(previous);
  Attribute value;
  if (!fill || !fill.hasPureBufferSemantics() ||
      !matchPattern(fill.getInputs().front(), m_Constant(&value)))
    return;
  std::optional<ForwardedFills::Box> box = boxWithinFill(fill, read);
  if (!box)
    return;
  SmallVector<ForwardedFills::Box> &boxes = forwarded.boxes[fill];
  if (llvm::any_of(boxes, [&](const ForwardedFills::Box &other) {
        return overlap(*box, other);
      }))
    return;
  boxes.push_back(*box);
  rewriter.setInsertionPoint(read);
  Value splat = arith::ConstantOp::create(
      rewriter, read.getLoc(),
      DenseElementsAttr::get(read.getVectorType(), value));
  rewriter.replaceOp(read, splat);
}

/// Erases the fills whose elements the tile reads replaced by
/// startFromFill cover (disjoint boxes as many elements as the fill).
static void eraseForwardedFills(RewriterBase &rewriter,
                                ForwardedFills &forwarded) {
  for (auto &[fill, boxes] : forwarded.boxes) {
    int64_t covered = 0;
    for (const ForwardedFills::Box &box : boxes)
      covered += llvm::product_of(box.sizes);
    auto type = cast<MemRefType>(fill.getDpsInits().front().getType());
    if (type.hasStaticShape() && covered == type.getNumElements())
      rewriter.eraseOp(fill);
  }
  forwarded.boxes.clear();
}

/// Keeps a register tile in registers across `loop`: a transfer_read and a
/// transfer_write of the same loop-invariant place, with nothing else in
/// the loop touching that buffer, become a read before the loop, a carried
/// vector and a write after it. Returns whether it hoisted a pair.
static bool hoistTilePair(RewriterBase &rewriter, scf::ForOp &loop,
                          ForwardedFills &forwarded) {
  for (auto read : loop.getBody()->getOps<vector::TransferReadOp>()) {
    if (!loop.isDefinedOutsideOfLoop(read.getBase()) ||
        !llvm::all_of(read.getIndices(), [&](Value index) {
          return loop.isDefinedOutsideOfLoop(index);
        }) ||
        read.getMask())
      continue;
    vector::TransferWriteOp write;
    for (auto candidate : loop.getBody()->getOps<vector::TransferWriteOp>())
      if (candidate.getBase() == read.getBase() &&
          candidate.getIndices() == read.getIndices() &&
          candidate.getVectorType() == read.getVectorType() &&
          candidate.getPermutationMap() == read.getPermutationMap() &&
          candidate.getInBoundsAttr() == read.getInBoundsAttr() &&
          !candidate.getMask() && read->isBeforeInBlock(candidate))
        write = candidate;
    if (!write || !onlyAccessesOfBuffer(loop, rootBuffer(read.getBase()),
                                        read, write))
      continue;
    rewriter.moveOpBefore(read, loop);
    FailureOr<LoopLikeOpInterface> replaced =
        cast<LoopLikeOpInterface>(loop.getOperation())
            .replaceWithAdditionalYields(
                rewriter, read.getResult(),
                /*replaceInitOperandUsesInLoop=*/true,
                [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
                  return SmallVector<Value>{write.getVector()};
                });
    if (failed(replaced))
      return false;
    loop = cast<scf::ForOp>(replaced->getOperation());
    rewriter.moveOpAfter(write, loop);
    rewriter.modifyOpInPlace(write, [&] {
      write.getValueToStoreMutable().assign(loop.getResults().back());
    });
    startFromFill(rewriter, read, forwarded);
    return true;
  }
  return false;
}

/// The pieces a register tile's contraction or transfer is unrolled into:
/// one vector register's width (`lanes`) of the result's columns, where the
/// tile is several registers wide. LLVM widens a vector that is not a power
/// of two wide (24 doubles: three AVX-512 registers) to the next power of
/// two and assembles its loads, stores and loop-carried copies lane by
/// lane; vectors of one register's width are taken as they are.
static std::optional<SmallVector<int64_t>> registerWidePieces(Operation *op,
                                                              int64_t lanes) {
  if (!isa<vector::ContractionOp, vector::TransferReadOp,
           vector::TransferWriteOp>(op))
    return std::nullopt;
  std::optional<SmallVector<int64_t>> shape =
      cast<VectorUnrollOpInterface>(op).getShapeForUnroll();
  if (!shape || shape->empty())
    return std::nullopt;
  // The columns: the last dimension of a transfer's vector, the iteration
  // dimension of the accumulator's last one for a contraction.
  unsigned columns = shape->size() - 1;
  if (auto contract = dyn_cast<vector::ContractionOp>(op)) {
    AffineMap acc = contract.getIndexingMapsArray().back();
    if (acc.getNumResults() == 0)
      return std::nullopt;
    columns = acc.getDimPosition(acc.getNumResults() - 1);
  }
  int64_t width = (*shape)[columns];
  if (width <= lanes || width % lanes != 0 ||
      llvm::isPowerOf2_64(width / lanes))
    return std::nullopt;
  SmallVector<int64_t> pieces = *shape;
  pieces[columns] = lanes;
  return pieces;
}

/// Unrolls register tiles more than one vector register wide into tiles of
/// one register's width of columns (registerWidePieces), which are then
/// hoisted, carried and lowered each on its own.
static LogicalResult unrollToRegisterWidth(func::FuncOp func, int64_t lanes) {
  MLIRContext *context = func.getContext();
  RewritePatternSet patterns(context);
  vector::populateVectorUnrollPatterns(
      patterns, vector::UnrollVectorOptions().setNativeShapeFn(
                    [lanes](Operation *op) {
                      return registerWidePieces(op, lanes);
                    }));
  // The pieces of a read go straight to the pieces of the contraction, and
  // those to the pieces of the write (extract of insert).
  vector::ExtractStridedSliceOp::getCanonicalizationPatterns(patterns,
                                                             context);
  vector::InsertStridedSliceOp::getCanonicalizationPatterns(patterns,
                                                            context);
  if (failed(applyPatternsGreedily(func, std::move(patterns))))
    return failure();
  // The pieces of a tile's read and write compute their indices each: one
  // index per piece lets hoistTilePair pair them.
  IRRewriter rewriter(context);
  DominanceInfo dominance(func);
  eliminateCommonSubExpressions(rewriter, dominance, func);
  return success();
}

/// Cache line size the prefetches of addTileAfterLoop step by.
static constexpr int64_t kCacheLineBytes = 64;

/// Prefetches the lines of `numElements` elements of `base` from `indices`
/// along its contiguous last dimension: one prefetch per line, and, with
/// `lastElementToo`, one of the last element, whose line is another where
/// the run does not start on a line (rows of 311 doubles).
static void prefetchLinesOfRun(RewriterBase &rewriter, Location loc, Value base,
                               SmallVector<Value> indices, int64_t numElements,
                               int64_t elementBytes, bool isWrite,
                               bool lastElementToo) {
  int64_t lineElements = std::max<int64_t>(1, kCacheLineBytes / elementBytes);
  SmallVector<int64_t> offsets;
  for (int64_t offset = 0; offset < numElements; offset += lineElements)
    offsets.push_back(offset);
  if (lastElementToo && (numElements - 1) % lineElements != 0)
    offsets.push_back(numElements - 1);
  Value first = indices.back();
  for (int64_t offset : offsets) {
    if (offset > 0)
      indices.back() = arith::AddIOp::create(
          rewriter, loc, first,
          arith::ConstantIndexOp::create(rewriter, loc, offset));
    memref::PrefetchOp::create(rewriter, loc, base, indices, isWrite,
                               /*localityHint=*/3, /*isDataCache=*/true);
  }
}

/// Reduction loops of at least this many steps give the loads of the
/// tile's elements, issued as prefetches before the loop, the time to
/// complete (a miss to memory: a few hundred cycles); shorter ones (the
/// CFD kernels' p = 11) keep reading the tile before the loop.
static constexpr int64_t kMinStepsToHideTileLoads = 32;

/// Makes a register tile row carried by `loop` (hoisted by hoistTilePair:
/// read before the loop, written after it) start from zeros, with the
/// row's elements read and added after the loop, and prefetched for
/// writing before it. The loads of a tile of a result larger than the
/// caches (read once per depth block of the reduction) then no longer hold
/// up the loop's first FMAs: they complete while it runs (TCCG ccsd6:
/// 16% of the time in those loads).
static void addTileAfterLoop(RewriterBase &rewriter, scf::ForOp loop) {
  std::optional<APInt> steps = loop.getStaticTripCount();
  if (steps && steps->getSExtValue() < kMinStepsToHideTileLoads)
    return;
  DenseMap<Type, Value> zerosOfType;
  for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i) {
    auto read = loop.getInitArgs()[i].getDefiningOp<vector::TransferReadOp>();
    Value result = loop.getResult(i);
    if (!read || !read->hasOneUse() || !result.hasOneUse() || read.getMask() ||
        read.getVectorType().getRank() != 1 ||
        !read.getPermutationMap().isMinorIdentity() ||
        !isa<FloatType>(read.getVectorType().getElementType()) ||
        !isa<MemRefType>(read.getBase().getType()))
      continue;
    auto write = dyn_cast<vector::TransferWriteOp>(*result.getUsers().begin());
    if (!write || write->getBlock() != loop->getBlock() ||
        write.getBase() != read.getBase() ||
        write.getIndices() != read.getIndices() ||
        write.getPermutationMap() != read.getPermutationMap() ||
        write.getInBoundsAttr() != read.getInBoundsAttr() || write.getMask())
      continue;
    // Nothing between the read's old and new places may write the row:
    // there are only the reads and writes of the other rows, and the loop,
    // which must not touch it.
    auto doesNotWrite = [&](Operation &op) {
      return isMemoryEffectFree(&op) ||
             isa<vector::TransferReadOp, memref::PrefetchOp>(op) ||
             isTransferElsewhere(&op, read);
    };
    if (read->getBlock() != loop->getBlock() ||
        !llvm::all_of(llvm::make_range(std::next(read->getIterator()),
                                       loop->getIterator()),
                      doesNotWrite) ||
        !llvm::all_of(llvm::make_range(std::next(loop->getIterator()),
                                       write->getIterator()),
                      doesNotWrite) ||
        !onlyAccessesOfBuffer(loop, rootBuffer(read.getBase()), read, write))
      continue;

    Location loc = read.getLoc();
    VectorType type = read.getVectorType();
    rewriter.setInsertionPoint(loop);
    Value &zeros = zerosOfType[type];
    if (!zeros)
      zeros = arith::ConstantOp::create(rewriter, loc,
                                        rewriter.getZeroAttr(type));
    rewriter.modifyOpInPlace(
        loop, [&] { loop.getInitArgsMutable()[i].assign(zeros); });
    // A tile padded at an edge is summed in a small allocation of its own,
    // in the caches already.
    if (!isa_and_nonnull<memref::AllocOp, memref::AllocaOp>(
            rootBuffer(read.getBase()).getDefiningOp()))
      prefetchLinesOfRun(
          rewriter, loc, read.getBase(), SmallVector<Value>(read.getIndices()),
          type.getNumElements(),
          std::max<int64_t>(1, type.getElementTypeBitWidth() / 8),
          /*isWrite=*/true, /*lastElementToo=*/false);
    rewriter.moveOpBefore(read, write);
    rewriter.setInsertionPoint(write);
    Value sum = arith::AddFOp::create(rewriter, loc, result, read.getResult());
    rewriter.modifyOpInPlace(
        write, [&] { write.getValueToStoreMutable().assign(sum); });
  }
}

/// Strides between one reduction step's reads and the next's from which
/// operands are prefetched: below, the lines are a stream or a short
/// stride, which the hardware prefetchers follow.
static constexpr int64_t kMinPrefetchedStrideBytes = 512;

/// Whether `index` is the induction variable of `loop` plus values the
/// loop does not change (an addi, or an affine.apply whose result grows by
/// one with the variable), so that it moves one for one with the steps.
static bool isStepPlusInvariant(Value index, scf::ForOp loop) {
  Value step = loop.getInductionVar();
  if (index == step)
    return true;
  Operation *sum = index.getDefiningOp();
  if (!isa_and_nonnull<arith::AddIOp, affine::AffineApplyOp>(sum) ||
      llvm::count(sum->getOperands(), step) != 1 ||
      !llvm::all_of(sum->getOperands(), [&](Value operand) {
        return operand == step || loop.isDefinedOutsideOfLoop(operand);
      }))
    return false;
  auto apply = dyn_cast<affine::AffineApplyOp>(sum);
  if (!apply)
    return true;
  AffineMap map = apply.getAffineMap();
  std::optional<AffineExpr> stepExpr =
      tensorlang::getOperandExpr(map, apply.getMapOperands(), step);
  return stepExpr && tensorlang::isOffsetOf(map.getResult(0), *stepExpr, map);
}

/// Position of the one index of `read` that the induction variable of
/// `loop` moves (the variable itself, or a sum with it), if exactly one
/// does and the others do not change within the loop.
static std::optional<unsigned> indexMovedByLoop(vector::TransferReadOp read,
                                                scf::ForOp loop) {
  std::optional<unsigned> moved;
  for (auto [position, index] : llvm::enumerate(read.getIndices())) {
    if (!isStepPlusInvariant(index, loop)) {
      if (!loop.isDefinedOutsideOfLoop(index))
        return std::nullopt;
      continue;
    }
    if (moved)
      return std::nullopt;
    moved = position;
  }
  return moved;
}

namespace {
/// A read of a register tile's reduction loop, a stride apart at each
/// step, that prefetchStridedOperands prefetches.
struct StridedRead {
  vector::TransferReadOp read;
  /// The index that the loop's steps move.
  unsigned moved;
  int64_t elementBytes;
  /// Whether the stride is a size, compared with kMinPrefetchedStrideBytes
  /// at run time (before the loop: the read's buffer is defined outside).
  bool checked;
  /// Whether the read is a vector along its buffer's contiguous last
  /// dimension, in bounds (its run's lines may be prefetched).
  bool alongContiguousLast;
};
} // namespace

/// The reads of `loop` worth prefetching: in place (not the tiler's copies,
/// which are in the caches by construction), moved by the loop one index
/// per step, and a stride apart that the prefetchers do not follow (or a
/// size, checked at run time).
static SmallVector<StridedRead> findStridedReads(scf::ForOp loop) {
  SmallVector<StridedRead> found;
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto read = dyn_cast<vector::TransferReadOp>(op);
    if (!read)
      continue;
    auto type = dyn_cast<MemRefType>(read.getBase().getType());
    std::optional<unsigned> moved = indexMovedByLoop(read, loop);
    SmallVector<int64_t> strides;
    int64_t offset;
    if (!type || !moved || read.getMask() ||
        failed(type.getStridesAndOffset(strides, offset)))
      continue;
    if (isa_and_nonnull<memref::AllocOp, memref::AllocaOp>(
            rootBuffer(read.getBase()).getDefiningOp()))
      continue;
    int64_t elementBytes =
        std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
    int64_t stride = strides[*moved];
    bool dynamic = ShapedType::isDynamic(stride);
    if (!dynamic && stride < kMinPrefetchedStrideBytes / elementBytes)
      continue;
    bool alongContiguousLast = read.getPermutationMap().isMinorIdentity() &&
                               read.getVectorType().getRank() == 1 &&
                               read.getInBoundsValues().front() &&
                               strides.back() == 1 &&
                               *moved != read.getIndices().size() - 1;
    found.push_back({read, *moved, elementBytes,
                     dynamic && loop.isDefinedOutsideOfLoop(read.getBase()),
                     alongContiguousLast});
  }
  return found;
}

/// Whether the stride of `read` (a size) is long enough to prefetch:
/// built before `loop`.
static Value buildIsFarApart(RewriterBase &rewriter, scf::ForOp loop,
                             StridedRead read) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(loop);
  Location loc = read.read.getLoc();
  auto metadata = memref::ExtractStridedMetadataOp::create(rewriter, loc,
                                                           read.read.getBase());
  return arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::sge,
      metadata.getStrides()[read.moved],
      arith::ConstantIndexOp::create(
          rewriter, loc, kMinPrefetchedStrideBytes / read.elementBytes));
}

/// Prefetches the lines of `reads` `distance` steps ahead in `loop`. A
/// loop of a static length clamps the distance at its last step (lines
/// past it are not the loop's: with depth steps a size apart, another
/// row's); the clamp is arithmetic on constants there. A loop whose length
/// is a size prefetches `distance` ahead at every step: its clamp, with the
/// stride a size as well, is a multiplication at each step, which cost
/// more than the lines past the loop (a prefetch does not fault). A read
/// with a condition in `farApart` is prefetched only where it holds.
static void prefetchReads(RewriterBase &rewriter, scf::ForOp loop,
                          ArrayRef<StridedRead> reads, int64_t distance,
                          const DenseMap<Operation *, Value> &farApart) {
  if (reads.empty())
    return;
  Location loc = loop.getLoc();
  Value ahead;
  if (loop.getStaticTripCount()) {
    rewriter.setInsertionPointToStart(loop.getBody());
    Value last = arith::SubIOp::create(rewriter, loc, loop.getUpperBound(),
                                       loop.getStep());
    Value left =
        arith::SubIOp::create(rewriter, loc, last, loop.getInductionVar());
    ahead = arith::MinSIOp::create(
        rewriter, loc, left,
        arith::ConstantIndexOp::create(rewriter, loc, distance));
  } else {
    rewriter.setInsertionPoint(loop);
    ahead = arith::ConstantIndexOp::create(rewriter, loc, distance);
  }
  for (StridedRead strided : reads) {
    vector::TransferReadOp read = strided.read;
    rewriter.setInsertionPoint(read);
    if (Value far = farApart.lookup(read)) {
      auto ifFar = scf::IfOp::create(rewriter, read.getLoc(), far,
                                     /*withElseRegion=*/false);
      rewriter.setInsertionPointToStart(ifFar.thenBlock());
    }
    SmallVector<Value> indices(read.getIndices());
    indices[strided.moved] = arith::AddIOp::create(
        rewriter, read.getLoc(), indices[strided.moved], ahead);
    // A vector along a contiguous last dimension: the lines of its run;
    // any other read, or one that may run past its buffer at an edge (no
    // addresses past it): its first element's line.
    prefetchLinesOfRun(
        rewriter, read.getLoc(), read.getBase(), indices,
        strided.alongContiguousLast ? read.getVectorType().getNumElements() : 1,
        strided.elementBytes, /*isWrite=*/false, /*lastElementToo=*/true);
  }
}

/// Puts `loop` in the then-branch of an `scf.if` on `condition` and a copy
/// of it in the else-branch, and returns the copy (`copies` maps the
/// loop's ops to theirs).
static scf::ForOp versionLoop(RewriterBase &rewriter, scf::ForOp loop,
                              Value condition, IRMapping &copies) {
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  auto branches = scf::IfOp::create(rewriter, loc, loop.getResultTypes(),
                                    condition, /*addThenBlock=*/true,
                                    /*addElseBlock=*/true);
  rewriter.setInsertionPointToStart(branches.elseBlock());
  auto copy = cast<scf::ForOp>(rewriter.clone(*loop, copies));
  scf::YieldOp::create(rewriter, loc, copy.getResults());
  rewriter.replaceAllUsesWith(loop.getResults(), branches.getResults());
  rewriter.moveOpBefore(loop, branches.thenBlock(),
                        branches.thenBlock()->end());
  rewriter.setInsertionPointToEnd(branches.thenBlock());
  scf::YieldOp::create(rewriter, loc, loop.getResults());
  return copy;
}

/// Prefetches, `steps` steps ahead, each operand that a register tile's
/// reduction `loop` reads in place a stride apart at each step: a register
/// tile that broadcasts its rows from `A[a][d][b]` (depth d) reads a line
/// several pages from the last at each step, which no prefetcher follows
/// (TCCG abc-bda-dc: most of its time in those loads). Short loops are
/// left alone: most of their prefetches would be for lines past the loop.
/// A stride that is a size is compared at run time: a short one is a
/// stream or a short stride, and its reads are not prefetched (the
/// prefetches' instructions alone took 5% of sized abcde-efcad-bf). Where
/// one comparison decides every such read, the loop is versioned on it,
/// once per loop rather than at each step: LLVM does not unswitch loops
/// of a register tile's size.
static void prefetchStridedOperands(RewriterBase &rewriter, scf::ForOp loop,
                                    int64_t steps) {
  if (!llvm::any_of(loop.getRegionIterArgs(), [](BlockArgument carried) {
        return isa<VectorType>(carried.getType());
      }))
    return;
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  std::optional<APInt> tripCount = loop.getStaticTripCount();
  int64_t distance;
  if (!step || llvm::MulOverflow(steps, *step, distance) ||
      (tripCount && tripCount->getSExtValue() / 4 < steps))
    return;
  SmallVector<StridedRead> reads = findStridedReads(loop);
  // One comparison per buffer and dimension.
  DenseMap<std::pair<Value, unsigned>, Value> comparisons;
  DenseMap<Operation *, Value> farApart;
  for (StridedRead read : reads) {
    if (!read.checked)
      continue;
    Value &far = comparisons[{read.read.getBase(), read.moved}];
    if (!far)
      far = buildIsFarApart(rewriter, loop, read);
    farApart[read.read] = far;
  }
  if (comparisons.size() != 1) {
    prefetchReads(rewriter, loop, reads, distance, farApart);
    return;
  }
  Value far = comparisons.begin()->second;
  IRMapping copies;
  scf::ForOp unchecked = versionLoop(rewriter, loop, far, copies);
  SmallVector<StridedRead> uncheckedReads;
  for (StridedRead read : reads) {
    if (read.checked)
      continue;
    read.read =
        cast<vector::TransferReadOp>(copies.lookup(read.read.getOperation()));
    uncheckedReads.push_back(read);
  }
  prefetchReads(rewriter, unchecked, uncheckedReads, distance,
                DenseMap<Operation *, Value>());
  prefetchReads(rewriter, loop, reads, distance,
                DenseMap<Operation *, Value>());
}

namespace {
/// A row of a register tile that addTileAfterLoop adds to its result after
/// the reduction loop: the read of the result's row, the sum with the
/// loop's row, and the write back.
struct RowAfterLoop {
  vector::TransferReadOp read;
  arith::AddFOp sum;
  vector::TransferWriteOp write;
  Value row;
};

/// What startTileInFirstDepthBlock needs to stream rows: the options, and
/// the conditions and fences it built, shared by the tiles of a function.
struct FirstDepthBlockStreaming {
  int64_t minBytes;
  bool x86Sfence;
  /// Per result buffer: whether it is large and starts every row on a line
  /// (computed where the buffer is defined).
  DenseMap<Value, Value> alignedLargeBuffers;
  /// The ops before which a fence goes (one per place).
  llvm::SetVector<Operation *> fencesBefore;
};
} // namespace

/// Whether `op` or an op inside it, other than the `ignored` ones, may
/// read or write `root` other than by a prefetch: an operand viewing it,
/// or effects that are not declared.
static bool
mayAccessBuffer(Operation *op, Value root,
                const llvm::SmallPtrSetImpl<Operation *> *ignored = nullptr) {
  WalkResult result = op->walk([&](Operation *inner) {
    if (isa<memref::PrefetchOp, ViewLikeOpInterface>(inner) ||
        (ignored && ignored->contains(inner)))
      return WalkResult::advance();
    if (!isa<MemoryEffectOpInterface>(inner) &&
        !inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::interrupt();
    for (Value operand : inner->getOperands())
      if (isa<BaseMemRefType>(operand.getType()) && rootBuffer(operand) == root)
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Whether the current depth block is the only one: `first` (the
/// conjunction of `iv == start` over the depth blocks' loops, which
/// fillInFirstDepthBlock built) and, for each of those loops, its last
/// step; for a loop peeled into a bulk and a remainder loop after it, the
/// remainder's last step. Null where `first` is not such a conjunction.
static Value buildOnlyDepthBlock(RewriterBase &rewriter, Value first) {
  SmallVector<Value> leaves{first};
  SmallVector<scf::ForOp> loops;
  while (!leaves.empty()) {
    Value leaf = leaves.pop_back_val();
    if (auto conjunction = leaf.getDefiningOp<arith::AndIOp>()) {
      leaves.append({conjunction.getLhs(), conjunction.getRhs()});
      continue;
    }
    auto compare = leaf.getDefiningOp<arith::CmpIOp>();
    scf::ForOp loop =
        compare ? scf::getForInductionVarOwner(compare.getLhs()) : nullptr;
    if (!loop || compare.getPredicate() != arith::CmpIPredicate::eq)
      return nullptr;
    loops.push_back(loop);
  }
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointAfterValue(first);
  Location loc = first.getLoc();
  Value only = first;
  for (scf::ForOp loop : loops) {
    Value end = loop.getUpperBound();
    auto remainder = dyn_cast_or_null<scf::ForOp>(loop->getNextNode());
    if (remainder && remainder.getLowerBound() == end &&
        remainder.getStep() == loop.getStep())
      end = remainder.getUpperBound();
    Value next = arith::AddIOp::create(rewriter, loc, loop.getInductionVar(),
                                       loop.getStep());
    Value last = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sge,
                                       next, end);
    only = arith::AndIOp::create(rewriter, loc, only, last);
  }
  return only;
}

/// Whether `buffer` is large and starts every row on a line
/// (buildStreamableBufferCheck), built once per buffer, right after its
/// definition.
static Value buildAlignedLargeBuffer(RewriterBase &rewriter, Value buffer,
                                     FirstDepthBlockStreaming &streaming) {
  Value &condition = streaming.alignedLargeBuffers[buffer];
  if (condition)
    return condition;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointAfterValue(buffer);
  condition = tensorlang::buildStreamableBufferCheck(
      rewriter, buffer.getLoc(), buffer, streaming.minBytes);
  return condition;
}

/// Where streamed rows of a tile in `op` are fenced: at the end of each
/// iteration of the parallel loop around it (before the threads join),
/// else after the function's top-level op that holds it. Null where a
/// parallel loop could not take the fence (only x86's sfence lets the
/// OpenMP lowering through).
static Operation *fencePlace(Operation *op, bool x86Sfence) {
  Operation *top = op;
  while (top->getParentOp() && !isa<FunctionOpInterface>(top->getParentOp())) {
    top = top->getParentOp();
    if (isa<scf::ForallOp, scf::ParallelOp, affine::AffineParallelOp>(top))
      return x86Sfence ? top->getRegion(0).front().getTerminator() : nullptr;
  }
  return top->getNextNode();
}

namespace {
/// What a `tl.first_depth_block_start` selects: `value` where `first`.
struct FirstDepthBlockStart {
  Value first;
  Value value;
};
} // namespace

/// The condition and value of `start`, a `tl.first_depth_block_start` on
/// buffers (`out = first ? value : out`, both defined outside), or
/// std::nullopt.
static std::optional<FirstDepthBlockStart>
matchFirstDepthBlockStart(linalg::GenericOp start) {
  if (start.getNumDpsInputs() != 0 || start.getNumDpsInits() != 1 ||
      !start.hasPureBufferSemantics())
    return std::nullopt;
  Block &body = start.getRegion().front();
  auto select =
      body.getTerminator()->getOperand(0).getDefiningOp<arith::SelectOp>();
  if (!select || select->getBlock() != &body ||
      select.getFalseValue() != body.getArgument(0))
    return std::nullopt;
  Value first = select.getCondition();
  Value value = select.getTrueValue();
  if (start.getRegion().isAncestor(first.getParentRegion()) ||
      start.getRegion().isAncestor(value.getParentRegion()))
    return std::nullopt;
  return FirstDepthBlockStart{first, value};
}

/// A register tile whose accumulator fillInFirstDepthBlock starts with the
/// fill's value in the first depth block (`start`: a select over the
/// tile's slice of the result) and whose rows addTileAfterLoop adds to
/// the result after the reduction loop: the start is dropped and the rows
/// are added under `scf.if first`, which writes the loop's rows (plus the
/// fill value) without reading the result. Where the depth block is also
/// the only one, the result large and its rows on lines, those writes are
/// non-temporal (with `streaming.minBytes` >= 0): a sized contraction
/// whose depth fits one block then writes its result once, as a fixed one
/// does (TCCG ccsd_t: 302 MB), where it read each line, zeroed it and
/// wrote it back. Returns whether it changed `start`'s tile; it changes
/// nothing where the rows after the start do not cover its slice or
/// something else may touch it.
static bool startTileInFirstDepthBlock(RewriterBase &rewriter,
                                       linalg::GenericOp start,
                                       FirstDepthBlockStreaming &streaming) {
  std::optional<FirstDepthBlockStart> matched =
      matchFirstDepthBlockStart(start);
  auto slice = start.getDpsInits().front().getDefiningOp<memref::SubViewOp>();
  if (!matched || !slice || !slice.getType().hasStaticShape())
    return false;
  Value first = matched->first;
  Value value = matched->value;
  Value buffer = slice.getSource();
  Value root = rootBuffer(buffer);

  // The rows after the start that cover its slice.
  SmallVector<RowAfterLoop> rows;
  SmallVector<ForwardedFills::Box> boxes;
  llvm::SmallPtrSet<Operation *, 32> rowOps;
  int64_t covered = 0, elements = slice.getType().getNumElements();
  Operation *end = nullptr;
  for (Operation *op = start->getNextNode(); op && covered < elements;
       op = op->getNextNode()) {
    auto read = dyn_cast<vector::TransferReadOp>(op);
    if (!read || read.getBase() != buffer)
      continue;
    if (!read->hasOneUse())
      return false;
    auto sum = dyn_cast<arith::AddFOp>(*read->user_begin());
    if (!sum || !sum->hasOneUse() || sum->getBlock() != read->getBlock())
      return false;
    auto write = dyn_cast<vector::TransferWriteOp>(*sum->user_begin());
    if (!write || write.getBase() != buffer || write.getMask() ||
        write.getIndices() != read.getIndices() ||
        write.getPermutationMap() != read.getPermutationMap() ||
        write.getInBoundsAttr() != read.getInBoundsAttr() ||
        write->getBlock() != read->getBlock() || !sum->isBeforeInBlock(write))
      return false;
    std::optional<ForwardedFills::Box> box = boxWithinSubview(slice, read);
    if (!box || llvm::any_of(boxes, [&](const ForwardedFills::Box &other) {
          return overlap(*box, other);
        }))
      return false;
    boxes.push_back(*box);
    covered += llvm::product_of(box->sizes);
    Value row = sum.getLhs() == read.getResult() ? sum.getRhs() : sum.getLhs();
    rows.push_back({read, sum, write, row});
    rowOps.insert(read);
    rowOps.insert(sum);
    rowOps.insert(write);
    if (!end || end->isBeforeInBlock(write))
      end = write;
  }
  if (covered != elements)
    return false;
  // Nothing else between the start and the last row may touch the result;
  // between the first row and the last, only ops without effects that do
  // not use the rows, which move before them.
  Operation *begin = rows.front().read;
  SmallVector<Operation *> interleaved;
  bool inRows = false;
  for (Operation *op = start->getNextNode(); op != end->getNextNode();
       op = op->getNextNode()) {
    if (op == begin)
      inRows = true;
    if (rowOps.contains(op))
      continue;
    if (inRows) {
      if (!isMemoryEffectFree(op) ||
          llvm::any_of(op->getOperands(), [&](Value operand) {
            return rowOps.contains(operand.getDefiningOp());
          }))
        return false;
      interleaved.push_back(op);
    } else if (mayAccessBuffer(op, root)) {
      return false;
    }
  }

  // Streaming: rows a line or more wide along the last dimension, of a
  // result that is an argument of the function.
  auto type = dyn_cast<MemRefType>(buffer.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  auto argument = dyn_cast<BlockArgument>(root);
  bool streams =
      streaming.minBytes >= 0 && type &&
      isa<FloatType>(type.getElementType()) &&
      succeeded(type.getStridesAndOffset(strides, offset)) &&
      strides.back() == 1 && argument &&
      isa<FunctionOpInterface>(argument.getOwner()->getParentOp()) &&
      llvm::all_of(rows, [&](RowAfterLoop entry) {
        VectorType vector = entry.write.getVectorType();
        return vector.getRank() == 1 &&
               entry.write.getPermutationMap().isMinorIdentity() &&
               entry.write.getInBoundsValues().front() &&
               (vector.getNumElements() * vector.getElementTypeBitWidth() / 8) %
                       kCacheLineBytes ==
                   0;
      });
  Operation *fenceBefore =
      streams ? fencePlace(start, streaming.x86Sfence) : nullptr;
  Value only = fenceBefore ? buildOnlyDepthBlock(rewriter, first) : Value();

  Location loc = start.getLoc();
  // The rows' prefetches for writing (addTileAfterLoop) would fetch the
  // lines that streaming writes without reading: they run only where the
  // block does not stream.
  SmallVector<memref::PrefetchOp> prefetches;
  for (Operation *op = start->getNextNode(); op != begin;
       op = op->getNextNode())
    if (auto prefetch = dyn_cast<memref::PrefetchOp>(op);
        prefetch && prefetch.getIsWrite() && prefetch.getMemref() == buffer)
      prefetches.push_back(prefetch);
  // Whether the depth block is the only one and the result is large, its
  // rows on lines and made of whole lines: every tile of a row then
  // streams, its masked tail being empty. A row whose last line ordinary
  // stores write, next to lines that the tiles stream, ran slower than
  // with no streaming at all (TCCG abcdef-dega-gfbc sized).
  auto buildStreamsBlock = [&]() -> Value {
    int64_t lineElements =
        kCacheLineBytes / (type.getElementTypeBitWidth() / 8);
    Value extent =
        memref::DimOp::create(rewriter, loc, buffer, type.getRank() - 1);
    Value wholeLines =
        tensorlang::buildIsMultipleOf(rewriter, loc, extent, lineElements);
    Value aligned = arith::AndIOp::create(
        rewriter, loc, only,
        buildAlignedLargeBuffer(rewriter, buffer, streaming));
    return arith::AndIOp::create(rewriter, loc, aligned, wholeLines);
  };
  if (only && !prefetches.empty()) {
    rewriter.setInsertionPoint(prefetches.back());
    Value streamsBlock = buildStreamsBlock();
    Value fetches = arith::XOrIOp::create(
        rewriter, loc, streamsBlock,
        arith::ConstantIntOp::create(rewriter, loc, 1, /*width=*/1));
    auto ifFetches = scf::IfOp::create(rewriter, loc, TypeRange{}, fetches,
                                       /*withElseRegion=*/false);
    for (memref::PrefetchOp prefetch : prefetches)
      rewriter.moveOpBefore(prefetch, ifFetches.thenBlock()->getTerminator());
  }
  for (Operation *op : interleaved)
    rewriter.moveOpBefore(op, begin);
  rewriter.setInsertionPoint(begin);
  auto ifFirst = scf::IfOp::create(rewriter, loc, TypeRange{}, first,
                                   /*withElseRegion=*/true);
  for (Operation *op = begin, *stop = end->getNextNode(); op != stop;) {
    Operation *next = op->getNextNode();
    rewriter.moveOpBefore(op, ifFirst.elseBlock()->getTerminator());
    op = next;
  }
  rewriter.setInsertionPoint(ifFirst.thenBlock()->getTerminator());
  SmallVector<Value> firstRows;
  for (RowAfterLoop entry : rows) {
    Value sum = entry.row;
    if (!matchPattern(value, m_AnyZeroFloat()))
      sum = arith::AddFOp::create(
          rewriter, loc, sum,
          vector::BroadcastOp::create(rewriter, loc, sum.getType(), value));
    firstRows.push_back(sum);
  }
  auto writeRows = [&](bool nontemporal) {
    for (auto [entry, sum] : llvm::zip_equal(rows, firstRows)) {
      vector::TransferWriteOp write = entry.write;
      if (nontemporal)
        vector::StoreOp::create(rewriter, write.getLoc(), sum, buffer,
                                write.getIndices(), /*nontemporal=*/true,
                                llvm::MaybeAlign(kCacheLineBytes));
      else
        vector::TransferWriteOp::create(
            rewriter, write.getLoc(), sum, buffer, write.getIndices(),
            write.getPermutationMapAttr(), write.getInBoundsAttr());
    }
  };
  if (!only) {
    writeRows(/*nontemporal=*/false);
    rewriter.eraseOp(start);
    return true;
  }
  // Each row starts on a line: its first column is a multiple of a line's
  // elements (the rows themselves start on lines where the buffer does).
  Value stream = buildStreamsBlock();
  llvm::SetVector<Value> columns;
  for (RowAfterLoop entry : rows)
    columns.insert(entry.write.getIndices().back());
  int64_t lineElements = kCacheLineBytes / (type.getElementTypeBitWidth() / 8);
  for (Value column : columns)
    stream = arith::AndIOp::create(
        rewriter, loc, stream,
        tensorlang::buildIsMultipleOf(rewriter, loc, column, lineElements));
  auto ifStream = scf::IfOp::create(rewriter, loc, TypeRange{}, stream,
                                    /*withElseRegion=*/true);
  rewriter.setInsertionPoint(ifStream.thenBlock()->getTerminator());
  writeRows(/*nontemporal=*/true);
  rewriter.setInsertionPoint(ifStream.elseBlock()->getTerminator());
  writeRows(/*nontemporal=*/false);
  streaming.fencesBefore.insert(fenceBefore);
  rewriter.eraseOp(start);
  return true;
}

/// A start of a tile in the first depth block that
/// startTileInFirstDepthBlock leaves (the edges of sized tiles) becomes a
/// fill under `scf.if first`: the select it makes of every element is the
/// identity in the other blocks, where it read and wrote the whole slice
/// for nothing, and in the first it need not read.
static void fillInFirstDepthBlockOnly(RewriterBase &rewriter,
                                      linalg::GenericOp start) {
  std::optional<FirstDepthBlockStart> matched =
      matchFirstDepthBlockStart(start);
  if (!matched)
    return;
  Location loc = start.getLoc();
  rewriter.setInsertionPoint(start);
  auto ifFirst = scf::IfOp::create(rewriter, loc, TypeRange{}, matched->first,
                                   /*withElseRegion=*/false);
  rewriter.setInsertionPoint(ifFirst.thenBlock()->getTerminator());
  linalg::FillOp::create(rewriter, loc, matched->value,
                         start.getDpsInits().front());
  rewriter.eraseOp(start);
}

/// Whether every index of `transfer` is a constant.
static bool hasConstantIndices(VectorTransferOpInterface transfer) {
  return llvm::all_of(transfer.getIndices(), [](Value index) {
    return getConstantIntValue(index).has_value();
  });
}

/// Whether `op` runs exactly where the element at `indices` of `slice` is
/// within it: `op` is directly in `block`, or in the then-region of an
/// `scf.if` there whose condition is that one dynamic size of `slice`
/// exceeds the index along it (VectorToSCF's unrolling of a tile masked
/// along a unit dimension).
static bool runsWhereInSlice(Operation *op, Block *block,
                             memref::SubViewOp slice, ValueRange indices) {
  if (op->getBlock() == block)
    return true;
  auto guard = dyn_cast<scf::IfOp>(op->getParentOp());
  if (!guard || guard->getBlock() != block ||
      op->getParentRegion() != &guard.getThenRegion())
    return false;
  auto compare = guard.getCondition().getDefiningOp<arith::CmpIOp>();
  if (!compare)
    return false;
  Value size, index;
  switch (compare.getPredicate()) {
  case arith::CmpIPredicate::sgt:
  case arith::CmpIPredicate::ugt:
    size = compare.getLhs();
    index = compare.getRhs();
    break;
  case arith::CmpIPredicate::slt:
  case arith::CmpIPredicate::ult:
    size = compare.getRhs();
    index = compare.getLhs();
    break;
  default:
    return false;
  }
  for (auto [sliceSize, sliceIndex] :
       llvm::zip_equal(slice.getMixedSizes(), indices))
    if (dyn_cast<Value>(sliceSize) == size && sliceIndex == index)
      return true;
  return false;
}

/// The start of an edge tile, whose slice of the result has sizes known
/// at run time only (bounded by the register tile), read before the
/// reduction loop and written after it row by row, masked or under
/// `scf.if` per row: in the first depth block its rows' reads take the
/// start's value instead of loading it, and where the rows written cover
/// every element the slice can have, the start is dropped; otherwise it
/// becomes a fill in the first block only (fillInFirstDepthBlockOnly). A
/// sized contraction whose depth fits one block then writes its edges as
/// its bulk, without filling them first (one call to memset per row) and
/// loading back what the fill stored (TCCG ccsd_t at extents one below a
/// multiple of 8). Returns false, changing nothing, where the slice's uses
/// are not such rows.
static bool startEdgeTileInFirstDepthBlock(RewriterBase &rewriter,
                                           linalg::GenericOp start) {
  std::optional<FirstDepthBlockStart> matched =
      matchFirstDepthBlockStart(start);
  auto slice = start.getDpsInits().front().getDefiningOp<memref::SubViewOp>();
  Attribute value;
  if (!matched || !slice || !matchPattern(matched->value, m_Constant(&value)))
    return false;
  Block *block = start->getBlock();
  Value root = rootBuffer(slice.getSource());

  // The rows: transfers of the slice at constant indices after the start,
  // no read of elements that a write before it wrote.
  SmallVector<vector::TransferReadOp> reads;
  SmallVector<vector::TransferWriteOp> writes;
  llvm::SmallPtrSet<Operation *, 32> rows;
  Operation *last = nullptr;
  for (Operation *user : slice->getUsers()) {
    if (user == start || isa<memref::PrefetchOp>(user))
      continue;
    auto transfer = dyn_cast<VectorTransferOpInterface>(user);
    Operation *top = block->findAncestorOpInBlock(*user);
    if (!transfer || transfer.getBase() != slice.getResult() ||
        transfer.getMask() || !hasConstantIndices(transfer) || !top ||
        !start->isBeforeInBlock(top) ||
        !transfer.getPermutationMap().isProjectedPermutation())
      return false;
    if (!runsWhereInSlice(user, block, slice, transfer.getIndices()))
      return false;
    rows.insert(user);
    if (!last || last->isBeforeInBlock(top))
      last = top;
    if (auto read = dyn_cast<vector::TransferReadOp>(user)) {
      // Out-of-bounds elements read the padding, which must be the value
      // the start gives the others.
      Attribute padding;
      if (!matchPattern(read.getPadding(), m_Constant(&padding)) ||
          padding != value)
        return false;
      reads.push_back(read);
      continue;
    }
    writes.push_back(cast<vector::TransferWriteOp>(user));
  }
  if (reads.empty() || writes.empty())
    return false;
  // The box of elements a transfer may access, clipped to `largest`.
  auto boxOf = [](VectorTransferOpInterface transfer,
                  ArrayRef<int64_t> largest) {
    ForwardedFills::Box box;
    for (auto [index, length, bound] : llvm::zip_equal(
             transfer.getIndices(), transferLengths(transfer), largest)) {
      int64_t begin = *getConstantIntValue(index);
      box.offsets.push_back(begin);
      box.sizes.push_back(
          std::max<int64_t>(0, std::min(begin + length, bound) - begin));
    }
    return box;
  };
  SmallVector<int64_t> unbounded(slice.getType().getRank(),
                                 std::numeric_limits<int32_t>::max());
  for (vector::TransferReadOp read : reads) {
    Operation *readTop = block->findAncestorOpInBlock(*read);
    ForwardedFills::Box readBox = boxOf(read, unbounded);
    for (vector::TransferWriteOp write : writes) {
      Operation *writeTop = block->findAncestorOpInBlock(*write);
      if (readTop->isBeforeInBlock(writeTop))
        continue;
      if (writeTop == readTop || overlap(readBox, boxOf(write, unbounded)))
        return false;
    }
  }
  // Nothing but the rows may touch the result up to the last of them.
  for (Operation *op = start->getNextNode(); op != last->getNextNode();
       op = op->getNextNode())
    if (mayAccessBuffer(op, root, &rows))
      return false;

  // Whether the writes cover the largest slice the sizes allow: disjoint
  // boxes, clipped to it, as many elements as it has. A write masked along
  // a dimension writes the part of its box within the slice; a write under
  // its row's guard runs wherever its row is within the slice.
  auto coversSlice = [&]() {
    SmallVector<int64_t> largest;
    for (OpFoldResult size : slice.getMixedSizes()) {
      if (std::optional<int64_t> known = getConstantIntValue(size)) {
        largest.push_back(*known);
        continue;
      }
      FailureOr<int64_t> bound = ValueBoundsConstraintSet::computeConstantBound(
          presburger::BoundType::UB, ValueBoundsConstraintSet::Variable(size),
          /*stopCondition=*/nullptr, /*closedUB=*/true);
      if (failed(bound))
        return false;
      largest.push_back(*bound);
    }
    SmallVector<ForwardedFills::Box> boxes;
    int64_t covered = 0;
    for (vector::TransferWriteOp write : writes) {
      ForwardedFills::Box box = boxOf(write, largest);
      if (llvm::any_of(boxes, [&](const ForwardedFills::Box &other) {
            return overlap(box, other);
          }))
        return false;
      covered += llvm::product_of(box.sizes);
      boxes.push_back(box);
    }
    return covered == llvm::product_of(largest);
  };
  bool covers = coversSlice();

  Location loc = start.getLoc();
  DenseMap<VectorType, Value> splats;
  for (vector::TransferReadOp read : reads) {
    Value &splat = splats[read.getVectorType()];
    if (!splat) {
      rewriter.setInsertionPoint(start);
      splat = arith::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(read.getVectorType(), cast<TypedAttr>(value)));
    }
    rewriter.setInsertionPoint(read);
    auto ifFirst = scf::IfOp::create(rewriter, read.getLoc(),
                                     read.getVectorType(), matched->first,
                                     /*withElseRegion=*/true);
    rewriter.setInsertionPointToStart(ifFirst.thenBlock());
    scf::YieldOp::create(rewriter, read.getLoc(), splat);
    rewriter.setInsertionPointToStart(ifFirst.elseBlock());
    auto yield =
        scf::YieldOp::create(rewriter, read.getLoc(), read.getResult());
    rewriter.replaceAllUsesExcept(read.getResult(), ifFirst.getResult(0),
                                  yield);
    rewriter.moveOpBefore(read, yield);
  }
  if (covers)
    rewriter.eraseOp(start);
  else
    fillInFirstDepthBlockOnly(rewriter, start);
  return true;
}

/// A register tile padded at an edge of the sizes is summed in an
/// allocation of one tile (the padded accumulator): its rows are written
/// there from the result, read before the reduction loop, written after
/// it, read again and written to the result. Within each block, a read of
/// such an allocation at constant indices takes the value last written
/// there instead, and an allocation left with writes only is erased:
/// the rows then go from the result to registers and back. (Upstream's
/// vector::transferOpflowOpt does this too, but its queries over every
/// transfer of the function took a sized TCCG program's compilation from
/// 5 s to 22 s.)
static void forwardThroughSmallAllocations(RewriterBase &rewriter,
                                           func::FuncOp func) {
  SmallVector<memref::AllocOp> allocations;
  func.walk([&](memref::AllocOp alloc) {
    if (alloc.getType().hasStaticShape() &&
        alloc.getType().getLayout().isIdentity())
      allocations.push_back(alloc);
  });
  for (memref::AllocOp alloc : allocations) {
    Value buffer = alloc.getResult();
    // Only transfers at constant indices (and deallocations) may use it.
    if (!llvm::all_of(buffer.getUsers(), [&](Operation *user) {
          auto transfer = dyn_cast<VectorTransferOpInterface>(user);
          return isa<memref::DeallocOp>(user) ||
                 (transfer && transfer.getBase() == buffer &&
                  !transfer.getMask() && hasConstantIndices(transfer));
        }))
      continue;
    // Per block, in order, the ops that use the allocation: its transfers,
    // and the ops whose regions hold other uses, which end what is known
    // of it there.
    DenseMap<Block *, SmallVector<Operation *>> usesPerBlock;
    for (Operation *user : buffer.getUsers())
      for (Operation *op = user; op && op != func; op = op->getParentOp())
        usesPerBlock[op->getBlock()].push_back(op);
    for (auto &[block, uses] : usesPerBlock) {
      llvm::sort(uses, [](Operation *a, Operation *b) {
        return a->isBeforeInBlock(b);
      });
      uses.erase(llvm::unique(uses), uses.end());
      SmallVector<vector::TransferWriteOp> written;
      for (Operation *use : uses) {
        if (auto write = dyn_cast<vector::TransferWriteOp>(use)) {
          llvm::erase_if(written, [&](vector::TransferWriteOp other) {
            return !vector::isDisjointTransferSet(
                cast<VectorTransferOpInterface>(other.getOperation()),
                cast<VectorTransferOpInterface>(write.getOperation()),
                /*testDynamicValueUsingBounds=*/false);
          });
          written.push_back(write);
          continue;
        }
        auto read = dyn_cast<vector::TransferReadOp>(use);
        if (!read) {
          written.clear();
          continue;
        }
        // (Out-of-bounds elements of a write are dropped, of a read
        // padded.)
        bool inBounds = llvm::all_of(read.getInBoundsValues(),
                                     [](bool inBounds) { return inBounds; });
        for (vector::TransferWriteOp write : written)
          if (inBounds && write.getIndices() == read.getIndices() &&
              write.getVectorType() == read.getVectorType() &&
              write.getPermutationMap() == read.getPermutationMap() &&
              write.getInBoundsAttr() == read.getInBoundsAttr()) {
            rewriter.replaceOp(read, write.getVector());
            break;
          }
      }
    }
    if (llvm::any_of(buffer.getUsers(), [](Operation *user) {
          return isa<vector::TransferReadOp>(user);
        }))
      continue;
    for (Operation *user : llvm::make_early_inc_range(buffer.getUsers()))
      rewriter.eraseOp(user);
    rewriter.eraseOp(alloc);
  }
}

/// A register tile's rows read as one vector (rows along the contiguous
/// dimension of their operand: TCCG abc-adec-ebd; or a single row) and
/// broadcast lane by lane are loaded one element at a time instead, where
/// the vector was read, each load then folded into its broadcast. A lane's
/// broadcast from a register is a shuffle, on x86 on the port that also
/// runs half the FMAs (Intel's port 5), where a broadcast from memory is a
/// load.
static void broadcastRowsFromMemory(RewriterBase &rewriter, func::FuncOp func) {
  SmallVector<vector::TransferReadOp> reads;
  func.walk([&](vector::TransferReadOp read) {
    auto type = dyn_cast<MemRefType>(read.getBase().getType());
    VectorType vectorType = read.getVectorType();
    if (!type || type.getElementType() != vectorType.getElementType() ||
        vectorType.getRank() != 1 || vectorType.isScalable() ||
        read.getMask() || read.hasOutOfBoundsDim() ||
        !read.getPermutationMap().isMinorIdentity())
      return;
    int64_t lanes = vectorType.getNumElements();
    bool onlyBroadcastLanes =
        !read->use_empty() &&
        llvm::all_of(read->getUsers(), [&](Operation *user) {
          auto extract = dyn_cast<vector::ExtractOp>(user);
          if (!extract || extract.getStaticPosition().size() != 1)
            return false;
          int64_t lane = extract.getStaticPosition()[0];
          return lane >= 0 && lane < lanes && !extract->use_empty() &&
                 llvm::all_of(
                     extract->getUsers(),
                     [](Operation *use) {
                       return isa<vector::BroadcastOp>(use);
                     });
        });
    if (onlyBroadcastLanes)
      reads.push_back(read);
  });
  for (vector::TransferReadOp read : reads) {
    Location loc = read.getLoc();
    rewriter.setInsertionPoint(read);
    for (Operation *user : llvm::make_early_inc_range(read->getUsers())) {
      auto extract = cast<vector::ExtractOp>(user);
      int64_t lane = extract.getStaticPosition()[0];
      SmallVector<Value> indices(read.getIndices());
      if (std::optional<int64_t> first = getConstantIntValue(indices.back()))
        indices.back() =
            arith::ConstantIndexOp::create(rewriter, loc, *first + lane);
      else if (lane != 0)
        indices.back() = arith::AddIOp::create(
            rewriter, loc, indices.back(),
            arith::ConstantIndexOp::create(rewriter, loc, lane));
      Value element =
          memref::LoadOp::create(rewriter, loc, read.getBase(), indices);
      rewriter.replaceOp(extract, element);
    }
    rewriter.eraseOp(read);
  }
}

namespace {
struct LowerContractionVectorsPass
    : public tensorlang::impl::LowerContractionVectorsBase<
          LowerContractionVectorsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    bool hasContractions = func.walk([](vector::ContractionOp) {
                                 return WalkResult::interrupt();
                               }).wasInterrupted();
    if (!hasContractions)
      return;
    // The accumulator tile's read and write no longer depend on the
    // reduction loop once subviews are folded into them: hoisting carries
    // the tile through the loop as one 2-D vector, innermost loops first
    // (upstream's hoistRedundantVectorTransfers gives up on a function
    // argument that a fill's subview also uses).
    if (vectorLanes > 1 && failed(unrollToRegisterWidth(func, vectorLanes)))
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    ForwardedFills forwarded;
    SmallVector<scf::ForOp> innermostFirst;
    func.walk([&](scf::ForOp loop) { innermostFirst.push_back(loop); });
    for (scf::ForOp loop : innermostFirst) {
      // The tile's indices are computed in the loop body, from outer
      // induction variables.
      moveLoopInvariantCode(cast<LoopLikeOpInterface>(loop.getOperation()));
      while (hoistTilePair(rewriter, loop, forwarded)) {
      }
    }
    eraseForwardedFills(rewriter, forwarded);

    MLIRContext *context = &getContext();
    RewritePatternSet lowering(context);
    vector::populateVectorContractLoweringPatterns(
        lowering, vector::VectorContractLowering::OuterProduct);
    vector::populateVectorOuterProductLoweringPatterns(lowering);
    vector::populateVectorTransferPermutationMapLoweringPatterns(lowering);
    vector::populateVectorMultiReductionLoweringPatterns(
        lowering, vector::VectorMultiReductionLowering::InnerParallel);
    vector::populateVectorShapeCastLoweringPatterns(lowering);
    vector::populateVectorTransposeLoweringPatterns(
        lowering, vector::VectorTransposeLowering::Shuffle1D);
    vector::populateVectorBroadcastLoweringPatterns(lowering);
    if (failed(applyPatternsGreedily(func, std::move(lowering))))
      return signalPassFailure();

    SmallVector<scf::ForOp> loops;
    func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      splitCarriedTiles(rewriter, loop);

    // Transfers of register tiles become one per row; the rows then come
    // straight from the carried vectors (extract-of-insert folding).
    RewritePatternSet rows(context);
    populateVectorToSCFConversionPatterns(
        rows, VectorTransferToSCFOptions().enableFullUnroll().setTargetRank(1));
    vector::TransferReadOp::getCanonicalizationPatterns(rows, context);
    vector::TransferWriteOp::getCanonicalizationPatterns(rows, context);
    scf::ForOp::getCanonicalizationPatterns(rows, context);
    if (failed(applyPatternsGreedily(func, std::move(rows))))
      return signalPassFailure();
    // The rows' reads and writes compute their indices each.
    DominanceInfo dominance(func);
    eliminateCommonSubExpressions(rewriter, dominance, func);
    func.walk([&](scf::ForOp loop) { addTileAfterLoop(rewriter, loop); });
    if (prefetchSteps > 0) {
      // Collected first: prefetchStridedOperands may version a loop.
      SmallVector<scf::ForOp> reductionLoops;
      func.walk([&](scf::ForOp loop) { reductionLoops.push_back(loop); });
      for (scf::ForOp loop : reductionLoops)
        prefetchStridedOperands(rewriter, loop, prefetchSteps);
    }
    broadcastRowsFromMemory(rewriter, func);

    SmallVector<linalg::GenericOp> starts;
    func.walk([&](linalg::GenericOp op) {
      if (op->hasAttr(tensorlang::kFirstDepthBlockStartAttrName))
        starts.push_back(op);
    });
    FirstDepthBlockStreaming streaming;
    streaming.minBytes = streamingMinBytes;
    tensorlang::tl::TargetAttr target = tensorlang::tl::getTargetAttr(func);
    streaming.x86Sfence = target && target.getX86Sfence();
    for (linalg::GenericOp start : starts)
      if (!startTileInFirstDepthBlock(rewriter, start, streaming) &&
          !startEdgeTileInFirstDepthBlock(rewriter, start))
        fillInFirstDepthBlockOnly(rewriter, start);
    for (Operation *place : streaming.fencesBefore) {
      rewriter.setInsertionPoint(place);
      tensorlang::createNonTemporalFence(rewriter, place->getLoc(),
                                         streaming.x86Sfence);
    }
    forwardThroughSmallAllocations(rewriter, func);
  }
};
} // namespace
