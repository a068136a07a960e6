//===- UnusedValues.h - Statements and inputs no one observes ---*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_DIALECT_TL_ANALYSIS_UNUSEDVALUES_H
#define TENSORLANG_DIALECT_TL_ANALYSIS_UNUSEDVALUES_H

#include "tensorlang/Dialect/TL/IR/TLOps.h"

namespace tensorlang::tl {

/// Reports, as warnings (as errors with `asErrors`, then failing):
/// - a statement whose value is never used: its variable is assigned again
///   before any statement reads it, or it is not live-out and no later
///   statement reads it (only possible with qualifiers);
/// - an `input` variable that is not an output and that no statement reads.
/// Such code is legal but almost always a mistake (a misspelt name, a
/// forgotten output qualifier).
mlir::LogicalResult checkUnusedValues(ProgramOp program, bool asErrors);

} // namespace tensorlang::tl

#endif // TENSORLANG_DIALECT_TL_ANALYSIS_UNUSEDVALUES_H
