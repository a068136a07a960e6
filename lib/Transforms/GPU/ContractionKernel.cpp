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
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tensorlang;

/// The stride of a staged tile `width` wide. The tensor cores' fragments
/// read four depth indices of eight rows at once: with a stride of 4
/// modulo 16 elements, each half-warp's f64 reads take distinct banks.
/// Scalar reads take one depth index at a time; a tile loaded depth index
/// fastest is padded by one, so that those stores spread over the banks.
static int64_t getTileStride(int64_t width, bool tensorCores,
                             bool depthFastest) {
  if (tensorCores)
    return width + (4 - width % 16 + 16) % 16;
  return width + (depthFastest ? 1 : 0);
}

int64_t GPUContractionPlan::rowTileStride() const {
  return getTileStride(blockRows(), tensorCores, rowInputDepthFastest);
}

int64_t GPUContractionPlan::columnTileStride() const {
  return getTileStride(blockColumns(), tensorCores, columnInputDepthFastest);
}

bool GPUContractionPlan::isDepthContiguous(bool rows) const {
  return depthContiguousTiles && tensorCores &&
         (rows ? rowInputDepthFastest : columnInputDepthFastest);
}

std::array<int64_t, 2> GPUContractionPlan::tileShape(bool rows) const {
  // A depth-contiguous tile's rows are padded as the tensor cores' tiles'
  // depth indices are: a half-warp's fragment reads four depth indices of
  // four rows, and a warp's copies eight rows of four.
  if (isDepthContiguous(rows))
    return {rows ? blockRows() : blockColumns(),
            getTileStride(depth, /*tensorCores=*/true, /*depthFastest=*/true)};
  return {depth, rows ? rowTileStride() : columnTileStride()};
}

std::string GPUContractionPlan::describe() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto loops = [&](StringRef role, ArrayRef<unsigned> dims) {
    os << role << "=";
    if (dims.empty())
      os << "-";
    llvm::interleave(dims, os, [&](unsigned dim) { os << "d" << dim; }, ",");
  };
  os << "block tile " << blockRows() << "x" << blockColumns() << ", depth "
     << depth << " per step";
  if (asyncStages)
    os << " (" << asyncStages << " stages of asynchronous copies)";
  os << ", " << threads() << " threads";
  if (tileGroupRows > 1)
    os << ", blocks in groups of " << tileGroupRows << " rows";
  if (isDepthContiguous(/*rows=*/true) || isDepthContiguous(/*rows=*/false))
    os << ", depth-contiguous tiles of the "
       << (!isDepthContiguous(/*rows=*/false)  ? "rows"
           : !isDepthContiguous(/*rows=*/true) ? "columns"
                                               : "rows and columns");
  if (depthSplits > 1)
    os << ", depth split in " << depthSplits << " parts of " << depthPerSplit
       << " (partial sums, added in order)";
  if (tensorCores)
    os << ", f64 tensor cores (mma.sync m" << mmaRows << "n" << kMmaColumns
       << "k" << mmaDepth << "), " << kWarpRows << "x" << kWarpColumns
       << " warps of " << warpTileRows() << "x" << warpTileColumns()
       << (mmaRows == 16
               ? ", registers for " + std::to_string(blocksPerMultiprocessor) +
                     (blocksPerMultiprocessor == 1 ? " block" : " blocks") +
                     " per multiprocessor"
               : std::string())
       << " (";
  else
    os << " of " << registerRows << "x" << registerColumns << " (";
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

/// Orders `loops` as `map` indexes them; loops it does not index keep
/// their order, after the others.
static void orderAs(SmallVectorImpl<unsigned> &loops, AffineMap map) {
  MLIRContext *context = map.getContext();
  auto position = [&](unsigned loop) {
    return map.getResultPosition(getAffineDimExpr(loop, context))
        .value_or(map.getNumResults());
  };
  // (Keyed by the original place too: a stable order without
  // std::stable_sort's deprecated temporary buffer.)
  SmallVector<std::tuple<unsigned, unsigned, unsigned>> keyed;
  for (auto [place, loop] : llvm::enumerate(loops))
    keyed.emplace_back(position(loop), place, loop);
  llvm::sort(keyed);
  for (auto [place, key] : llvm::enumerate(keyed))
    loops[place] = std::get<2>(key);
}

/// An H100's multiprocessors: blocks in one wave are that many times the
/// blocks each holds.
static constexpr int64_t kMultiprocessors = 132;
/// Rows (and columns) of most contractions' register tiles per thread.
static constexpr int64_t kRegisterTile = 4;
/// The shortest depth whose contractions take the largest register tiles
/// where they have enough tiles for every multiprocessor: each step's
/// staged tiles then serve twice the sums (ab-ac-cb and the ccsd6 family
/// 1.05-1.2x as fast on an H100), and a long depth pays for one block per
/// multiprocessor (at a depth of 24 to 312 the same tiles were up to 2x
/// slower).
static constexpr int64_t kLongDepth = 1024;
/// The fewest depth steps a part of a split depth takes: each part's
/// partial sums cost a store and a load of the result's tile.
static constexpr int64_t kMinimumStepsPerSplit = 8;
/// The most f64 sums per thread for which two blocks of a tensor-core
/// kernel fit a multiprocessor's registers.
static constexpr int64_t kSumsForTwoBlocks = 16;
/// Depth indices a lane stages in a row before the next lane takes the
/// next row, where a tensor-core kernel's tile is loaded along the depth.
static constexpr int64_t kDepthRun = 4;
/// What a short depth taken in one step is rounded up to.
static constexpr int64_t kDepthGranule = 8;

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

std::optional<GPUContractionPlan> tensorlang::planGPUContraction(
    linalg::GenericOp op, int64_t maxRegisterTile, int64_t depthStep,
    bool tensorCores, StringRef mmaShape, int64_t blocksPerMultiprocessor,
    int64_t asyncStages, int64_t sharedMemoryBytes, int64_t tileGroupRows,
    bool depthContiguousTiles) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() == 0 || !isMultiplyAccumulate(op))
    return std::nullopt;
  OpOperand *output = op.getDpsInitOperand(0);
  auto outputType = dyn_cast<MemRefType>(output->get().getType());
  if (!outputType || !(outputType.getElementType().isF64() ||
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
  plan.depth = depthStep;
  plan.tileGroupRows = tileGroupRows;
  plan.depthContiguousTiles = depthContiguousTiles;
  // (With run-time extents the m16n8 kernels' index arithmetic took 148
  // registers in ptxas, and spilled at 128; m8n8k4's took 104.)
  if (mmaShape != "m8n8k4" && !op.hasDynamicShape()) {
    plan.mmaRows = 16;
    plan.mmaDepth = mmaShape == "m16n8k4" || mmaShape == "auto" ? 4
                    : mmaShape == "m16n8k8"                     ? 8
                                                                : 16;
  }
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
  int64_t rowExtent = collapsedExtent(plan.rowLoops);
  int64_t columnExtent = collapsedExtent(plan.columnLoops);
  int64_t batchExtent = collapsedExtent(plan.batchLoops);
  int64_t depth = collapsedExtent(plan.depthLoops);
  // The largest tiles only with sm_90's shapes (whose kernels' registers
  // tl-gpu-tensor-core-occupancy sizes for one block).
  int64_t registerTile = std::min(maxRegisterTile, kRegisterTile);
  int64_t largest = plan.threadRows * maxRegisterTile;
  if (maxRegisterTile > kRegisterTile && tensorCores && plan.mmaRows == 16 &&
      outputType.getElementType().isF64() && !ShapedType::isDynamic(depth) &&
      depth >= kLongDepth && !ShapedType::isDynamic(batchExtent) &&
      rowExtent >= largest && columnExtent >= largest &&
      batchExtent * (rowExtent / largest) * (columnExtent / largest) >=
          kMultiprocessors)
    registerTile = maxRegisterTile;
  plan.registerRows =
      chooseRegisterTile(rowExtent, plan.threadRows, registerTile);
  plan.registerColumns =
      chooseRegisterTile(columnExtent, plan.threadColumns, registerTile);
  // The columns' input is loaded once per row tile: depth / blockRows
  // loads per element stored. Below one, the output's stores matter more.
  // A depth that one step of at most twice the size holds whole takes that
  // one step instead of two, the second partly zeros (ccsd_t's 24: 0.228
  // ms against 0.298 on an H100), rounded up to a multiple of 8 (whole
  // tensor-core products, and every thread's share of the tiles equal).
  if (!ShapedType::isDynamic(depth) && depth > plan.depth &&
      depth < 2 * plan.depth && depth % plan.depth != 0) {
    int64_t whole = llvm::alignTo(depth, kDepthGranule);
    bool sharesEqually = whole * plan.blockRows() % plan.threads() == 0 &&
                         whole * plan.blockColumns() % plan.threads() == 0;
    plan.depth =
        sharesEqually && whole % plan.mmaDepth == 0 ? whole : 2 * plan.depth;
  }
  bool storesDominate =
      !ShapedType::isDynamic(depth) && depth < plan.blockRows();
  // The rows in their input's order even where it is read along the
  // depth: a tile's rows then lie as close as that input allows (in the
  // output's order, ccsd6's abcd-aebf-fdec read rows 3 MB apart, 128
  // pages per step); the output is stored along the columns.
  orderAs(plan.rowLoops, rowMap);
  orderAs(plan.columnLoops,
          isIn(columnInnermost, plan.columnLoops) && !storesDominate
              ? columnMap
              : outputMap);
  if (isIn(rowInnermost, plan.depthLoops))
    orderAs(plan.depthLoops, rowMap);
  else if (isIn(columnInnermost, plan.depthLoops))
    orderAs(plan.depthLoops, columnMap);
  orderAs(plan.batchLoops, outputMap);
  // An input whose stride-1 index is the fastest depth loop is loaded
  // depth index fastest.
  plan.rowInputDepthFastest = rowInnermost == plan.depthLoops.back();
  plan.columnInputDepthFastest = columnInnermost == plan.depthLoops.back();
  plan.tensorCores =
      tensorCores && outputType.getElementType().isF64() &&
      plan.threads() == GPUContractionPlan::kWarpSize *
                            GPUContractionPlan::kWarpRows *
                            GPUContractionPlan::kWarpColumns &&
      plan.warpTileRows() % plan.mmaRows == 0 &&
      plan.warpTileColumns() % GPUContractionPlan::kMmaColumns == 0 &&
      plan.depth % plan.mmaDepth == 0;
  // 128 registers (two blocks of 256 threads) hold 16 sums of f64 per
  // thread beside the staged loads; more sums take one block.
  plan.blocksPerMultiprocessor =
      blocksPerMultiprocessor > 0 ? blocksPerMultiprocessor
      : plan.registerRows * plan.registerColumns > kSumsForTwoBlocks ? 1
                                                                     : 2;
  // sm_90's shapes chosen by the plan: m16n8k8 for the kernels sized for
  // one block per multiprocessor (the 128 x 128 tiles: ab-ac-cb and the
  // ccsd6 family 1-10% faster on an H200, half the products to issue with
  // 8 warps), m16n8k4 for the others (m16n8k8 0.90-1.15x there).
  if (mmaShape == "auto" && plan.tensorCores && plan.mmaRows == 16 &&
      plan.blocksPerMultiprocessor == 1 && plan.depth % 8 == 0)
    plan.mmaDepth = 8;

  // Too few tiles for the GPU's multiprocessors, and a long depth: split
  // it, each part at least kMinimumStepsPerSplit steps.
  if (outputType.hasStaticShape() && !ShapedType::isDynamic(depth) &&
      !ShapedType::isDynamic(batchExtent)) {
    int64_t tiles = batchExtent *
                    llvm::divideCeil(rowExtent, plan.blockRows()) *
                    llvm::divideCeil(columnExtent, plan.blockColumns());
    int64_t steps = llvm::divideCeil(depth, plan.depth);
    // As many parts as fill one wave of blocks: one more block than the
    // wave holds takes a second wave as long as the first (ab-cad-dcb's 25
    // tiles in 11 parts). (No tiles: an extent of 0, nothing to split.)
    int64_t splits =
        tiles == 0 ? 1
                   : std::min<int64_t>(kMultiprocessors *
                                           plan.blocksPerMultiprocessor / tiles,
                                       steps / kMinimumStepsPerSplit);
    if (splits > 1) {
      int64_t stepsPerSplit = llvm::divideCeil(steps, splits);
      plan.depthPerSplit = stepsPerSplit * plan.depth;
      plan.depthSplits = llvm::divideCeil(steps, stepsPerSplit);
    }
  }
  // Each stage holds both tiles of a step; the blocks a multiprocessor
  // holds share its shared memory. No more stages than a block's steps,
  // and none for one step: its stages would only take shared memory from
  // other blocks (ccsd_t's one step of 24: 3 blocks per multiprocessor by
  // registers, 2 by three stages, 7% slower on an H200).
  int64_t blockDepth = plan.depthSplits > 1 ? plan.depthPerSplit : depth;
  int64_t blockSteps = ShapedType::isDynamic(blockDepth)
                           ? asyncStages
                           : llvm::divideCeil(blockDepth, plan.depth);
  if (plan.tensorCores && asyncStages >= 2 && blockSteps >= 2) {
    auto elements = [&](bool rows) {
      std::array<int64_t, 2> shape = plan.tileShape(rows);
      return shape[0] * shape[1];
    };
    int64_t stageBytes = (elements(true) + elements(false)) *
                         outputType.getElementTypeBitWidth() / 8;
    int64_t fitting =
        sharedMemoryBytes / plan.blocksPerMultiprocessor / stageBytes;
    int64_t stages = std::min({asyncStages, fitting, blockSteps});
    plan.asyncStages = stages >= 2 ? stages : 0;
  }
  return plan;
}

std::pair<scf::ParallelOp, SmallVector<Value>>
tensorlang::createBlockGrid(OpBuilder &builder, Location loc,
                            ArrayRef<Value> basis) {
  Value blocks = arith::ConstantIndexOp::create(builder, loc, 1);
  for (Value extent : basis)
    blocks = arith::MulIOp::create(builder, loc, blocks, extent);
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  auto grid = scf::ParallelOp::create(builder, loc, ValueRange{zero},
                                      ValueRange{blocks}, ValueRange{one});
  builder.setInsertionPointToStart(grid.getBody());
  SmallVector<OpFoldResult> extents(basis.begin(), basis.end());
  auto position = affine::AffineDelinearizeIndexOp::create(
      builder, loc, grid.getInductionVars()[0], extents,
      /*hasOuterBound=*/true);
  return {grid, SmallVector<Value>(position.getResults())};
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
  /// elements; with `partialSums`, a split depth's parts go there.
  void emit(bool barriers, Value initialValue, Value partialSums);

private:
  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value lessThan(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  /// The indices of the element at depth `depthIndex` and row or column
  /// `ownIndex` of the rows' (or the columns') tile, as its layout puts
  /// them (GPUContractionPlan::tileShape).
  SmallVector<Value> tileIndices(bool rows, Value depthIndex, Value ownIndex) {
    if (plan.isDepthContiguous(rows))
      return {ownIndex, depthIndex};
    return {depthIndex, ownIndex};
  }
  /// The element of the rows' (or the columns') staged tile `tile` at
  /// depth `depthIndex` and row or column `ownIndex`, in the stage
  /// `tileStage` where the tiles have stages.
  Value loadTile(Value tile, bool rows, Value depthIndex, Value ownIndex) {
    SmallVector<Value> at;
    if (tileStage)
      at.push_back(tileStage);
    llvm::append_range(at, tileIndices(rows, depthIndex, ownIndex));
    return memref::LoadOp::create(b, loc, tile, at);
  }
  /// `linear` (below `extent`, or clamped to its last index) as the
  /// indices of `loops`, the last fastest.
  SmallVector<Value> delinearize(Value linear, Value extent,
                                 ArrayRef<unsigned> loops);
  /// `map` (a projected permutation) at the loop indices `indices`.
  SmallVector<Value> at(AffineMap map, ArrayRef<Value> indices);
  /// The elements of the tile of `input` that each thread stages.
  int64_t getSlots(unsigned input) const;
  /// Where element `slot` of thread `thread`'s share of the tile of
  /// `input` goes in the tile: its depth offset and its row or column.
  std::pair<Value, Value> getSlotOffsets(unsigned input, Value thread,
                                         int64_t slot);
  /// Where the element of the tile of `input` at depth `depthBase` that
  /// getSlotOffsets puts at `depthOffset`, `ownOffset` lies in `input`
  /// (clamped to the last index past the edges), and whether it lies
  /// inside the rows or columns and before depth index `limit`.
  std::pair<SmallVector<Value>, Value>
  getSlotSource(unsigned input, Value depthOffset, Value ownOffset,
                Value depthBase, Value limit);
  /// Loads the share of thread `thread` of the tile of `input` at depth
  /// `depthBase`: zeros past the edges.
  SmallVector<Value> loadSlots(unsigned input, Value thread, Value depthBase);
  /// Copies the same share asynchronously into stage `stage` of `tiles`
  /// (zeros past the edges).
  void copySlotsAsync(unsigned input, Value thread, Value depthBase,
                      Value tiles, Value stage);
  /// Stores a share that loadSlots loaded into `tile`.
  void storeSlots(unsigned input, Value thread, ValueRange values, Value tile);
  /// Sums the staged tiles into the thread's elements `accumulators`, at
  /// the tiles' rows `rowsInTile` and columns `columnsInTile` (row-major:
  /// one per pair); returns the new sums.
  SmallVector<Value> multiplyTiles(ArrayRef<Value> rowsInTile,
                                   ArrayRef<Value> columnsInTile, Value rowTile,
                                   Value columnTile, ValueRange accumulators);
  /// The same on the tensor cores, for the lane of group `group` (lane /
  /// 4) and place `inGroup` (lane % 4) of the warp whose tile starts at
  /// `warpRow`, `warpColumn` of the block's.
  SmallVector<Value> multiplyTilesOnTensorCores(Value group, Value inGroup,
                                                Value warpRow, Value warpColumn,
                                                Value rowTile, Value columnTile,
                                                ValueRange accumulators,
                                                int64_t begin, int64_t end);
  /// Whether each lane's pairs of adjacent columns (the tensor cores')
  /// are adjacent in `target` (the output, or the partial sums with the
  /// part first), at an even element offset: the output's stride-1 index
  /// is the fastest column loop, of an even extent, and every other stride
  /// and the offset are even.
  bool storesColumnPairs(Value target);
  int64_t getElementBytes() const {
    return elementType.getIntOrFloatBitWidth() / 8;
  }
  /// The same with sm_90's m16n8kK shapes, as inline PTX.
  SmallVector<Value>
  multiplyTilesOnTensorCores16(Value group, Value inGroup, Value warpRow,
                               Value warpColumn, Value rowTile,
                               Value columnTile, ValueRange accumulators,
                               int64_t begin, int64_t end);

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
  /// The stage the tiles are multiplied in (asynchronous copies).
  Value tileStage;
  /// The end of the block's part of the depth.
  Value partEnd;
};
} // namespace

SmallVector<Value>
ContractionKernelEmitter::delinearize(Value linear, Value extent,
                                      ArrayRef<unsigned> loops) {
  Value last = arith::SubIOp::create(b, loc, extent, index(1));
  Value clamped = arith::MinUIOp::create(b, loc, linear, last);
  if (loops.size() == 1)
    return {clamped};
  SmallVector<OpFoldResult> basis;
  for (unsigned loop : loops)
    basis.push_back(ranges[loop].size);
  auto split = affine::AffineDelinearizeIndexOp::create(b, loc, clamped, basis,
                                                        /*hasOuterBound=*/true);
  return SmallVector<Value>(split.getResults());
}

bool ContractionKernelEmitter::storesColumnPairs(Value target) {
  if (!plan.tensorCores)
    return false;
  AffineMap outputMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  std::optional<unsigned> innermost = getInnermostLoop(outputMap);
  std::optional<int64_t> extent =
      innermost ? getConstantIntValue(ranges[*innermost].size) : std::nullopt;
  if (innermost != plan.columnLoops.back() || !extent || *extent % 2 != 0)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  auto type = cast<MemRefType>(target.getType());
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1 || ShapedType::isDynamic(offset) || offset % 2 != 0)
    return false;
  return llvm::all_of(ArrayRef<int64_t>(strides).drop_back(), [](int64_t s) {
    return !ShapedType::isDynamic(s) && s % 2 == 0;
  });
}

SmallVector<Value> ContractionKernelEmitter::at(AffineMap map,
                                                ArrayRef<Value> indices) {
  SmallVector<Value> results;
  for (unsigned result = 0; result < map.getNumResults(); ++result)
    results.push_back(indices[map.getDimPosition(result)]);
  return results;
}

std::pair<Value, Value> ContractionKernelEmitter::getSlotOffsets(unsigned input,
                                                                 Value thread,
                                                                 int64_t slot) {
  bool isRows = input == plan.rowInput;
  int64_t width = isRows ? plan.blockRows() : plan.blockColumns();
  bool depthFastest =
      isRows ? plan.rowInputDepthFastest : plan.columnInputDepthFastest;
  Value element = add(thread, index(slot * plan.threads()));
  if (depthFastest && plan.tensorCores) {
    // Runs of kDepthRun depth indices (a 32-byte sector each), the next
    // lanes the next rows: the tensor cores' tile stride (4 modulo 16)
    // then puts a half-warp's stores in distinct banks. Whole runs of 16
    // indices per row took four or five stores per bank (ncu, ccsd6 and
    // TCCG's abcde cases).
    Value run = arith::DivUIOp::create(b, loc, element, index(kDepthRun));
    Value inRun = arith::RemUIOp::create(b, loc, element, index(kDepthRun));
    Value runs = arith::DivUIOp::create(b, loc, run, index(width));
    return {add(mul(runs, index(kDepthRun)), inRun),
            arith::RemUIOp::create(b, loc, run, index(width))};
  }
  if (depthFastest)
    return {arith::RemUIOp::create(b, loc, element, index(plan.depth)),
            arith::DivUIOp::create(b, loc, element, index(plan.depth))};
  return {arith::DivUIOp::create(b, loc, element, index(width)),
          arith::RemUIOp::create(b, loc, element, index(width))};
}

int64_t ContractionKernelEmitter::getSlots(unsigned input) const {
  int64_t width =
      input == plan.rowInput ? plan.blockRows() : plan.blockColumns();
  return plan.depth * width / plan.threads();
}

std::pair<SmallVector<Value>, Value>
ContractionKernelEmitter::getSlotSource(unsigned input, Value depthOffset,
                                        Value ownOffset, Value depthBase,
                                        Value limit) {
  bool isRows = input == plan.rowInput;
  ArrayRef<unsigned> ownLoops = isRows ? plan.rowLoops : plan.columnLoops;
  Value ownExtent = isRows ? rows : columns;
  Value ownBase = isRows ? rowBase : columnBase;
  Value own = add(ownBase, ownOffset);
  Value reduction = add(depthBase, depthOffset);
  SmallVector<Value> indices(blockIndices);
  for (auto [loop, value] :
       llvm::zip(ownLoops, delinearize(own, ownExtent, ownLoops)))
    indices[loop] = value;
  for (auto [loop, value] : llvm::zip(
           plan.depthLoops, delinearize(reduction, depth, plan.depthLoops)))
    indices[loop] = value;
  Value inside = arith::AndIOp::create(b, loc, lessThan(own, ownExtent),
                                       lessThan(reduction, limit));
  AffineMap map = op.getMatchingIndexingMap(op.getDpsInputOperand(input));
  return {at(map, indices), inside};
}

SmallVector<Value> ContractionKernelEmitter::loadSlots(unsigned input,
                                                       Value thread,
                                                       Value depthBase) {
  Value source = op.getDpsInputOperand(input)->get();
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType));
  SmallVector<Value> values;
  for (int64_t slot = 0; slot < getSlots(input); ++slot) {
    auto [depthOffset, ownOffset] = getSlotOffsets(input, thread, slot);
    auto [indices, inside] =
        getSlotSource(input, depthOffset, ownOffset, depthBase, depth);
    Value loaded = memref::LoadOp::create(b, loc, source, indices);
    values.push_back(arith::SelectOp::create(b, loc, inside, loaded, zero));
  }
  return values;
}

void ContractionKernelEmitter::copySlotsAsync(unsigned input, Value thread,
                                              Value depthBase, Value tiles,
                                              Value stage) {
  Value source = op.getDpsInputOperand(input)->get();
  // An element copied from outside the edges, or past the part's depth,
  // copies none of its bytes (cp.async's source size 0), which fills it
  // with zeros: the steps past the part's end read nothing.
  Value one = index(1), none = index(0);
  for (int64_t slot = 0; slot < getSlots(input); ++slot) {
    auto [depthOffset, ownOffset] = getSlotOffsets(input, thread, slot);
    auto [indices, inside] =
        getSlotSource(input, depthOffset, ownOffset, depthBase, partEnd);
    Value copied = arith::SelectOp::create(b, loc, inside, one, none);
    SmallVector<Value> at{stage};
    llvm::append_range(
        at, tileIndices(input == plan.rowInput, depthOffset, ownOffset));
    nvgpu::DeviceAsyncCopyOp::create(b, loc, tiles, at, source, indices,
                                     b.getIndexAttr(1), copied,
                                     /*bypassL1=*/UnitAttr());
  }
}

void ContractionKernelEmitter::storeSlots(unsigned input, Value thread,
                                          ValueRange values, Value tile) {
  for (auto [slot, value] : llvm::enumerate(values)) {
    auto [depthOffset, ownOffset] = getSlotOffsets(input, thread, slot);
    memref::StoreOp::create(
        b, loc, value, tile,
        tileIndices(input == plan.rowInput, depthOffset, ownOffset));
  }
}

SmallVector<Value> ContractionKernelEmitter::multiplyTiles(
    ArrayRef<Value> rowsInTile, ArrayRef<Value> columnsInTile, Value rowTile,
    Value columnTile, ValueRange accumulators) {
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
    for (Value row : rowsInTile)
      rowValues.push_back(loadTile(rowTile, /*rows=*/true, at, row));
    for (Value column : columnsInTile)
      columnValues.push_back(loadTile(columnTile, /*rows=*/false, at, column));
    for (auto [row, rowValue] : llvm::enumerate(rowValues))
      for (auto [column, columnValue] : llvm::enumerate(columnValues)) {
        Value x = rowValue, y = columnValue;
        if (!rowFirst)
          std::swap(x, y);
        Value product = arith::MulFOp::create(b, loc, x, y, fastMath);
        Value &sum = sums[row * columnValues.size() + column];
        sum = arith::AddFOp::create(b, loc, sum, product, fastMath);
      }
  }
  return sums;
}

SmallVector<Value> ContractionKernelEmitter::multiplyTilesOnTensorCores(
    Value group, Value inGroup, Value warpRow, Value warpColumn, Value rowTile,
    Value columnTile, ValueRange accumulators, int64_t begin, int64_t end) {
  using Plan = GPUContractionPlan;
  if (plan.mmaRows == 16)
    return multiplyTilesOnTensorCores16(group, inGroup, warpRow, warpColumn,
                                        rowTile, columnTile, accumulators,
                                        begin, end);
  // Lane t holds A[t / 4][t % 4] of the 8 x 4 rows' fragment, B[t % 4][t /
  // 4] of the 4 x 8 columns' one, and D[t / 4][2 (t % 4) + e], e = 0, 1,
  // of the 8 x 8 sums (shared/notes/gpu-on-mlir22.md, measured).
  Value fragmentRow = group, fragmentDepth = inGroup;
  int64_t mmaRows = plan.warpTileRows() / Plan::kFragmentRows;
  int64_t mmaColumns = plan.warpTileColumns() / Plan::kMmaColumns;
  auto fragmentType = VectorType::get({1, 1}, elementType);
  auto sumsType = VectorType::get({1, 2}, elementType);
  SmallVector<Value> sums(accumulators);
  for (int64_t step = begin; step < end; step += plan.mmaDepth) {
    Value at = add(fragmentDepth, index(step));
    SmallVector<Value> rowFragments, columnFragments;
    for (int64_t row = 0; row < mmaRows; ++row) {
      Value loaded = loadTile(
          rowTile, /*rows=*/true, at,
          add(warpRow, add(fragmentRow, index(row * Plan::kFragmentRows))));
      rowFragments.push_back(
          vector::BroadcastOp::create(b, loc, fragmentType, loaded));
    }
    for (int64_t column = 0; column < mmaColumns; ++column) {
      Value loaded = loadTile(
          columnTile, /*rows=*/false, at,
          add(warpColumn, add(fragmentRow, index(column * Plan::kMmaColumns))));
      columnFragments.push_back(
          vector::BroadcastOp::create(b, loc, fragmentType, loaded));
    }
    for (int64_t row = 0; row < mmaRows; ++row)
      for (int64_t column = 0; column < mmaColumns; ++column) {
        int64_t first = (row * mmaColumns + column) * 2;
        Value current = vector::FromElementsOp::create(
            b, loc, sumsType, ValueRange{sums[first], sums[first + 1]});
        Value result = nvgpu::MmaSyncOp::create(
            b, loc, rowFragments[row], columnFragments[column], current,
            ArrayRef<int64_t>{Plan::kFragmentRows, Plan::kMmaColumns,
                              plan.mmaDepth});
        for (int64_t element = 0; element < 2; ++element)
          sums[first + element] = vector::ExtractOp::create(
              b, loc, result, ArrayRef<int64_t>{0, element});
      }
  }
  return sums;
}

SmallVector<Value> ContractionKernelEmitter::multiplyTilesOnTensorCores16(
    Value group, Value inGroup, Value warpRow, Value warpColumn, Value rowTile,
    Value columnTile, ValueRange accumulators, int64_t begin, int64_t end) {
  using Plan = GPUContractionPlan;
  // mma.sync m16n8kK, K = 4, 8, 16 (PTX ISA, "Matrix Fragments for
  // mma.m16n8k*", .f64): lane t, g = t / 4, u = t % 4, holds
  // A[g + 8 (i % 2)][u + 4 (i / 2)] for i < K / 2, B[u + 4 i][g] for
  // i < K / 4, and D[g + 8 (i / 2)][2 u + i % 2] for i < 4.
  MLIRContext *context = b.getContext();
  int64_t depth = plan.mmaDepth;
  int64_t mmaRows = plan.warpTileRows() / 16;
  int64_t mmaColumns = plan.warpTileColumns() / Plan::kMmaColumns;
  // The thread's sums, row-major: two columns per product and row.
  int64_t columnsPerRow = mmaColumns * 2;
  std::string assembly = "mma.sync.aligned.m16n8k" + std::to_string(depth) +
                         ".row.col.f64.f64.f64.f64 {$0,$1,$2,$3}, {";
  std::string constraints = "=d,=d,=d,=d";
  unsigned operand = 4;
  auto addOperands = [&](int64_t count) {
    for (int64_t i = 0; i < count; ++i) {
      assembly += (i ? ",$" : "$") + std::to_string(operand++);
      constraints += ",d";
    }
  };
  addOperands(depth / 2);
  assembly += "}, {";
  addOperands(depth / 4);
  assembly += "}, {";
  addOperands(4);
  assembly += "};";
  Type f64 = b.getF64Type();
  auto resultType =
      LLVM::LLVMStructType::getLiteral(context, {f64, f64, f64, f64});
  SmallVector<Value> sums(accumulators);
  for (int64_t step = begin; step < end; step += depth) {
    SmallVector<SmallVector<Value>> rowFragments, columnFragments;
    for (int64_t row = 0; row < mmaRows; ++row) {
      SmallVector<Value> fragment;
      for (int64_t i = 0; i < depth / 2; ++i)
        fragment.push_back(loadTile(
            rowTile, /*rows=*/true, add(inGroup, index(step + 4 * (i / 2))),
            add(warpRow, add(group, index(16 * row + 8 * (i % 2))))));
      rowFragments.push_back(std::move(fragment));
    }
    for (int64_t column = 0; column < mmaColumns; ++column) {
      SmallVector<Value> fragment;
      for (int64_t i = 0; i < depth / 4; ++i)
        fragment.push_back(loadTile(
            columnTile, /*rows=*/false, add(inGroup, index(step + 4 * i)),
            add(warpColumn, add(group, index(Plan::kMmaColumns * column)))));
      columnFragments.push_back(std::move(fragment));
    }
    for (int64_t row = 0; row < mmaRows; ++row)
      for (int64_t column = 0; column < mmaColumns; ++column) {
        int64_t sumIndex[4];
        for (int64_t i = 0; i < 4; ++i)
          sumIndex[i] = (2 * row + i / 2) * columnsPerRow + 2 * column + i % 2;
        SmallVector<Value> inputs(rowFragments[row]);
        llvm::append_range(inputs, columnFragments[column]);
        for (int64_t i = 0; i < 4; ++i)
          inputs.push_back(sums[sumIndex[i]]);
        auto product = LLVM::InlineAsmOp::create(
            b, loc, resultType, inputs, assembly, constraints,
            /*has_side_effects=*/false, /*is_align_stack=*/false,
            LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
        product->setAttr(kBlocksPerMultiprocessorAttrName,
                         b.getI32IntegerAttr(plan.blocksPerMultiprocessor));
        for (int64_t i = 0; i < 4; ++i)
          sums[sumIndex[i]] = LLVM::ExtractValueOp::create(
              b, loc, product.getResult(0), ArrayRef<int64_t>{i});
      }
  }
  return sums;
}

void ContractionKernelEmitter::emit(bool barriers, Value initialValue,
                                    Value partialSums) {
  MLIRContext *context = b.getContext();
  b.setInsertionPoint(op);
  ranges = cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(b, loc);
  auto product = [&](ArrayRef<unsigned> loops) {
    Value result = index(1);
    for (unsigned loop : loops)
      result = mul(result,
                   getValueOrCreateConstantIndexOp(b, loc, ranges[loop].size));
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
  Value splits = index(plan.depthSplits);
  Value zero = index(0), one = index(1);

  // Blocks: the column tiles fastest (neighbours share the rows' tile);
  // in groups of rows, the rows fastest within a group, where the plan
  // groups them: a wave of blocks then reads fewer tiles of both inputs.
  auto [blockLoop, blockPosition] =
      createBlockGrid(b, loc, {splits, batches, mul(rowTiles, columnTiles)});
  Value resultTile = blockPosition[2];
  if (plan.tileGroupRows > 1) {
    Value groupRows = index(plan.tileGroupRows);
    Value groupTiles = mul(groupRows, columnTiles);
    Value firstRow =
        mul(arith::DivUIOp::create(b, loc, resultTile, groupTiles), groupRows);
    Value inGroup = arith::RemUIOp::create(b, loc, resultTile, groupTiles);
    // (The last group may have fewer rows.)
    Value rowsInGroup = arith::MinUIOp::create(
        b, loc, arith::SubIOp::create(b, loc, rowTiles, firstRow), groupRows);
    blockPosition[2] =
        add(firstRow, arith::RemUIOp::create(b, loc, inGroup, rowsInGroup));
    blockPosition.push_back(
        arith::DivUIOp::create(b, loc, inGroup, rowsInGroup));
  } else {
    blockPosition[2] = arith::DivUIOp::create(b, loc, resultTile, columnTiles);
    blockPosition.push_back(
        arith::RemUIOp::create(b, loc, resultTile, columnTiles));
  }
  Value split = blockPosition[0];
  Value depthBegin = zero, depthEnd = depth;
  partEnd = depth;
  if (plan.depthSplits > 1) {
    depthBegin = mul(split, index(plan.depthPerSplit));
    depthEnd = arith::MinUIOp::create(
        b, loc, depth, add(depthBegin, index(plan.depthPerSplit)));
    partEnd = depthEnd;
  }
  blockIndices.assign(op.getNumLoops(), zero);
  if (!plan.batchLoops.empty())
    for (auto [loop, value] :
         llvm::zip(plan.batchLoops,
                   delinearize(blockPosition[1], batches, plan.batchLoops)))
      blockIndices[loop] = value;
  rowBase = mul(blockPosition[2], blockRows);
  columnBase = mul(blockPosition[3], blockColumns);

  auto tileType = [&](bool rows, Attribute space) {
    return MemRefType::get(plan.tileShape(rows), elementType, AffineMap(),
                           space);
  };
  // With asynchronous copies, the tiles of every stage: a step's
  // multiplied while the next steps' are copied into the others.
  int64_t stages = barriers ? plan.asyncStages : 0;
  auto stagedTileType = [&](bool rows, Attribute space) {
    std::array<int64_t, 2> shape = plan.tileShape(rows);
    return MemRefType::get({stages, shape[0], shape[1]}, elementType,
                           AffineMap(), space);
  };
  Value tiles[2];
  unsigned rowSlot = plan.rowInput, columnSlot = plan.columnInput;
  if (barriers) {
    // tl-gpu-device-memory makes these shared-memory globals (and
    // tl-gpu-dynamic-shared-memory views of dynamic shared memory, beyond
    // 48 KiB).
    auto workgroup =
        gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup);
    auto type = [&](bool rows) {
      return stages ? stagedTileType(rows, workgroup)
                    : tileType(rows, workgroup);
    };
    tiles[rowSlot] = memref::AllocOp::create(b, loc, type(/*rows=*/true));
    tiles[columnSlot] = memref::AllocOp::create(b, loc, type(/*rows=*/false));
  }

  auto threadLoop = scf::ParallelOp::create(b, loc, ValueRange{zero},
                                            ValueRange{index(plan.threads())},
                                            ValueRange{one});
  b.setInsertionPointToStart(threadLoop.getBody());
  Value thread = threadLoop.getInductionVars()[0];
  if (!barriers) {
    // (On the heap: a stack allocation per iteration of a loop is only
    // freed when the function returns.)
    tiles[rowSlot] =
        memref::AllocOp::create(b, loc, tileType(/*rows=*/true, Attribute()));
    tiles[columnSlot] =
        memref::AllocOp::create(b, loc, tileType(/*rows=*/false, Attribute()));
  }
  // The thread's rows and columns of the block's tile: strided by the
  // thread grid, or where the tensor cores' fragments put them.
  SmallVector<Value> rowsInTile, columnsInTile;
  Value group, inGroup, warpRow, warpColumn;
  if (plan.tensorCores) {
    using Plan = GPUContractionPlan;
    Value warp = arith::DivUIOp::create(b, loc, thread, index(Plan::kWarpSize));
    Value lane = arith::RemUIOp::create(b, loc, thread, index(Plan::kWarpSize));
    warpRow =
        mul(arith::DivUIOp::create(b, loc, warp, index(Plan::kWarpColumns)),
            index(plan.warpTileRows()));
    warpColumn =
        mul(arith::RemUIOp::create(b, loc, warp, index(Plan::kWarpColumns)),
            index(plan.warpTileColumns()));
    // Every fragment shape gives lane t rows t / 4 (+ 8 i) and columns
    // 2 (t % 4) and the next (+ 8 j).
    group = arith::DivUIOp::create(b, loc, lane, index(4));
    inGroup = arith::RemUIOp::create(b, loc, lane, index(4));
    Value fragmentColumn = mul(inGroup, index(2));
    for (int64_t row = 0; row < plan.warpTileRows(); row += Plan::kFragmentRows)
      rowsInTile.push_back(add(warpRow, add(group, index(row))));
    for (int64_t column = 0; column < plan.warpTileColumns();
         column += Plan::kMmaColumns)
      for (int64_t element = 0; element < 2; ++element)
        columnsInTile.push_back(
            add(warpColumn, add(fragmentColumn, index(column + element))));
  } else {
    Value threadRow =
        arith::DivUIOp::create(b, loc, thread, index(plan.threadColumns));
    Value threadColumn =
        arith::RemUIOp::create(b, loc, thread, index(plan.threadColumns));
    for (int64_t row = 0; row < plan.registerRows; ++row)
      rowsInTile.push_back(add(threadRow, index(row * plan.threadRows)));
    for (int64_t column = 0; column < plan.registerColumns; ++column)
      columnsInTile.push_back(
          add(threadColumn, index(column * plan.threadColumns)));
  }

  // The thread's elements of the result, each row and column clamped to
  // the last one (loaded, never stored) past the edges.
  OpOperand *output = op.getDpsInitOperand(0);
  AffineMap outputMap = op.getMatchingIndexingMap(output);
  SmallVector<Value> rowInside, columnInside;
  SmallVector<SmallVector<Value>> elementIndices;
  SmallVector<SmallVector<Value>> rowIndices, columnIndices;
  for (Value rowInTile : rowsInTile) {
    Value position = add(rowBase, rowInTile);
    rowInside.push_back(lessThan(position, rows));
    rowIndices.push_back(delinearize(position, rows, plan.rowLoops));
  }
  for (Value columnInTile : columnsInTile) {
    Value position = add(columnBase, columnInTile);
    columnInside.push_back(lessThan(position, columns));
    columnIndices.push_back(delinearize(position, columns, plan.columnLoops));
  }
  SmallVector<Value> initial;
  for (ArrayRef<Value> rowIndex : rowIndices)
    for (ArrayRef<Value> columnIndex : columnIndices) {
      SmallVector<Value> indices(blockIndices);
      for (auto [loop, value] : llvm::zip(plan.rowLoops, rowIndex))
        indices[loop] = value;
      for (auto [loop, value] : llvm::zip(plan.columnLoops, columnIndex))
        indices[loop] = value;
      if (partialSums)
        initial.push_back(
            arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType)));
      else
        initial.push_back(initialValue
                              ? initialValue
                              : memref::LoadOp::create(b, loc, output->get(),
                                                       at(outputMap, indices)));
      elementIndices.push_back(std::move(indices));
    }

  // The depth in steps: stage both tiles, then multiply them. On the GPU
  // each step's loads are issued before the previous step's tiles are
  // multiplied (their latency hidden behind the multiplications), carried
  // in registers and stored into the tiles at the next step; past the
  // depth they are clamped, and not used. With asynchronous copies, the
  // first stages' copies are issued before the loop; each step waits for
  // its own, and after one barrier (every thread's copies landed, every
  // thread done with the previous step's stage) copies the step
  // `stages - 1` ahead into that stage and multiplies its own.
  unsigned rowInput = plan.rowInput, columnInput = plan.columnInput;
  int64_t rowSlots = getSlots(rowInput), columnSlots = getSlots(columnInput);
  // This thread's share of both tiles of the step at `base`, and those
  // values stored into a pair of tiles.
  auto loadStep = [&](Value base) {
    SmallVector<Value> values = loadSlots(rowInput, thread, base);
    llvm::append_range(values, loadSlots(columnInput, thread, base));
    return values;
  };
  auto storeStep = [&](ValueRange values, Value rowTile, Value columnTile) {
    storeSlots(rowInput, thread, values.take_front(rowSlots), rowTile);
    storeSlots(columnInput, thread, values.drop_front(rowSlots), columnTile);
  };
  // The same share copied into stage `stage` as one group of copies.
  // (Without a branch: the copies' index arithmetic is then scheduled
  // among the multiplications.)
  auto copyStep = [&](Value base, Value stage) {
    copySlotsAsync(rowInput, thread, base, tiles[rowSlot], stage);
    copySlotsAsync(columnInput, thread, base, tiles[columnSlot], stage);
    return nvgpu::DeviceAsyncCreateGroupOp::create(
        b, loc, nvgpu::DeviceAsyncTokenType::get(context), ValueRange{});
  };
  // (On the CPU each thread computes its elements itself, which tests
  // where the fragments put them.)
  auto multiply = [&](Value rowTile, Value columnTile, ValueRange sums,
                      int64_t begin, int64_t end) {
    // (Only the tensor cores' products take part of a step: the stages
    // that split a step's products are theirs.)
    assert(
        ((begin == 0 && end == plan.depth) || (plan.tensorCores && barriers)) &&
        "a part of a step off the tensor cores");
    return plan.tensorCores && barriers
               ? multiplyTilesOnTensorCores(group, inGroup, warpRow, warpColumn,
                                            rowTile, columnTile, sums, begin,
                                            end)
               : multiplyTiles(rowsInTile, columnsInTile, rowTile, columnTile,
                               sums);
  };
  SmallVector<Value> carried(initial);
  Value lastGroup;
  if (stages) {
    for (int64_t stage = 0; stage + 1 < stages; ++stage)
      lastGroup =
          copyStep(add(depthBegin, index(stage * plan.depth)), index(stage));
    // The stage the first step multiplies.
    carried.push_back(zero);
  } else if (barriers) {
    llvm::append_range(carried, loadStep(depthBegin));
  }
  int64_t sumCount = initial.size();
  auto steps = scf::ForOp::create(
      b, loc, depthBegin, depthEnd, index(plan.depth), carried,
      [&](OpBuilder &nested, Location, Value depthBase, ValueRange values) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(nested.getInsertionBlock());
        ValueRange sums = values.take_front(sumCount);
        if (stages) {
          // (The wait counts the groups still pending, whichever token
          // it names: the step's own group is the oldest of `stages - 1`.)
          Value stage = values.back();
          nvgpu::DeviceAsyncWaitOp::create(b, loc, lastGroup,
                                           b.getI32IntegerAttr(stages - 2));
          gpu::BarrierOp::create(b, loc);
          Value last = index(stages - 1);
          Value previous = arith::SelectOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, stage,
                                    zero),
              last, arith::SubIOp::create(b, loc, stage, one));
          // The step's first product before the copies: every warp
          // then has products to issue while the copies' addresses are
          // computed (the 64 x 64 kernels 1.1-1.4x as fast on an H200).
          tileStage = stage;
          SmallVector<Value> results = multiply(
              tiles[rowSlot], tiles[columnSlot], sums, 0, plan.mmaDepth);
          copyStep(add(depthBase, index((stages - 1) * plan.depth)), previous);
          results = multiply(tiles[rowSlot], tiles[columnSlot], results,
                             plan.mmaDepth, plan.depth);
          tileStage = Value();
          results.push_back(arith::SelectOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, stage,
                                    last),
              zero, add(stage, one)));
          scf::YieldOp::create(b, loc, results);
          return;
        }
        SmallVector<Value> next;
        if (barriers) {
          // (Every thread is done with the previous step's tiles.)
          gpu::BarrierOp::create(b, loc);
          storeStep(values.slice(sumCount, rowSlots + columnSlots),
                    tiles[rowSlot], tiles[columnSlot]);
          gpu::BarrierOp::create(b, loc);
          next = loadStep(add(depthBase, index(plan.depth)));
        } else {
          auto everyThread =
              scf::ForOp::create(b, loc, zero, index(plan.threads()), one);
          b.setInsertionPointToStart(everyThread.getBody());
          Value other = everyThread.getInductionVar();
          storeSlots(rowInput, other, loadSlots(rowInput, other, depthBase),
                     tiles[rowSlot]);
          storeSlots(columnInput, other,
                     loadSlots(columnInput, other, depthBase),
                     tiles[columnSlot]);
          b.setInsertionPointAfter(everyThread);
        }
        SmallVector<Value> results =
            multiply(tiles[rowSlot], tiles[columnSlot], sums, 0, plan.depth);
        llvm::append_range(results, next);
        scf::YieldOp::create(b, loc, results);
      });
  // (Copies past the depth may still be pending; none may outlive the
  // block.)
  if (stages)
    nvgpu::DeviceAsyncWaitOp::create(b, loc, lastGroup, b.getI32IntegerAttr(0));

  // Each sum stored where it is inside the result; with the tensor cores'
  // pairs of adjacent columns, as one vector where the pair is adjacent in
  // memory and the buffer aligned for it (half the stores, and whole
  // sectors written at once: ccsd_t's kernels were bound by L2 traffic).
  Value target = partialSums ? partialSums : output->get();
  auto indicesOf = [&](int64_t element) {
    SmallVector<Value> indices;
    if (partialSums)
      indices.push_back(split);
    llvm::append_range(indices, at(outputMap, elementIndices[element]));
    return indices;
  };
  auto storeSums = [&](bool paired) {
    int64_t columnStep = paired ? 2 : 1;
    for (auto [row, rowIn] : llvm::enumerate(rowInside))
      for (int64_t column = 0; column < (int64_t)columnInside.size();
           column += columnStep) {
        int64_t element = row * columnInside.size() + column;
        Value inside =
            arith::AndIOp::create(b, loc, rowIn, columnInside[column]);
        auto store = scf::IfOp::create(b, loc, inside, /*withElse=*/false);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(store.thenBlock());
        if (!paired) {
          memref::StoreOp::create(b, loc, steps.getResult(element), target,
                                  indicesOf(element));
          continue;
        }
        Value pair = vector::FromElementsOp::create(
            b, loc, VectorType::get({2}, elementType),
            ValueRange{steps.getResult(element), steps.getResult(element + 1)});
        vector::StoreOp::create(b, loc, pair, target, indicesOf(element),
                                /*nontemporal=*/false,
                                llvm::Align(2 * getElementBytes()));
      }
  };
  if (!storesColumnPairs(target)) {
    storeSums(/*paired=*/false);
  } else {
    // (The caller's buffer may be a view at any element.)
    Value address =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, target);
    Value misalignment =
        arith::RemUIOp::create(b, loc, address, index(2 * getElementBytes()));
    Value aligned = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          misalignment, zero);
    auto choice = scf::IfOp::create(b, loc, aligned, /*withElse=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(choice.thenBlock());
    storeSums(/*paired=*/true);
    b.setInsertionPointToStart(choice.elseBlock());
    storeSums(/*paired=*/false);
  }

  if (!barriers)
    for (Value tile : tiles)
      memref::DeallocOp::create(b, loc, tile);

  (void)gpu::setMappingAttr(
      threadLoop, {getProcessorMapping(context, gpu::Processor::ThreadX)});
  (void)gpu::setMappingAttr(
      blockLoop, {getProcessorMapping(context, gpu::Processor::BlockX)});
  b.eraseOp(op);
}

void tensorlang::emitGPUContractionKernel(RewriterBase &rewriter,
                                          linalg::GenericOp op,
                                          const GPUContractionPlan &plan,
                                          bool barriers, Value initialValue,
                                          Value partialSums) {
  ContractionKernelEmitter(rewriter, op, plan)
      .emit(barriers, initialValue, partialSums);
}
