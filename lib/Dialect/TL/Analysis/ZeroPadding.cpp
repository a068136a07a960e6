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

using namespace mlir;
using namespace tensorlang;
using namespace tensorlang::tl;

static bool isScalar(Value value) {
  return cast<RankedTensorType>(value.getType()).getRank() == 0;
}

ZeroPaddingRule tl::getZeroPaddingRule(Value value,
                                       PaddingGuarantee guarantee) {
  using Kind = ZeroPaddingRule::Kind;
  bool whenDefined = guarantee == PaddingGuarantee::WhenDefined;
  Operation *op = value.getDefiningOp();
  if (!op)
    return {Kind::Never, {}};
  if (isScalar(value) || isa<UseOp, ZeroPaddingOp>(op))
    return {Kind::Holds, {}};
  // f(0) = 0; a padded stack's extra rows are zero.
  if (isa<TransposeOp, NegOp, SqrtOp, AbsOp, StackOp>(op))
    return {Kind::AllOf, SmallVector<Value, 2>(op->getOperands())};
  // A contraction sums products with a padding factor, and every padded
  // element of an outer product has a padding factor next to a real
  // element: zero as long as that element is defined, undefined otherwise.
  if (isa<ContractOp, OuterOp>(op))
    return whenDefined
               ? ZeroPaddingRule{Kind::AllOf,
                                 SmallVector<Value, 2>(op->getOperands())}
               : ZeroPaddingRule{Kind::Never, {}};
  std::optional<ArithKind> kind = getArithKind(op);
  if (!kind)
    return {Kind::Never, {}}; // exp, log, anything new
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  // A literal is a defined scalar; any other scalar may be undefined.
  auto isLiteral = [](Value v) {
    return isa_and_nonnull<ConstantOp>(v.getDefiningOp());
  };
  switch (*kind) {
  case ArithKind::Div: // controlled division: 0 / x = 0 for every x
    if (isScalar(lhs))
      return {Kind::Never, {}};
    if (whenDefined || isScalar(rhs))
      return {Kind::AllOf, {lhs}};
    return {Kind::AllOf, {lhs, rhs}};
  case ArithKind::Mul: // 0 * x = 0 for a defined x
    if (isLiteral(lhs) || isLiteral(rhs) ||
        (whenDefined && (isScalar(lhs) || isScalar(rhs))))
      return {Kind::AllOf, {isScalar(lhs) ? rhs : lhs}};
    if (isScalar(lhs) || isScalar(rhs))
      return {Kind::Never, {}};
    return whenDefined ? ZeroPaddingRule{Kind::AnyOf, {lhs, rhs}}
                       : ZeroPaddingRule{Kind::AllOf, {lhs, rhs}};
  default: // 0 + 0, min(0, 0) are 0; but s + 0 = s, min(0, s) = s
    if (isScalar(lhs) || isScalar(rhs))
      return {Kind::Never, {}};
    return {Kind::AllOf, {lhs, rhs}};
  }
}

namespace {
/// A guarantee over a statement's tree, each value once (a tree written as
/// MLIR may share values, which a plain recursion would revisit
/// exponentially often).
class ZeroPaddingAnalysis {
public:
  explicit ZeroPaddingAnalysis(PaddingGuarantee guarantee)
      : guarantee(guarantee) {}

  bool get(Value value) {
    if (auto it = memo.find(value); it != memo.end())
      return it->second;
    ZeroPaddingRule rule = getZeroPaddingRule(value, guarantee);
    auto has = [&](Value operand) { return get(operand); };
    bool result = false;
    switch (rule.kind) {
    case ZeroPaddingRule::Kind::Holds:
      result = true;
      break;
    case ZeroPaddingRule::Kind::AllOf:
      result = llvm::all_of(rule.operands, has);
      break;
    case ZeroPaddingRule::Kind::AnyOf:
      result = llvm::any_of(rule.operands, has);
      break;
    case ZeroPaddingRule::Kind::Never:
      break;
    }
    memo[value] = result;
    return result;
  }

private:
  PaddingGuarantee guarantee;
  llvm::DenseMap<Value, bool> memo;
};
} // namespace

bool tl::preservesZeroPadding(Value value) {
  return ZeroPaddingAnalysis(PaddingGuarantee::Always).get(value);
}

bool tl::hasZeroPaddingWhenDefined(Value value) {
  return ZeroPaddingAnalysis(PaddingGuarantee::WhenDefined).get(value);
}

SmallVector<int64_t> tl::getRealShape(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  Operation *op = value.getDefiningOp();
  if (!op || type.getRank() == 0)
    return SmallVector<int64_t>(type.getShape());
  if (auto use = dyn_cast<UseOp>(op)) {
    auto program = op->getParentOfType<ProgramOp>();
    VarOp var = program ? program.lookupVar(use.getVar()) : VarOp();
    return var ? var.getRealValueShape()
               : SmallVector<int64_t>(type.getShape());
  }
  if (auto zero = dyn_cast<ZeroPaddingOp>(op))
    return SmallVector<int64_t>(zero.getRealShape());
  // The typing rules, on the operands' real types. They held on the padded
  // types, and real extents are equal where padded ones are, so they hold
  // here too; should one fail, the padded shape is returned.
  auto realType = [&](Value operand) {
    return RankedTensorType::get(getRealShape(operand), type.getElementType());
  };
  auto quiet = [] { return InFlightDiagnostic(); };
  FailureOr<RankedTensorType> real = type;
  if (auto outer = dyn_cast<OuterOp>(op)) {
    real = inferOuterProductType(realType(outer.getLhs()),
                                 realType(outer.getRhs()), quiet);
  } else if (auto contract = dyn_cast<ContractOp>(op)) {
    real = inferContractionType(realType(contract.getOperand()),
                                contract.getPairs(), IndexBase::Zero, quiet);
  } else if (auto transpose = dyn_cast<TransposeOp>(op)) {
    real = inferTranspositionType(realType(transpose.getOperand()),
                                  transpose.getPairs(), IndexBase::Zero, quiet);
  } else if (auto stack = dyn_cast<StackOp>(op)) {
    SmallVector<RankedTensorType> elements;
    for (Value element : stack.getElements())
      elements.push_back(realType(element));
    real = inferStackType(elements, std::nullopt, quiet);
  } else {
    // Element-wise: the shape of the operand that is not a broadcast scalar.
    for (Value operand : op->getOperands())
      if (!isScalar(operand))
        return getRealShape(operand);
  }
  return SmallVector<int64_t>(succeeded(real) ? real->getShape()
                                              : type.getShape());
}
