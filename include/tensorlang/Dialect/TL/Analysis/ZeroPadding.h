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

namespace tensorlang::tl {

/// Whether `value`, computed from variables whose padding is zero, is zero
/// in its padding too, whatever the values in the real regions.
bool preservesZeroPadding(mlir::Value value);

} // namespace tensorlang::tl

#endif // TENSORLANG_DIALECT_TL_ANALYSIS_ZEROPADDING_H
