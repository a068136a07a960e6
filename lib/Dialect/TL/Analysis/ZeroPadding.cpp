//===- ZeroPadding.cpp - Which values keep zero padding -------------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Dialect/TL/Analysis/ZeroPadding.h"
#include "tensorlang/Dialect/TL/IR/TLOps.h"

using namespace mlir;
using namespace tensorlang;
using namespace tensorlang::tl;

bool tl::preservesZeroPadding(Value value) {
  Operation *op = value.getDefiningOp();
  auto isScalar = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getRank() == 0;
  };
  if (isa<UseOp, ZeroPaddingOp>(op))
    return true;
  if (auto transpose = dyn_cast<TransposeOp>(op))
    return preservesZeroPadding(transpose.getOperand());
  // A literal is a defined scalar; any other scalar may be undefined.
  auto isLiteral = [](Value v) { return isa<ConstantOp>(v.getDefiningOp()); };
  // 0 + 0, 0 - 0, 0 * 0, min(0, 0), max(0, 0) and (controlled) 0 / 0 are
  // 0; so are 0 / s for any scalar s, c * 0 for a literal c, and -0,
  // sqrt(0), abs(0). But s + 0 is s, s * 0 is undefined for an undefined s,
  // exp(0) is 1 and log(0) undefined, an outer product multiplies padding
  // by real elements, and a contraction sums products at padded result
  // indices: those can leave non-zero values.
  if (isa<NegOp, SqrtOp, AbsOp>(op))
    return preservesZeroPadding(op->getOperand(0));
  std::optional<ArithKind> kind = getArithKind(op);
  if (!kind)
    return false;
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  if (*kind == ArithKind::Div)
    return preservesZeroPadding(lhs) &&
           (isScalar(rhs) || preservesZeroPadding(rhs));
  if (*kind == ArithKind::Mul && (isLiteral(lhs) || isLiteral(rhs)))
    return preservesZeroPadding(isLiteral(lhs) ? rhs : lhs);
  return !isScalar(lhs) && !isScalar(rhs) && preservesZeroPadding(lhs) &&
         preservesZeroPadding(rhs);
}

/// Recomputes the result types of `op` from its operands' (new) types.
