//===- ZeroPadding.h - Which values keep zero padding -----------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_DIALECT_TL_ANALYSIS_ZEROPADDING_H
#define TENSORLANG_DIALECT_TL_ANALYSIS_ZEROPADDING_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

namespace tensorlang::tl {

/// Which zero-padding property is asked of a value.
enum class PaddingGuarantee {
  /// Zero in its padding whatever the values in the real regions, undefined
  /// ones included: what every variable must keep after a statement.
  Always,
  /// Zero in its padding whenever the values it reads are defined: what a
  /// contraction needs of its operand to sum over padded dimensions.
  WhenDefined,
};

/// How an op's result gets a guarantee, given its operands': the rules of
/// both analyses below, in one place.
struct ZeroPaddingRule {
  enum class Kind {
    Holds, // always (a variable, tl.zero_padding, a scalar: no padding)
    AllOf, // if every value in `operands` has it
    AnyOf, // if one value in `operands` has it (0 * x = 0)
    Never, // exp 0 = 1, s + 0 = s, log 0 is undefined, ...
  };
  Kind kind;
  llvm::SmallVector<mlir::Value, 2> operands;
};
ZeroPaddingRule getZeroPaddingRule(mlir::Value value,
                                   PaddingGuarantee guarantee);

/// Whether `value`, computed from variables whose padding is zero, is zero
/// in its padding too, whatever the values in the real regions.
bool preservesZeroPadding(mlir::Value value);

/// Whether `value`, computed from variables whose padding is zero, is zero
/// in its padding whenever the values it reads are defined. This is what a
/// contraction needs of its operand to sum over padded dimensions: the
/// report's operations all have it (an undefined value in a padded sum
/// stems from an undefined factor that the real sum has too), but some
/// extensions do not: exp 0 = 1, s + 0 = s, log 0 is undefined.
bool hasZeroPaddingWhenDefined(mlir::Value value);

/// The extents of `value` before padding: the typing rules applied to the
/// `real_shape` of the variables it reads.
llvm::SmallVector<int64_t> getRealShape(mlir::Value value);

} // namespace tensorlang::tl

#endif // TENSORLANG_DIALECT_TL_ANALYSIS_ZEROPADDING_H
