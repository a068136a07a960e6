//===- StreamingStores.cpp - Non-temporal stores for large results --------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Versions loop nests that write whole rows, or whole lines, of a large
// argument: where the argument is aligned, the writes become non-temporal
// vector stores.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Dialect/TL/IR/TLAttributes.h"
#include "tensorlang/Transforms/Passes.h"

#include "NonTemporalStores.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/LoopUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace tensorlang {
#define GEN_PASS_DEF_STREAMINGSTORES
#include "tensorlang/Transforms/Passes.h.inc"
} // namespace tensorlang

using namespace mlir;

/// Bytes of a cache line; also the alignment the versioned nest checks.
static constexpr int64_t kLineBytes = tensorlang::kNonTemporalLineBytes;

namespace {
/// A write that can become a non-temporal store, with the alignment its
/// address then has.
struct StreamableWrite {
  vector::TransferWriteOp write;
  int64_t alignment;
};
} // namespace

/// Whether `index`, the last index of a write of `lanes` elements into rows
/// of `extent`, steps through whole rows: the induction variable of a loop
/// from 0 to `extent` by `lanes`, or 0 in rows of one vector (whose loop
/// canonicalization removed).
static bool stepsThroughWholeRows(Value index, int64_t lanes, int64_t extent) {
  if (matchPattern(index, m_Zero()))
    return extent == lanes;
  affine::AffineForOp loop = affine::getForInductionVarOwner(index);
  return loop && loop.hasConstantBounds() &&
         loop.getConstantLowerBound() == 0 &&
         loop.getConstantUpperBound() == extent && loop.getStepAsInt() == lanes;
}

/// Whether `index` is a multiple of `lanes`: a constant one, or the
/// induction variable of a loop (affine or scf) whose lower bound and step
/// are.
static bool isMultipleOf(Value index, int64_t lanes) {
  std::optional<int64_t> constant = getConstantIntValue(index);
  if (constant)
    return *constant % lanes == 0;
  if (affine::AffineForOp loop = affine::getForInductionVarOwner(index))
    return loop.hasConstantLowerBound() &&
           loop.getConstantLowerBound() % lanes == 0 &&
           loop.getStepAsInt() % lanes == 0;
  if (scf::ForOp loop = scf::getForInductionVarOwner(index)) {
    std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    return lower && step && *lower % lanes == 0 && *step % lanes == 0;
  }
  // A loop that threads share (tl-tile-transpositions with threads).
  if (scf::ForallOp loop = scf::getForallOpThreadIndexOwner(index)) {
    unsigned position = cast<BlockArgument>(index).getArgNumber();
    std::optional<int64_t> lower =
        getConstantIntValue(loop.getMixedLowerBound()[position]);
    std::optional<int64_t> step =
        getConstantIntValue(loop.getMixedStep()[position]);
    return lower && step && *lower % lanes == 0 && *step % lanes == 0;
  }
  return false;
}

/// The alignment of every address `write` stores to, given an argument that
/// starts on a line boundary, if it writes whole rows of a multiple of a
/// line with vectors that divide a line, or whole lines (a vector of a
/// line at a multiple of its width) into such rows.
static std::optional<int64_t> streamableAlignment(vector::TransferWriteOp write,
                                                  int64_t minBytes) {
  auto type = dyn_cast<MemRefType>(write.getBase().getType());
  VectorType vectorType = write.getVectorType();
  if (!type || !type.getLayout().isIdentity() ||
      !tensorlang::hasStreamableRows(type, minBytes) ||
      vectorType.getRank() != 1 || write.getMask() ||
      !write.getPermutationMap().isMinorIdentity() ||
      !llvm::all_of(write.getInBoundsValues(), [](bool b) { return b; }))
    return std::nullopt;
  int64_t elementBytes = type.getElementTypeBitWidth() / 8;
  int64_t lanes = vectorType.getDimSize(0);
  int64_t vectorBytes = lanes * elementBytes;
  int64_t extent = type.getShape().back();
  if (!llvm::isPowerOf2_64(vectorBytes) || vectorBytes > kLineBytes)
    return std::nullopt;
  Value index = write.getIndices().back();
  bool wholeLine = vectorBytes == kLineBytes && isMultipleOf(index, lanes);
  if (!wholeLine && !stepsThroughWholeRows(index, lanes, extent))
    return std::nullopt;
  return vectorBytes;
}

/// The buffers whose writes may be streamed: the function's arguments and
/// the temporaries it allocates at its top (whose lines the code reads
/// again only after a nest has written them whole, as a transposed copy of
/// an operand).
static SmallVector<Value> streamableBuffers(Block &entry) {
  SmallVector<Value> buffers(entry.getArguments());
  for (auto alloc : entry.getOps<memref::AllocOp>())
    buffers.push_back(alloc.getResult());
  return buffers;
}

/// The writes of `nest` to the buffers of `entry` (streamableBuffers) that
/// it only writes, each with streamable writes.
static SmallVector<StreamableWrite>
collectStreamableWrites(Operation *nest, Block &entry, int64_t minBytes) {
  SmallVector<StreamableWrite> result;
  for (Value argument : streamableBuffers(entry)) {
    SmallVector<StreamableWrite> writes;
    bool onlyStreamableWrites = true;
    for (Operation *user : argument.getUsers()) {
      if (!nest->isAncestor(user))
        continue;
      auto write = dyn_cast<vector::TransferWriteOp>(user);
      std::optional<int64_t> alignment =
          write && write.getBase() == argument
              ? streamableAlignment(write, minBytes)
              : std::nullopt;
      if (!alignment) {
        onlyStreamableWrites = false;
        break;
      }
      writes.push_back({write, *alignment});
    }
    if (onlyStreamableWrites)
      llvm::append_range(result, writes);
  }
  return result;
}

/// In the streaming copy of a perfect nest the order of the loops no longer
/// matters to the writes (each row leaves whole, through the write-combining
/// buffers), so the loops follow the layout of the largest read instead: it
/// then streams through memory in order, as the prefetchers like. A 5-d
/// transposition runs 1.6 times as fast as in the order of its writes.
static void orderLoopsByLargestRead(affine::AffineForOp root) {
  SmallVector<affine::AffineForOp> loops;
  affine::getPerfectlyNestedLoops(loops, root);
  if (loops.size() < 2)
    return;
  vector::TransferReadOp largest;
  int64_t largestBytes = 0;
  for (auto read : loops.back().getBody()->getOps<vector::TransferReadOp>()) {
    auto type = dyn_cast<MemRefType>(read.getBase().getType());
    if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity() ||
        !type.getElementType().isIntOrFloat())
      continue;
    int64_t bytes = type.getNumElements() * type.getElementTypeBitWidth() / 8;
    if (bytes > largestBytes) {
      largest = read;
      largestBytes = bytes;
    }
  }
  if (!largest)
    return;
  // Each loop's position among the read's indices; the innermost (vector)
  // loop must stay innermost.
  ValueRange indices = largest.getIndices();
  SmallVector<unsigned> positions;
  for (affine::AffineForOp loop : loops) {
    auto it = llvm::find(indices, loop.getInductionVar());
    if (it == indices.end())
      return;
    positions.push_back(std::distance(indices.begin(), it));
  }
  if (positions.back() != indices.size() - 1)
    return;
  SmallVector<unsigned> permutation;
  for (unsigned position : positions)
    permutation.push_back(llvm::count_if(
        positions, [&](unsigned other) { return other < position; }));
  if (llvm::equal(permutation, llvm::seq<unsigned>(0, loops.size())) ||
      !affine::isValidLoopInterchangePermutation(loops, permutation))
    return;
  affine::permuteLoops(loops, permutation);
}

/// Whether every argument that `writes` stream starts on a line, built
/// before `nest`.
static Value buildArgumentsAligned(OpBuilder &builder, Location loc,
                                   ArrayRef<StreamableWrite> writes) {
  llvm::SetVector<Value> streamed;
  for (StreamableWrite entry : writes)
    streamed.insert(entry.write.getBase());
  Value lineBytes = arith::ConstantIndexOp::create(builder, loc, kLineBytes);
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value aligned;
  for (Value buffer : streamed) {
    Value address =
        memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, buffer);
    Value misalignment = arith::RemUIOp::create(builder, loc, address, lineBytes);
    Value isAligned = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::eq, misalignment, zero);
    aligned = aligned ? arith::AndIOp::create(builder, loc, aligned, isAligned)
                      : isAligned;
  }
  return aligned;
}

/// Replaces `nest` by `if (streams) {copy of nest with streaming stores;
/// fence} else {nest}`; without `streams`, where every streamed argument
/// is aligned.
static void versionNest(Operation *nest, ArrayRef<StreamableWrite> writes,
                        bool x86Sfence, Value streams = nullptr) {
  OpBuilder builder(nest);
  Location loc = nest->getLoc();
  if (!streams)
    streams = buildArgumentsAligned(builder, loc, writes);
  auto version = scf::IfOp::create(builder, loc, TypeRange{}, streams,
                                   /*withElseRegion=*/true);
  nest->moveBefore(version.elseBlock()->getTerminator());

  builder.setInsertionPoint(version.thenBlock()->getTerminator());
  IRMapping mapping;
  Operation *streaming = builder.clone(*nest, mapping);
  tensorlang::createNonTemporalFence(builder, loc, x86Sfence);
  // Each thread's stores must be ordered before the threads join.
  if (isa<affine::AffineParallelOp, scf::ForallOp>(streaming)) {
    OpBuilder bodyBuilder(streaming->getRegion(0).front().getTerminator());
    tensorlang::createNonTemporalFence(bodyBuilder, loc, x86Sfence);
  }
  for (StreamableWrite entry : writes) {
    auto write = cast<vector::TransferWriteOp>(mapping.lookup(
        entry.write.getOperation()));
    OpBuilder storeBuilder(write);
    vector::StoreOp::create(storeBuilder, write.getLoc(),
                            write.getValueToStore(), write.getBase(),
                            write.getIndices(), /*nontemporal=*/true,
                            llvm::MaybeAlign(entry.alignment));
    write.erase();
  }
  // In a parallel nest, the loops inside each thread's iterations.
  if (auto loop = dyn_cast<affine::AffineForOp>(streaming))
    orderLoopsByLargestRead(loop);
  else if (auto parallel = dyn_cast<affine::AffineParallelOp>(streaming))
    for (auto inner : parallel.getBody()->getOps<affine::AffineForOp>()) {
      orderLoopsByLargestRead(inner);
      break;
    }
}

//===----------------------------------------------------------------------===//
// Buffers of run-time extents
//===----------------------------------------------------------------------===//

/// The alignment of every address `write` stores to where the rows of its
/// buffer start on lines: a whole line (a vector of 64 bytes), unmasked and
/// in bounds, at an index of the last dimension that is a multiple of the
/// vector's width.
static std::optional<int64_t>
wholeLineAlignment(vector::TransferWriteOp write) {
  auto type = dyn_cast<MemRefType>(write.getBase().getType());
  VectorType vectorType = write.getVectorType();
  if (!type || type.getRank() == 0 || !type.getElementType().isIntOrFloat() ||
      vectorType.getRank() != 1 || write.getMask() ||
      !write.getPermutationMap().isMinorIdentity() ||
      !llvm::all_of(write.getInBoundsValues(), [](bool b) { return b; }))
    return std::nullopt;
  int64_t lanes = vectorType.getDimSize(0);
  if (lanes * type.getElementTypeBitWidth() != kLineBytes * 8 ||
      !isMultipleOf(write.getIndices().back(), lanes))
    return std::nullopt;
  return kLineBytes;
}

/// Whether `type` is a buffer of run-time extents whose rows are contiguous
/// (a last stride of 1) and whose elements are numbers.
static bool hasContiguousRowsOfRunTimeExtent(MemRefType type) {
  if (type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return false;
  auto [strides, offset] = type.getStridesAndOffset();
  return !strides.empty() && strides.back() == 1;
}

/// The buffers of run-time extents whose writes may be streamed: the views
/// of the function's arguments whose extents are sizes (a sized program's
/// function takes each variable as a bare pointer, which one
/// memref.reinterpret_cast at its top gives the sizes' extents and
/// row-major strides), and the temporaries of run-time extents allocated
/// outside any loop (a transposed copy of an operand, at the function's top
/// or in a version of a contraction chosen at run time), which a later
/// nest reads only after one has written them whole.
static SmallVector<Value> sizedBuffers(func::FuncOp func) {
  SmallVector<Value> buffers;
  Block &entry = func.getBody().front();
  for (BlockArgument argument : entry.getArguments()) {
    if (!argument.hasOneUse())
      continue;
    auto view =
        dyn_cast<memref::ReinterpretCastOp>(*argument.getUsers().begin());
    if (view && view->getBlock() == &entry &&
        hasContiguousRowsOfRunTimeExtent(view.getType()))
      buffers.push_back(view);
  }
  func.walk([&](memref::AllocOp alloc) {
    if (alloc.getType().getLayout().isIdentity() &&
        hasContiguousRowsOfRunTimeExtent(alloc.getType()) &&
        !alloc->getParentOfType<LoopLikeOpInterface>())
      buffers.push_back(alloc);
  });
  return buffers;
}

/// Whether `nest` only writes `view`, its bulk a line at a time: every
/// access inside `nest` to `view` or a view of it is a write; those to
/// `view` itself that are unmasked write whole lines (collected into
/// `writes`); masked ones, and those through a subview, are the edges of
/// sizes, and stay ordinary stores (a thread reads its own stores in
/// order, streamed or not). Dims, pointers and prefetches access nothing.
static bool writesOnlyInLines(Operation *nest, Value view,
                              SmallVectorImpl<StreamableWrite> &writes) {
  SmallVector<Value> buffers{view};
  while (!buffers.empty()) {
    Value buffer = buffers.pop_back_val();
    for (OpOperand &use : buffer.getUses()) {
      Operation *user = use.getOwner();
      auto viewLike = dyn_cast<ViewLikeOpInterface>(user);
      if (viewLike && viewLike.getViewSource() == buffer) {
        buffers.push_back(user->getResult(0));
        continue;
      }
      if (!nest->isAncestor(user) ||
          isa<memref::DimOp, memref::PrefetchOp,
              memref::ExtractAlignedPointerAsIndexOp>(user))
        continue;
      auto write = dyn_cast<vector::TransferWriteOp>(user);
      if (write && write.getBase() == buffer) {
        if (buffer != view || write.getMask())
          continue;
        std::optional<int64_t> alignment = wholeLineAlignment(write);
        if (!alignment)
          return false;
        writes.push_back({write, *alignment});
        continue;
      }
      if (auto store = dyn_cast<vector::MaskedStoreOp>(user);
          store && store.getBase() == buffer)
        continue;
      return false;
    }
  }
  return true;
}

/// The outermost loops in `region` that write `view` only, its bulk in
/// whole lines (writesOnlyInLines), each with its streamable writes; none
/// inside a parallel loop unless `x86Sfence` (as for the nests of
/// arguments).
static void collectSizedNests(
    Region &region, Value view, bool x86Sfence,
    SmallVectorImpl<std::pair<Operation *, SmallVector<StreamableWrite>>>
        &nests) {
  for (Block &block : region)
    for (Operation &op : block) {
      if (isa<scf::ForOp, affine::AffineForOp>(op)) {
        SmallVector<StreamableWrite> writes;
        if (writesOnlyInLines(&op, view, writes) && !writes.empty()) {
          nests.emplace_back(&op, std::move(writes));
          continue;
        }
      }
      if (!x86Sfence &&
          isa<affine::AffineParallelOp, scf::ParallelOp, scf::ForallOp>(op))
        continue;
      for (Region &inner : op.getRegions())
        collectSizedNests(inner, view, x86Sfence, nests);
    }
}

/// Streams the writes of each buffer of run-time extents, in the outermost
/// loops that only write it, where the check built after its view
/// (buildStreamableBufferCheck) finds it large and its rows on lines.
static void streamSizedBuffers(func::FuncOp func, int64_t minBytes,
                               bool x86Sfence) {
  for (Value buffer : sizedBuffers(func)) {
    SmallVector<std::pair<Operation *, SmallVector<StreamableWrite>>> nests;
    collectSizedNests(*buffer.getParentRegion(), buffer, x86Sfence, nests);
    if (nests.empty())
      continue;
    OpBuilder builder(buffer.getDefiningOp()->getNextNode());
    Value streams = tensorlang::buildStreamableBufferCheck(
        builder, buffer.getLoc(), buffer, minBytes);
    for (auto &[nest, writes] : nests)
      versionNest(nest, writes, x86Sfence, streams);
  }
}

//===----------------------------------------------------------------------===//
// Rows written through the caches
//===----------------------------------------------------------------------===//

/// The loop of `op`'s innermost enclosing loop when that loop holds no other
/// loop and steps by a constant: scf.for or affine.for.
static std::optional<std::pair<LoopLikeOpInterface, int64_t>>
innermostSteppedLoop(Operation *op) {
  auto loop = dyn_cast_or_null<LoopLikeOpInterface>(op->getParentOp());
  if (!loop || !isa<scf::ForOp, affine::AffineForOp>(op->getParentOp()))
    return std::nullopt;
  std::optional<OpFoldResult> step = loop.getSingleStep();
  std::optional<int64_t> constantStep =
      step ? getConstantIntValue(*step) : std::nullopt;
  if (!constantStep || *constantStep <= 0 || !loop.getSingleInductionVar() ||
      !loop.getSingleUpperBound())
    return std::nullopt;
  bool holdsLoops = false;
  loop->walk([&](LoopLikeOpInterface inner) { holdsLoops |= inner != loop; });
  if (holdsLoops)
    return std::nullopt;
  return std::make_pair(loop, *constantStep);
}

/// Prefetches for writing, `lines` lines ahead, the rows that an innermost
/// loop writes several of at once along their last dimension, a vector per
/// row and step (a transposition's squares, copied along the result's
/// rows). A store that misses the caches waits for its line to be read for
/// ownership, and the core holds few stores in flight; the prefetchers
/// follow one stream of writes, not eight at once. The prefetch stays
/// within the loop's last step, so that no address is past the rows. Left
/// alone: a buffer of at most `cacheBytes` (a block the tiles reuse, whose
/// lines stay in the caches) and a loop that ends within the distance.
static void prefetchRowWrites(func::FuncOp func, int64_t lines,
                              int64_t cacheBytes) {
  if (lines <= 0)
    return;
  llvm::MapVector<Operation *, SmallVector<vector::TransferWriteOp>> rowsOf;
  func.walk([&](vector::TransferWriteOp write) {
    auto type = dyn_cast<MemRefType>(write.getBase().getType());
    if (!type || write.getMask() || write.getVectorType().getRank() != 1 ||
        !write.getPermutationMap().isMinorIdentity() ||
        !type.getElementType().isIntOrFloat() ||
        type.getElementTypeBitWidth() % 8 != 0)
      return;
    int64_t elementBytes = type.getElementTypeBitWidth() / 8;
    if (type.hasStaticShape() &&
        type.getNumElements() * elementBytes <= cacheBytes)
      return;
    std::optional<std::pair<LoopLikeOpInterface, int64_t>> loop =
        innermostSteppedLoop(write);
    if (!loop ||
        write.getIndices().back() != *loop->first.getSingleInductionVar())
      return;
    std::optional<int64_t> lower =
        getConstantIntValue(*loop->first.getSingleLowerBound());
    std::optional<int64_t> upper =
        getConstantIntValue(*loop->first.getSingleUpperBound());
    if (lower && upper &&
        *upper - *lower <=
            std::max<int64_t>(loop->second, lines * kLineBytes / elementBytes))
      return;
    rowsOf[loop->first].push_back(write);
  });
  for (auto &[loopOp, writes] : rowsOf) {
    // One row is a stream the prefetchers follow.
    if (writes.size() < 2)
      continue;
    auto loop = cast<LoopLikeOpInterface>(loopOp);
    int64_t step = *getConstantIntValue(*loop.getSingleStep());
    Location loc = loopOp->getLoc();
    OpBuilder builder(loopOp->getContext());
    builder.setInsertionPointToStart(&loop.getLoopRegions().front()->front());
    Value iv = *loop.getSingleInductionVar();
    Value upper = getValueOrCreateConstantIndexOp(builder, loc,
                                                  *loop.getSingleUpperBound());
    // The first element of the loop's last step.
    Value last = arith::SubIOp::create(
        builder, loc, upper,
        arith::ConstantIndexOp::create(builder, loc, step));
    // The index prefetched, by the distance in elements (a line holds fewer
    // wider elements).
    llvm::SmallDenseMap<int64_t, Value> aheadBy;
    for (vector::TransferWriteOp write : writes) {
      int64_t elementBytes =
          cast<MemRefType>(write.getBase().getType()).getElementTypeBitWidth() /
          8;
      int64_t distance =
          std::max<int64_t>(step, lines * kLineBytes / elementBytes);
      Value &ahead = aheadBy[distance];
      if (!ahead)
        ahead = arith::MinSIOp::create(
            builder, loc,
            arith::AddIOp::create(
                builder, loc, iv,
                arith::ConstantIndexOp::create(builder, loc, distance)),
            last);
      OpBuilder atWrite(write);
      SmallVector<Value> indices(write.getIndices());
      indices.back() = ahead;
      memref::PrefetchOp::create(atWrite, write.getLoc(), write.getBase(),
                                 indices, /*isWrite=*/true,
                                 /*localityHint=*/3, /*isDataCache=*/true);
    }
  }
}

namespace {
struct StreamingStoresPass
    : public tensorlang::impl::StreamingStoresBase<StreamingStoresPass> {
  using StreamingStoresBase::StreamingStoresBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    // The module's target says how non-temporal stores are fenced; without
    // one, the option does.
    bool x86Sfence = this->x86Sfence;
    if (tensorlang::tl::TargetAttr target = tensorlang::tl::getTargetAttr(func))
      x86Sfence = target.getX86Sfence();
    Block &entry = func.getBody().front();
    SmallVector<std::pair<Operation *, SmallVector<StreamableWrite>>> nests;
    for (Operation &op : entry) {
      // A parallel nest needs a fence per iteration, which only sfence
      // makes cheap and lets the OpenMP lowering through.
      bool streamable =
          isa<affine::AffineForOp, scf::ForOp>(op) ||
          (x86Sfence && isa<affine::AffineParallelOp, scf::ForallOp>(op));
      if (!streamable)
        continue;
      SmallVector<StreamableWrite> writes =
          collectStreamableWrites(&op, entry, minBytes);
      if (!writes.empty())
        nests.emplace_back(&op, std::move(writes));
    }
    for (auto &[nest, writes] : nests)
      versionNest(nest, writes, x86Sfence);
    streamSizedBuffers(func, minBytes, x86Sfence);
    prefetchRowWrites(func, prefetchWriteLines,
                      tensorlang::tl::getTargetDescription(func).l2CacheBytes);
  }
};
} // namespace
