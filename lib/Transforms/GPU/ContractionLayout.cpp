//===- ContractionLayout.cpp - Buffers around a GPU contraction kernel ----===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Rewrites of the buffers a contraction kernel reads and writes, before it
// is emitted: a transposition of its result folded into its output map,
// and inputs it would read strided copied into the order it loads them.
//
//===----------------------------------------------------------------------===//

#include "ContractionKernel.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace tensorlang;

bool tensorlang::isElementCopy(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 0)
    return false;
  auto yield = cast<linalg::YieldOp>(op.getRegion().front().getTerminator());
  return yield.getNumOperands() == 1 &&
         yield.getOperand(0) ==
             op.getMatchingBlockArgument(op.getDpsInputOperand(0));
}

linalg::GenericOp tensorlang::foldOutputTransposition(
    RewriterBase &rewriter, linalg::GenericOp op,
    function_ref<bool(linalg::GenericOp)> accept) {
  Value temporary = op.getDpsInitOperand(0)->get();
  auto alloc = temporary.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != op->getBlock())
    return op;
  // Its uses: this op, a fill of it before, the copy after, a dealloc.
  linalg::GenericOp copy;
  Operation *fill = nullptr;
  memref::DeallocOp dealloc;
  for (Operation *user : temporary.getUsers()) {
    if (user == op.getOperation())
      continue;
    if (auto generic = dyn_cast<linalg::GenericOp>(user);
        generic && isElementCopy(generic) &&
        generic.getDpsInputOperand(0)->get() == temporary && !copy) {
      copy = generic;
      continue;
    }
    if (auto deallocOp = dyn_cast<memref::DeallocOp>(user);
        deallocOp && !dealloc) {
      dealloc = deallocOp;
      continue;
    }
    if (isa<linalg::FillOp>(user) && !fill &&
        user->isBeforeInBlock(op.getOperation())) {
      fill = user;
      continue;
    }
    return op;
  }
  if (!copy || copy->getBlock() != op->getBlock() || !op->isBeforeInBlock(copy))
    return op;
  Value target = copy.getDpsInitOperand(0)->get();
  AffineMap read = copy.getMatchingIndexingMap(copy.getDpsInputOperand(0));
  AffineMap write = copy.getMatchingIndexingMap(copy.getDpsInitOperand(0));
  if (!read.isPermutation() || !write.isPermutation())
    return op;
  // Nothing between the two may touch the target, and the op must not
  // read it.
  for (Operation *between = op->getNextNode(); between != copy.getOperation();
       between = between->getNextNode())
    if (!isMemoryEffectFree(between))
      return op;
  for (OpOperand *input : op.getDpsInputOperands())
    if (input->get() == target)
      return op;
  if (!target.getDefiningOp<memref::AllocOp>() && !isa<BlockArgument>(target))
    return op;
  // The copy stores target[write(l)] = temporary[read(l)].
  AffineMap outputMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  AffineMap composed =
      write.compose(inversePermutation(read)).compose(outputMap);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  maps.back() = composed;
  rewriter.setInsertionPoint(op);
  auto candidate = cast<linalg::GenericOp>(rewriter.clone(*op));
  candidate.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
  candidate.getDpsInitsMutable()[0].set(target);
  bool accepted = accept(candidate);
  rewriter.eraseOp(candidate);
  if (!accepted)
    return op;
  rewriter.modifyOpInPlace(op, [&] {
    op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    op.getDpsInitsMutable()[0].set(target);
  });
  if (fill)
    rewriter.modifyOpInPlace(fill, [&] {
      cast<linalg::FillOp>(fill).getDpsInitsMutable()[0].set(target);
    });
  rewriter.eraseOp(copy);
  if (dealloc)
    rewriter.eraseOp(dealloc);
  rewriter.eraseOp(alloc);
  return op;
}

bool tensorlang::copyInputsIntoLoadOrder(RewriterBase &rewriter,
                                         linalg::GenericOp op,
                                         const GPUContractionPlan &plan) {
  Location loc = op.getLoc();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  auto product = [&](ArrayRef<unsigned> loops) {
    int64_t result = 1;
    for (unsigned loop : loops)
      result = ShapedType::isDynamic(ranges[loop])
                   ? ShapedType::kDynamic
                   : (ShapedType::isDynamic(result) ? result
                                                    : result * ranges[loop]);
    return result;
  };
  bool copied = false;
  for (unsigned input : {plan.rowInput, plan.columnInput}) {
    bool isRows = input == plan.rowInput;
    ArrayRef<unsigned> ownLoops = isRows ? plan.rowLoops : plan.columnLoops;
    AffineMap map = maps[input];
    std::optional<unsigned> innermost = getInnermostLoop(map);
    if (!innermost || *innermost == ownLoops.back() ||
        *innermost == plan.depthLoops.back())
      continue;
    // Read once per tile of the other group: copy where that is more than
    // once, at static extents only (the copy's shape).
    int64_t otherExtent = product(isRows ? plan.columnLoops : plan.rowLoops);
    int64_t otherBlock = isRows ? plan.blockColumns() : plan.blockRows();
    auto type = cast<MemRefType>(op.getDpsInputOperand(input)->get().getType());
    if (ShapedType::isDynamic(otherExtent) || otherExtent <= otherBlock ||
        !type.hasStaticShape())
      continue;
    // The copy's order: the input's loops that are not depth loops as it
    // has them, then the depth loops as the kernel steps through them.
    SmallVector<unsigned> order;
    for (unsigned result = 0; result < map.getNumResults(); ++result)
      if (!llvm::is_contained(plan.depthLoops, map.getDimPosition(result)))
        order.push_back(map.getDimPosition(result));
    for (unsigned loop : plan.depthLoops)
      if (map.isFunctionOfDim(loop))
        order.push_back(loop);
    SmallVector<int64_t> shape;
    SmallVector<unsigned> permutation;
    for (unsigned loop : order) {
      unsigned result =
          *map.getResultPosition(getAffineDimExpr(loop, op.getContext()));
      permutation.push_back(result);
      shape.push_back(type.getDimSize(result));
    }
    rewriter.setInsertionPoint(op);
    Value source = op.getDpsInputOperand(input)->get();
    auto copyType = MemRefType::get(shape, type.getElementType());
    Value copy = memref::AllocOp::create(rewriter, loc, copyType);
    // copy[i] = source[permutation applied to i].
    AffineMap readMap =
        AffineMap::getPermutationMap(permutation, op.getContext());
    readMap = inversePermutation(readMap);
    AffineMap identity =
        AffineMap::getMultiDimIdentityMap(shape.size(), op.getContext());
    SmallVector<utils::IteratorType> iterators(shape.size(),
                                               utils::IteratorType::parallel);
    linalg::GenericOp::create(
        rewriter, loc, ValueRange{source}, ValueRange{copy},
        ArrayRef<AffineMap>{readMap, identity}, iterators,
        [](OpBuilder &builder, Location loc, ValueRange args) {
          linalg::YieldOp::create(builder, loc, args[0]);
        });
    SmallVector<AffineExpr> results;
    for (unsigned loop : order)
      results.push_back(getAffineDimExpr(loop, op.getContext()));
    maps[input] = AffineMap::get(op.getNumLoops(), 0, results, op.getContext());
    rewriter.modifyOpInPlace(op,
                             [&] { op.getDpsInputOperand(input)->set(copy); });
    rewriter.setInsertionPointAfter(op);
    memref::DeallocOp::create(rewriter, loc, copy);
    copied = true;
  }
  if (copied)
    rewriter.modifyOpInPlace(op, [&] {
      op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
  return copied;
}
