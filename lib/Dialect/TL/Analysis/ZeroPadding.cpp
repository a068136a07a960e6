//===- ZeroPadding.cpp - Which values keep zero padding -------------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Dialect/TL/Analysis/ZeroPadding.h"
#include "tensorlang/Dialect/TL/IR/TLOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace tensorlang;
using namespace tensorlang::tl;

static bool isScalar(Value value) {
  return cast<RankedTensorType>(value.getType()).getRank() == 0;
}

namespace {
/// hasZeroPaddingWhenDefined over a statement's tree, each value once (a
/// tree written as MLIR may share values, which a plain recursion would
/// revisit exponentially often).
class ZeroWhenDefined {
public:
  bool get(Value value) {
    if (auto it = memo.find(value); it != memo.end())
      return it->second;
    bool result = compute(value);
    memo[value] = result;
    return result;
  }

private:
  bool compute(Value value) {
    Operation *op = value.getDefiningOp();
    if (!op || isScalar(value) || isa<UseOp, ZeroPaddingOp>(op))
      return true;
    // A padded stack's extra rows are zero.
    if (auto stack = dyn_cast<StackOp>(op))
      return llvm::all_of(stack.getElements(),
                          [&](Value element) { return get(element); });
    // f(0) = 0, and a contraction sums products with a padding factor.
    if (isa<TransposeOp, ContractOp, NegOp, SqrtOp, AbsOp>(op))
      return get(op->getOperand(0));
    // Every padded element of an outer product has a padding factor on
    // one side or the other, next to a real element of the other side.
    if (isa<OuterOp>(op))
      return get(op->getOperand(0)) && get(op->getOperand(1));
    std::optional<ArithKind> kind = getArithKind(op);
    if (!kind)
      return false; // exp, log, anything new
    Value lhs = op->getOperand(0), rhs = op->getOperand(1);
    switch (*kind) {
    case ArithKind::Mul: // 0 * x = 0 for a defined x
      if (isScalar(lhs) || isScalar(rhs))
        return get(isScalar(lhs) ? rhs : lhs);
      return get(lhs) || get(rhs);
    case ArithKind::Div: // controlled division: 0 / x = 0 for every x
      return !isScalar(lhs) && get(lhs);
    default: // s + 0 = s, min(0, s) = s
      return !isScalar(lhs) && !isScalar(rhs) && get(lhs) && get(rhs);
    }
  }

  llvm::DenseMap<Value, bool> memo;
};
} // namespace

bool tl::hasZeroPaddingWhenDefined(Value value) {
  return ZeroWhenDefined().get(value);
}

SmallVector<int64_t> tl::getRealShape(Value value) {
  Operation *op = value.getDefiningOp();
  auto type = cast<RankedTensorType>(value.getType());
  if (!op || type.getRank() == 0)
    return SmallVector<int64_t>(type.getShape());
  if (auto use = dyn_cast<UseOp>(op)) {
    auto program = op->getParentOfType<ProgramOp>();
    VarOp var = program ? program.lookupVar(use.getVar()) : VarOp();
    return var ? SmallVector<int64_t>(var.getRealShapeOrShape())
               : SmallVector<int64_t>(type.getShape());
  }
  if (auto zero = dyn_cast<ZeroPaddingOp>(op))
    return SmallVector<int64_t>(zero.getRealShape());
  if (auto stack = dyn_cast<StackOp>(op)) {
    SmallVector<int64_t> shape{int64_t(stack.getElements().size())};
    llvm::append_range(shape, getRealShape(stack.getElements().front()));
    return shape;
  }
  if (auto outer = dyn_cast<OuterOp>(op)) {
    SmallVector<int64_t> shape = getRealShape(outer.getLhs());
    llvm::append_range(shape, getRealShape(outer.getRhs()));
    return shape;
  }
  if (auto contract = dyn_cast<ContractOp>(op)) {
    SmallVector<int64_t> operand = getRealShape(contract.getOperand());
    llvm::SmallBitVector contracted(operand.size());
    for (int64_t index : contract.getPairs())
      contracted.set(index);
    SmallVector<int64_t> shape;
    for (auto [index, extent] : llvm::enumerate(operand))
      if (!contracted.test(index))
        shape.push_back(extent);
    return shape;
  }
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    SmallVector<int64_t> operand = getRealShape(transpose.getOperand());
    SmallVector<int64_t> shape;
    for (int64_t dim :
         getTranspositionPermutation(transpose.getPairs(), operand.size()))
      shape.push_back(operand[dim]);
    return shape;
  }
  // Element-wise: the shape of the operand that is not a broadcast scalar.
  for (Value operand : op->getOperands())
    if (!isScalar(operand))
      return getRealShape(operand);
  return SmallVector<int64_t>(type.getShape());
}

namespace {
/// preservesZeroPadding over a statement's tree, each value once (see
/// ZeroWhenDefined).
class PreservesZero {
public:
  bool get(Value value) {
    if (auto it = memo.find(value); it != memo.end())
      return it->second;
    bool result = compute(value);
    memo[value] = result;
    return result;
  }

private:
  bool compute(Value value) {
    Operation *op = value.getDefiningOp();
    if (!op)
      return false;
    if (isa<UseOp, ZeroPaddingOp>(op))
      return true;
    if (auto transpose = dyn_cast<TransposeOp>(op))
      return get(transpose.getOperand());
    if (auto stack = dyn_cast<StackOp>(op))
      return llvm::all_of(stack.getElements(),
                          [&](Value element) { return get(element); });
    // A literal is a defined scalar; any other scalar may be undefined.
    auto isLiteral = [](Value v) {
      return isa_and_nonnull<ConstantOp>(v.getDefiningOp());
    };
    // 0 + 0, 0 - 0, 0 * 0, min(0, 0), max(0, 0) and (controlled) 0 / 0 are
    // 0; so are 0 / s for any scalar s, c * 0 for a literal c, and -0,
    // sqrt(0), abs(0). But s + 0 is s, s * 0 is undefined for an undefined
    // s, exp(0) is 1 and log(0) undefined, an outer product multiplies
    // padding by real elements, and a contraction sums products at padded
    // result indices: those can leave non-zero values.
    if (isa<NegOp, SqrtOp, AbsOp>(op))
      return get(op->getOperand(0));
    std::optional<ArithKind> kind = getArithKind(op);
    if (!kind)
      return false;
    Value lhs = op->getOperand(0), rhs = op->getOperand(1);
    if (*kind == ArithKind::Div)
      return get(lhs) && (isScalar(rhs) || get(rhs));
    if (*kind == ArithKind::Mul && (isLiteral(lhs) || isLiteral(rhs)))
      return get(isLiteral(lhs) ? rhs : lhs);
    return !isScalar(lhs) && !isScalar(rhs) && get(lhs) && get(rhs);
  }

  llvm::DenseMap<Value, bool> memo;
};
} // namespace

bool tl::preservesZeroPadding(Value value) {
  return PreservesZero().get(value);
}

/// Recomputes the result types of `op` from its operands' (new) types.
