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
  // 0 + 0, 0 - 0, 0 * 0 and (controlled) 0 / 0 are 0; so is 0 / s for any
  // scalar s. But s * 0 is undefined for an undefined s, an outer product
  // multiplies padding by real elements, and a contraction sums products
  // at padded result indices: those can leave undefined values.
  if (isa<AddOp, SubOp>(op) || (isa<MulOp>(op) && !isScalar(op->getOperand(0))))
    return preservesZeroPadding(op->getOperand(0)) &&
           preservesZeroPadding(op->getOperand(1));
  if (auto div = dyn_cast<DivOp>(op))
    return preservesZeroPadding(div.getLhs()) &&
           (isScalar(div.getRhs()) || preservesZeroPadding(div.getRhs()));
  return false;
}

/// Recomputes the result types of `op` from its operands' (new) types.
