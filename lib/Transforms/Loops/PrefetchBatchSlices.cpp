//===- PrefetchBatchSlices.cpp - Prefetch the next slice of a batch -------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A batch loop whose body computes on one slice of its buffers per
// iteration prefetches the next iteration's slices, a few lines at a time
// in each iteration of the body's loops.
//
//===----------------------------------------------------------------------===//

#include "AffineOffsets.h"

#include "tensorlang/Dialect/TL/IR/TLAttributes.h"
#include "tensorlang/Transforms/Passes.h"

#include "mlir/Dialect/Affine/Analysis/LoopAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/LoopUtils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

namespace tensorlang {
#define GEN_PASS_DEF_PREFETCHBATCHSLICES
#include "tensorlang/Transforms/Passes.h.inc"
} // namespace tensorlang

using namespace mlir;

namespace {
/// A buffer that a batch loop reads (or writes) one slice of per iteration:
/// every access indexes its first dimension with the iteration's batch
/// index.
struct BatchSlice {
  Value buffer;
  Value batchIndex;
  bool written = false;
  /// The buffer's first extent (ShapedType::kDynamic where a size).
  int64_t batchExtent = 0;
  int64_t sliceElements = 0;
  int64_t elementBytes = 0;
  /// sliceElements x elementBytes (checked not to overflow).
  int64_t bytes = 0;
};

/// A loop of the batch body that the prefetches are spread over.
struct PrefetchHost {
  Operation *loop;
  Value inductionVar;
  int64_t lowerBound;
  int64_t step;
  int64_t trips;
};
} // namespace

/// The constant lower bound, step and trip count of an `scf.for` or
/// `affine.for`.
static std::optional<PrefetchHost> getHost(Operation *op) {
  if (auto loop = dyn_cast<affine::AffineForOp>(op)) {
    std::optional<uint64_t> trips = affine::getConstantTripCount(loop);
    if (!trips || !loop.hasConstantLowerBound())
      return std::nullopt;
    return PrefetchHost{op, loop.getInductionVar(),
                        loop.getConstantLowerBound(), loop.getStepAsInt(),
                        int64_t(*trips)};
  }
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (!lower || !upper || !step || *step <= 0)
      return std::nullopt;
    int64_t trips =
        *upper > *lower ? llvm::divideCeil(*upper - *lower, *step) : 0;
    return PrefetchHost{op, loop.getInductionVar(), *lower, *step, trips};
  }
  return std::nullopt;
}

/// The batch indices of `loop`'s iterations: its induction variable, and
/// each sum of it and values defined outside the loop at the top of its
/// body (a thread's first batch index plus the loop's, with --threads).
static SmallVector<Value> getBatchIndices(Operation *loop, Value iv) {
  SmallVector<Value> indices{iv};
  for (auto apply : iv.getParentBlock()->getOps<affine::AffineApplyOp>()) {
    AffineMap map = apply.getAffineMap();
    std::optional<AffineExpr> ivExpr =
        tensorlang::getOperandExpr(map, apply.getOperands(), iv);
    bool invariantRest = llvm::all_of(apply.getOperands(), [&](Value operand) {
      return operand == iv ||
             !loop->isAncestor(operand.getParentBlock()->getParentOp());
    });
    if (ivExpr && invariantRest &&
        tensorlang::isOffsetOf(map.getResult(0), *ivExpr, map))
      indices.push_back(apply.getResult());
  }
  return indices;
}

/// Whether `indices` of an access to a buffer of rank `rank`, moving a
/// vector over its last `vectorRank` dimensions, stay in the slice of
/// `batchIndex`.
static bool staysInSlice(ValueRange indices, Value batchIndex, int64_t rank,
                         int64_t vectorRank) {
  return !indices.empty() && indices.front() == batchIndex && vectorRank < rank;
}

/// Whether the first index of an affine access (`map` of `operands`, a
/// scalar) is `batchIndex` itself.
static bool isAffineBatchIndex(AffineMap map, ValueRange operands,
                               Value batchIndex) {
  if (map.getNumResults() == 0)
    return false;
  AffineExpr first = map.getResult(0);
  if (auto dim = dyn_cast<AffineDimExpr>(first))
    return operands[dim.getPosition()] == batchIndex;
  if (auto symbol = dyn_cast<AffineSymbolExpr>(first))
    return operands[map.getNumDims() + symbol.getPosition()] == batchIndex;
  return false;
}

/// The slice of `buffer` that each iteration of `loop` touches, if every
/// access of the loop to it indexes its first dimension with the
/// iteration's `batchIndex` and never moves along that dimension.
static std::optional<BatchSlice> getBatchSlice(Value buffer, Value batchIndex,
                                               Operation *loop) {
  // (The batch may be a size: a program compiled once for any number of
  // elements.)
  auto type = dyn_cast<MemRefType>(buffer.getType());
  if (!type || type.getRank() < 2 ||
      ShapedType::isDynamicShape(type.getShape().drop_front()) ||
      !type.getLayout().isIdentity() || !type.getElementType().isIntOrFloat() ||
      type.getElementTypeBitWidth() % 8 != 0)
    return std::nullopt;
  int64_t rank = type.getRank();
  BatchSlice slice{buffer, batchIndex};
  for (Operation *user : buffer.getUsers()) {
    if (!loop->isAncestor(user))
      continue;
    bool inSlice =
        TypeSwitch<Operation *, bool>(user)
            .Case([&](vector::TransferReadOp read) {
              AffineMap map = read.getPermutationMap();
              return !map.isFunctionOfDim(0) &&
                     staysInSlice(read.getIndices(), batchIndex, rank, 0);
            })
            .Case([&](vector::TransferWriteOp write) {
              slice.written = true;
              AffineMap map = write.getPermutationMap();
              return !map.isFunctionOfDim(0) &&
                     staysInSlice(write.getIndices(), batchIndex, rank, 0);
            })
            .Case([&](vector::LoadOp load) {
              return staysInSlice(load.getIndices(), batchIndex, rank,
                                  load.getVectorType().getRank());
            })
            .Case([&](vector::StoreOp store) {
              // Non-temporal stores (tl-streaming-stores) keep the lines
              // out of the caches, where a prefetch would bring them.
              slice.written = true;
              return !store.getNontemporal() &&
                     staysInSlice(store.getIndices(), batchIndex, rank,
                                  store.getVectorType().getRank());
            })
            .Case([&](memref::LoadOp load) {
              return staysInSlice(load.getIndices(), batchIndex, rank, 0);
            })
            .Case([&](memref::StoreOp store) {
              slice.written = true;
              return staysInSlice(store.getIndices(), batchIndex, rank, 0);
            })
            .Case([&](affine::AffineLoadOp load) {
              return isAffineBatchIndex(load.getAffineMap(),
                                        load.getMapOperands(), batchIndex);
            })
            .Case([&](affine::AffineStoreOp store) {
              slice.written = true;
              return isAffineBatchIndex(store.getAffineMap(),
                                        store.getMapOperands(), batchIndex);
            })
            .Case([&](memref::SubViewOp view) {
              // A view of one batch index's slice, whatever is done
              // through it.
              slice.written |=
                  llvm::any_of(view->getUsers(), [](Operation *viewUser) {
                    return !isa<vector::TransferReadOp, vector::LoadOp,
                                memref::LoadOp, affine::AffineLoadOp,
                                affine::AffineVectorLoadOp>(viewUser);
                  });
              return dyn_cast_if_present<Value>(
                         view.getMixedOffsets().front()) == batchIndex &&
                     isConstantIntValue(view.getMixedSizes().front(), 1);
            })
            .Default([](Operation *) { return false; });
    if (!inSlice)
      return std::nullopt;
  }
  slice.batchExtent = type.getDimSize(0);
  slice.elementBytes = type.getElementTypeBitWidth() / 8;
  // (A batch of a size leaves the slice's size unchecked by its type.)
  slice.sliceElements = 1;
  for (int64_t extent : type.getShape().drop_front())
    if (llvm::MulOverflow(slice.sliceElements, extent, slice.sliceElements))
      return std::nullopt;
  if (llvm::MulOverflow(slice.sliceElements, slice.elementBytes, slice.bytes))
    return std::nullopt;
  return slice;
}

/// The batch index after `batchIndex`, or its own where it is the last of
/// `extent` (so that no prefetch goes past the buffer's end).
static Value getNextBatchIndex(Value batchIndex, OpFoldResult extent) {
  OpBuilder builder(batchIndex.getContext());
  if (Operation *definition = batchIndex.getDefiningOp())
    builder.setInsertionPointAfter(definition);
  else
    builder.setInsertionPointToStart(batchIndex.getParentBlock());
  MLIRContext *context = batchIndex.getContext();
  AffineExpr d0 = getAffineDimExpr(0, context);
  AffineExpr s0 = getAffineSymbolExpr(0, context);
  return affine::makeComposedAffineMin(
      builder, batchIndex.getLoc(),
      AffineMap::get(1, 1, {d0 + 1, s0 - 1}, context), {batchIndex, extent});
}

/// Inserts the prefetches of `slices`' next slices into the loops of
/// `hosts`, whose iterations run one after the other in each iteration of
/// `batchLoop`.
static void insertPrefetches(Operation *batchLoop, ArrayRef<BatchSlice> slices,
                             ArrayRef<PrefetchHost> hosts, int64_t lineBytes,
                             int64_t locality) {
  MLIRContext *context = batchLoop->getContext();
  Location loc = batchLoop->getLoc();
  // Flat views of the buffers, and each slice's next batch index.
  OpBuilder builder(batchLoop);
  SmallVector<Value> flatViews, nextIndices;
  llvm::DenseMap<std::tuple<Value, Value, int64_t>, Value> nextIndexOf;
  for (const BatchSlice &slice : slices) {
    auto type = cast<MemRefType>(slice.buffer.getType());
    ReassociationIndices all =
        llvm::to_vector<2>(llvm::seq<int64_t>(0, type.getRank()));
    flatViews.push_back(memref::CollapseShapeOp::create(
        builder, loc, slice.buffer, ArrayRef<ReassociationIndices>{all}));
    // Buffers of one static extent share their next index.
    OpFoldResult extent = builder.getIndexAttr(slice.batchExtent);
    Value extentKey;
    if (ShapedType::isDynamic(slice.batchExtent)) {
      extentKey = memref::DimOp::create(builder, loc, slice.buffer, 0);
      extent = extentKey;
    }
    Value &next = nextIndexOf[{slice.batchIndex, extentKey, slice.batchExtent}];
    if (!next)
      next = getNextBatchIndex(slice.batchIndex, extent);
    nextIndices.push_back(next);
  }
  AffineExpr d0 = getAffineDimExpr(0, context);

  int64_t totalTrips = 0;
  for (const PrefetchHost &host : hosts)
    totalTrips += host.trips;
  int64_t hostsBefore = 0;
  for (const PrefetchHost &host : hosts) {
    OpBuilder hostBuilder =
        OpBuilder::atBlockBegin(&host.loop->getRegion(0).front());
    // The iteration's position among all the hosts' iterations.
    AffineExpr position =
        (d0 - host.lowerBound).floorDiv(host.step) + hostsBefore;
    for (auto [slice, flat, next] :
         llvm::zip_equal(slices, flatViews, nextIndices)) {
      // Slices need not start on a line: one line more covers the last.
      int64_t lines = llvm::divideCeil(slice.bytes, lineBytes) +
                      (slice.bytes % lineBytes != 0 ? 1 : 0);
      int64_t perIteration = llvm::divideCeil(lines, totalTrips);
      int64_t lineElements = lineBytes / slice.elementBytes;
      AffineExpr batch = getAffineDimExpr(1, context);
      for (int64_t line = 0; line < perIteration; ++line) {
        AffineExpr offset = (position * perIteration + line) * lineElements;
        AffineMap map = AffineMap::get(
            2, 0,
            {batch * slice.sliceElements + offset,
             batch * slice.sliceElements + (slice.sliceElements - 1)},
            context);
        Value index = affine::AffineMinOp::create(
            hostBuilder, loc, map, ValueRange{host.inductionVar, next});
        memref::PrefetchOp::create(hostBuilder, loc, flat, ValueRange{index},
                                   /*isWrite=*/slice.written, locality,
                                   /*isDataCache=*/true);
      }
    }
    hostsBefore += host.trips;
  }
}

namespace {
struct PrefetchBatchSlicesPass
    : public tensorlang::impl::PrefetchBatchSlicesBase<
          PrefetchBatchSlicesPass> {
  using PrefetchBatchSlicesBase::PrefetchBatchSlicesBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    tensorlang::TargetDescription target =
        tensorlang::tl::getTargetDescription(func);
    // Outermost loops only (inside the loops that share work among
    // threads): they go through their buffers once, where an inner loop's
    // slices (of a cache tile, a packed block) are usually still in the
    // caches from the loops around it.
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<scf::ForallOp, scf::ParallelOp, affine::AffineParallelOp>(op))
        return WalkResult::advance();
      if (isa<LoopLikeOpInterface>(op)) {
        if (isa<affine::AffineForOp, scf::ForOp>(op))
          prefetch(op, target);
        return WalkResult::skip();
      }
      return WalkResult::advance();
    });
  }

  /// Prefetches the next slices of `loop`'s batch, if it is a batch loop
  /// that computes.
  void prefetch(Operation *loop, const tensorlang::TargetDescription &target) {
    // Any bounds: the batch may be a size.
    Value inductionVar;
    if (auto forOp = dyn_cast<scf::ForOp>(loop)) {
      if (!isConstantIntValue(forOp.getStep(), 1))
        return;
      inductionVar = forOp.getInductionVar();
    } else {
      auto affineFor = cast<affine::AffineForOp>(loop);
      if (affineFor.getStepAsInt() != 1)
        return;
      inductionVar = affineFor.getInductionVar();
    }
    std::optional<PrefetchHost> constantBatch = getHost(loop);
    if (constantBatch && constantBatch->trips < 2)
      return;
    Block &body = loop->getRegion(0).front();
    // Only a body that computes leaves time to fetch the next slices in.
    bool computes =
        body.walk([](vector::FMAOp) { return WalkResult::interrupt(); })
            .wasInterrupted();
    if (!computes)
      return;
    SmallVector<PrefetchHost> hosts;
    for (Operation &op : body)
      if (std::optional<PrefetchHost> host = getHost(&op))
        if (host->trips > 0)
          hosts.push_back(*host);
    if (hosts.empty())
      return;

    llvm::SetVector<Value> buffers;
    body.walk([&](Operation *op) {
      for (Value operand : op->getOperands())
        if (isa<MemRefType>(operand.getType()) &&
            !loop->isAncestor(operand.getParentBlock()->getParentOp()))
          buffers.insert(operand);
    });
    SmallVector<Value> batchIndices = getBatchIndices(loop, inductionVar);
    SmallVector<BatchSlice> slices;
    int64_t bytes = 0;
    for (Value buffer : buffers) {
      std::optional<BatchSlice> slice;
      for (Value batchIndex : batchIndices)
        if ((slice = getBatchSlice(buffer, batchIndex, loop)))
          break;
      if (!slice || slice->bytes < minSliceBytes)
        continue;
      // Slices that fill a good part of the L2 cache would evict the one
      // being computed on; the prefetchers see long streams in them
      // anyway. (Compared before adding: a slice may be near 2^63 bytes.)
      if (slice->bytes > target.l2CacheBytes / 4 - bytes)
        return;
      slices.push_back(*slice);
      bytes += slice->bytes;
    }
    // The prefetches need the next batch indices, defined after the
    // current ones.
    llvm::erase_if(hosts, [&](const PrefetchHost &host) {
      return llvm::any_of(slices, [&](const BatchSlice &slice) {
        Operation *definition = slice.batchIndex.getDefiningOp();
        return definition && host.loop->isBeforeInBlock(definition);
      });
    });
    if (hosts.empty() || slices.empty())
      return;
    // Into L1 where the next slices fit it: a line evicted before its use
    // is still in L2.
    int64_t locality = bytes <= target.l1CacheBytes ? 3 : 2;
    insertPrefetches(loop, slices, hosts, target.cacheLineBytes, locality);
  }
};
} // namespace
