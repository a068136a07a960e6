//===- ContractionKernel.cpp - A contraction as a tiled GPU kernel --------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A contraction is a matrix product once its loops are grouped: rows (the
// first input's own loops), columns (the second's), depth (the reductions)
// and batches (the rest). Each group is collapsed to one index, so one
// kernel serves every index pattern: the block's tile is rows x columns,
// each depth step stages both operands' tiles in shared memory, and each
// thread sums its elements in registers, every element in the program's
// depth order from its first term to its last.
//
//===----------------------------------------------------------------------===//

#include "ContractionKernel.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tensorlang;

int64_t GPUContractionPlan::sharedMemoryBytes(unsigned elementBytes) const {
  int64_t rowStride = blockRows() + (rowInputDepthFastest ? 1 : 0);
  int64_t columnStride = blockColumns() + (columnInputDepthFastest ? 1 : 0);
  return depth * (rowStride + columnStride) * elementBytes;
}

std::string GPUContractionPlan::describe() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto loops = [&](StringRef role, ArrayRef<unsigned> dims) {
    os << role << "=";
    if (dims.empty())
      os << "-";
    llvm::interleave(
        dims, os, [&](unsigned dim) { os << "d" << dim; }, ",");
  };
  os << "block tile " << blockRows() << "x" << blockColumns() << ", depth "
     << depth << " per step, " << threads() << " threads of " << registerRows
     << "x" << registerColumns << " (";
  loops("rows", rowLoops);
  os << " ";
  loops("columns", columnLoops);
  os << " ";
  loops("depth", depthLoops);
  os << " ";
  loops("batch", batchLoops);
  os << ")";
  return text;
}

/// Whether `op`'s body adds the product of its two inputs to its output,
/// and nothing else.
static bool isMultiplyAccumulate(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  if (body.getNumArguments() != 3 || body.getOperations().size() != 3)
    return false;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getValues()[0].getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value accumulator = body.getArgument(2);
  Value product = add.getLhs() == accumulator   ? add.getRhs()
                  : add.getRhs() == accumulator ? add.getLhs()
                                                : Value();
  auto multiply = product ? product.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!multiply)
    return false;
  Value a = body.getArgument(0), b = body.getArgument(1);
  return (multiply.getLhs() == a && multiply.getRhs() == b) ||
         (multiply.getLhs() == b && multiply.getRhs() == a);
}

/// The loop of `map`'s last result (an operand's stride-1 index), if any.
static std::optional<unsigned> getInnermostLoop(AffineMap map) {
  if (map.getNumResults() == 0)
    return std::nullopt;
  return map.getDimPosition(map.getNumResults() - 1);
}

/// Orders `loops` as `map` indexes them; loops it does not index keep
/// their order, after the others.
static void orderAs(SmallVectorImpl<unsigned> &loops, AffineMap map) {
  MLIRContext *context = map.getContext();
  auto position = [&](unsigned loop) {
    return map.getResultPosition(getAffineDimExpr(loop, context))
        .value_or(map.getNumResults());
  };
  llvm::stable_sort(loops, [&](unsigned a, unsigned b) {
    return position(a) < position(b);
  });
}

/// The register tile along a collapsed extent of `extent` (dynamic: the
/// largest) spread over `threads` threads: the smallest power of two that
/// covers the extent, at most `maxTile`.
static int64_t chooseRegisterTile(int64_t extent, int64_t threads,
                                  int64_t maxTile) {
  if (ShapedType::isDynamic(extent))
    return maxTile;
  int64_t tile = 1;
  while (tile < maxTile && threads * tile < extent)
    tile *= 2;
  return tile;
}

std::optional<GPUContractionPlan>
tensorlang::planGPUContraction(linalg::GenericOp op, int64_t maxRegisterTile) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() == 0 || !isMultiplyAccumulate(op))
    return std::nullopt;
  OpOperand *output = op.getDpsInitOperand(0);
  auto outputType = dyn_cast<MemRefType>(output->get().getType());
  if (!outputType ||
      !(outputType.getElementType().isF64() ||
        outputType.getElementType().isF32()))
    return std::nullopt;
  for (OpOperand &operand : op->getOpOperands())
    if (!isa<MemRefType>(operand.get().getType()) ||
        !op.getMatchingIndexingMap(&operand).isProjectedPermutation())
      return std::nullopt;
  // The output takes each parallel loop once and no reduction.
  AffineMap outputMap = op.getMatchingIndexingMap(output);
  if (outputMap.getNumResults() != op.getNumParallelLoops())
    return std::nullopt;
  for (unsigned result = 0; result < outputMap.getNumResults(); ++result)
    if (op.getIteratorTypesArray()[outputMap.getDimPosition(result)] !=
        utils::IteratorType::parallel)
      return std::nullopt;

  GPUContractionPlan plan;
  AffineMap maps[2] = {op.getMatchingIndexingMap(op.getDpsInputOperand(0)),
                       op.getMatchingIndexingMap(op.getDpsInputOperand(1))};
  for (auto [loop, iterator] : llvm::enumerate(op.getIteratorTypesArray())) {
    if (iterator != utils::IteratorType::parallel) {
      plan.depthLoops.push_back(loop);
      continue;
    }
    bool inFirst = maps[0].isFunctionOfDim(loop);
    bool inSecond = maps[1].isFunctionOfDim(loop);
    if (inFirst && !inSecond)
      plan.rowLoops.push_back(loop);
    else if (inSecond && !inFirst)
      plan.columnLoops.push_back(loop);
    else
      plan.batchLoops.push_back(loop);
  }
  if (plan.rowLoops.empty() || plan.columnLoops.empty())
    return std::nullopt;
  // The output's stride-1 index among the columns: consecutive threads
  // then store consecutive elements.
  std::optional<unsigned> outputInnermost = getInnermostLoop(outputMap);
  if (outputInnermost && llvm::is_contained(plan.rowLoops, *outputInnermost)) {
    std::swap(plan.rowInput, plan.columnInput);
    std::swap(plan.rowLoops, plan.columnLoops);
  }
  AffineMap rowMap = maps[plan.rowInput], columnMap = maps[plan.columnInput];
  std::optional<unsigned> rowInnermost = getInnermostLoop(rowMap);
  std::optional<unsigned> columnInnermost = getInnermostLoop(columnMap);
  auto isIn = [](std::optional<unsigned> loop, ArrayRef<unsigned> loops) {
    return loop && llvm::is_contained(loops, *loop);
  };
  // Each group collapsed in the order of the operand that reads it along
  // its stride-1 index, so that the tiles' loads are coalesced.
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  auto collapsedExtent = [&](ArrayRef<unsigned> loops) {
    int64_t extent = 1;
    for (unsigned loop : loops) {
      if (ShapedType::isDynamic(ranges[loop]))
        return ShapedType::kDynamic;
      extent *= ranges[loop];
    }
    return extent;
  };
  plan.registerRows = chooseRegisterTile(collapsedExtent(plan.rowLoops),
                                         plan.threadRows, maxRegisterTile);
  plan.registerColumns = chooseRegisterTile(
      collapsedExtent(plan.columnLoops), plan.threadColumns, maxRegisterTile);
  // The columns' input is loaded once per row tile: depth / blockRows
  // loads per element stored. Below one, the output's stores matter more.
  int64_t depth = collapsedExtent(plan.depthLoops);
  bool storesDominate =
      !ShapedType::isDynamic(depth) && depth < plan.blockRows();
  orderAs(plan.rowLoops, isIn(rowInnermost, plan.rowLoops) ? rowMap
                                                            : outputMap);
  orderAs(plan.columnLoops,
          isIn(columnInnermost, plan.columnLoops) && !storesDominate
              ? columnMap
              : outputMap);
  if (isIn(rowInnermost, plan.depthLoops))
    orderAs(plan.depthLoops, rowMap);
  else if (isIn(columnInnermost, plan.depthLoops))
    orderAs(plan.depthLoops, columnMap);
  orderAs(plan.batchLoops, outputMap);
  plan.rowInputDepthFastest = isIn(rowInnermost, plan.depthLoops);
  plan.columnInputDepthFastest = isIn(columnInnermost, plan.depthLoops);
  return plan;
}

namespace {
/// Emits one contraction kernel; the builder's insertion point moves as
/// the kernel grows.
class ContractionKernelEmitter {
public:
  ContractionKernelEmitter(RewriterBase &rewriter, linalg::GenericOp op,
                           const GPUContractionPlan &plan)
      : b(rewriter), op(op), plan(plan), loc(op.getLoc()),
        elementType(cast<MemRefType>(op.getDpsInitOperand(0)->get().getType())
                        .getElementType()) {}

  /// With `initialValue`, the sums start from it instead of the output's
  /// elements.
  void emit(bool barriers, Value initialValue);

private:
  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value lessThan(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  /// `linear` (below `extent`, or clamped to its last index) as the
  /// indices of `loops`, the last fastest.
  SmallVector<Value> delinearize(Value linear, Value extent,
                                 ArrayRef<unsigned> loops);
  /// `map` (a projected permutation) at the loop indices `indices`.
  SmallVector<Value> at(AffineMap map, ArrayRef<Value> indices);
  /// Stages the share of thread `thread` of the tile of `input` at depth
  /// `depthBase` into `tile`: zeros past the edges.
  void loadTile(unsigned input, Value thread, Value depthBase, Value tile);
  /// Sums the staged tiles into the register tile `accumulators`;
  /// returns the new sums.
  SmallVector<Value> multiplyTiles(Value threadRow, Value threadColumn,
                                   Value rowTile, Value columnTile,
                                   ValueRange accumulators);

  RewriterBase &b;
  linalg::GenericOp op;
  const GPUContractionPlan &plan;
  Location loc;
  Type elementType;
  SmallVector<Range> ranges;
  Value rows, columns, depth;
  /// The loop indices the block fixes (its batch) and zeros elsewhere.
  SmallVector<Value> blockIndices;
  Value rowBase, columnBase;
};
} // namespace

SmallVector<Value> ContractionKernelEmitter::delinearize(
    Value linear, Value extent, ArrayRef<unsigned> loops) {
  Value last = arith::SubIOp::create(b, loc, extent, index(1));
  Value clamped = arith::MinUIOp::create(b, loc, linear, last);
  if (loops.size() == 1)
    return {clamped};
  SmallVector<OpFoldResult> basis;
  for (unsigned loop : loops)
    basis.push_back(ranges[loop].size);
  auto split = affine::AffineDelinearizeIndexOp::create(
      b, loc, clamped, basis, /*hasOuterBound=*/true);
  return SmallVector<Value>(split.getResults());
}

SmallVector<Value> ContractionKernelEmitter::at(AffineMap map,
                                                ArrayRef<Value> indices) {
  SmallVector<Value> results;
  for (unsigned result = 0; result < map.getNumResults(); ++result)
    results.push_back(indices[map.getDimPosition(result)]);
  return results;
}

void ContractionKernelEmitter::loadTile(unsigned input, Value thread,
                                        Value depthBase, Value tile) {
  bool isRows = input == plan.rowInput;
  int64_t width = isRows ? plan.blockRows() : plan.blockColumns();
  bool depthFastest =
      isRows ? plan.rowInputDepthFastest : plan.columnInputDepthFastest;
  ArrayRef<unsigned> ownLoops = isRows ? plan.rowLoops : plan.columnLoops;
  Value ownExtent = isRows ? rows : columns;
  Value ownBase = isRows ? rowBase : columnBase;
  OpOperand *operand = op.getDpsInputOperand(input);
  AffineMap map = op.getMatchingIndexingMap(operand);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType));
  for (int64_t slot = 0; slot < plan.depth * width / plan.threads(); ++slot) {
    Value element = add(thread, index(slot * plan.threads()));
    Value depthOffset, ownOffset;
    if (depthFastest) {
      depthOffset = arith::RemUIOp::create(b, loc, element, index(plan.depth));
      ownOffset = arith::DivUIOp::create(b, loc, element, index(plan.depth));
    } else {
      depthOffset = arith::DivUIOp::create(b, loc, element, index(width));
      ownOffset = arith::RemUIOp::create(b, loc, element, index(width));
    }
    Value own = add(ownBase, ownOffset);
    Value reduction = add(depthBase, depthOffset);
    SmallVector<Value> indices(blockIndices);
    for (auto [loop, value] :
         llvm::zip(ownLoops, delinearize(own, ownExtent, ownLoops)))
      indices[loop] = value;
    for (auto [loop, value] : llvm::zip(
             plan.depthLoops, delinearize(reduction, depth, plan.depthLoops)))
      indices[loop] = value;
    Value loaded =
        memref::LoadOp::create(b, loc, operand->get(), at(map, indices));
    Value inside = arith::AndIOp::create(b, loc, lessThan(own, ownExtent),
                                         lessThan(reduction, depth));
    Value staged = arith::SelectOp::create(b, loc, inside, loaded, zero);
    memref::StoreOp::create(b, loc, staged, tile,
                            ValueRange{depthOffset, ownOffset});
  }
}

SmallVector<Value> ContractionKernelEmitter::multiplyTiles(
    Value threadRow, Value threadColumn, Value rowTile, Value columnTile,
    ValueRange accumulators) {
  auto fastMath = arith::FastMathFlagsAttr::get(b.getContext(),
                                                arith::FastMathFlags::contract);
  // The inputs in the order the body multiplies them (the products are
  // the same either way; the order keeps the IR close to the program's).
  bool rowFirst = plan.rowInput == 0;
  // Unrolled here: LLVM's unroller finds the step too large to unroll, and
  // a loop costs its index arithmetic and shared-memory addresses.
  SmallVector<Value> sums(accumulators);
  for (int64_t position = 0; position < plan.depth; ++position) {
    Value at = index(position);
    SmallVector<Value> rowValues, columnValues;
    for (int64_t row = 0; row < plan.registerRows; ++row)
      rowValues.push_back(memref::LoadOp::create(
          b, loc, rowTile,
          ValueRange{at, add(threadRow, index(row * plan.threadRows))}));
    for (int64_t column = 0; column < plan.registerColumns; ++column)
      columnValues.push_back(memref::LoadOp::create(
          b, loc, columnTile,
          ValueRange{at,
                     add(threadColumn, index(column * plan.threadColumns))}));
    for (int64_t row = 0; row < plan.registerRows; ++row)
      for (int64_t column = 0; column < plan.registerColumns; ++column) {
        Value x = rowValues[row], y = columnValues[column];
        if (!rowFirst)
          std::swap(x, y);
        Value product = arith::MulFOp::create(b, loc, x, y, fastMath);
        Value &sum = sums[row * plan.registerColumns + column];
        sum = arith::AddFOp::create(b, loc, sum, product, fastMath);
      }
  }
  return sums;
}

void ContractionKernelEmitter::emit(bool barriers, Value initialValue) {
  MLIRContext *context = b.getContext();
  b.setInsertionPoint(op);
  ranges = cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(b, loc);
  auto product = [&](ArrayRef<unsigned> loops) {
    Value result = index(1);
    for (unsigned loop : loops)
      result =
          mul(result, getValueOrCreateConstantIndexOp(b, loc, ranges[loop].size));
    return result;
  };
  rows = product(plan.rowLoops);
  columns = product(plan.columnLoops);
  depth = product(plan.depthLoops);
  Value batches = product(plan.batchLoops);
  Value blockRows = index(plan.blockRows());
  Value blockColumns = index(plan.blockColumns());
  Value rowTiles = arith::CeilDivUIOp::create(b, loc, rows, blockRows);
  Value columnTiles = arith::CeilDivUIOp::create(b, loc, columns, blockColumns);
  Value blocks = mul(mul(batches, rowTiles), columnTiles);
  Value zero = index(0), one = index(1);

  // Blocks: the column tiles fastest (neighbours share the rows' tile).
  auto blockLoop = scf::ParallelOp::create(b, loc, ValueRange{zero},
                                           ValueRange{blocks}, ValueRange{one});
  b.setInsertionPointToStart(blockLoop.getBody());
  auto blockPosition = affine::AffineDelinearizeIndexOp::create(
      b, loc, blockLoop.getInductionVars()[0],
      ArrayRef<OpFoldResult>{batches, rowTiles, columnTiles},
      /*hasOuterBound=*/true);
  blockIndices.assign(op.getNumLoops(), zero);
  if (!plan.batchLoops.empty())
    for (auto [loop, value] :
         llvm::zip(plan.batchLoops, delinearize(blockPosition.getResult(0),
                                                batches, plan.batchLoops)))
      blockIndices[loop] = value;
  rowBase = mul(blockPosition.getResult(1), blockRows);
  columnBase = mul(blockPosition.getResult(2), blockColumns);

  int64_t rowStride = plan.blockRows() + (plan.rowInputDepthFastest ? 1 : 0);
  int64_t columnStride =
      plan.blockColumns() + (plan.columnInputDepthFastest ? 1 : 0);
  auto tileType = [&](int64_t stride, Attribute space) {
    return MemRefType::get({plan.depth, stride}, elementType, AffineMap(),
                           space);
  };
  Value tiles[2];
  unsigned rowSlot = plan.rowInput, columnSlot = plan.columnInput;
  if (barriers) {
    // tl-gpu-device-memory makes these shared-memory globals.
    auto workgroup =
        gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup);
    tiles[rowSlot] =
        memref::AllocOp::create(b, loc, tileType(rowStride, workgroup));
    tiles[columnSlot] =
        memref::AllocOp::create(b, loc, tileType(columnStride, workgroup));
  }

  auto threadLoop = scf::ParallelOp::create(
      b, loc, ValueRange{zero}, ValueRange{index(plan.threads())},
      ValueRange{one});
  b.setInsertionPointToStart(threadLoop.getBody());
  Value thread = threadLoop.getInductionVars()[0];
  if (!barriers) {
    // (On the heap: a stack allocation per iteration of a loop is only
    // freed when the function returns.)
    tiles[rowSlot] =
        memref::AllocOp::create(b, loc, tileType(rowStride, Attribute()));
    tiles[columnSlot] =
        memref::AllocOp::create(b, loc, tileType(columnStride, Attribute()));
  }
  Value threadRow =
      arith::DivUIOp::create(b, loc, thread, index(plan.threadColumns));
  Value threadColumn =
      arith::RemUIOp::create(b, loc, thread, index(plan.threadColumns));

  // The thread's elements of the result, each row and column clamped to
  // the last one (loaded, never stored) past the edges.
  OpOperand *output = op.getDpsInitOperand(0);
  AffineMap outputMap = op.getMatchingIndexingMap(output);
  SmallVector<Value> rowInside, columnInside;
  SmallVector<SmallVector<Value>> elementIndices;
  SmallVector<SmallVector<Value>> rowIndices, columnIndices;
  for (int64_t row = 0; row < plan.registerRows; ++row) {
    Value position =
        add(rowBase, add(threadRow, index(row * plan.threadRows)));
    rowInside.push_back(lessThan(position, rows));
    rowIndices.push_back(delinearize(position, rows, plan.rowLoops));
  }
  for (int64_t column = 0; column < plan.registerColumns; ++column) {
    Value position = add(columnBase,
                         add(threadColumn, index(column * plan.threadColumns)));
    columnInside.push_back(lessThan(position, columns));
    columnIndices.push_back(delinearize(position, columns, plan.columnLoops));
  }
  SmallVector<Value> initial;
  for (int64_t row = 0; row < plan.registerRows; ++row)
    for (int64_t column = 0; column < plan.registerColumns; ++column) {
      SmallVector<Value> indices(blockIndices);
      for (auto [loop, value] : llvm::zip(plan.rowLoops, rowIndices[row]))
        indices[loop] = value;
      for (auto [loop, value] :
           llvm::zip(plan.columnLoops, columnIndices[column]))
        indices[loop] = value;
      initial.push_back(initialValue ? initialValue
                                     : memref::LoadOp::create(
                                           b, loc, output->get(),
                                           at(outputMap, indices)));
      elementIndices.push_back(std::move(indices));
    }

  // The depth in steps: stage both tiles, then multiply them.
  auto steps = scf::ForOp::create(
      b, loc, zero, depth, index(plan.depth), initial,
      [&](OpBuilder &nested, Location, Value depthBase, ValueRange sums) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(nested.getInsertionBlock());
        if (barriers) {
          // (Every thread is done with the previous step's tiles.)
          gpu::BarrierOp::create(b, loc);
          loadTile(plan.rowInput, thread, depthBase, tiles[rowSlot]);
          loadTile(plan.columnInput, thread, depthBase, tiles[columnSlot]);
          gpu::BarrierOp::create(b, loc);
        } else {
          auto everyThread = scf::ForOp::create(b, loc, zero,
                                                index(plan.threads()), one);
          b.setInsertionPointToStart(everyThread.getBody());
          Value other = everyThread.getInductionVar();
          loadTile(plan.rowInput, other, depthBase, tiles[rowSlot]);
          loadTile(plan.columnInput, other, depthBase, tiles[columnSlot]);
          b.setInsertionPointAfter(everyThread);
        }
        scf::YieldOp::create(
            b, loc,
            multiplyTiles(threadRow, threadColumn, tiles[rowSlot],
                          tiles[columnSlot], sums));
      });

  for (int64_t row = 0; row < plan.registerRows; ++row)
    for (int64_t column = 0; column < plan.registerColumns; ++column) {
      int64_t element = row * plan.registerColumns + column;
      Value inside = arith::AndIOp::create(b, loc, rowInside[row],
                                           columnInside[column]);
      auto store = scf::IfOp::create(b, loc, inside, /*withElse=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(store.thenBlock());
      memref::StoreOp::create(b, loc, steps.getResult(element), output->get(),
                              at(outputMap, elementIndices[element]));
    }

  if (!barriers)
    for (Value tile : tiles)
      memref::DeallocOp::create(b, loc, tile);

  auto mapping = [&](gpu::Processor processor) {
    AffineMap identity = AffineMap::getMultiDimIdentityMap(1, context);
    return gpu::ParallelLoopDimMappingAttr::get(context, processor, identity,
                                                identity);
  };
  (void)gpu::setMappingAttr(threadLoop, {mapping(gpu::Processor::ThreadX)});
  (void)gpu::setMappingAttr(blockLoop, {mapping(gpu::Processor::BlockX)});
  b.eraseOp(op);
}

void tensorlang::emitGPUContractionKernel(RewriterBase &rewriter,
                                          linalg::GenericOp op,
                                          const GPUContractionPlan &plan,
                                          bool barriers, Value initialValue) {
  ContractionKernelEmitter(rewriter, op, plan).emit(barriers, initialValue);
}
