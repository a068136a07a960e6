//===- TranspositionKernel.cpp - A transposition as a tiled GPU kernel ----===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// One thread per element of a transposition writes consecutive elements
// and reads them strided (or the reverse): each warp's 32 reads then touch
// 32 sectors, of which it uses 8 bytes each (TCCG's abcde-ecbfa-fd spent
// 1.25 ms of 2.1 on its result's transposition, 21% of the H100's memory
// bandwidth). A block instead stages a 32 x 32 tile, read along the
// input's stride-1 loop and written along the output's, in shared memory.
//
//===----------------------------------------------------------------------===//

#include "TranspositionKernel.h"

#include "ContractionKernel.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tensorlang;

std::string GPUTranspositionPlan::describe() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "tiles of " << kTile << "x" << kTile << " in shared memory, "
     << kTile * kThreadRows << " threads (read along d" << readLoop
     << ", written along d" << writeLoop << ")";
  return text;
}

std::optional<GPUTranspositionPlan>
tensorlang::planGPUTransposition(linalg::GenericOp op) {
  if (!isElementCopy(op) || op.getNumParallelLoops() != op.getNumLoops())
    return std::nullopt;
  OpOperand *input = op.getDpsInputOperand(0);
  OpOperand *output = op.getDpsInitOperand(0);
  AffineMap inputMap = op.getMatchingIndexingMap(input);
  AffineMap outputMap = op.getMatchingIndexingMap(output);
  if (!isa<MemRefType>(input->get().getType()) ||
      !isa<MemRefType>(output->get().getType()) || !inputMap.isPermutation() ||
      !outputMap.isPermutation() || op.getNumLoops() < 2)
    return std::nullopt;
  GPUTranspositionPlan plan;
  plan.readLoop = *getInnermostLoop(inputMap);
  plan.writeLoop = *getInnermostLoop(outputMap);
  if (plan.readLoop == plan.writeLoop)
    return std::nullopt;
  // (Shorter loops leave most of each tile's threads idle; one thread per
  // element serves them.)
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (unsigned loop : {plan.readLoop, plan.writeLoop})
    if (!ShapedType::isDynamic(ranges[loop]) &&
        ranges[loop] < GPUTranspositionPlan::kTile / 2)
      return std::nullopt;
  for (unsigned loop = 0; loop < op.getNumLoops(); ++loop)
    if (loop != plan.readLoop && loop != plan.writeLoop)
      plan.otherLoops.push_back(loop);
  return plan;
}

void tensorlang::emitGPUTranspositionKernel(RewriterBase &rewriter,
                                            linalg::GenericOp op,
                                            const GPUTranspositionPlan &plan,
                                            bool barriers) {
  using Plan = GPUTranspositionPlan;
  MLIRContext *context = rewriter.getContext();
  Location loc = op.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  auto index = [&](int64_t value) {
    return arith::ConstantIndexOp::create(rewriter, loc, value).getResult();
  };
  auto add = [&](Value x, Value y) {
    return arith::AddIOp::create(rewriter, loc, x, y).getResult();
  };
  auto lessThan = [&](Value x, Value y) {
    return arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, x, y)
        .getResult();
  };
  SmallVector<Range> ranges =
      cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(rewriter, loc);
  auto extent = [&](unsigned loop) {
    return getValueOrCreateConstantIndexOp(rewriter, loc, ranges[loop].size);
  };
  Value readExtent = extent(plan.readLoop);
  Value writeExtent = extent(plan.writeLoop);
  Value tile = index(Plan::kTile);
  Value readTiles = arith::CeilDivUIOp::create(rewriter, loc, readExtent, tile);
  Value writeTiles =
      arith::CeilDivUIOp::create(rewriter, loc, writeExtent, tile);
  Value others = index(1);
  SmallVector<OpFoldResult> otherBasis;
  for (unsigned loop : plan.otherLoops) {
    others = arith::MulIOp::create(rewriter, loc, others, extent(loop));
    otherBasis.push_back(ranges[loop].size);
  }
  Value zero = index(0), one = index(1);

  // Blocks: the read tiles fastest (neighbours read neighbouring tiles).
  auto [blockLoop, position] =
      createBlockGrid(rewriter, loc, {others, writeTiles, readTiles});
  SmallVector<Value> indices(op.getNumLoops(), zero);
  if (otherBasis.size() == 1) {
    indices[plan.otherLoops[0]] = position[0];
  } else if (!otherBasis.empty()) {
    auto split = affine::AffineDelinearizeIndexOp::create(
        rewriter, loc, position[0], otherBasis, /*hasOuterBound=*/true);
    for (auto [loop, value] : llvm::zip(plan.otherLoops, split.getResults()))
      indices[loop] = value;
  }
  Value writeBase = arith::MulIOp::create(rewriter, loc, position[1], tile);
  Value readBase = arith::MulIOp::create(rewriter, loc, position[2], tile);

  Value input = op.getDpsInputOperand(0)->get();
  Value output = op.getDpsInitOperand(0)->get();
  Type elementType = cast<MemRefType>(output.getType()).getElementType();
  // One more column than the tile: the stores along its columns then take
  // distinct banks.
  auto tileType = [&](Attribute space) {
    return MemRefType::get({Plan::kTile, Plan::kTile + 1}, elementType,
                           AffineMap(), space);
  };
  Value staged;
  if (barriers)
    // tl-gpu-device-memory makes it a shared-memory global.
    staged =
        memref::AllocOp::create(rewriter, loc,
                                tileType(gpu::AddressSpaceAttr::get(
                                    context, gpu::AddressSpace::Workgroup)));

  auto threadLoop = scf::ParallelOp::create(
      rewriter, loc, ValueRange{zero},
      ValueRange{index(Plan::kTile * Plan::kThreadRows)}, ValueRange{one});
  rewriter.setInsertionPointToStart(threadLoop.getBody());
  Value thread = threadLoop.getInductionVars()[0];
  if (!barriers)
    // (On the heap: a stack allocation per iteration of a loop is only
    // freed when the function returns.)
    staged = memref::AllocOp::create(rewriter, loc, tileType(Attribute()));
  AffineMap inputMap = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap outputMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  auto at = [&](AffineMap map, Value read, Value write) {
    SmallVector<Value> loopIndices(indices);
    loopIndices[plan.readLoop] = read;
    loopIndices[plan.writeLoop] = write;
    SmallVector<Value> results;
    for (unsigned result = 0; result < map.getNumResults(); ++result)
      results.push_back(loopIndices[map.getDimPosition(result)]);
    return results;
  };
  // Copies each of the thread's kTile / kThreadRows elements of the tile
  // that lies inside the operands: the lane along the input's stride-1
  // loop (`alongRead`) or the output's, the rows kThreadRows apart along
  // the other. `copy` takes the tile's read and write offsets and the
  // operands' indices.
  auto forEachElement =
      [&](Value someThread, bool alongRead,
          function_ref<void(Value, Value, Value, Value)> copy) {
        Value lane = arith::RemUIOp::create(rewriter, loc, someThread, tile);
        Value row =
            arith::DivUIOp::create(rewriter, loc, someThread, tile).getResult();
        for (int64_t part = 0; part < Plan::kTile / Plan::kThreadRows; ++part) {
          Value across = add(row, index(part * Plan::kThreadRows));
          Value readOffset = alongRead ? lane : across;
          Value writeOffset = alongRead ? across : lane;
          Value read = add(readBase, readOffset);
          Value write = add(writeBase, writeOffset);
          Value inside =
              arith::AndIOp::create(rewriter, loc, lessThan(read, readExtent),
                                    lessThan(write, writeExtent));
          auto ifInside = scf::IfOp::create(rewriter, loc, inside);
          OpBuilder::InsertionGuard inner(rewriter);
          rewriter.setInsertionPointToStart(ifInside.thenBlock());
          copy(readOffset, writeOffset, read, write);
        }
      };
  auto stage = [&](Value someThread) {
    forEachElement(
        someThread, /*alongRead=*/true,
        [&](Value readOffset, Value writeOffset, Value read, Value write) {
          Value value = memref::LoadOp::create(rewriter, loc, input,
                                               at(inputMap, read, write));
          memref::StoreOp::create(rewriter, loc, value, staged,
                                  ValueRange{writeOffset, readOffset});
        });
  };
  if (barriers) {
    stage(thread);
    gpu::BarrierOp::create(rewriter, loc);
  } else {
    auto everyThread = scf::ForOp::create(
        rewriter, loc, zero, index(Plan::kTile * Plan::kThreadRows), one);
    OpBuilder::InsertionGuard inner(rewriter);
    rewriter.setInsertionPointToStart(everyThread.getBody());
    stage(everyThread.getInductionVar());
  }
  forEachElement(
      thread, /*alongRead=*/false,
      [&](Value readOffset, Value writeOffset, Value read, Value write) {
        Value value = memref::LoadOp::create(
            rewriter, loc, staged, ValueRange{writeOffset, readOffset});
        memref::StoreOp::create(rewriter, loc, value, output,
                                at(outputMap, read, write));
      });
  if (!barriers)
    memref::DeallocOp::create(rewriter, loc, staged);

  (void)gpu::setMappingAttr(
      threadLoop, {getProcessorMapping(context, gpu::Processor::ThreadX)});
  (void)gpu::setMappingAttr(
      blockLoop, {getProcessorMapping(context, gpu::Processor::BlockX)});
  rewriter.eraseOp(op);
}
