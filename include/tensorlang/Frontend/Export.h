//===- Export.h - Print tl programs as source text --------------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_FRONTEND_EXPORT_H
#define TENSORLANG_FRONTEND_EXPORT_H

#include "mlir/IR/Operation.h"
#include "llvm/Support/raw_ostream.h"

namespace tensorlang {

/// Writes the tl.program in `op` (a tl.program, or a module holding exactly
/// one) as source text with 1-based indices and minimal parentheses.
/// Importing the text again yields the same IR, up to locations and the
/// element type (which the source text does not carry). Reports errors on
/// `op` and fails for IR the language cannot express.
mlir::LogicalResult exportSource(mlir::Operation *op, llvm::raw_ostream &os);

} // namespace tensorlang

#endif // TENSORLANG_FRONTEND_EXPORT_H
