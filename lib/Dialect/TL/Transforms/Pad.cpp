//===- Pad.cpp - The report's padded implementation -----------------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Dialect/TL/Analysis/ZeroPadding.h"
#include "tensorlang/Dialect/TL/IR/TypeRules.h"
#include "tensorlang/Dialect/TL/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

namespace tensorlang::tl {
#define GEN_PASS_DEF_TLPAD
#include "tensorlang/Dialect/TL/Transforms/Passes.h.inc"
} // namespace tensorlang::tl

using namespace mlir;
using namespace tensorlang;
using namespace tensorlang::tl;

static LogicalResult retype(Operation *op) {
  auto inference = dyn_cast<InferTypeOpInterface>(op);
  if (!inference)
    return success();
  SmallVector<Type> types;
  if (failed(inference.inferReturnTypes(
          op->getContext(), op->getLoc(), op->getOperands(),
          op->getAttrDictionary(), op->getPropertiesStorage(),
          op->getRegions(), types)))
    return failure();
  for (auto [result, type] : llvm::zip(op->getResults(), types))
    result.setType(type);
  return success();
}

/// Makes the padding of `value` zero whenever the values it reads are
/// defined, as a contraction needs of its operand: tl.zero_padding goes on
/// the lowest values that lack the property (an exp, a scalar added to a
/// tensor), so that what lies above, say an outer product, is still
/// computed in one loop nest and never stored.
static void zeroPaddingBelow(Value value) {
  if (hasZeroPaddingWhenDefined(value))
    return;
  ZeroPaddingRule rule =
      getZeroPaddingRule(value, PaddingGuarantee::WhenDefined);
  switch (rule.kind) {
  case ZeroPaddingRule::Kind::Holds:
    return;
  case ZeroPaddingRule::Kind::AllOf:
    // Each operand once: zeroing a value replaces its uses (x + x).
    for (Value operand :
         llvm::SetVector<Value>(rule.operands.begin(), rule.operands.end()))
      zeroPaddingBelow(operand);
    return;
  case ZeroPaddingRule::Kind::AnyOf:
    return zeroPaddingBelow(rule.operands.front());
  case ZeroPaddingRule::Kind::Never:
    break;
  }
  Operation *op = value.getDefiningOp();
  SmallVector<int64_t> real = getRealShape(value);
  if (!op || ArrayRef<int64_t>(real) ==
                 cast<RankedTensorType>(value.getType()).getShape())
    return; // nothing is padded
  OpBuilder builder(op->getContext());
  builder.setInsertionPointAfter(op);
  auto zeroed = ZeroPaddingOp::create(builder, value.getLoc(), value.getType(),
                                      value, real);
  value.replaceAllUsesExcept(zeroed.getResult(), zeroed);
}

LogicalResult tl::padProgram(ProgramOp program, int64_t multiple,
                             bool zeroPadding) {
  if (multiple < 1)
    return program.emitError("padding multiple must be at least 1, got ")
           << multiple;
  llvm::StringMap<RankedTensorType> paddedTypes;
  for (VarOp var : program.getVars()) {
    ArrayRef<int64_t> real = var.getRealShapeOrShape();
    std::optional<unsigned> batchDim = var.getBatchDim();
    SmallVector<Extent> padded = getExtents(var.getType());
    for (auto [dim, extent] : llvm::enumerate(real)) {
      // The batch is not padded: each element is. Nor is a size, whose
      // value comes with the caller's arrays.
      if (dim == batchDim || padded[dim].isSized())
        continue;
      int64_t blocks = extent / multiple + (extent % multiple != 0);
      int64_t rounded;
      if (llvm::MulOverflow(blocks, multiple, rounded))
        return var.emitError("padding overflows the extent ") << extent;
      padded[dim].value = rounded;
    }
    RankedTensorType type =
        getTensorType(padded, var.getType().getElementType());
    if (failed(verifyTensorLimits(type, [&] {
          return var.emitError("after padding to a multiple of ")
                 << multiple << ": ";
        })))
      return failure();
    var.setRealShape(real);
    var.setTensorType(type);
    paddedTypes[var.getSymName()] = var.getValueType();
  }

  for (AssignOp assign : program.getStatements()) {
    for (Operation &op : *assign.getBody()) {
      if (auto use = dyn_cast<UseOp>(op)) {
        use.getResult().setType(paddedTypes.lookup(use.getVar()));
        continue;
      }
      // A stack's new dimension is padded like every other extent; its
      // rows beyond the elements are zero.
      // (Its real extent is its number of elements, also when it was padded
      // before, as a variable's is its real_shape.)
      if (auto stack = dyn_cast<StackOp>(op)) {
        auto count = static_cast<int64_t>(stack.getElements().size());
        int64_t rounded = llvm::divideCeil(count, multiple) * multiple;
        if (rounded != count)
          stack.setPaddedExtent(rounded);
        else
          stack.removePaddedExtentAttr();
      }
      if (failed(retype(&op))) {
        return op.emitError("cannot retype after padding");
      }
    }
    if (zeroPadding) {
      SmallVector<ContractOp> contractions(
          assign.getBody()->getOps<ContractOp>());
      for (ContractOp contract : contractions)
        zeroPaddingBelow(contract.getOperand());
    }
    VarOp target = program.lookupVar(assign.getTarget());
    // Hand-written IR can disagree with itself about real extents (a stack
    // padded beyond its elements, assigned to an unpadded variable).
    if (assign.getValue().getType() != target.getValueType())
      return assign.emitError("cannot pad: the statement's value has type ")
             << formatType(cast<RankedTensorType>(assign.getValue().getType()))
             << " after padding, but its variable has type "
             << formatType(target.getValueType());
    SmallVector<int64_t> realValueShape = target.getRealValueShape();
    bool hasPadding =
        target.getValueType().getShape() != ArrayRef<int64_t>(realValueShape);
    Value value = assign.getValue();
    if (!zeroPadding || !hasPadding || preservesZeroPadding(value))
      continue;
    auto yield = cast<YieldOp>(assign.getBody()->getTerminator());
    OpBuilder builder(yield);
    Value zeroed = ZeroPaddingOp::create(
        builder, value.getLoc(), value.getType(), value, realValueShape);
    yield.getValueMutable().assign(zeroed);
  }
  return success();
}

namespace {
struct TLPadPass : public tl::impl::TLPadBase<TLPadPass> {
  using Base::Base;
  void runOnOperation() override {
    if (failed(padProgram(getOperation(), multiple, zeroPadding)))
      signalPassFailure();
  }
};
} // namespace
