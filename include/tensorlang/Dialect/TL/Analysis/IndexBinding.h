//===- IndexBinding.h - Which index each dimension carries ------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The report's evaluation semantics reads a contraction tree as one sum:
// every dimension of every value carries an index, the leaves are read at
// their dimensions' indices, and each contracted pair introduces a new
// summation index. These functions say how the indices of a tree node's
// result dimensions pass to its operands' dimensions. The linalg lowering
// and the contraction optimizer walk trees with them; the reference
// interpreter deliberately keeps its own walk (lib/Interpreter/Plan.h), so
// that it stays an independent oracle.
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_DIALECT_TL_ANALYSIS_INDEXBINDING_H
#define TENSORLANG_DIALECT_TL_ANALYSIS_INDEXBINDING_H

#include "tensorlang/Dialect/TL/IR/TLOps.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <utility>

namespace tensorlang::tl {

/// The static shape of a value of the tl dialect.
inline llvm::ArrayRef<int64_t> getShapeOf(mlir::Value value) {
  return mlir::cast<mlir::RankedTensorType>(value.getType()).getShape();
}

/// The indices of a transposition's operand dimensions, given those of its
/// result dimensions (rule t-trans: result dimension i is the operand's
/// dimension permutation[i]).
llvm::SmallVector<unsigned>
bindTransposeOperand(TransposeOp transpose,
                     llvm::ArrayRef<unsigned> resultIndices);

/// The indices of an outer product's two operands' dimensions (rule t-prod:
/// the left operand's dimensions come first).
std::pair<llvm::ArrayRef<unsigned>, llvm::ArrayRef<unsigned>>
bindOuterOperands(OuterOp outer, llvm::ArrayRef<unsigned> resultIndices);

/// The indices of a contraction's operand dimensions (rule t-contr): both
/// dimensions of each contracted pair carry a new index, made by
/// `newIndex(extent)` in the order of the pairs; the remaining dimensions
/// carry the result's indices in order.
llvm::SmallVector<unsigned>
bindContractOperand(ContractOp contract, llvm::ArrayRef<unsigned> resultIndices,
                    llvm::function_ref<unsigned(int64_t extent)> newIndex);

} // namespace tensorlang::tl

#endif // TENSORLANG_DIALECT_TL_ANALYSIS_INDEXBINDING_H
