//===- AffineOffsets.h - Indices that step with a loop ----------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Whether an affine index is a loop's induction variable plus terms that do
// not depend on it: the index then moves by one element per iteration.
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_LIB_TRANSFORMS_AFFINEOFFSETS_H
#define TENSORLANG_LIB_TRANSFORMS_AFFINEOFFSETS_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/ValueRange.h"
#include "llvm/ADT/STLExtras.h"

#include <optional>

namespace tensorlang {

/// The dimension or symbol by which `map` refers to `value`, which must be
/// among its `operands` exactly once.
inline std::optional<mlir::AffineExpr> getOperandExpr(mlir::AffineMap map,
                                                      mlir::ValueRange operands,
                                                      mlir::Value value) {
  auto position = llvm::find(operands, value);
  if (position == operands.end() || llvm::count(operands, value) != 1)
    return std::nullopt;
  unsigned operand = std::distance(operands.begin(), position);
  if (operand < map.getNumDims())
    return mlir::getAffineDimExpr(operand, map.getContext());
  return mlir::getAffineSymbolExpr(operand - map.getNumDims(),
                                   map.getContext());
}

/// Whether `expr` refers to `operand` (a dimension or symbol).
inline bool refersTo(mlir::AffineExpr expr, mlir::AffineExpr operand) {
  bool refers = false;
  expr.walk([&](mlir::AffineExpr inner) { refers |= inner == operand; });
  return refers;
}

/// Whether `expr`, a result of `map`, is `operand` plus terms without it.
inline bool isOffsetOf(mlir::AffineExpr expr, mlir::AffineExpr operand,
                       mlir::AffineMap map) {
  return !refersTo(mlir::simplifyAffineExpr(expr - operand, map.getNumDims(),
                                            map.getNumSymbols()),
                   operand);
}

} // namespace tensorlang

#endif // TENSORLANG_LIB_TRANSFORMS_AFFINEOFFSETS_H
