//===- IndexBinding.cpp - Which index each dimension carries --------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Dialect/TL/Analysis/IndexBinding.h"

#include "tensorlang/Dialect/TL/IR/TypeRules.h"

using namespace mlir;

namespace tensorlang::tl {

SmallVector<unsigned> bindTransposeOperand(TransposeOp transpose,
                                           ArrayRef<unsigned> resultIndices) {
  SmallVector<int64_t> permutation =
      getTranspositionPermutation(transpose.getPairs(), resultIndices.size());
  SmallVector<unsigned> operandIndices(resultIndices.size());
  for (auto [result, operand] : llvm::enumerate(permutation))
    operandIndices[operand] = resultIndices[result];
  return operandIndices;
}

std::pair<ArrayRef<unsigned>, ArrayRef<unsigned>>
bindOuterOperands(OuterOp outer, ArrayRef<unsigned> resultIndices) {
  size_t lhsRank = getShapeOf(outer.getLhs()).size();
  return {resultIndices.take_front(lhsRank), resultIndices.drop_front(lhsRank)};
}

SmallVector<unsigned>
bindContractOperand(ContractOp contract, ArrayRef<unsigned> resultIndices,
                    llvm::function_ref<unsigned(int64_t extent)> newIndex) {
  constexpr unsigned kUnbound = ~0u;
  ArrayRef<int64_t> pairs = contract.getPairs();
  ArrayRef<int64_t> shape = getShapeOf(contract.getOperand());
  SmallVector<unsigned> operandIndices(shape.size(), kUnbound);
  for (size_t i = 0; i + 1 < pairs.size(); i += 2)
    operandIndices[pairs[i]] = operandIndices[pairs[i + 1]] =
        newIndex(shape[pairs[i]]);
  const unsigned *next = resultIndices.begin();
  for (unsigned &index : operandIndices)
    if (index == kUnbound)
      index = *next++;
  return operandIndices;
}

} // namespace tensorlang::tl
