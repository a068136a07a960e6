//===- GPUMapLoops.cpp - Bufferized linalg to loops mapped to a GPU -------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Batch loops become one kernel each (a block per batch index), and
// contractions of two operands tiled kernels (ContractionKernel.h). Every
// other statement runs one thread per element of its result, the
// reductions summed inside the thread in the program's order: the plainest
// mapping that is right for every statement the language has. upstream's
// gpu-map-parallel-loops puts threadIdx.x on the outermost dimension (a
// stride of a row: uncoalesced) and leaves dimensions past the third
// sequential; collapsing each nest to one row-major dimension first avoids
// both.
//
//===----------------------------------------------------------------------===//

#include "ContractionKernel.h"
#include "TranspositionKernel.h"
#include "tensorlang/Transforms/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/CSE.h"

namespace tensorlang {
#define GEN_PASS_DEF_GPUMAPLOOPS
#include "tensorlang/Transforms/Passes.h.inc"
} // namespace tensorlang

using namespace mlir;

/// Moves the parallel dimensions of `op` first, keeping their order and the
/// reductions' order.
static FailureOr<linalg::GenericOp>
parallelDimensionsFirst(RewriterBase &rewriter, linalg::GenericOp op) {
  SmallVector<unsigned> order;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (auto [dim, iterator] : llvm::enumerate(iterators))
    if (iterator == utils::IteratorType::parallel)
      order.push_back(dim);
  for (auto [dim, iterator] : llvm::enumerate(iterators))
    if (iterator != utils::IteratorType::parallel)
      order.push_back(dim);
  if (llvm::equal(order, llvm::seq<unsigned>(0, order.size())))
    return op;
  return linalg::interchangeGenericOp(rewriter, op, order);
}

/// Puts the ops from `first` up to (not including) `end` in an scf.parallel
/// of one iteration, so that they run as one GPU thread.
static scf::ParallelOp wrapInOneIteration(RewriterBase &rewriter,
                                          Operation *first, Operation *end) {
  Location loc = first->getLoc();
  rewriter.setInsertionPoint(first);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  auto loop = scf::ParallelOp::create(rewriter, loc, ValueRange{zero},
                                      ValueRange{one}, ValueRange{one});
  Operation *terminator = loop.getBody()->getTerminator();
  for (Operation *op = first; op != end;) {
    Operation *next = op->getNextNode();
    rewriter.moveOpBefore(op, terminator);
    op = next;
  }
  return loop;
}

//===----------------------------------------------------------------------===//
// Batch loops: one kernel, one block per batch index
//===----------------------------------------------------------------------===//

/// The value of `map`'s results at `indices`.
static SmallVector<Value> applyIndexingMap(OpBuilder &builder, Location loc,
                                           AffineMap map,
                                           ArrayRef<Value> indices) {
  SmallVector<Value> results;
  for (unsigned result = 0; result < map.getNumResults(); ++result) {
    AffineExpr expr = map.getResult(result);
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      results.push_back(indices[dim.getPosition()]);
      continue;
    }
    results.push_back(affine::AffineApplyOp::create(
        builder, loc, map.getSubMap({result}), indices));
  }
  return results;
}

/// Emits `op`'s region at `indices` (all its loops), with its outputs'
/// current values `accumulators`; returns the values it yields. The inputs
/// that `preloaded` has a value for (by input number) are not loaded.
static SmallVector<Value> emitBody(OpBuilder &builder, linalg::GenericOp op,
                                   ArrayRef<Value> indices,
                                   ValueRange accumulators,
                                   ArrayRef<Value> preloaded = {}) {
  Location loc = op.getLoc();
  Block &body = op.getRegion().front();
  IRMapping mapping;
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value value = input->get();
    if (input->getOperandNumber() < preloaded.size() &&
        preloaded[input->getOperandNumber()])
      value = preloaded[input->getOperandNumber()];
    else if (isa<MemRefType>(value.getType()))
      value = memref::LoadOp::create(
          builder, loc, value,
          applyIndexingMap(builder, loc, op.getMatchingIndexingMap(input),
                           indices));
    mapping.map(op.getMatchingBlockArgument(input), value);
  }
  for (auto [init, accumulator] :
       llvm::zip(op.getDpsInitsMutable(), accumulators))
    mapping.map(op.getMatchingBlockArgument(&init), accumulator);
  for (Operation &nested : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(nested)) {
      mapping.map(index.getResult(), indices[index.getDim()]);
      continue;
    }
    Operation *cloned = builder.clone(nested, mapping);
    // A multiply and the add of its product may become one FMA, as the
    // CPU's vector code computes them: without `contract` the NVPTX
    // backend emits mul.rn and add.rn, which ptxas may not fuse.
    if (auto fastMath = dyn_cast<arith::ArithFastMathInterface>(cloned))
      cloned->setAttr(
          fastMath.getFastMathAttrName(),
          arith::FastMathFlagsAttr::get(
              builder.getContext(), fastMath.getFastMathFlagsAttr().getValue() |
                                        arith::FastMathFlags::contract));
  }
  SmallVector<Value> yielded;
  for (Value value : body.getTerminator()->getOperands())
    yielded.push_back(mapping.lookupOrDefault(value));
  return yielded;
}

/// The parallel loop of `op` whose outputs one thread computes all of,
/// keeping them in registers while it sums: one of static extent 2 to 16
/// that the largest inputs do not depend on, so that each element they
/// load serves that many sums. Only for statements with reductions; ties
/// go to the earlier loop (the last keeps consecutive threads on
/// consecutive elements). None where no loop saves loads.
static std::optional<unsigned> chooseRegisterTile(linalg::GenericOp op) {
  if (op.getNumReductionLoops() == 0)
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  std::optional<unsigned> best;
  int64_t bestSaved = 0;
  for (unsigned loop = 0; loop < op.getNumParallelLoops(); ++loop) {
    if (ShapedType::isDynamic(ranges[loop]) || ranges[loop] < 2 ||
        ranges[loop] > 16)
      continue;
    int64_t saved = 0;
    for (OpOperand *input : op.getDpsInputOperands()) {
      auto type = dyn_cast<MemRefType>(input->get().getType());
      if (type && type.hasStaticShape() &&
          !op.getMatchingIndexingMap(input).isFunctionOfDim(loop))
        saved += type.getNumElements();
    }
    if (saved > bestSaved) {
      best = loop;
      bestSaved = saved;
    }
  }
  return best;
}

/// The bytes of the vectors a register tile loads its elements of a
/// uniformly read input in (ld.shared.v2.f64, v4.f32).
static constexpr int64_t kTileVectorBytes = 16;

/// Per input number of a statement: its staged copy, the register tile's
/// dimension last and padded to whole vectors, as a buffer of vectors
/// along that dimension.
using TileVectorInputs = llvm::SmallDenseMap<unsigned, Value>;

/// The values of `op`'s outputs at `indices` (its loops; the reductions'
/// are any): loaded, or where `initialValues` has one, that.
static SmallVector<Value> loadOutputs(OpBuilder &builder, linalg::GenericOp op,
                                      ArrayRef<Value> initialValues,
                                      ArrayRef<Value> indices) {
  SmallVector<Value> values;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    Value initial =
        initialValues[init.getOperandNumber() - op.getNumDpsInputs()];
    values.push_back(
        initial
            ? initial
            : memref::LoadOp::create(
                  builder, op.getLoc(), init.get(),
                  applyIndexingMap(builder, op.getLoc(),
                                   op.getMatchingIndexingMap(&init), indices)));
  }
  return values;
}

/// Most elements of a statement without reductions that one thread loads
/// before it stores any.
static constexpr int64_t kMaxElementsLoadedAhead = 8;

/// How many elements each thread of `threads` computes of `op`, where it
/// loads them all before it stores any: a statement without reductions of
/// static extents that gives every thread 2 to kMaxElementsLoadedAhead.
/// Else none: one element after the other. K5's staging copy (1331
/// elements, 256 threads) had each thread wait for one load at a time.
static std::optional<int64_t>
getRoundsLoadedAhead(linalg::GenericOp op, Value threads,
                     std::optional<unsigned> tiled) {
  std::optional<int64_t> threadCount = getConstantIntValue(threads);
  if (tiled || op.getNumReductionLoops() != 0 || !threadCount ||
      *threadCount < 1)
    return std::nullopt;
  int64_t count = 1;
  for (int64_t range : op.getStaticLoopRanges()) {
    if (ShapedType::isDynamic(range))
      return std::nullopt;
    count *= range;
  }
  int64_t rounds = llvm::divideCeil(count, *threadCount);
  if (rounds < 2 || rounds > kMaxElementsLoadedAhead)
    return std::nullopt;
  return rounds;
}

/// Emits thread `thread`'s `rounds` elements of `op` (no reductions): the
/// elements thread + r * threads, every value each needs loaded and
/// computed first, then every result stored, so that the loads are in
/// flight together. Where a round has no element for the thread (past
/// the end), it computes its first element again, and stores nothing.
static void emitElementsLoadedAhead(
    OpBuilder &builder, linalg::GenericOp op, Value thread, Value threads,
    int64_t rounds, ArrayRef<Value> initialValues,
    llvm::function_ref<SmallVector<Value>(OpBuilder &, Value)> delinearize) {
  Location loc = op.getLoc();
  int64_t threadCount = *getConstantIntValue(threads);
  int64_t count = 1;
  for (int64_t range : op.getStaticLoopRanges())
    count *= range;
  Value total = arith::ConstantIndexOp::create(builder, loc, count);
  SmallVector<Value> valid;
  SmallVector<SmallVector<Value>> indices, results;
  for (int64_t round = 0; round < rounds; ++round) {
    Value element = arith::AddIOp::create(
        builder, loc, thread,
        arith::ConstantIndexOp::create(builder, loc, round * threadCount));
    Value inRange;
    if ((round + 1) * threadCount > count) {
      inRange = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult,
                                      element, total);
      element = arith::SelectOp::create(builder, loc, inRange, element, thread);
    }
    valid.push_back(inRange);
    indices.push_back(delinearize(builder, element));
    results.push_back(
        emitBody(builder, op, indices.back(),
                 loadOutputs(builder, op, initialValues, indices.back())));
  }
  for (int64_t round = 0; round < rounds; ++round) {
    OpBuilder::InsertionGuard guard(builder);
    if (valid[round]) {
      auto inRange = scf::IfOp::create(builder, loc, valid[round]);
      builder.setInsertionPointToStart(inRange.thenBlock());
    }
    for (OpOperand &init : op.getDpsInitsMutable())
      memref::StoreOp::create(
          builder, loc,
          results[round][init.getOperandNumber() - op.getNumDpsInputs()],
          init.get(),
          applyIndexingMap(builder, loc, op.getMatchingIndexingMap(&init),
                           indices[round]));
  }
}

/// Emits the share of `op` (a generic on buffers, its parallel loops
/// first) that thread `thread` of `threads` computes: the elements i =
/// thread, thread + threads, ... of its parallel loops collapsed row-major,
/// each with its reductions summed in order inside the thread, the
/// outputs loaded once (or, where `initialValues` has one, starting from
/// it) and stored once. With a register tile (`tiled`, a parallel loop),
/// each i stands for all the elements along that loop, summed side by
/// side, and the inputs of `vectorInputs` are loaded a vector of them at a
/// time. Without reductions, a thread's few elements are loaded ahead
/// (emitElementsLoadedAhead).
static void emitPhase(OpBuilder &builder, linalg::GenericOp op, Value thread,
                      Value threads, ArrayRef<Value> initialValues,
                      std::optional<unsigned> tiled,
                      const TileVectorInputs &vectorInputs) {
  Location loc = op.getLoc();
  SmallVector<Range, 4> ranges =
      cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(builder, loc);
  unsigned parallelLoops = op.getNumParallelLoops();
  int64_t tile = tiled ? op.getStaticLoopRanges()[*tiled] : 1;
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  Value count = one;
  SmallVector<OpFoldResult> basis;
  for (unsigned loop = 0; loop < parallelLoops; ++loop) {
    if (loop == tiled)
      continue;
    Value extent =
        getValueOrCreateConstantIndexOp(builder, loc, ranges[loop].size);
    count = arith::MulIOp::create(builder, loc, count, extent);
    basis.push_back(ranges[loop].size);
  }
  // The parallel indices (but the tiled loop's) of element `element`.
  auto delinearize = [&](OpBuilder &nested, Value element) {
    SmallVector<Value> collapsed;
    if (basis.size() == 1) {
      collapsed.push_back(element);
    } else if (basis.size() > 1) {
      auto delinearized = affine::AffineDelinearizeIndexOp::create(
          nested, loc, element, basis, /*hasOuterBound=*/true);
      llvm::append_range(collapsed, delinearized.getResults());
    }
    return collapsed;
  };
  if (std::optional<int64_t> rounds =
          getRoundsLoadedAhead(op, threads, tiled)) {
    emitElementsLoadedAhead(builder, op, thread, threads, *rounds,
                            initialValues, delinearize);
    return;
  }
  auto elements = scf::ForOp::create(builder, loc, thread, count, threads);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(elements.getBody());
  SmallVector<Value> collapsed =
      delinearize(builder, elements.getInductionVar());
  // The parallel indices of each element of the tile.
  SmallVector<SmallVector<Value>> tileIndices;
  for (int64_t position = 0; position < tile; ++position) {
    SmallVector<Value> indices(collapsed);
    if (tiled)
      indices.insert(indices.begin() + *tiled,
                     arith::ConstantIndexOp::create(builder, loc, position));
    tileIndices.push_back(std::move(indices));
  }
  // The outputs' elements do not depend on the reductions.
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  auto pointIndices = [&](ArrayRef<Value> indices) {
    SmallVector<Value> point(indices);
    point.resize(op.getNumLoops(), zero);
    return point;
  };
  unsigned outputs = op.getNumDpsInits();
  SmallVector<Value> accumulators;
  for (ArrayRef<Value> indices : tileIndices)
    llvm::append_range(accumulators, loadOutputs(builder, op, initialValues,
                                                 pointIndices(indices)));
  // Every element of the tile at the reduction indices `reduction`; the
  // inputs of `vectorInputs` loaded a vector of the tile's elements at a
  // time from their padded buffers.
  auto emitTile = [&](OpBuilder &nested, ArrayRef<Value> reduction,
                      ValueRange current) {
    SmallVector<SmallVector<Value>> all;
    for (ArrayRef<Value> indices : tileIndices) {
      all.emplace_back(indices);
      llvm::append_range(all.back(), reduction);
    }
    SmallVector<SmallVector<Value>> preloaded(
        tile, SmallVector<Value>(op.getNumDpsInputs()));
    for (auto [number, vectors] : vectorInputs) {
      int64_t lanes =
          cast<VectorType>(cast<MemRefType>(vectors.getType()).getElementType())
              .getNumElements();
      AffineMap map = op.getMatchingIndexingMap(op.getDpsInputOperand(number));
      for (int64_t first = 0; first < tile; first += lanes) {
        SmallVector<Value> indices =
            applyIndexingMap(nested, loc, map, all[first]);
        indices.back() =
            arith::ConstantIndexOp::create(nested, loc, first / lanes);
        Value vector = memref::LoadOp::create(nested, loc, vectors, indices);
        for (int64_t lane = 0; lane < lanes && first + lane < tile; ++lane)
          preloaded[first + lane][number] =
              vector::ExtractOp::create(nested, loc, vector, lane);
      }
    }
    SmallVector<Value> results;
    for (int64_t position = 0; position < tile; ++position)
      llvm::append_range(results,
                         emitBody(nested, op, all[position],
                                  current.slice(position * outputs, outputs),
                                  preloaded[position]));
    return results;
  };
  SmallVector<Value> results;
  if (parallelLoops == op.getNumLoops()) {
    results = emitTile(builder, {}, accumulators);
  } else {
    SmallVector<Value> lowers, uppers, steps;
    for (unsigned loop = parallelLoops; loop < op.getNumLoops(); ++loop) {
      lowers.push_back(zero);
      uppers.push_back(
          getValueOrCreateConstantIndexOp(builder, loc, ranges[loop].size));
      steps.push_back(one);
    }
    scf::LoopNest nest = scf::buildLoopNest(
        builder, loc, lowers, uppers, steps, accumulators,
        [&](OpBuilder &nested, Location, ValueRange reductionIndices,
            ValueRange iterArgs) -> scf::ValueVector {
          return emitTile(nested, SmallVector<Value>(reductionIndices),
                          iterArgs);
        });
    llvm::append_range(results, nest.results);
  }
  for (auto [position, indices] : llvm::enumerate(tileIndices))
    for (OpOperand &init : op.getDpsInitsMutable())
      memref::StoreOp::create(
          builder, loc,
          results[position * outputs + init.getOperandNumber() -
                  op.getNumDpsInputs()],
          init.get(),
          applyIndexingMap(builder, loc, op.getMatchingIndexingMap(&init),
                           pointIndices(indices)));
}

/// The value `op` fills its one output with, if it is a generalized
/// linalg.fill.
static Value getFillValue(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 0)
    return Value();
  Value input = op.getDpsInputOperand(0)->get();
  auto yield = cast<linalg::YieldOp>(op.getRegion().front().getTerminator());
  if (isa<ShapedType>(input.getType()) || yield.getNumOperands() != 1 ||
      yield.getOperand(0) !=
          op.getMatchingBlockArgument(op.getDpsInputOperand(0)))
    return Value();
  return input;
}

/// The largest distance between the elements consecutive threads of a
/// contraction kernel store for which its result's transposition is
/// folded into it: a page of the GPU's smallest (4 KiB).
static constexpr int64_t kMaxFoldedStoreStrideBytes = 4096;
/// The smallest input view a batch kernel stages in shared memory: what
/// one warp reads at once (smaller views cost a phase and a barrier for a
/// sector or two).
static constexpr int64_t kMinStagedBytes = 256;

/// The fill of `op`'s one output that comes just before `op` (ops without
/// memory effects between), and its value in `value`; null if none.
static Operation *findFillOfOutput(linalg::GenericOp op, Value &value) {
  Value output = op.getDpsInitOperand(0)->get();
  for (Operation *previous = op->getPrevNode(); previous;
       previous = previous->getPrevNode()) {
    if (isMemoryEffectFree(previous))
      continue;
    if (auto fill = dyn_cast<linalg::FillOp>(previous)) {
      if (fill.getOutputs()[0] != output)
        return nullptr;
      value = fill.getInputs()[0];
      return fill;
    }
    auto generic = dyn_cast<linalg::GenericOp>(previous);
    Value filled = generic ? getFillValue(generic) : Value();
    if (!filled || generic.getDpsInitOperand(0)->get() != output)
      return nullptr;
    value = filled;
    return generic;
  }
  return nullptr;
}

/// A buffer of `splits` partial sums of each element of `op`'s output,
/// and after `op` the statement that adds them to the output, in order,
/// and frees the buffer.
static Value addPartialSums(RewriterBase &rewriter, linalg::GenericOp op,
                            int64_t splits) {
  Location loc = op.getLoc();
  Value output = op.getDpsInitOperand(0)->get();
  auto outputType = cast<MemRefType>(output.getType());
  SmallVector<int64_t> shape{splits};
  llvm::append_range(shape, outputType.getShape());
  rewriter.setInsertionPoint(op);
  Value partialSums = memref::AllocOp::create(
      rewriter, loc, MemRefType::get(shape, outputType.getElementType()));
  rewriter.setInsertionPointAfter(op);
  MLIRContext *context = op.getContext();
  unsigned rank = shape.size();
  AffineMap all = AffineMap::getMultiDimIdentityMap(rank, context);
  SmallVector<AffineExpr> elements;
  for (unsigned dim = 1; dim < rank; ++dim)
    elements.push_back(getAffineDimExpr(dim, context));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators[0] = utils::IteratorType::reduction;
  linalg::GenericOp::create(
      rewriter, loc, ValueRange{partialSums}, ValueRange{output},
      ArrayRef<AffineMap>{all, AffineMap::get(rank, 0, elements, context)},
      iterators, [](OpBuilder &builder, Location loc, ValueRange args) {
        Value sum = arith::AddFOp::create(builder, loc, args[1], args[0]);
        linalg::YieldOp::create(builder, loc, sum);
      });
  memref::DeallocOp::create(rewriter, loc, partialSums);
  return partialSums;
}

/// A block's staging buffer of `bytes` bytes in memory space `space`,
/// aligned for 16-byte vectors, and `views` views of it from its start
/// (typed memrefs of identity layout): one buffer seen as the copy writes
/// it and as the statements read it. (Views of bytes, since the NVVM
/// lowering converts memref.load's address spaces but not vector.load's,
/// and has no expand-strided-metadata for subviews of shared memory.)
static Value createStagingBuffer(OpBuilder &builder, Location loc,
                                 int64_t bytes, Attribute space,
                                 ArrayRef<MemRefType> viewTypes,
                                 SmallVectorImpl<Value> &views) {
  Value buffer = memref::AllocOp::create(
      builder, loc,
      MemRefType::get({bytes}, builder.getI8Type(), AffineMap(), space),
      ValueRange{}, builder.getI64IntegerAttr(kTileVectorBytes));
  Value start = arith::ConstantIndexOp::create(builder, loc, 0);
  for (MemRefType type : viewTypes)
    views.push_back(memref::ViewOp::create(builder, loc, type, buffer, start,
                                           ValueRange{}));
  return buffer;
}

/// The buffer `value` is a view of (through view-like ops).
static Value getViewedBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// Whether `op` (a generalized linalg.copy) copies its one input whole.
static bool isWholeCopy(linalg::GenericOp op) {
  return tensorlang::isElementCopy(op) &&
         isa<MemRefType>(op.getDpsInputOperand(0)->get().getType()) &&
         llvm::all_of(op.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isIdentity(); });
}

/// The statements of a block's phases, with fills folded away where the
/// next statement to touch the filled buffer overwrites or accumulates into
/// all of it: bufferization fills accumulators and copies filled buffers;
/// each such phase is a pass over memory and a barrier.
struct Phases {
  SmallVector<linalg::GenericOp> statements;
  /// Per statement, per output: the value it starts from instead of
  /// loading it (a folded fill's), or null.
  SmallVector<SmallVector<Value>> initialValues;

  /// Puts `copies` (staging copies, each a phase of its own) before the
  /// statements, with no initial value (one output each, which a copy
  /// never loads) and no register tile in `tiles` (per statement).
  void prependCopies(ArrayRef<linalg::GenericOp> copies,
                     SmallVectorImpl<std::optional<unsigned>> &tiles) {
    statements.insert(statements.begin(), copies.begin(), copies.end());
    initialValues.insert(initialValues.begin(), copies.size(),
                         SmallVector<Value>{Value()});
    tiles.insert(tiles.begin(), copies.size(), std::nullopt);
  }

  /// Buffers are taken to alias where they are views of one buffer (an
  /// allocation or an argument: the program's variables are distinct).
  void foldFills(RewriterBase &rewriter) {
    auto mayAlias = [](Value a, Value b) {
      return getViewedBuffer(a) == getViewedBuffer(b);
    };
    auto touches = [&](linalg::GenericOp op, Value buffer) {
      return llvm::any_of(op->getOperands(), [&](Value operand) {
        return isa<MemRefType>(operand.getType()) && mayAlias(operand, buffer);
      });
    };
    // A copy of a buffer just filled is a fill.
    for (unsigned i = 0; i < statements.size(); ++i) {
      if (!isWholeCopy(statements[i]))
        continue;
      Value source = statements[i].getDpsInputOperand(0)->get();
      for (unsigned j = i; j-- > 0;) {
        linalg::GenericOp earlier = statements[j];
        Value value = getFillValue(earlier);
        if (value && earlier.getDpsInitOperand(0)->get() == source) {
          rewriter.setInsertionPoint(statements[i]);
          Value target = statements[i].getDpsInitOperand(0)->get();
          auto fill = linalg::FillOp::create(rewriter, statements[i].getLoc(),
                                             value, target);
          FailureOr<linalg::GenericOp> generic =
              linalg::generalizeNamedOp(rewriter, fill);
          if (failed(generic))
            break;
          rewriter.eraseOp(statements[i]);
          statements[i] = *generic;
          break;
        }
        if (llvm::any_of(earlier.getDpsInits(), [&](Value written) {
              return mayAlias(written, source);
            }))
          break;
      }
    }
    // A fill whose buffer the next statement touching it writes whole.
    initialValues.assign(statements.size(), {});
    for (auto [statement, values] : llvm::zip(statements, initialValues))
      values.assign(statement.getNumDpsInits(), Value());
    SmallVector<bool> dead(statements.size(), false);
    for (unsigned i = 0; i < statements.size(); ++i) {
      Value value = getFillValue(statements[i]);
      if (!value)
        continue;
      Value buffer = statements[i].getDpsInitOperand(0)->get();
      for (unsigned j = i + 1; j < statements.size(); ++j) {
        linalg::GenericOp later = statements[j];
        if (!touches(later, buffer))
          continue;
        // It must write the buffer itself, all of it (every output of a
        // generic covers its parallel loops), and read it only as its
        // accumulator.
        std::optional<unsigned> output;
        for (OpOperand &init : later.getDpsInitsMutable())
          if (init.get() == buffer &&
              later.getMatchingIndexingMap(&init).isProjectedPermutation() &&
              later.getMatchingIndexingMap(&init).getNumResults() ==
                  later.getNumParallelLoops())
            output = init.getOperandNumber() - later.getNumDpsInputs();
        bool readElsewhere =
            llvm::any_of(later.getDpsInputs(), [&](Value input) {
              return isa<MemRefType>(input.getType()) &&
                     mayAlias(input, buffer);
            });
        if (output && !readElsewhere) {
          initialValues[j][*output] = value;
          dead[i] = true;
        }
        break;
      }
    }
    for (unsigned i = statements.size(); i-- > 0;)
      if (dead[i]) {
        rewriter.eraseOp(statements[i]);
        statements.erase(statements.begin() + i);
        initialValues.erase(initialValues.begin() + i);
      }
  }
};

/// A buffer allocated before a batch loop that each iteration uses as its
/// own: directly, or through slices at the iteration's batch index.
struct PrivateBuffer {
  memref::AllocOp alloc;
  /// The per-iteration buffer's type: the slice's shape (static).
  MemRefType sliceType;
  /// The uses inside the loop to replace: the slices, or the alloc's own.
  SmallVector<OpOperand *> directUses;
  SmallVector<memref::SubViewOp> slices;
  SmallVector<memref::DeallocOp> deallocs;
};

/// Whether `slice` takes the batch slice of index `batch` along one
/// dimension (offset `batch`, size 1) and everything of the others.
static bool isBatchSlice(memref::SubViewOp slice, Value batch) {
  MemRefType source = slice.getSourceType();
  bool found = false;
  for (auto [dim, offset, size, stride] :
       llvm::enumerate(slice.getMixedOffsets(), slice.getMixedSizes(),
                       slice.getMixedStrides())) {
    if (!isConstantIntValue(stride, 1))
      return false;
    if (auto value = dyn_cast<Value>(offset); value && value == batch) {
      if (found || !isConstantIntValue(size, 1))
        return false;
      found = true;
      continue;
    }
    if (!isConstantIntValue(offset, 0) || source.isDynamicDim(dim) ||
        !isConstantIntValue(size, source.getDimSize(dim)))
      return false;
  }
  return found && slice.getType().getRank() == source.getRank();
}

/// The buffers of `loop` that are private to each iteration, or failure
/// where a buffer is used in a way this mapping does not know.
static FailureOr<SmallVector<PrivateBuffer>>
findPrivateBuffers(scf::ForOp loop) {
  SmallVector<PrivateBuffer> buffers;
  llvm::SetVector<memref::AllocOp> allocs;
  loop.walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      if (auto alloc = operand.getDefiningOp<memref::AllocOp>();
          alloc && !loop->isAncestor(alloc))
        allocs.insert(alloc);
  });
  for (memref::AllocOp alloc : allocs) {
    PrivateBuffer buffer{alloc, MemRefType(), {}, {}, {}};
    bool shared = false;
    for (OpOperand &use : alloc->getUses()) {
      Operation *user = use.getOwner();
      if (auto dealloc = dyn_cast<memref::DeallocOp>(user)) {
        buffer.deallocs.push_back(dealloc);
      } else if (!loop->isAncestor(user)) {
        shared = true; // (another loop's, or the host's: a whole buffer)
      } else if (auto slice = dyn_cast<memref::SubViewOp>(user);
                 slice && isBatchSlice(slice, loop.getInductionVar())) {
        buffer.slices.push_back(slice);
      } else if (isa<linalg::LinalgOp, memref::CopyOp>(user)) {
        buffer.directUses.push_back(&use);
      } else {
        return failure();
      }
    }
    if (shared)
      continue;
    MemRefType type = alloc.getType();
    if (!buffer.directUses.empty() && buffer.slices.empty() &&
        type.hasStaticShape())
      buffer.sliceType =
          MemRefType::get(type.getShape(), type.getElementType());
    else if (buffer.directUses.empty() && !buffer.slices.empty())
      buffer.sliceType = MemRefType::get(
          buffer.slices.front().getType().getShape(), type.getElementType());
    else
      return failure();
    // Every slice's users must take any layout: linalg ops and copies.
    for (memref::SubViewOp slice : buffer.slices)
      for (Operation *user : slice->getUsers())
        if (!isa<linalg::LinalgOp, memref::CopyOp>(user))
          return failure();
    buffers.push_back(std::move(buffer));
  }
  return buffers;
}

/// Whether `loop`'s body has only what mapBatchLoop knows: slices, linalg
/// ops on buffers, copies and pure index arithmetic.
static bool isMappableBatchBody(scf::ForOp loop) {
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (isa<memref::SubViewOp, memref::CopyOp>(op))
      continue;
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      if (!linalgOp.hasPureBufferSemantics())
        return false;
      continue;
    }
    if (op.getNumRegions() == 0 && isPure(&op))
      continue;
    return false;
  }
  return true;
}

/// Whether `a` and `b`, subviews of one buffer, take disjoint ranges of
/// some dimension (static offsets and sizes, unit strides): the CFD
/// gradient's components, g[0] and g[1].
static bool areDisjointSubviews(Value a, Value b) {
  auto first = a.getDefiningOp<memref::SubViewOp>();
  auto second = b.getDefiningOp<memref::SubViewOp>();
  if (!first || !second || first.getSource() != second.getSource())
    return false;
  for (auto [firstOffset, firstSize, firstStride, secondOffset, secondSize,
             secondStride] :
       llvm::zip(first.getMixedOffsets(), first.getMixedSizes(),
                 first.getMixedStrides(), second.getMixedOffsets(),
                 second.getMixedSizes(), second.getMixedStrides())) {
    std::optional<int64_t> o1 = getConstantIntValue(firstOffset),
                           s1 = getConstantIntValue(firstSize),
                           o2 = getConstantIntValue(secondOffset),
                           s2 = getConstantIntValue(secondSize);
    if (isConstantIntValue(firstStride, 1) &&
        isConstantIntValue(secondStride, 1) && o1 && s1 && o2 && s2 &&
        (*o1 + *s1 <= *o2 || *o2 + *s2 <= *o1))
      return true;
  }
  return false;
}

/// Whether iteration i of batch loop `first` and iteration j != i of
/// `second` (same bounds) never touch the same element of the buffers
/// `a` (used in `first`) and `b` (in `second`): distinct buffers (the
/// program's variables and allocations are distinct), or batch slices at
/// the iteration of one view, or of disjoint views of one buffer.
static bool touchOnlyTheirOwnBatch(Value a, scf::ForOp first, Value b,
                                   scf::ForOp second) {
  if (getViewedBuffer(a) != getViewedBuffer(b))
    return true;
  auto sliceA = a.getDefiningOp<memref::SubViewOp>();
  auto sliceB = b.getDefiningOp<memref::SubViewOp>();
  if (!sliceA || !sliceB || !isBatchSlice(sliceA, first.getInductionVar()) ||
      !isBatchSlice(sliceB, second.getInductionVar()))
    return false;
  if (sliceA.getSource() == sliceB.getSource())
    return llvm::equal(sliceA.getMixedOffsets(), sliceB.getMixedOffsets(),
                       [&](OpFoldResult x, OpFoldResult y) {
                         auto vx = dyn_cast<Value>(x), vy = dyn_cast<Value>(y);
                         if (vx == first.getInductionVar())
                           return vy == second.getInductionVar();
                         return x == y;
                       });
  return areDisjointSubviews(sliceA.getSource(), sliceB.getSource());
}

/// The buffers the linalg ops of `loop` read and write.
static void getAccessedBuffers(scf::ForOp loop, SmallVectorImpl<Value> &reads,
                               SmallVectorImpl<Value> &writes) {
  loop.walk([&](linalg::LinalgOp op) {
    for (Value input : op.getDpsInputs())
      if (isa<MemRefType>(input.getType()))
        reads.push_back(input);
    for (Value init : op.getDpsInits()) {
      reads.push_back(init);
      writes.push_back(init);
    }
  });
  loop.walk([&](memref::CopyOp copy) {
    reads.push_back(copy.getSource());
    writes.push_back(copy.getTarget());
  });
}

/// Merges each batch loop into the one before it where they have the
/// same bounds, only pure ops lie between them, and no element one writes
/// is touched by the other in another iteration: one kernel instead of
/// several, each reading the batch's inputs again (the CFD gradient's
/// three components read the same element of u). The second loop's body
/// runs after the first's in each iteration.
static void mergeSiblingBatchLoops(RewriterBase &rewriter, func::FuncOp func) {
  SmallVector<scf::ForOp> loops;
  func.walk([&](scf::ForOp loop) {
    if (loop->hasAttr(tensorlang::kBatchLoopAttrName) &&
        isMappableBatchBody(loop))
      loops.push_back(loop);
  });
  bool merged = false;
  for (unsigned index = 1; index < loops.size(); ++index) {
    scf::ForOp first = loops[index - 1], second = loops[index];
    if (first->getBlock() != second->getBlock() ||
        first.getLowerBound() != second.getLowerBound() ||
        first.getUpperBound() != second.getUpperBound() ||
        first.getStep() != second.getStep() || first.getNumResults() != 0 ||
        second.getNumResults() != 0)
      continue;
    SmallVector<Operation *> between;
    bool pure = true;
    for (Operation *op = first->getNextNode(); op && op != second;
         op = op->getNextNode()) {
      if (op == first->getBlock()->getTerminator() || !isPure(op))
        pure = false;
      between.push_back(op);
    }
    if (!pure || !second->isBeforeInBlock(first->getBlock()->getTerminator()))
      continue;
    SmallVector<Value> firstReads, firstWrites, secondReads, secondWrites;
    getAccessedBuffers(first, firstReads, firstWrites);
    getAccessedBuffers(second, secondReads, secondWrites);
    auto independent = [&](ArrayRef<Value> ofFirst, ArrayRef<Value> ofSecond) {
      return llvm::all_of(ofFirst, [&](Value a) {
        return llvm::all_of(ofSecond, [&](Value b) {
          return touchOnlyTheirOwnBatch(a, first, b, second);
        });
      });
    };
    if (!independent(firstWrites, secondReads) ||
        !independent(firstReads, secondWrites))
      continue;
    // The ops between (views of the second's buffers) go before the first.
    for (Operation *op : between)
      rewriter.moveOpBefore(op, first);
    Block *body = second.getBody();
    rewriter.eraseOp(body->getTerminator());
    Operation *firstStatement = nullptr;
    for (Operation &op : first.getBody()->without_terminator())
      if (!isPure(&op)) {
        firstStatement = &op;
        break;
      }
    SmallVector<Operation *> views;
    for (Operation &op : body->getOperations())
      if (isPure(&op))
        views.push_back(&op);
    rewriter.inlineBlockBefore(body, first.getBody()->getTerminator(),
                               ValueRange{first.getInductionVar()});
    // The second's views before every statement, as in one loop of
    // tl-fuse-batches: the kernel's staging phases come first and read
    // them.
    if (firstStatement)
      for (Operation *view : views)
        rewriter.moveOpBefore(view, firstStatement);
    rewriter.eraseOp(second);
    loops[index] = first;
    merged = true;
  }
  // The loops' views of one batch slice become one (the kernel stages a
  // view once, for every statement that reads it).
  if (merged) {
    DominanceInfo dominance;
    eliminateCommonSubExpressions(rewriter, dominance, func);
  }
}

namespace {
struct GPUMapLoopsPass
    : public tensorlang::impl::GPUMapLoopsBase<GPUMapLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (threadsPerBlock < 1 || threadsPerBlock > 1024) {
      func.emitError("tl-gpu-map-loops: threads-per-block must be from 1 "
                     "to 1024");
      return signalPassFailure();
    }
    if (contractionDepthStep < 16 || contractionDepthStep > 256 ||
        contractionDepthStep % 16 != 0) {
      func.emitError("tl-gpu-map-loops: contraction-depth-step must be a "
                     "multiple of 16 from 16 to 256");
      return signalPassFailure();
    }
    if (f64Mma != "m8n8k4" && f64Mma != "m16n8k4" && f64Mma != "m16n8k8" &&
        f64Mma != "m16n8k16" && f64Mma != "auto") {
      func.emitError("tl-gpu-map-loops: f64-mma must be auto, m8n8k4, m16n8k4, "
                     "m16n8k8 or m16n8k16");
      return signalPassFailure();
    }
    if (contractionRegisterTile < 1 || contractionRegisterTile > 8) {
      func.emitError("tl-gpu-map-loops: contraction-register-tile must be "
                     "from 1 to 8");
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    mergeSiblingBatchLoops(rewriter, func);
    SmallVector<scf::ForOp> batchLoops;
    func.walk([&](scf::ForOp loop) {
      if (loop->hasAttr(tensorlang::kBatchLoopAttrName))
        batchLoops.push_back(loop);
    });
    for (scf::ForOp loop : batchLoops) {
      FailureOr<bool> mapped = mapBatchLoop(rewriter, loop);
      if (failed(mapped))
        return signalPassFailure();
      if (!*mapped)
        // (Its statements are mapped one kernel each, inside a host loop.)
        loop->emitRemark("tl-gpu-map-loops: batch loop not mapped as one "
                         "kernel");
    }
    SmallVector<memref::CopyOp> copies;
    func.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    }

    if (contractionKernels && failed(mapContractions(rewriter, func)))
      return signalPassFailure();
    if (contractionKernels)
      mapTranspositions(rewriter, func);
    SmallVector<linalg::LinalgOp> linalgOps;
    func.walk([&](linalg::LinalgOp op) { linalgOps.push_back(op); });
    SmallVector<scf::ParallelOp> nests;
    for (linalg::LinalgOp op : linalgOps) {
      if (!op.hasPureBufferSemantics()) {
        op->emitError("tl-gpu-map-loops: expected bufferized linalg");
        return signalPassFailure();
      }
      if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation())) {
        FailureOr<linalg::GenericOp> reordered =
            parallelDimensionsFirst(rewriter, generic);
        if (failed(reordered)) {
          op->emitError("tl-gpu-map-loops: cannot reorder the loops");
          return signalPassFailure();
        }
        op = *reordered;
      }
      bool hasParallelLoop = op.getNumParallelLoops() > 0;
      Operation *previous = op->getPrevNode();
      Block *block = op->getBlock();
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::LinalgLoops> loops =
          linalg::linalgOpToParallelLoops(rewriter, op);
      if (failed(loops)) {
        op->emitError("tl-gpu-map-loops: cannot lower to loops");
        return signalPassFailure();
      }
      Operation *first = previous ? previous->getNextNode() : &block->front();
      Operation *end = op.getOperation();
      if (hasParallelLoop) {
        for (Operation *generated = first; generated != end;
             generated = generated->getNextNode())
          if (auto nest = dyn_cast<scf::ParallelOp>(generated))
            nests.push_back(nest);
      } else if (first != end) {
        nests.push_back(wrapInOneIteration(rewriter, first, end));
      }
      rewriter.eraseOp(op);
    }

    MLIRContext *context = &getContext();
    auto mapping = [&](gpu::Processor processor) {
      return tensorlang::getProcessorMapping(context, processor);
    };
    if (emitRemarks && !nests.empty())
      emitRemark(func.getLoc())
          << "GPU: " << nests.size()
          << " statement(s) one thread per element (no batch loop)";
    for (scf::ParallelOp nest : nests) {
      // Row-major: the last dimension varies fastest along the threads.
      unsigned rank = nest.getNumLoops();
      if (rank > 1) {
        std::vector<unsigned> all(rank);
        std::iota(all.begin(), all.end(), 0u);
        rewriter.setInsertionPoint(nest);
        Block *block = nest->getBlock();
        Operation *after = nest->getNextNode();
        collapseParallelLoops(rewriter, nest, {all});
        auto collapsed = dyn_cast_or_null<scf::ParallelOp>(
            after ? after->getPrevNode() : &block->back());
        if (!collapsed) {
          func.emitError("tl-gpu-map-loops: the collapsed loop is not where "
                         "it was");
          return signalPassFailure();
        }
        nest = collapsed;
      }
      // Fewer threads for fewer elements. The last block's threads past the
      // end are masked (noMinMaxBounds): the block size stays a constant,
      // which the launch needs.
      int64_t blockSize = threadsPerBlock;
      std::optional<int64_t> lower =
          getConstantIntValue(nest.getLowerBound()[0]);
      std::optional<int64_t> upper =
          getConstantIntValue(nest.getUpperBound()[0]);
      std::optional<int64_t> step = getConstantIntValue(nest.getStep()[0]);
      if (lower && upper && step && *step > 0)
        blockSize = std::clamp<int64_t>((*upper - *lower + *step - 1) / *step,
                                        1, threadsPerBlock);
      auto [blocks, threads] =
          scf::tileParallelLoop(nest, {blockSize}, /*noMinMaxBounds=*/true);
      if (failed(
              gpu::setMappingAttr(blocks, {mapping(gpu::Processor::BlockX)})) ||
          failed(gpu::setMappingAttr(threads,
                                     {mapping(gpu::Processor::ThreadX)}))) {
        blocks->emitError("tl-gpu-map-loops: cannot map the loops");
        return signalPassFailure();
      }
    }
  }

  /// Makes each contraction in `func` that has a plan a tiled kernel of
  /// its own (ContractionKernel.h): a transposition of its result folded
  /// into it, inputs it would read strided copied into the order it loads
  /// them (copies mapped one thread per element, as any statement), and a
  /// fill of its output just before it folded (the kernel stores every
  /// element once).
  LogicalResult mapContractions(RewriterBase &rewriter, func::FuncOp func) {
    auto plan = [&](linalg::GenericOp op) {
      return tensorlang::planGPUContraction(
          op, contractionRegisterTile, contractionDepthStep, tensorCores,
          f64Mma, contractionBlocksPerSM, contractionAsyncStages,
          contractionSharedMemoryBytes, contractionTileGroupRows,
          contractionDepthContiguousTiles);
    };
    // (Collected first: the rewrites erase other generics, never these.)
    SmallVector<linalg::GenericOp> contractions;
    func.walk([&](linalg::GenericOp op) {
      if (op.hasPureBufferSemantics() && plan(op))
        contractions.push_back(op);
    });
    for (linalg::GenericOp generic : contractions) {
      // Folded where the kernel's consecutive threads then store less
      // than a page apart (abcde-ecbfa-fd stored 9 MB apart: 2.2x slower
      // than with a transposition of its own).
      Value result = generic.getDpsInitOperand(0)->get();
      generic = tensorlang::foldOutputTransposition(
          rewriter, generic, [&](linalg::GenericOp folded) {
            std::optional<tensorlang::GPUContractionPlan> foldedPlan =
                plan(folded);
            if (!foldedPlan)
              return false;
            OpOperand *output = folded.getDpsInitOperand(0);
            auto type = cast<MemRefType>(output->get().getType());
            std::optional<unsigned> position =
                folded.getMatchingIndexingMap(output).getResultPosition(
                    getAffineDimExpr(foldedPlan->columnLoops.back(),
                                     folded.getContext()));
            SmallVector<int64_t> strides;
            int64_t offset;
            if (!position || failed(type.getStridesAndOffset(strides, offset)))
              return false;
            int64_t stride = strides[*position];
            return stride == 1 || (!ShapedType::isDynamic(stride) &&
                                   stride * type.getElementTypeBitWidth() / 8 <=
                                       kMaxFoldedStoreStrideBytes);
          });
      FailureOr<linalg::GenericOp> reordered =
          parallelDimensionsFirst(rewriter, generic);
      if (failed(reordered))
        continue;
      std::optional<tensorlang::GPUContractionPlan> contraction =
          plan(*reordered);
      if (!contraction)
        continue;
      Value initialValue;
      if (contraction->depthSplits == 1)
        if (Operation *fill = findFillOfOutput(*reordered, initialValue))
          rewriter.eraseOp(fill);
      bool copied = tensorlang::copyInputsIntoLoadOrder(rewriter, *reordered,
                                                        *contraction);
      if (copied && !(contraction = plan(*reordered)))
        return reordered->emitError(
            "tl-gpu-map-loops: no plan for a contraction once its inputs "
            "were copied");
      if (emitRemarks)
        reordered->emitRemark("GPU contraction kernel: ")
            << contraction->describe()
            << (reordered->getDpsInitOperand(0)->get() != result
                    ? "; the result's transposition folded"
                    : "")
            << (copied ? "; inputs copied into the order loaded" : "")
            << (initialValue ? "; the output's fill folded" : "");
      Value partialSums;
      if (contraction->depthSplits > 1)
        partialSums =
            addPartialSums(rewriter, *reordered, contraction->depthSplits);
      tensorlang::emitGPUContractionKernel(rewriter, *reordered, *contraction,
                                           barriers, initialValue, partialSums);
    }
    return success();
  }

  /// Makes each transposition in `func` that has a plan a tiled kernel of
  /// its own (TranspositionKernel.h).
  void mapTranspositions(RewriterBase &rewriter, func::FuncOp func) {
    SmallVector<std::pair<linalg::GenericOp, tensorlang::GPUTranspositionPlan>>
        transpositions;
    func.walk([&](linalg::GenericOp op) {
      if (!op.hasPureBufferSemantics())
        return;
      if (std::optional<tensorlang::GPUTranspositionPlan> plan =
              tensorlang::planGPUTransposition(op))
        transpositions.emplace_back(op, *plan);
    });
    for (auto &[op, plan] : transpositions) {
      if (emitRemarks)
        op->emitRemark("GPU transposition kernel: ") << plan.describe();
      tensorlang::emitGPUTranspositionKernel(rewriter, op, plan, barriers);
    }
  }

  /// Copies each view of an input that a batch kernel's statement would
  /// read across its rows (the statement's consecutive threads step along
  /// another of its loops than the view's stride-1 one) into a buffer of
  /// the block's, at most `budget` bytes in all, by a first phase of its
  /// own (coalesced); the statements then read the copy. K5's first
  /// contraction, along the stride-1 index of u, read 8 bytes of every
  /// 32-byte sector (ncu on an H100: L1 86% busy). Returns the bytes.
  int64_t stageStridedInputs(RewriterBase &rewriter, scf::ParallelOp blockLoop,
                             Phases &phases,
                             SmallVectorImpl<std::optional<unsigned>> &tiles,
                             int64_t budget, SmallVectorImpl<Value> &staged) {
    Block *blockBody = blockLoop.getBody();
    MLIRContext *context = blockLoop.getContext();
    int64_t stagedBytes = 0;
    // Each staged view and its copy, in the order found.
    // Where the view is contiguous, the copy runs along one dimension
    // (`flat`, a view of the copy's bytes): each thread's loads are then
    // one address apart by constants, not an index delinearized each.
    struct StagedView {
      Value view, copy, flat;
    };
    SmallVector<StagedView> order;
    for (auto [statement, tiled] : llvm::zip(phases.statements, tiles)) {
      // The loop consecutive threads step along: the last parallel one
      // that is not register-tiled.
      std::optional<unsigned> threadLoop;
      for (unsigned loop = 0; loop < statement.getNumParallelLoops(); ++loop)
        if (loop != tiled)
          threadLoop = loop;
      if (!threadLoop)
        continue;
      for (OpOperand *input : statement.getDpsInputOperands()) {
        auto view = input->get().getDefiningOp<memref::SubViewOp>();
        auto type = dyn_cast<MemRefType>(input->get().getType());
        if (!view || view->getBlock() != blockBody || !type ||
            !type.hasStaticShape() ||
            llvm::any_of(order, [&](const StagedView &staged) {
              return staged.view == view.getResult();
            }))
          continue;
        AffineMap map = statement.getMatchingIndexingMap(input);
        std::optional<unsigned> innermost = tensorlang::getInnermostLoop(map);
        if (!innermost || *innermost == *threadLoop)
          continue;
        // Only read, by the statements of this block.
        bool onlyRead = llvm::all_of(view->getUses(), [&](OpOperand &use) {
          auto reader = dyn_cast<linalg::GenericOp>(use.getOwner());
          return reader && reader.isDpsInput(&use);
        });
        int64_t bytes =
            type.getNumElements() * type.getElementTypeBitWidth() / 8;
        if (!onlyRead || bytes < kMinStagedBytes ||
            bytes > budget - stagedBytes)
          continue;
        stagedBytes += bytes;
        rewriter.setInsertionPointToStart(blockBody);
        Attribute space = barriers ? gpu::AddressSpaceAttr::get(
                                         context, gpu::AddressSpace::Workgroup)
                                   : Attribute();
        // (tl-gpu-device-memory makes it a shared-memory global; on the
        // CPU a buffer per block, which the caller frees at its end.)
        MemRefType copyType = MemRefType::get(
            type.getShape(), type.getElementType(), AffineMap(), space);
        if (!memref::isStaticShapeAndContiguousRowMajor(type)) {
          Value copy =
              memref::AllocOp::create(rewriter, view.getLoc(), copyType);
          staged.push_back(copy);
          order.push_back({view.getResult(), copy, Value()});
          continue;
        }
        SmallVector<Value> views;
        staged.push_back(createStagingBuffer(
            rewriter, view.getLoc(), bytes, space,
            {copyType,
             MemRefType::get({type.getNumElements()}, type.getElementType(),
                             AffineMap(), space)},
            views));
        order.push_back({view.getResult(), views[0], views[1]});
      }
    }
    if (order.empty())
      return 0;
    // The copies first, each a phase of its own.
    SmallVector<linalg::GenericOp> copyPhases;
    for (auto [view, copy, flat] : order) {
      rewriter.setInsertionPoint(phases.statements.front());
      Value source = view, target = copy;
      if (flat) {
        auto type = cast<MemRefType>(view.getType());
        ReassociationIndices all(type.getRank());
        std::iota(all.begin(), all.end(), 0);
        source = memref::CollapseShapeOp::create(rewriter, view.getLoc(), view,
                                                 ArrayRef{all});
        target = flat;
      }
      auto copyOp =
          linalg::CopyOp::create(rewriter, view.getLoc(), source, target);
      FailureOr<linalg::GenericOp> generic =
          linalg::generalizeNamedOp(rewriter, copyOp);
      copyPhases.push_back(*generic);
      rewriter.replaceUsesWithIf(view, copy, [&](OpOperand &use) {
        return use.getOwner() != generic->getOperation() &&
               use.getOwner() != source.getDefiningOp();
      });
    }
    phases.prependCopies(copyPhases, tiles);
    return stagedBytes;
  }

  /// Copies each input that a register-tiled statement of a batch kernel
  /// reads at the same element in all its threads (its indices only the
  /// tile's loop and reductions: K5's A) into a buffer of the block's
  /// with the tile's dimension last, padded to whole vectors
  /// (kTileVectorBytes), at most `budget` bytes in all, by a first phase of
  /// its own; the statement then loads the tile's elements of it a vector
  /// at a time (`vectorInputs`, per statement). A broadcast load costs the
  /// same cycle of shared memory whatever its width: K5's contractions
  /// loaded 11 elements of A for each of u's. Returns the bytes.
  int64_t
  stageUniformTileInputs(RewriterBase &rewriter, scf::ParallelOp blockLoop,
                         Phases &phases,
                         SmallVectorImpl<std::optional<unsigned>> &tiles,
                         int64_t budget, SmallVectorImpl<Value> &staged,
                         SmallVectorImpl<TileVectorInputs> &vectorInputs) {
    MLIRContext *context = blockLoop.getContext();
    vectorInputs.assign(phases.statements.size(), TileVectorInputs());
    int64_t stagedBytes = 0;
    // Each input staged, with the position of the tile's dimension in it,
    // its padded buffer and the view the statements read.
    struct StagedInput {
      Value source;
      unsigned tilePosition;
      Value padded, view;
      AffineMap order;
    };
    SmallVector<StagedInput> order;
    // (Through any view of the same buffer: a copy taken before a phase
    // writes it would be stale.)
    auto writtenInKernel = [&](Value buffer) {
      return llvm::any_of(phases.statements, [&](linalg::GenericOp statement) {
        return llvm::any_of(statement.getDpsInits(), [&](Value init) {
          return getViewedBuffer(init) == getViewedBuffer(buffer);
        });
      });
    };
    for (auto [index, statement, tiled] :
         llvm::enumerate(phases.statements, tiles)) {
      if (!tiled)
        continue;
      for (OpOperand *input : statement.getDpsInputOperands()) {
        auto type = dyn_cast<MemRefType>(input->get().getType());
        AffineMap map = statement.getMatchingIndexingMap(input);
        if (!type || !type.hasStaticShape() ||
            !(type.getElementType().isF32() || type.getElementType().isF64()) ||
            !map.isProjectedPermutation() || writtenInKernel(input->get()))
          continue;
        std::optional<unsigned> position =
            map.getResultPosition(getAffineDimExpr(*tiled, context));
        bool uniform = position.has_value();
        for (unsigned loop = 0; loop < statement.getNumParallelLoops(); ++loop)
          if (loop != *tiled && map.isFunctionOfDim(loop))
            uniform = false;
        if (!uniform)
          continue;
        auto *found = llvm::find_if(order, [&](const StagedInput &other) {
          return other.source == input->get() &&
                 other.tilePosition == *position;
        });
        if (found == order.end()) {
          unsigned rank = type.getRank();
          // The staged dimensions: the source's in order, the tile's last.
          SmallVector<unsigned> permutation;
          for (unsigned dim = 0; dim < rank; ++dim)
            if (dim != *position)
              permutation.push_back(dim);
          permutation.push_back(*position);
          SmallVector<int64_t> shape;
          for (unsigned dim : permutation)
            shape.push_back(type.getDimSize(dim));
          int64_t lanes = kTileVectorBytes * 8 / type.getElementTypeBitWidth();
          SmallVector<int64_t> paddedShape(shape);
          paddedShape.back() = llvm::alignTo(shape.back(), lanes);
          int64_t bytes = ShapedType::getNumElements(paddedShape) *
                          type.getElementTypeBitWidth() / 8;
          if (bytes < kMinStagedBytes || bytes > budget - stagedBytes)
            continue;
          stagedBytes += bytes;
          rewriter.setInsertionPointToStart(blockLoop.getBody());
          Attribute space = barriers
                                ? gpu::AddressSpaceAttr::get(
                                      context, gpu::AddressSpace::Workgroup)
                                : Attribute();
          Location loc = input->get().getLoc();
          // Bytes, viewed as elements (the copy writes them, the
          // statements read them) and as vectors (the tiles load them).
          SmallVector<int64_t> vectorShape(paddedShape);
          vectorShape.back() /= lanes;
          SmallVector<Value> views;
          Value buffer = createStagingBuffer(
              rewriter, loc, bytes, space,
              {MemRefType::get(paddedShape, type.getElementType(), AffineMap(),
                               space),
               MemRefType::get(vectorShape,
                               VectorType::get({lanes}, type.getElementType()),
                               AffineMap(), space)},
              views);
          Value elements = views[0], vectors = views[1];
          // (A cast, not a subview: the kernels' memref lowering has no
          // expand-strided-metadata before it.)
          SmallVector<int64_t> paddedStrides(rank, 1);
          for (unsigned dim = rank - 1; dim-- > 0;)
            paddedStrides[dim] = paddedStrides[dim + 1] * paddedShape[dim + 1];
          Value view = memref::ReinterpretCastOp::create(
              rewriter, loc,
              MemRefType::get(shape, type.getElementType(),
                              StridedLayoutAttr::get(context, 0, paddedStrides),
                              space),
              elements, 0, shape, paddedStrides);
          staged.push_back(buffer);
          order.push_back({input->get(), *position, vectors, view,
                           AffineMap::getPermutationMap(permutation, context)});
          found = std::prev(order.end());
        }
        // The statement reads the view: its map's results permuted alike.
        SmallVector<AffineExpr> results;
        for (AffineExpr dim : found->order.getResults())
          results.push_back(
              map.getResult(cast<AffineDimExpr>(dim).getPosition()));
        SmallVector<AffineMap> maps = statement.getIndexingMapsArray();
        maps[input->getOperandNumber()] =
            AffineMap::get(map.getNumDims(), 0, results, context);
        linalg::GenericOp reader = statement;
        rewriter.modifyOpInPlace(reader, [&] {
          input->set(found->view);
          reader.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
        });
        vectorInputs[index][input->getOperandNumber()] = found->padded;
      }
    }
    if (order.empty())
      return 0;
    // The copies first, each a phase of its own.
    SmallVector<linalg::GenericOp> copyPhases;
    for (const StagedInput &input : order) {
      rewriter.setInsertionPoint(phases.statements.front());
      unsigned rank = input.order.getNumResults();
      AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, context);
      copyPhases.push_back(linalg::GenericOp::create(
          rewriter, input.source.getLoc(), ValueRange{input.source},
          ValueRange{input.view}, ArrayRef<AffineMap>{identity, input.order},
          SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
          [](OpBuilder &builder, Location loc, ValueRange args) {
            linalg::YieldOp::create(builder, loc, args[0]);
          }));
    }
    phases.prependCopies(copyPhases, tiles);
    vectorInputs.insert(vectorInputs.begin(), copyPhases.size(),
                        TileVectorInputs());
    return stagedBytes;
  }

  /// Runs the batch loop `loop` (tl-fuse-batches, one batch index per
  /// iteration) as one kernel: a block per iteration, whose threads run
  /// each of its statements in turn (barrier-delimited phases), with the
  /// iteration's own buffers in shared memory where they fit in
  /// shared-memory-bytes, else in a slice per block of one scratch buffer.
  /// False, with nothing changed, for a loop it does not know; failure
  /// (reported) once it has begun.
  FailureOr<bool> mapBatchLoop(RewriterBase &rewriter, scf::ForOp loop) {
    if (!isMappableBatchBody(loop))
      return false;
    FailureOr<SmallVector<PrivateBuffer>> buffers = findPrivateBuffers(loop);
    if (failed(buffers))
      return false;
    int64_t privateBytes = 0;
    for (PrivateBuffer &buffer : *buffers)
      privateBytes += buffer.sliceType.getNumElements() *
                      buffer.sliceType.getElementTypeBitWidth() / 8;
    bool inSharedMemory = privateBytes <= sharedMemoryBytes;

    MLIRContext *context = loop.getContext();
    Location loc = loop.getLoc();
    // One iteration per block.
    rewriter.setInsertionPoint(loop);
    Value lower = loop.getLowerBound(), upper = loop.getUpperBound(),
          step = loop.getStep();
    SmallVector<Value> scratch;
    if (!inSharedMemory)
      for (PrivateBuffer &buffer : *buffers) {
        Value blocks = arith::CeilDivUIOp::create(
            rewriter, loc, arith::SubIOp::create(rewriter, loc, upper, lower),
            step);
        SmallVector<int64_t> shape{ShapedType::kDynamic};
        llvm::append_range(shape, buffer.sliceType.getShape());
        scratch.push_back(memref::AllocOp::create(
            rewriter, loc,
            MemRefType::get(shape, buffer.sliceType.getElementType()),
            ValueRange{blocks}));
      }
    auto blockLoop = scf::ParallelOp::create(
        rewriter, loc, ValueRange{lower}, ValueRange{upper}, ValueRange{step});
    Block *blockBody = blockLoop.getBody();
    Value batch = blockLoop.getInductionVars()[0];
    rewriter.setInsertionPointToStart(blockBody);
    SmallVector<Value> perBlock;
    for (auto [index, buffer] : llvm::enumerate(*buffers)) {
      if (inSharedMemory) {
        // tl-gpu-device-memory makes these shared-memory globals.
        perBlock.push_back(memref::AllocOp::create(
            rewriter, loc,
            MemRefType::get(buffer.sliceType.getShape(),
                            buffer.sliceType.getElementType(), AffineMap(),
                            gpu::AddressSpaceAttr::get(
                                context, gpu::AddressSpace::Workgroup))));
        continue;
      }
      Value block = arith::DivUIOp::create(
          rewriter, loc, arith::SubIOp::create(rewriter, loc, batch, lower),
          step);
      unsigned rank = buffer.sliceType.getRank();
      SmallVector<OpFoldResult> offsets(rank + 1, rewriter.getIndexAttr(0)),
          sizes, strides(rank + 1, rewriter.getIndexAttr(1));
      offsets[0] = block;
      sizes.push_back(rewriter.getIndexAttr(1));
      for (int64_t extent : buffer.sliceType.getShape())
        sizes.push_back(rewriter.getIndexAttr(extent));
      auto resultType = memref::SubViewOp::inferRankReducedResultType(
          buffer.sliceType.getShape(),
          cast<MemRefType>(scratch[index].getType()), offsets, sizes, strides);
      perBlock.push_back(
          memref::SubViewOp::create(rewriter, loc, cast<MemRefType>(resultType),
                                    scratch[index], offsets, sizes, strides));
    }
    Block *body = loop.getBody();
    rewriter.eraseOp(body->getTerminator());
    rewriter.inlineBlockBefore(body, blockBody->getTerminator(),
                               ValueRange{batch});
    rewriter.eraseOp(loop);
    for (auto [buffer, replacement] : llvm::zip(*buffers, perBlock)) {
      for (memref::SubViewOp slice : buffer.slices)
        rewriter.replaceOp(slice, replacement);
      for (OpOperand *use : buffer.directUses)
        rewriter.modifyOpInPlace(
            use->getOwner(),
            [&, replacement = replacement] { use->set(replacement); });
      for (memref::DeallocOp dealloc : buffer.deallocs)
        rewriter.eraseOp(dealloc);
      rewriter.eraseOp(buffer.alloc);
    }
    if (!scratch.empty()) {
      rewriter.setInsertionPointAfter(blockLoop);
      for (Value buffer : scratch)
        memref::DeallocOp::create(rewriter, loc, buffer);
    }

    // The statements, copies as linalg.copy, all as generics with their
    // parallel loops first.
    SmallVector<Operation *> named;
    for (Operation &op : blockBody->without_terminator())
      if (isa<memref::CopyOp, linalg::LinalgOp>(op))
        named.push_back(&op);
    for (Operation *op : named) {
      rewriter.setInsertionPoint(op);
      if (auto copy = dyn_cast<memref::CopyOp>(op))
        op = rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                         copy.getTarget());
      auto linalgOp = cast<linalg::LinalgOp>(op);
      auto generic = dyn_cast<linalg::GenericOp>(op);
      if (!generic) {
        FailureOr<linalg::GenericOp> generalized =
            linalg::generalizeNamedOp(rewriter, linalgOp);
        if (failed(generalized))
          return blockLoop->emitError("tl-gpu-map-loops: cannot generalize ")
                 << op->getName();
        generic = *generalized;
      }
      if (failed(parallelDimensionsFirst(rewriter, generic)))
        return blockLoop->emitError(
            "tl-gpu-map-loops: cannot reorder the loops");
    }

    // The statements in turn, each thread taking every threads-th element
    // of each. On the GPU one thread loop holds them all, with a barrier
    // between; for the CPU (no barriers) each is a thread loop of its own,
    // which orders them the same way.
    Phases phases;
    for (Operation &op : *blockBody)
      if (auto generic = dyn_cast<linalg::GenericOp>(op))
        phases.statements.push_back(generic);
    phases.foldFills(rewriter);
    SmallVector<linalg::GenericOp> &statements = phases.statements;
    SmallVector<std::optional<unsigned>> tiles;
    for (linalg::GenericOp statement : statements)
      tiles.push_back(registerTiles ? chooseRegisterTile(statement)
                                    : std::nullopt);
    // (On the CPU, without shared memory, the statements stage what the
    // GPU's would, in buffers of each block's own.)
    int64_t stagingBudget =
        barriers ? (inSharedMemory ? sharedMemoryBytes - privateBytes : 0)
                 : std::max<int64_t>(
                       tensorlang::kGPUSharedMemoryBytes - privateBytes, 0);
    SmallVector<Value> staged;
    int64_t stagedBytes = stageStridedInputs(rewriter, blockLoop, phases, tiles,
                                             stagingBudget, staged);
    SmallVector<TileVectorInputs> vectorInputs;
    int64_t uniformBytes = stageUniformTileInputs(
        rewriter, blockLoop, phases, tiles, stagingBudget - stagedBytes, staged,
        vectorInputs);
    // Enough threads (whole warps) for the largest statement's points,
    // at most threads-per-block. Where statements sum, the others need
    // only a thread per kMaxElementsLoadedAhead points: copies and
    // element-wise statements are passes over memory, which each thread
    // runs many loads of at once, while the threads a block has beyond
    // its sums' points hold registers and do nothing (K5: 121 points of
    // 11 sums each, a copy of 1331 elements).
    bool sums = llvm::any_of(statements, [](linalg::GenericOp statement) {
      return statement.getNumReductionLoops() > 0;
    });
    int64_t threads = 32;
    for (auto [statement, tiled] : llvm::zip(statements, tiles)) {
      int64_t points = 1;
      bool known = true;
      for (auto [loop, range] :
           llvm::enumerate(statement.getStaticLoopRanges()))
        if (loop < statement.getNumParallelLoops() && loop != tiled) {
          known = known && !ShapedType::isDynamic(range);
          if (known)
            points = std::min<int64_t>(points * range,
                                       std::numeric_limits<int32_t>::max());
        }
      if (!known)
        points = threadsPerBlock;
      else if (sums && statement.getNumReductionLoops() == 0)
        points = llvm::divideCeil(points, kMaxElementsLoadedAhead);
      threads = std::max<int64_t>(
          threads,
          llvm::alignTo(std::min<int64_t>(points, threadsPerBlock), 32));
    }
    threads = std::min<int64_t>(threads, threadsPerBlock);
    rewriter.setInsertionPoint(blockBody->getTerminator());
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value threadCount = arith::ConstantIndexOp::create(rewriter, loc, threads);
    scf::ParallelOp threadLoop;
    for (auto [index, statement] : llvm::enumerate(statements)) {
      if (!threadLoop || !barriers) {
        threadLoop =
            scf::ParallelOp::create(rewriter, loc, ValueRange{zero},
                                    ValueRange{threadCount}, ValueRange{one});
        (void)gpu::setMappingAttr(threadLoop,
                                  {tensorlang::getProcessorMapping(
                                      context, gpu::Processor::ThreadX)});
      } else {
        rewriter.setInsertionPoint(threadLoop.getBody()->getTerminator());
        gpu::BarrierOp::create(rewriter, loc);
      }
      rewriter.setInsertionPoint(threadLoop.getBody()->getTerminator());
      emitPhase(rewriter, statement, threadLoop.getInductionVars()[0],
                threadCount, phases.initialValues[index], tiles[index],
                vectorInputs[index]);
      rewriter.setInsertionPointAfter(threadLoop);
    }
    if (emitRemarks) {
      InFlightDiagnostic remark = emitRemark(loc)
                                  << "GPU batch kernel: a block per batch "
                                     "index, "
                                  << threads << " threads, "
                                  << statements.size() << " phases";
      for (auto [statement, tiled] : llvm::zip(statements, tiles)) {
        remark << (tiled ? ", register tile d" + std::to_string(*tiled) + " x" +
                               std::to_string(
                                   statement.getStaticLoopRanges()[*tiled])
                         : std::string(", untiled"));
      }
      remark << "; " << privateBytes << " B per block in "
             << (inSharedMemory ? "shared memory" : "a scratch buffer");
      if (stagedBytes)
        remark << ", " << stagedBytes
               << " B of inputs staged there (read across their rows)";
      if (uniformBytes)
        remark << ", " << uniformBytes
               << " B of inputs every thread reads alike staged there "
                  "(tiles loaded in vectors)";
    }
    for (linalg::GenericOp statement : statements)
      rewriter.eraseOp(statement);
    if (!barriers) {
      rewriter.setInsertionPoint(blockBody->getTerminator());
      for (Value buffer : staged)
        memref::DeallocOp::create(rewriter, loc, buffer);
    }
    (void)gpu::setMappingAttr(blockLoop, {tensorlang::getProcessorMapping(
                                             context, gpu::Processor::BlockX)});
    return true;
  }
};
} // namespace
