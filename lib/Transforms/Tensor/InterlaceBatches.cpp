//===- InterlaceBatches.cpp - Batch slices with the batch index last ------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Elements of 11 x 11 x 11 doubles give every contraction of a CFD kernel
// rows of 11: a vector of 8 and 3 lanes of another, so that almost a third
// of each FMA's lanes compute nothing. With the batch index last in a slice
// of 16 elements, the same contractions take the batch as their columns and
// run two full vectors along it. tl-fuse-batches chooses the slices and
// marks their loop; this pass rotates the chain inside it.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/PatternMatch.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tl-interlace-batches"

namespace tensorlang {
#define GEN_PASS_DEF_INTERLACEBATCHES
#include "tensorlang/Transforms/Passes.h.inc"
} // namespace tensorlang

using namespace mlir;

/// `map` with its first result moved last: the indexing of a tensor whose
/// leading (batch) dimension is moved last.
static AffineMap moveFirstResultLast(AffineMap map) {
  SmallVector<AffineExpr> results(map.getResults().drop_front());
  results.push_back(map.getResult(0));
  return AffineMap::get(map.getNumDims(), map.getNumSymbols(), results,
                        map.getContext());
}

/// The permutation of linalg.transpose that moves the leading dimension of
/// a tensor of `rank` last (its inverse moves it back).
static SmallVector<int64_t> batchLastPermutation(int64_t rank) {
  auto permutation = llvm::to_vector(llvm::seq<int64_t>(1, rank));
  permutation.push_back(0);
  return permutation;
}

static RankedTensorType withBatchLast(RankedTensorType type) {
  SmallVector<int64_t> shape(type.getShape().drop_front());
  shape.push_back(type.getDimSize(0));
  return type.clone(shape);
}

/// `value` copied into a new tensor with its leading dimension last.
static Value transposeBatchLast(RewriterBase &rewriter, Location loc,
                                Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  RankedTensorType rotated = withBatchLast(type);
  Value empty = tensor::EmptyOp::create(rewriter, loc, rotated.getShape(),
                                        rotated.getElementType());
  return linalg::TransposeOp::create(rewriter, loc, value, empty,
                                     batchLastPermutation(type.getRank()))
      ->getResult(0);
}

namespace {
/// The chain of a marked loop's body: its linalg.generics in order, each
/// with its batch loop (the one its result's leading dimension takes), and
/// the last one, whose result the loop inserts into its destination.
struct BatchChain {
  SmallVector<linalg::GenericOp> members;
  SmallVector<unsigned> batchLoops;
  linalg::GenericOp root;
  tensor::InsertSliceOp insert;
};
} // namespace

/// The chain of `loop`, where rotating it computes the same: every member
/// is a generic on static tensors with one result, which it indexes by its
/// batch loop first; every operand that the batch loop indexes has it
/// first; a member's result is read only by later members, through their
/// batch loops, except the root's, which the loop inserts into its
/// destination and yields.
static std::optional<BatchChain> matchBatchChain(scf::ForOp loop) {
  BatchChain chain;
  llvm::SmallPtrSet<Operation *, 8> members;
  for (auto generic : loop.getBody()->getOps<linalg::GenericOp>()) {
    if (!generic.hasPureTensorSemantics() || generic->getNumResults() != 1 ||
        generic.getNumDpsInits() != 1 ||
        !cast<ShapedType>(generic.getResultTypes().front()).hasStaticShape())
      return std::nullopt;
    AffineMap result =
        generic.getMatchingIndexingMap(generic.getDpsInitOperand(0));
    if (!result.isProjectedPermutation() || result.getNumResults() < 2)
      return std::nullopt;
    unsigned batch = result.getDimPosition(0);
    for (OpOperand &operand : generic->getOpOperands()) {
      AffineMap map = generic.getMatchingIndexingMap(&operand);
      if (!map.isProjectedPermutation())
        return std::nullopt;
      bool batched = map.isFunctionOfDim(batch);
      if (batched &&
          (map.getDimPosition(0) != batch ||
           !cast<ShapedType>(operand.get().getType()).hasStaticShape()))
        return std::nullopt;
      // An intermediate of the chain is only ever read by its batch index,
      // and never as an accumulator (which rotatedInit makes anew).
      if (members.contains(operand.get().getDefiningOp()) &&
          (!batched || generic.isDpsInit(&operand)))
        return std::nullopt;
    }
    members.insert(generic);
    chain.members.push_back(generic);
    chain.batchLoops.push_back(batch);
  }
  if (chain.members.empty())
    return std::nullopt;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  if (yield.getNumOperands() != 1)
    return std::nullopt;
  chain.insert = yield.getOperand(0).getDefiningOp<tensor::InsertSliceOp>();
  if (!chain.insert || !chain.insert->hasOneUse())
    return std::nullopt;
  chain.root = chain.insert.getSource().getDefiningOp<linalg::GenericOp>();
  if (!chain.root || chain.root != chain.members.back())
    return std::nullopt;
  int64_t slice =
      cast<ShapedType>(chain.root.getResultTypes().front()).getDimSize(0);
  for (linalg::GenericOp member : chain.members) {
    if (cast<ShapedType>(member.getResultTypes().front()).getDimSize(0) !=
        slice)
      return std::nullopt;
    for (Operation *user : member->getResult(0).getUsers())
      if (member == chain.root ? user != chain.insert.getOperation()
                               : !members.contains(user))
        return std::nullopt;
  }
  return chain;
}

/// The accumulator of the rotation of `member`: a fill of a new tensor where
/// member fills its own, a new tensor where it never reads it, else its
/// accumulator transposed (a value from outside the chain: matchBatchChain
/// refuses members' results as accumulators).
static Value rotatedInit(RewriterBase &rewriter, linalg::GenericOp member) {
  Location loc = member.getLoc();
  OpOperand *init = member.getDpsInitOperand(0);
  auto type = cast<RankedTensorType>(init->get().getType());
  RankedTensorType rotated = withBatchLast(type);
  if (auto fill = init->get().getDefiningOp<linalg::FillOp>()) {
    Value empty = tensor::EmptyOp::create(rewriter, loc, rotated.getShape(),
                                          rotated.getElementType());
    return linalg::FillOp::create(rewriter, loc, fill.getInputs(), empty)
        .getResult(0);
  }
  if (!member.payloadUsesValueFromOperand(init))
    return tensor::EmptyOp::create(rewriter, loc, rotated.getShape(),
                                   rotated.getElementType());
  return transposeBatchLast(rewriter, loc, init->get());
}

/// Computes `chain` with the batch dimension last.
static void interlace(RewriterBase &rewriter, BatchChain &chain) {
  DenseMap<Value, Value> rotatedResults;
  for (auto [member, batch] : llvm::zip(chain.members, chain.batchLoops)) {
    rewriter.setInsertionPoint(member);
    Location loc = member.getLoc();
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (OpOperand *input : member.getDpsInputOperands()) {
      AffineMap map = member.getMatchingIndexingMap(input);
      if (!map.isFunctionOfDim(batch)) {
        inputs.push_back(input->get());
        maps.push_back(map);
        continue;
      }
      maps.push_back(moveFirstResultLast(map));
      inputs.push_back(rotatedResults.contains(input->get())
                           ? rotatedResults.lookup(input->get())
                           : transposeBatchLast(rewriter, loc, input->get()));
    }
    Value init = rotatedInit(rewriter, member);
    maps.push_back(moveFirstResultLast(
        member.getMatchingIndexingMap(member.getDpsInitOperand(0))));
    auto rotated = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, inputs, ValueRange{init},
        maps, member.getIteratorTypesArray());
    rotated->setDiscardableAttrs(member->getDiscardableAttrDictionary());
    rewriter.cloneRegionBefore(member.getRegion(), rotated.getRegion(),
                               rotated.getRegion().end());
    rotatedResults[member->getResult(0)] = rotated->getResult(0);
  }

  // The result goes back into the output's slice, which the root filled or
  // wrote.
  linalg::GenericOp root = chain.root;
  rewriter.setInsertionPoint(chain.insert);
  Value destination = root.getDpsInitOperand(0)->get();
  if (auto fill = destination.getDefiningOp<linalg::FillOp>())
    destination = fill.getOutputs().front();
  auto rank = cast<RankedTensorType>(destination.getType()).getRank();
  Value result =
      linalg::TransposeOp::create(
          rewriter, root.getLoc(), rotatedResults.lookup(root->getResult(0)),
          destination, invertPermutationVector(batchLastPermutation(rank)))
          ->getResult(0);
  rewriter.modifyOpInPlace(
      chain.insert, [&] { chain.insert.getSourceMutable().assign(result); });
  for (linalg::GenericOp member : llvm::reverse(chain.members)) {
    Value init = member.getDpsInitOperand(0)->get();
    rewriter.eraseOp(member);
    if (auto fill = init.getDefiningOp<linalg::FillOp>();
        fill && fill->use_empty())
      rewriter.eraseOp(fill);
  }
}

namespace {
struct InterlaceBatchesPass
    : public tensorlang::impl::InterlaceBatchesBase<InterlaceBatchesPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->hasAttr(tensorlang::kInterlaceBatchesAttrName))
        loops.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops) {
      loop->removeAttr(tensorlang::kInterlaceBatchesAttrName);
      if (std::optional<BatchChain> chain = matchBatchChain(loop))
        interlace(rewriter, *chain);
      else
        LLVM_DEBUG(llvm::dbgs() << "tl-interlace-batches: not a batch chain, "
                                   "left as it is: "
                                << loop.getLoc() << "\n");
    }
  }
};
} // namespace
