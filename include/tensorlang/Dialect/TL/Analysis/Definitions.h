//===- Definitions.h - Reads of undefined variables -------------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_DIALECT_TL_ANALYSIS_DEFINITIONS_H
#define TENSORLANG_DIALECT_TL_ANALYSIS_DEFINITIONS_H

#include "tensorlang/Dialect/TL/IR/TLOps.h"

namespace tensorlang::tl {

/// Reports reads of variables before they are defined (see
/// --tl-check-definitions): errors in a program with qualifiers, and,
/// if `warnWithoutQualifiers`, warnings in one without. Fails on errors.
mlir::LogicalResult checkDefinitions(ProgramOp program,
                                     bool warnWithoutQualifiers);

} // namespace tensorlang::tl

#endif // TENSORLANG_DIALECT_TL_ANALYSIS_DEFINITIONS_H
